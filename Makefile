# Two entry points the README names: `make demo` and `make test`. Both install what they need.
SHELL := /bin/bash
export DEBIAN_FRONTEND := noninteractive

.PHONY: deps deps-test demo test bench

# apt-get install only what is missing; refresh the package lists only when a plain install fails.
define apt_missing
	@missing=(); for p in $(1); do \
	  case $$p in bubblewrap) c=bwrap;; chromium) c=/usr/bin/chromium;; *) c=$$p;; esac; \
	  command -v $$c >/dev/null || missing+=($$p); done; \
	if [ $${#missing[@]} -gt 0 ]; then \
	  apt-get install -y "$${missing[@]}" >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y "$${missing[@]}"); \
	fi
endef

# bubblewrap: the seats' sandbox; openssl: the local RFC 3161 authorities; faketime: lets them sign with the
# demo's simulated time.
deps:
	$(call apt_missing,bubblewrap openssl faketime)

# chromium: the league page's browser test.
deps-test: deps
	$(call apt_missing,chromium)

demo: deps
	pip install -e . && rm -rf demo-out && league demo --out demo-out

test: deps-test
	pip install -e '.[dev]' && ruff check . && mypy && pytest -q

bench:
	python3 benchmarks/book_bench.py && python3 benchmarks/demo_bench.py --runs 3 --long
