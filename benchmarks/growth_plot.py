"""Draw the growth curve (docs/costs-growth.svg) as an SVG from growth_bench.py's JSON records (no plotting library)::

    python benchmarks/growth_plot.py benchmarks/records/growth-2026-12-05.jsonl [other.jsonl ...] \
        --before benchmarks/records/growth-2026-11-30-cda34a6.jsonl --out docs/costs-growth.svg

One panel per figure, CPU seconds (ms for the API) on the top row and peak resident MB below, each against the
league's sessions: the 14-seat leagues as a line, the 100-seat ones as squares; ``--before`` records (the code
before a change) as a grey dashed line and hollow marks. CPU seconds, not wall: records taken on a loaded machine
(the "before" ones ran at a load of 3 to 22) compare by CPU time. A file holds one record (``--json-out``) or one
per line (benchmarks/records/growth-*.jsonl). Later records win where two give the same size and figure, so a
re-run of a few figures can be laid over an older full pass. The publish panels show the first publish (cold cache:
growth_bench's first run) and the nightly one (its last run, the cache warm) apart.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

Record = dict[str, Any]
#: (title, unit, value of one size's record): seconds first, then memory
Figure = tuple[str, str, Callable[[Record], float | None]]
W, H, PAD = 190, 150, 34
OPS = ("start", "morning", "score", "publish", "stats", "api")
BLUE, RED, GREY = "#1f77b4", "#d62728", "#888"


def _raw(op: str, pick: int, key: str) -> Callable[[Record], float | None]:
    """One run's figure: the first (``pick`` 0) or, when there are two or more, the last (``pick`` -1)."""
    def value(rec: Record) -> float | None:
        rows = [r for r in rec.get("raw", {}).get(op, []) if "error" not in r]
        return float(rows[pick][key]) if len(rows) >= (1 if pick == 0 else 2) else None
    return value


def _median(op: str, key: str) -> Callable[[Record], float | None]:
    def value(rec: Record) -> float | None:
        got = rec.get(op, {}).get(key)
        return float(got) if isinstance(got, int | float) else None
    return value


TIME: list[Figure] = [
    ("daemon start", "CPU s", _median("start", "cpu_s")), ("morning jobs", "CPU s", _median("morning", "cpu_s")),
    ("score job", "CPU s", _median("score", "cpu_s")), ("publish, first", "CPU s", _raw("publish", 0, "child_cpu_s")),
    ("publish, nightly", "CPU s", _raw("publish", -1, "child_cpu_s")), ("league stats", "CPU s",
                                                                         _median("stats", "cpu_s")),
    ("API session p99", "ms", _median("api", "session_p99_ms")),
]
MEMORY: list[Figure] = [
    ("daemon start", "MB", _median("start", "peak_mb")), ("morning jobs", "MB", _median("morning", "peak_mb")),
    ("score job", "MB", _median("score", "peak_mb")), ("publish, first", "MB", _raw("publish", 0, "maxrss_mb")),
    ("publish, nightly", "MB", _raw("publish", -1, "maxrss_mb")), ("league stats", "MB",
                                                                   _median("stats", "peak_mb")),
    ("API process", "MB", _median("api", "peak_mb")),
]


def _records(path: Path) -> list[Record]:
    """The records of one file: a single JSON document, or one per line."""
    text = path.read_text(encoding="utf-8")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def _measured(rec: Record, op: str) -> bool:
    """Whether a record measured ``op``: its runs are kept, or (older records keep no runs) a median is there."""
    if rec.get("raw", {}).get(op):
        return True
    medians = rec.get(op) if "raw" not in rec or op not in rec["raw"] else None
    return isinstance(medians, dict) and any(isinstance(v, int | float) for v in medians.values())


def load(paths: list[Path]) -> dict[str, Record]:
    """Size key -> record, the later records' figures laid over the earlier ones, figure by figure."""
    out: dict[str, Record] = {}
    for rec in (r for path in paths for r in _records(path)):
        for key, size in rec["sizes"].items():
            merged = out.setdefault(key, {"label": size["label"], "raw": {}})
            for op in (op for op in OPS if _measured(size, op)):
                merged["raw"][op] = size.get("raw", {}).get(op, [])
                merged[op] = size[op]
    return out


