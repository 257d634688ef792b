"""The league page's tables written into its HTML by the server, so the page reads without JavaScript.

The script (page/app.js) replaces them with the full page (charts, heat maps) when it runs; a reader
with JavaScript off, a text browser or a crawler gets today's run and the league table per horizon as
plain HTML tables, with the same row markup (``tr.seat-row`` with ``data-seat``/``data-horizon``).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from league.api import views
from league.api.views import LeagueTable, TableRow, Today
from league.jsonvalue import Json, as_float


def _fmt(x: Json, digits: int = 4) -> str:
    return "–" if x is None else f"{as_float(x):.{digits}f}"


def _cells(*values: object, num: tuple[int, ...] = ()) -> str:
    return "".join(f'<td class="num">{escape(str(v))}</td>' if i in num else f"<td>{escape(str(v))}</td>"
                   for i, v in enumerate(values))


def _interval(row: TableRow) -> str:
    iv = row["interval"]
    if iv is None:
        return "–"
    if iv["lo"] is not None:
        return f"{as_float(iv['lo']):.3f}–{as_float(iv['hi']):.3f}"
    return "none yet" if iv["reason"] else "–"


def _league_rows(horizon: str, rows: list[TableRow]) -> str:
    out, cut = [], False
    for r in rows:
        cls = ["seat-row"] + ([] if r["in_table"] else ["unranked"])
        if not r["in_table"] and not cut:
            cls.append("cut")
            cut = True
        rank = r["rank"] if r["in_table"] and r["rank"] else ""
        out.append(f'<tr class="{" ".join(cls)}" data-seat="{escape(str(r["seat"]))}" data-horizon="{escape(horizon)}">'
                   + _cells(rank, r["seat"], _fmt(r["brier"]), _interval(r), r["n"], r["sessions"],
                            num=(0, 2, 3, 4, 5)) + "</tr>")
    return "".join(out)


def league_html(league: LeagueTable) -> str:
    head = "".join(f'<th scope="col">{h}</th>' for h in ("#", "seat", "Brier", "interval", "n", "sessions"))
    blocks = [f'<div class="horizon"><h3>Horizon {escape(h)}</h3><table class="league" data-horizon="{escape(h)}">'
              f"<thead><tr>{head}</tr></thead><tbody>{_league_rows(h, rows)}</tbody></table></div>"
              for h, rows in league["horizons"].items()]
    return f'<div class="horizons">{"".join(blocks)}</div><p class="note">Source: {escape(str(league["source"]))}.</p>'


def today_html(today: Today) -> str:
    if not today.get("run_id"):
        return '<p class="prerendered">No run sealed yet.</p>'
    rows = "".join("<tr>" + _cells(a["seat"], f"{a.get('model') or ''} {a.get('version') or ''}", a.get("at") or "",
                                   a.get("cells", ""), f"#{a.get('n', '')}", num=(3, 4)) + "</tr>"
                   for a in today["answers"])
    head = "".join(f'<th scope="col">{h}</th>' for h in ("seat", "model", "sealed", "cells", "line"))
    return (f'<div class="prerendered"><p>{escape(str(today["session"]))} · run {escape(str(today["run_id"]))} '
            f'(book line {today["line"]})</p><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')


def arms_html(arms: dict[str, object]) -> str:
    """The three-arm table as plain HTML (the same rows the script draws)."""
    runs = arms.get("runs")
    if not isinstance(runs, list) or not runs:
        return f'<p class="note">No arm has run yet ({escape(str(arms.get("source")))}).</p>'
    head = "".join(f'<th scope="col">{h}</th>' for h in ("session", "seats", "open heat", "open N_eff",
                                                         "closed-book heat", "closed-book N_eff", "price-only heat",
                                                         "price-only N_eff"))
    body = []
    for run in runs:
        cells = []
        for arm in views.ARMS:
            x = run.get(arm) if isinstance(run, dict) else None
            cells += [_fmt(x.get("heat"), 1), _fmt(x.get("n_eff"), 2)] if isinstance(x, dict) else ["–", "–"]
        body.append(f'<tr class="arms-row" data-session="{escape(str(run.get("session")))}">'
                    f'<th scope="row">{escape(str(run.get("session")))}</th>'
                    + _cells(run.get("seats"), *cells, num=tuple(range(7))) + "</tr>")
    return f'<table class="arms"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def render_index(template: Path, store: views.Store) -> str:
    """index.html with today's run, the league tables and the three-arm table filled in."""
    html = template.read_text(encoding="utf-8")
    html = html.replace('<div id="arms-table"></div>', f'<div id="arms-table">{arms_html(views.arms(store))}</div>', 1)
    html = html.replace('<p class="loading">loading…</p>', today_html(views.today(store)), 1)
    return html.replace('<div id="league-tables"></div>',
                        f'<div id="league-tables">{league_html(views.league_table(store))}</div>', 1)
