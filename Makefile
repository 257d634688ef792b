# The entry points the README names: `make demo`, `make check`, `make test` and `make dist`. They install what
# they need into the
# project's own virtual environment `.venv/` (Debian's system Python refuses `pip install` outside one:
# PEP 668, "externally-managed-environment"). `VENV=/path make test` uses another one.
SHELL := /bin/bash
export DEBIAN_FRONTEND := noninteractive
VENV ?= .venv
BIN := $(VENV)/bin
# Commands run by the targets (and the tests' `league` subprocesses) come from the project environment first.
export PATH := $(abspath $(BIN)):$(PATH)

# Every install pins its versions to the lock file (pip constraints: what the lock names is installed at its
# version, what an extra does not need is not installed). `make lock` regenerates it (docs/operations.md).
LOCK := requirements/lock.txt
PIP_INSTALL = $(BIN)/pip install -q -c $(LOCK)

.PHONY: deps deps-test venv clis demo check test dist bench lock

# apt-get install only what is missing (a command looked up on PATH; a library, which has none, asked of dpkg);
# refresh the package lists only when a plain install fails.
define apt_missing
	@missing=(); for p in $(1); do \
	  case $$p in bubblewrap) c=bwrap;; chromium) c=/usr/bin/chromium;; rabbitmq-server) c=rabbitmqctl;; \
	    chromium-driver) c=/usr/bin/chromedriver;; iproute2) c=ip;; lib*) c=;; *) c=$$p;; esac; \
	  if [ -n "$$c" ]; then command -v $$c >/dev/null; else dpkg -s $$p >/dev/null 2>&1; fi || missing+=($$p); done; \
	if [ $${#missing[@]} -gt 0 ]; then \
	  apt-get install -y "$${missing[@]}" >/dev/null 2>&1 || (apt-get update >/dev/null && apt-get install -y "$${missing[@]}"); \
	fi
endef

# bubblewrap: the seats' sandbox; libseccomp2: the library its system-call filter is built with (through the
# pyseccomp binding; sandbox/seccomp.py); socat: the forwarder inside a networked sandbox to its egress proxy;
# openssl: a reader's `openssl ts -verify` of the RFC 3161 tokens (league verify step 9 runs it too).
deps:
	$(call apt_missing,bubblewrap libseccomp2 socat openssl)

# chromium: the league page's browser tests; chromium-driver: the WebDriver Selenium drives it through (the
# readers' form test); npm (with Node.js), g++ and make: the real vendor CLIs the tests run (Gemini CLI compiles node-pty); rabbitmq-server: the broker of the remote-seat tests (.ci/run
# starts it); iproute2: their lab hosts in network namespaces; nginx: the page under deploy/'s URL prefix.
deps-test: deps
	$(call apt_missing,chromium chromium-driver npm g++ make rabbitmq-server iproute2 nginx)

# The four real vendor CLIs at pinned versions, from the npm registry, cached outside the repository
# (tests/realcli/clis.py says where; reused until a pin or the Node version changes).
clis: deps-test venv
	$(BIN)/python tests/realcli/clis.py

# The project environment. Debian ships `venv` apart from python3 (package python3-venv).
venv:
	@test -x $(BIN)/python || python3 -m venv $(VENV) 2>/dev/null || { \
	  rm -rf $(VENV); apt-get install -y python3-venv >/dev/null 2>&1 || \
	  (apt-get update >/dev/null && apt-get install -y python3-venv); python3 -m venv $(VENV); }
	@$(BIN)/python -m pip install -q --upgrade pip

# The demo runs a whole league offline: the `demo` extra (the daemon's set: statistics, scheduler, database).
demo: deps venv
	$(PIP_INSTALL) -e '.[demo]' && rm -rf demo-out && $(BIN)/league demo --out demo-out

# The suite: ruff, mypy and the import contracts, then tests/suite.sh (three pytest runs, the remote-seat
# tests beside the others; the script says why).
test: deps-test venv clis
	$(PIP_INSTALL) -e '.[dev]' && $(BIN)/ruff check . && $(BIN)/mypy && $(BIN)/lint-imports \
	  && BIN=$(BIN) tests/suite.sh

# The quick gate before a commit (a few minutes): ruff, mypy, the import contracts and the unit tests (the fork
# tests among them alone in one process, as in tests/suite.sh); no browser, vendor CLI or broker needed. The
# tests that start real sandboxes, `league` or worker subprocesses, demo leagues, PostgreSQL or the broker live in
# tests/integration (tests/e2e and tests/realcli beside it) and run in `make test` only.
check: deps venv
	$(PIP_INSTALL) -e '.[dev]' && $(BIN)/ruff check . && $(BIN)/mypy && $(BIN)/lint-imports \
	  && $(BIN)/pytest -q -p no:cacheprovider -n 3 -m 'not fork' tests/unit \
	  && LEAGUE_TEST_REQUIRE_FORK=1 $(BIN)/pytest -q -p no:cacheprovider -m fork tests/unit/publish \
	  && echo "make check ran tests/unit only; make test runs tests/integration, tests/e2e and tests/realcli too"

# A release: the sdist and the wheel in dist/ (`pip install dist/forecast_league-VERSION-py3-none-any.whl`,
# README.md "Which install for whom"). The build backend comes from pyproject.toml's [build-system].
dist: venv
	$(PIP_INSTALL) build && rm -rf dist && $(BIN)/python -m build --outdir dist . >/dev/null && ls dist

# Regenerate the lock from pyproject.toml's dependencies and every extra (`[dev]` pulls them all): the pins
# already there are kept unless LOCK_FLAGS=--upgrade (or --upgrade-package NAME) asks for newer ones.
LOCK_FLAGS ?=
lock: venv
	$(BIN)/pip install -q pip-tools && $(BIN)/pip-compile -q --extra dev --strip-extras --allow-unsafe \
	  --no-emit-index-url --no-emit-find-links $(LOCK_FLAGS) --output-file $(LOCK) pyproject.toml
	@# [dev] names the project's own extras, so pip-compile pins the project itself at this checkout's path:
	@# drop that entry (and its "# via" lines), or a clean clone elsewhere could not install with the lock.
	awk '/^forecast-league @ /{skip=1; next} skip && /^ /{next} {skip=0; print}' $(LOCK) > $(LOCK).tmp && mv $(LOCK).tmp $(LOCK)

bench: venv
	$(BIN)/python benchmarks/book_bench.py && $(BIN)/python benchmarks/demo_bench.py --runs 3 --long
