"""Benchmark: what the egress proxy adds to a networked seat (start, per request) and the fan-out
spread of 14 networked seats. Not a test; run by hand (as root, for the shared service), copy the
figures into docs/sandbox.md:

    python benchmarks/egress_proxy.py [--runs 15] [--rounds 7] [--seats 14] [--requests 20]
                                      [--modes shared,per-run] [--forwarder-only]

Each measure is made for each way a run reaches its proxy (``LEAGUE_SANDBOX_EGRESS``): ``shared``
(a prepared namespace whose 127.0.0.1:3128 the league's one egress service accepts on) and ``per-run``
(a proxy forked per run, a forwarder inside the sandbox).

All in the same go, on one machine, against a local HTTP server on 127.0.0.1 (nothing leaves it):
1. Start: median wall time of ``/bin/true`` through ``BwrapSandbox.exec`` under policy ``api``
   (proxy launched in parallel, forwarder up, proxy stopped) minus the same under ``none`` (baseline);
   and the time to a seat's first answered request: a sandboxed Python making one GET under ``api``
   minus the same Python importing urllib and making none under ``none``.
2. Per request: a sandboxed Python client makes REQUESTS sequential GETs to the local server, once
   under ``api`` (through forwarder and proxy) and once outside any sandbox directly (baseline);
   (median per-request time inside) minus (median per-request time direct).
3. Spread: SEATS threads wait at a barrier, then each starts ``date +%s%N`` in its own sandbox under
   ``api``; spread = last start − first start per round, median over rounds; the same under ``none``
   is the baseline of the same run. The variants take turns round by round (the machine's load hits
   them alike) and are printed side by side with their ratio to ``none``. ``--forwarder-only`` adds a
   variant ``api (per-run, no proxy)``: the per-run way with no proxy started at all (the sandbox, its
   forwarder and readiness poll only), which splits the per-run cost between forwarder and proxies.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import platform
import statistics
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator

from sandbox_launch import spread_once

from sandbox import netpolicy
from sandbox.bwrap import BwrapSandbox
from sandbox.netpolicy import EgressRules

REQUESTS_CODE = """
import sys, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(n):
    t = time.perf_counter(); urllib.request.urlopen(url, timeout=10).read(); times.append(time.perf_counter() - t)
times.sort(); print(times[len(times) // 2])
"""


class Quiet(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args: object) -> None:
        return

    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def median_wall(run: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def spread(box: BwrapSandbox, rules: EgressRules | None, seats: int) -> float:
    """The 14-seat launch spread of sandbox_launch.py, with every seat under ``rules``."""
    return spread_once(lambda argv: box.exec(argv, timeout=60, egress=rules).stdout, seats)


@contextlib.contextmanager
def proxies_unstarted() -> Iterator[None]:
    """The per-run way with every proxy left unstarted (for one whole spread round: the seats' threads
    run at once), so the round measures the sandbox with its forwarder and readiness poll alone."""
    saved = [(netpolicy.ZYGOTE, "spawn"), (netpolicy.EgressProxy, "wait_ready"),
             (netpolicy.EgressProxy, "stop_process")]
    originals = [getattr(owner, name) for owner, name in saved]
    setattr(netpolicy.ZYGOTE, "spawn", lambda *a: None)  # noqa: B010
    setattr(netpolicy.EgressProxy, "wait_ready", lambda self: None)  # noqa: B010
    setattr(netpolicy.EgressProxy, "stop_process", lambda self: "")  # noqa: B010
    try:
        yield
    finally:
        for (owner, name), original in zip(saved, originals, strict=True):
            setattr(owner, name, original)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seats", type=int, default=14)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--modes", default="shared,per-run", help="ways to reach the proxy, comma-separated")
    ap.add_argument("--forwarder-only", action="store_true", help="add the per-run way without its proxies")
    args = ap.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    api = EgressRules.of("api", [f"127.0.0.1:{server.server_address[1]}"])
    boxes = {mode: BwrapSandbox(egress=mode) for mode in modes}
    box = next(iter(boxes.values()))
    print(f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}")
    for mbox in boxes.values():  # the first networked run starts the shared service: not measured
        mbox.exec(["/bin/true"], timeout=30, egress=api)
    none_start = median_wall(lambda: box.exec(["/bin/true"], timeout=30), args.runs)
    one = ["/usr/bin/python3", "-c", "import sys, urllib.request; urllib.request.urlopen(sys.argv[1]).read()", url]
    noop = ["/usr/bin/python3", "-c", "import sys, urllib.request", url]
    first_none = median_wall(lambda: box.exec(noop, timeout=30), args.runs)
    direct = []
    for _ in range(args.requests):
        t = time.perf_counter()
        urllib.request.urlopen(url, timeout=10).read()
        direct.append(time.perf_counter() - t)
    for mode, mbox in boxes.items():
        api_start = median_wall(functools.partial(mbox.exec, ["/bin/true"], timeout=30, egress=api), args.runs)
        print(f"[{mode}] start: none {none_start * 1000:.1f} ms, api {api_start * 1000:.1f} ms, "
              f"proxy adds {(api_start - none_start) * 1000:.1f} ms (median of {args.runs})")
        first_api = median_wall(functools.partial(mbox.exec, one, timeout=30, egress=api), args.runs)
        print(f"[{mode}] first request: none+no request {first_none * 1000:.1f} ms, api+one GET "
              f"{first_api * 1000:.1f} ms, adds {(first_api - first_none) * 1000:.1f} ms (median of {args.runs})")
        res = mbox.exec(["/usr/bin/python3", "-c", REQUESTS_CODE, url, str(args.requests)], timeout=60, egress=api)
        inside = float(res.text.strip())
        print(f"[{mode}] per request: direct {statistics.median(direct) * 1000:.2f} ms, through the proxy "
              f"{inside * 1000:.2f} ms, adds {(inside - statistics.median(direct)) * 1000:.2f} ms "
              f"(median of {args.requests}; {len(res.fetches)} recorded)")
    variants: dict[str, tuple[BwrapSandbox, EgressRules | None]] = {"none": (box, None)}
    variants |= {f"api ({mode})": (mbox, api) for mode, mbox in boxes.items()}
    if args.forwarder_only:
        variants["api (per-run, no proxy)"] = (BwrapSandbox(egress="per-run"), api)
    spreads: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):  # interleaved, so load changes hit every variant alike
        for name, (vbox, rules) in variants.items():
            with proxies_unstarted() if name.endswith("no proxy)") else contextlib.nullcontext():
                spreads[name].append(spread(vbox, rules, args.seats))
    base = statistics.median(spreads["none"])
    print(f"spread of {args.seats} seats, first-to-last start, {args.rounds} rounds interleaved, "
          f"load {os.getloadavg()[0]:.1f}:")
    for name, values in spreads.items():
        med = statistics.median(values)
        print(f"  {name:<24} median {med * 1000:6.1f} ms (min {min(values) * 1000:.1f}, "
              f"max {max(values) * 1000:.1f}), {med / base:.2f}x none")
    server.shutdown()


if __name__ == "__main__":
    main()
