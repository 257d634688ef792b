# Two entry points the README names: `make demo` and `make test`. Both install what they need.
SHELL := /bin/bash
SYSTEM_PACKAGES := bubblewrap openssl faketime chromium

.PHONY: deps demo test bench

# System packages: bubblewrap (the seats' sandbox), openssl (the local RFC 3161 authority),
# faketime (lets that authority sign with the demo's simulated time), chromium (the league page's
# browser test). Installed only when missing.
deps:
	@missing=(); command -v bwrap >/dev/null || missing+=(bubblewrap); command -v openssl >/dev/null || missing+=(openssl); \
	command -v faketime >/dev/null || missing+=(faketime); \
	[ -x /usr/bin/chromium ] || missing+=(chromium); \
	if [ $${#missing[@]} -gt 0 ]; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y "$${missing[@]}" >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y "$${missing[@]}"); \
	fi

demo: deps
	pip install -e . && rm -rf demo-out && league demo --out demo-out

test: deps
	pip install -e '.[dev]' && ruff check . && mypy && pytest -q

bench:
	python3 benchmarks/book_bench.py && python3 benchmarks/demo_bench.py