def _shape(key: str) -> tuple[int, int]:
    """(sessions, seats) from a cache key such as ``s1260-w100-seed7``."""
    match = re.match(r"s(\d+)-w(\d+)", key)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _points(fig: Figure, recs: dict[str, Record]) -> list[tuple[int, int, float]]:
    """(sessions, seats, value) of every size that has the figure."""
    return [(*_shape(k), v) for k, r in recs.items() if (v := fig[2](r)) is not None]


def _panel(x0: float, y0: float, fig: Figure, recs: dict[str, Record], max_x: int,
           before: dict[str, Record]) -> list[str]:
    title, unit, _value = fig
    points, old = _points(fig, recs), _points(fig, before)
    top = max([v for *_, v in points + old] + [1e-9]) * 1.15

    def sx(sessions: float) -> float:
        return x0 + PAD + (W - PAD - 8) * sessions / max_x

    def sy(v: float) -> float:
        return y0 + H - 18 - (H - 40) * v / top

    out = [f'<rect x="{x0 + PAD}" y="{y0 + 22}" width="{W - PAD - 8}" height="{H - 40}" fill="none" stroke="#bbb"/>',
           f'<text x="{x0 + W / 2}" y="{y0 + 14}" text-anchor="middle" font-size="11">{title} ({unit})</text>',
           f'<text x="{x0 + PAD - 3}" y="{y0 + 26}" text-anchor="end" font-size="9">{_tick(top / 1.15)}</text>',
           f'<text x="{x0 + PAD - 3}" y="{y0 + H - 18}" text-anchor="end" font-size="9">0</text>']
    for series, line, dash, fill in ((old, GREY, ' stroke-dasharray="4 3"', "white"), (points, BLUE, "", None)):
        out += _series([(sx(s), sy(v), seats) for s, seats, v in series], line, dash, fill)
    return out


def _series(xy: list[tuple[float, float, int]], line: str, dash: str, fill: str | None) -> list[str]:
    """The 14-seat points joined in order of sessions (circles), the 100-seat ones as squares; ``fill`` white
    draws the marks hollow (the "before" records)."""
    narrow = sorted((x, y) for x, y, seats in xy if seats < 100)
    out = []
    if narrow:
        out.append(f'<polyline fill="none" stroke="{line}" stroke-width="1.5"{dash} points="'
                   + " ".join(f"{x:.1f},{y:.1f}" for x, y in narrow) + '"/>')
    out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{fill or line}" stroke="{line}"/>' for x, y in narrow]
    square = GREY if fill else RED
    out += [f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{fill or square}" '
            f'stroke="{square}"/>' for x, y, seats in xy if seats >= 100]
    return out


def _tick(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def svg(recs: dict[str, Record], before: dict[str, Record] | None = None) -> str:
    before = before or {}
    max_x = max([_shape(k)[0] for k in [*recs, *before]] + [1])
    cols = len(TIME)
    width, height = cols * W + 10, 2 * H + 40
    body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
            '<rect width="100%" height="100%" fill="white"/>']
    for row, figs in enumerate((TIME, MEMORY)):
        for col, fig in enumerate(figs):
            body += _panel(5 + col * W, 5 + row * H, fig, recs, max_x, before)
    old = '  <tspan fill="#888">- - ○ □ before</tspan>' if before else ""
    body.append(f'<text x="10" y="{height - 12}" font-size="10">x: sessions (0 to {max_x}); '
                f'<tspan fill="{BLUE}">● 14 seats</tspan>  <tspan fill="{RED}">■ 100 seats</tspan>{old}; '
                'medians of growth_bench runs (benchmarks/growth_bench.py, docs/costs.md)</text>')
    body.append("</svg>")
    return "\n".join(body) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", type=Path, nargs="+", help="growth_bench.py --json-out files (or JSONL)")
    parser.add_argument("--before", type=Path, nargs="*", default=[], help="records of the code before, drawn grey")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.write_text(svg(load(args.records), load(args.before)), encoding="utf-8")


if __name__ == "__main__":
    main()
