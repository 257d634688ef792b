"""The league page's tables written into its HTML by the server, so the page reads without JavaScript.

The script (page/app.js) replaces them with the full page (charts, heat maps) when it runs; a reader
with JavaScript off, a text browser or a crawler gets today's run and the league table per horizon as
plain HTML tables, with the same row markup (``tr.seat-row`` with ``data-seat``/``data-horizon``).
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from league.api import views
from league.api.errors import ApiError
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
    """The whole session: one line per wave (run), then every seat's answer with the wave it came from."""
    if not today.get("run_id"):
        return '<p class="prerendered">No run sealed yet.</p>'
    waves = "".join(f'<li data-run="{escape(str(r.get("run_id")))}">wave {escape(str(r.get("wave")))}: run '
                    f'{escape(str(r.get("run_id")))} (book line {escape(str(r.get("line")))}) · '
                    f'{escape(str(r.get("answered")))} of {escape(str(r.get("seats")))} seats answered</li>'
                    for r in today.get("runs", []))
    rows = "".join("<tr>" + _cells(a["seat"], f"{a.get('model') or ''} {a.get('version') or ''}", a.get("at") or "",
                                   a.get("cells", ""), f"wave {a.get('wave', 1)} ({a.get('run_id', today['run_id'])})",
                                   f"#{a.get('n', '')}", num=(3, 5)) + "</tr>"
                   for a in today["answers"])
    head = "".join(f'<th scope="col">{h}</th>' for h in ("seat", "model", "sealed", "cells", "wave", "line"))
    return (f'<div class="prerendered"><p>{escape(str(today["session"]))} · {len(today.get("runs", []))} wave(s)</p>'
            f'<ul>{waves}</ul><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>')


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


def _d(x: object) -> dict[str, object]:
    return x if isinstance(x, dict) else {}


def _dicts(x: object) -> list[dict[str, object]]:
    return [y for y in x if isinstance(y, dict)] if isinstance(x, list) else []


def _pct(x: object, digits: int = 2) -> str:
    """A return (a fraction) as a signed percentage; – when missing."""
    return "–" if not isinstance(x, int | float) or isinstance(x, bool) else f"{as_float(x) * 100:+.{digits}f}%"


def _weights(portfolio: object) -> str:
    if not isinstance(portfolio, dict) or not portfolio:
        return "all cash"
    return ", ".join(f"{fund} {as_float(w):g}%" for fund, w in portfolio.items() if isinstance(w, int | float))


def _resolution(r: object) -> str:
    return "unresolved" if r is None else ("came true" if r is True else "did not")


def _f22_text(f22: object) -> str:
    f = f22 if isinstance(f22, dict) else {}
    n = f.get("n") or 0
    if not n or f.get("share") is None:
        return "no critique resolved yet"
    ci = f.get("ci95")
    interval = f" (95% interval {_fmt(ci[0], 3)}–{_fmt(ci[1], 3)})" if isinstance(ci, list) and len(ci) == 2 else ""
    return f"{_fmt(f.get('share'), 3)} of {n} resolved critiques came true{interval}"


F23_NAMES = (("council_vs_sealed_mean", "council − sealed mean"), ("critiqued_vs_sealed", "critiqued − sealed"),
             ("stated_vs_sealed", "stated − sealed"), ("stated_vs_critiqued", "stated − critiqued"))


