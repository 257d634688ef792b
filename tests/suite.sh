#!/usr/bin/env bash
# The whole pytest suite, as `make test` runs it (BIN names the project environment's bin/ folder).
#
# Three pytest runs, two of them side by side:
#   * the remote-seat tests (tests/integration/workers), serially in a run of their own: they share one
#     RabbitMQ broker and one of them stops it for seconds. They mostly wait (worker start-up, the broker's
#     restart, deadlines), so they run in the background, beside the other two, instead of after them;
#   * everything else but the fork tests, on 3 pytest-xdist workers: tests/unit (what `make check` runs),
#     tests/integration (real sandboxes, `league` and worker subprocesses, demo leagues, PostgreSQL),
#     tests/e2e and tests/realcli. Most of them wait on sandboxes, subprocesses and I/O, so 3 workers beat
#     2 cores;
#   * then the tests marked `fork`, alone in one process (the two-worker publish forks only a process
#     running no other thread). They all live in tests/unit/publish (tests/conftest.py refuses a fork test
#     elsewhere), so only that folder is collected.
# The background run's output is printed when it ends; the exit status is non-zero if any run failed.
set -uo pipefail
BIN=${BIN:-.venv/bin}
log=$(mktemp -t league-workers-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

"$BIN/pytest" -q tests/integration/workers >"$log" 2>&1 &
workers=$!
trap 'kill "$workers" 2>/dev/null; rm -f "$log"' INT TERM

"$BIN/pytest" -q -n 3 --ignore=tests/integration/workers -m 'not fork'
main=$?
LEAGUE_TEST_REQUIRE_FORK=1 "$BIN/pytest" -q -m fork tests/unit/publish
fork=$?

wait "$workers"
remote=$?
echo "---- the remote-seat tests (tests/integration/workers, run beside the others) ----"
cat "$log"
echo "---- pytest exit status: main $main, fork $fork, remote seats $remote ----"
[ "$main" -eq 0 ] && [ "$fork" -eq 0 ] && [ "$remote" -eq 0 ]
