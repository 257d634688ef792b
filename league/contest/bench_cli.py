#!/usr/bin/python3
"""`bench`: the one contest tool an agent has inside its sandbox (stdlib only, copied in per run).

It sends one JSON line to the league over the Unix socket named by ``$BENCH_SOCKET`` (bound into
the sandbox; no network is needed) and prints the league's one-line JSON answer, pretty-printed.
Arguments travel as JSON strings, so ``$``, quotes and newlines reach the league exactly as the
shell handed them over. Exit status 0 when the league accepted the command, 1 otherwise.
"""

import argparse
import json
import os
import socket
import sys
from collections.abc import Mapping

MAX_REPLY = 1 << 20


def call(request: Mapping[str, object]) -> dict[str, object]:
    path = os.environ.get("BENCH_SOCKET")
    if not path:
        return {"ok": False, "error": "BENCH_SOCKET is not set: bench only works inside a contest round"}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(60)
            conn.connect(path)
            conn.sendall(json.dumps(request).encode("utf-8") + b"\n")
            buf = b""
            while not buf.endswith(b"\n") and len(buf) < MAX_REPLY:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                buf += chunk
    except OSError as exc:
        return {"ok": False, "error": f"cannot reach the league: {exc}"}
    try:
        answer: object = json.loads(buf.decode("utf-8"))
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return {"ok": False, "error": "the league sent no readable answer"}
    return answer


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bench", description="Inspect this round's market and place your one bet.")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("market", help="question, outcomes, prices, best bid/ask, close, stake, seconds_left")
    book = sub.add_parser("book", help="order book of one outcome")
    book.add_argument("--outcome", required=True)
    hist = sub.add_parser("history", help="price history of one outcome")
    hist.add_argument("--outcome", required=True)
    bet = sub.add_parser("bet", help="place your one bet (works once; refused after the clock runs out)")
    bet.add_argument("--outcome", required=True)
    bet.add_argument("--confidence", required=True, type=float, help="0 to 1")
    bet.add_argument("--rationale", required=True, help="one or two sentences (use single quotes)")
    bet.add_argument("--quote", default=None, help="optional line for your public card: max 120 chars, no links")
    bet.add_argument("--max-price", dest="max_price", default=None, type=float,
                     help="worst price you accept, 0 to 1 (default: best ask + 5 cents, at most 0.99)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    request = {k: v for k, v in vars(args).items() if v is not None}
    answer = call(request)
    sys.stdout.write(json.dumps(answer.get("result", answer), indent=2, ensure_ascii=False) + "\n")
    return 0 if answer.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