def _talk_week_html(w: dict[str, object]) -> str:
    week = escape(str(w.get("week")))
    seat = (f" ({escape(str(w['chair_seat']))})" if w.get("chair_seat")
            else " (seat shown once the letters are revealed)")
    council = (_weights(w.get("council_portfolio")) if not w.get("chair_failure")
               else f"none ({w.get('chair_failure')})")
    parts = [f'<h3>{week}{" · " + escape(str(w["session"])) if w.get("session") else ""} · chair '
             f"{escape(str(w.get('chair_letter')))}{seat}</h3>",
             f"<p>Council portfolio: {escape(council)}.</p>"]
    critiques = _dicts(w.get("critiques"))
    if critiques:
        head = "".join(f'<th scope="col">{h}</th>' for h in ("target", "market", "weight", "direction",
                                                             "over 5 sessions"))
        rows = "".join(f'<tr class="talk-critique" data-target="{escape(str(c.get("target")))}">'
                       + _cells(c.get("target"), f"{c.get('market')} ({c.get('fund')})",
                                f"{as_float(c.get('weight')):g}%" if isinstance(c.get("weight"), int | float)
                                else "–", c.get("direction"), _resolution(c.get("resolution")), num=(2,)) + "</tr>"
                       for c in critiques)
        parts.append(f'<table class="talk-critiques"><caption>Critiques</caption><thead><tr>{head}</tr></thead>'
                     f"<tbody>{rows}</tbody></table>")
    returns = _d(w.get("returns"))
    replies = {str(r.get("letter")): r for r in _dicts(w.get("replies"))}
    seats = _dicts(returns.get("seats"))
    if seats:
        head = "".join(f'<th scope="col">{h}</th>' for h in ("letter", "reply", "sealed", "critiqued", "stated"))
        rows = ""
        for x in seats:
            r = replies.get(str(x.get("letter")), {})
            status = str(r.get("status", "no reply yet"))
            if r.get("failure"):
                status += f": {r['failure']}"
            rows += (f'<tr class="talk-seat" data-letter="{escape(str(x.get("letter")))}">'
                     + _cells(x.get("letter"), status, _pct(x.get("sealed")), _pct(x.get("critiqued")),
                              _pct(x.get("stated")), num=(2, 3, 4)) + "</tr>")
        parts.append(f'<table class="talk-seats"><caption>Critiqued letters: reply and shadow returns</caption>'
                     f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    if w.get("settled"):
        parts.append(f"<p>Shadow returns over the talk session and the five after it: council "
                     f"{_pct(returns.get('council'))}, sealed mean {_pct(returns.get('sealed_mean'))}. "
                     f"F22 this week: {escape(_f22_text(w.get('f22')))}.</p>")
    else:
        parts.append("<p>Not settled yet: the shadow returns come five sessions after the talk.</p>")
    return f'<article class="talk-week" data-week="{week}">{"".join(parts)}</article>'


def talk_html(talk: dict[str, object]) -> str:
    """The council talk as plain HTML: the season's F22 and F23, then the newest weeks."""
    weeks = _dicts(talk.get("weeks"))
    if not weeks:
        return f'<p class="note">No council talk yet ({escape(str(talk.get("source")))}).</p>'
    season = _d(talk.get("season"))
    f23 = _d(season.get("f23"))
    means = []
    for name, label in F23_NAMES:
        figure = _d(f23.get(name))
        mean = figure.get("mean")
        shown = "–" if not isinstance(mean, int | float) else f"{as_float(mean) * 100:+.2f} pp"
        means.append(f"{label} {shown} (n {figure.get('n', 0)})")
    total = talk.get("weeks_total", len(weeks))
    return (f'<div class="talk-season"><p>Season F22: {escape(_f22_text(season.get("f22")))}.</p>'
            f"<p>Season F23 means (return differences in percentage points): {escape('; '.join(means))}.</p></div>"
            + "".join(_talk_week_html(w) for w in weeks)
            + f'<p class="note">Source: {escape(str(talk.get("source")))}; newest {len(weeks)} of {total} weeks.</p>')


def predictions_html(report: dict[str, object]) -> str:
    """The registered predictions as plain HTML: the scorecard, then one row per line with its status, its data
    and the command that re-resolves it from the open files alone."""
    lines = _dicts(report.get("predictions"))
    if not lines:
        return f'<p class="note">No registered prediction yet ({escape(str(report.get("source")))}).</p>'
    card = _d(report.get("scorecard"))
    head = "".join(f"<th>{h}</th>" for h in ("id", "statement", "p", "rule", "check date", "status", "value (n)",
                                            "re-resolve"))
    rows = ""
    for x in lines:
        status = str(x.get("status"))
        shown = ("—" if x.get("value") is None else f"{x.get('value')}") + (
            f" (n {x.get('n')})" if x.get("n") is not None else "")
        if status == "unresolved":
            shown = f"unresolved: {x.get('reason')}"
        rows += (f'<tr class="prediction" data-id="{escape(str(x.get("id")))}" data-status="{escape(status)}">'
                 f"<td>{escape(str(x.get('id')))}</td><td>{escape(str(x.get('statement')))}"
                 f"<br><small>{escape(str(x.get('measure')))}</small></td><td>{escape(str(x.get('p')))}</td>"
                 f"<td>value {escape(str(x.get('op')))} {escape(str(x.get('threshold')))}</td>"
                 f"<td>{escape(str(x.get('check_date')))}</td><td>{escape(status)}</td><td>{escape(shown)}</td>"
                 f"<td><code>{escape(str(x.get('command')))}</code></td></tr>")
    summary = (f"{card.get('resolved')} of {card.get('due')} due lines resolved; Brier of the registered "
               f"probabilities {card.get('brier')} (worst case, every unresolved line failed: "
               f"{card.get('brier_worst_case')}); skill against always 0.5: {card.get('skill_vs_half')}")
    return (f"<p>{escape(summary)}.</p><table class=\"predictions\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _share(x: object) -> str:
    return "–" if not isinstance(x, int | float) or isinstance(x, bool) else f"{as_float(x) * 100:.1f}%"


def sources_html(src: dict[str, object]) -> str:
    """Who cites what as plain HTML: a sites x seats heat map (each cell's count, shaded by its share of the
    largest cell; no script needed) and the newest runs' overlap figures."""
    sites = _dicts(src.get("sites"))
    if not sites:
        return f'<p class="note">No fetched citation yet ({escape(str(src.get("source")))}).</p>'
    listed = src.get("seats")
    seats = [s for s in listed if isinstance(s, str)] if isinstance(listed, list) else []
    top = max((int(v) for x in sites for v in _d(x.get("seats")).values() if isinstance(v, int)), default=1) or 1
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in ("site", *seats, "total"))
    body = []
    for x in sites:
        counts = _d(x.get("seats"))
        cells = []
        for seat in seats:
            k = counts.get(seat)
            n = k if isinstance(k, int) else 0
            shade = f' style="background: rgba(200, 80, 30, {0.08 + 0.72 * n / top:.2f})"' if n else ""
            cells.append(f'<td class="num"{shade} title="{escape(seat)}: {n}">{n if n else ""}</td>')
        body.append(f'<tr class="sources-row" data-site="{escape(str(x.get("site")))}">'
                    f'<th scope="row">{escape(str(x.get("site")))}</th>{"".join(cells)}'
                    f'<td class="num">{escape(str(x.get("total")))}</td></tr>')
    season = _d(src.get("season"))
    runs_head = "".join(f'<th scope="col">{h}</th>' for h in (
        "run", "citations", "top site", "top share", "on shared sites", "Jaccard links", "Jaccard sites",
        "sharing − other agreement", "p", "unfetched"))
    runs = "".join(f'<tr class="sources-run" data-run="{escape(str(r.get("run_id")))}">'
                   f'<th scope="row">{escape(str(r.get("run_id")))}</th>'
                   + _cells(r.get("citations"), r.get("top_site") or "–", _share(r.get("top_share")),
                            _share(r.get("shared_site_share")), _fmt(_num(r.get("jaccard_links")), 3),
                            _fmt(_num(r.get("jaccard_sites")), 3), _fmt(_num(r.get("statistic")), 3),
                            _fmt(_num(r.get("p")), 3), r.get("unfetched"), num=(0, 2, 3, 4, 5, 6, 7, 8)) + "</tr>"
                   for r in _dicts(src.get("runs")))
    return (f'<table class="sources-map"><caption>Counted citations by site and seat, season '
            f'({escape(str(season.get("citations")))} citations; the {len(sites)} most cited of '
            f'{escape(str(src.get("sites_total")))} sites)</caption><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            f'<table class="sources-runs"><thead><tr>{runs_head}</tr></thead><tbody>{runs}</tbody></table>'
            f'<p class="note">Season: sharing − other agreement {_fmt(_num(season.get("statistic")), 3)}, '
            f'permutation p {_fmt(_num(season.get("p")), 3)} ({escape(str(season.get("permutations")))} '
            f'permutations); not counted: {escape(str(season.get("unfetched")))} unfetched, '
            f'{escape(str(season.get("unreached")))} unreached, {escape(str(season.get("removed")))} given by the '
            f'ask. Source: {escape(str(src.get("source")))}.</p>')


def _num(x: object) -> Json:
    return x if isinstance(x, int | float) and not isinstance(x, bool) else None


#: A link of the page's own HTML to a file of the open-data folder (relative; not the API's or the page's own).
DATA_LINK = re.compile(r'<a href="(?!api/|page/|[a-z]+:|#|/)([^"?#]+)">([^<]*)</a>')


def published_links(html: str, store: views.Store) -> str:
    """The page's links to open-data files, kept only for the files this folder publishes.

    A league that has not published a file yet (the CLI contest's metrics.json, sealed.json, rounds.json on a
    league without the contest) would otherwise show a link answering 404. Each name is looked up the way the
    file route serves it (:meth:`league.api.paths.DataPaths.public_file`), so a link is kept exactly when it
    answers 200; release-manifest.json lists the same files but index.html and proof/. A missing file's name
    stays as plain text, marked as not published."""

    def keep(match: re.Match[str]) -> str:
        name, label = match.group(1), match.group(2)
        try:
            store.paths.public_file(name)
        except ApiError:
            return f'<span class="unpublished" title="not published in this folder yet">{label}</span>'
        return match.group(0)

    return DATA_LINK.sub(keep, html)


def render_index(template: Path, store: views.Store) -> str:
    """index.html with today's run, the league tables, the three-arm table and the council talk filled in."""
    html = template.read_text(encoding="utf-8")
    html = html.replace('<div id="arms-table"></div>', f'<div id="arms-table">{arms_html(views.arms(store))}</div>', 1)
    html = html.replace('<div id="talk-body"></div>', f'<div id="talk-body">{talk_html(views.talk(store))}</div>', 1)
    html = html.replace('<div id="predictions-body"></div>',
                        f'<div id="predictions-body">{predictions_html(views.predictions(store))}</div>', 1)


    html = html.replace('<div id="sources-map"></div>',
                        f'<div id="sources-map">{sources_html(views.sources(store))}</div>', 1)
    html = html.replace('<p class="loading">loading…</p>', today_html(views.today(store)), 1)
    html = published_links(html, store)
    return html.replace('<div id="league-tables"></div>',
                        f'<div id="league-tables">{league_html(views.league_table(store))}</div>', 1)
