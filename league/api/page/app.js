// The league page: one fetch of api/page, then plain DOM and inline SVG. No build step, no libraries.
// Every URL is relative to the page, so it works under a prefix (nginx's /league/). The server writes the
// tables into the HTML too (readable without JavaScript); this script replaces them with the full page.
"use strict";

const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  const list = children === undefined || children === null ? [] : [].concat(children);
  for (const c of list) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function fmt(x, digits) {
  return x === null || x === undefined ? "–" : Number(x).toFixed(digits === undefined ? 4 : digits);
}

// A diverging blue–orange scale (ColorBrewer PuOr/RdBu family ends, safe for deuteranopia, protanopia and
// tritanopia): Brier 0 → dark blue, 0.25 (a coin) → near white, 0.5 and worse → dark orange.
const GOOD = [33, 102, 172], MID = [247, 247, 247], BAD = [179, 88, 6];

function mix(a, b, t) {
  return a.map((x, i) => Math.round(x + (b[i] - x) * t));
}

function heat(b) {
  if (b === null || b === undefined) return "#eceff3";
  const t = Math.max(0, Math.min(1, b / 0.5));
  const rgb = t < 0.5 ? mix(GOOD, MID, t / 0.5) : mix(MID, BAD, (t - 0.5) / 0.5);
  return `rgb(${rgb.join(",")})`;
}

// Text on a dark cell is white, on a light one dark (the value stays readable in every cell).
function ink(b) {
  if (b === null || b === undefined) return "#1d2330";
  const t = Math.max(0, Math.min(1, b / 0.5));
  return t < 0.22 || t > 0.8 ? "#ffffff" : "#1d2330";
}

function dataTable(caption, head, rows) {
  return el("details", {class: "data-table"}, [el("summary", {}, `${caption} as a table`), el("table", {}, [
    el("thead", {}, el("tr", {}, head.map((h) => el("th", {scope: "col"}, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el(i ? "td" : "th", i ? {class: "num"} : {scope: "row"}, c))))),
  ])]);
}

function heatLegend() {
  const s = svg("svg", {class: "legend", width: 330, height: 34, role: "img",
    "aria-label": "Colour key: Brier 0 dark blue, 0.25 white, 0.5 or more dark orange"});
  for (let i = 0; i < 50; i++) s.append(svg("rect", {x: 10 + i * 6, y: 4, width: 6, height: 12, fill: heat(i / 100)}));
  for (const v of [0, 0.125, 0.25, 0.375, 0.5]) {
    s.append(svg("line", {x1: 10 + v * 600, y1: 16, x2: 10 + v * 600, y2: 20, stroke: "#556"}));
    s.append(svg("text", {x: 10 + v * 600, y: 31, "text-anchor": "middle"}, v === 0.5 ? "≥0.5" : v));
  }
  return s;
}

function renderToday(today) {
  const box = document.getElementById("today");
  box.querySelectorAll(".loading, .prerendered").forEach((n) => n.remove());
  if (!today || !today.run_id) {
    box.append(el("p", {}, "No run sealed yet."));
    return;
  }
  // the whole session: every wave (a run, then "-r2" for the seats asked again), every seat, and the wave of each answer
  const runs = today.runs || [{run_id: today.run_id, wave: 1, line: today.line, seats: today.answers.length,
    answered: today.answers.filter((a) => a.cells > 0).length}];
  const seats = new Set(today.answers.map((a) => a.seat));
  const answered = new Set(today.answers.filter((a) => a.cells > 0).map((a) => a.seat));
  box.append(el("p", {id: "today-run"}, [
    el("strong", {}, today.session), ` · ${runs.length} ${runs.length === 1 ? "wave" : "waves"} · `,
    `${answered.size} of ${seats.size} seats answered in the session · the book holds ${today.book_lines} lines`,
  ]));
  box.append(el("ul", {id: "today-waves"}, runs.map((r) => el("li", {"data-run": r.run_id, "data-wave": r.wave}, [
    `wave ${r.wave}: run `, el("a", {href: `api/runs/${encodeURIComponent(r.run_id)}`}, r.run_id),
    ` (book line ${r.line}) · ${r.answered} of ${r.seats} seats answered`,
  ]))));
  const rows = today.answers.map((a) => el("tr", {class: "today-answer", "data-seat": a.seat, "data-wave": a.wave || 1}, [
    el("td", {}, a.seat), el("td", {}, `${a.model || ""} ${a.version || ""}`), el("td", {}, a.at || ""),
    el("td", {class: "num"}, a.cells), el("td", {}, `wave ${a.wave || 1} (${a.run_id || today.run_id})`),
    el("td", {class: "num"}, el("a", {href: `api/runs/${encodeURIComponent(a.run_id || today.run_id)}`}, `#${a.n}`)),
  ]));
  box.append(el("table", {id: "today-answers"}, [
    el("thead", {}, el("tr", {}, ["seat", "model", "sealed", "cells", "wave", "line"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows),
  ]));
}

function renderLeague(league) {
  document.getElementById("rule-forecasts").textContent = league.rule.forecasts;
  document.getElementById("rule-sessions").textContent = league.rule.sessions;
  const host = document.getElementById("league-tables");
  host.replaceChildren();
  const wrap = el("div", {class: "horizons"});
  for (const [horizon, rows] of Object.entries(league.horizons)) {
    let cut = false;
    const body = rows.map((r) => {
      const cls = ["seat-row"];
      if (!r.in_table) cls.push("unranked");
      if (!r.in_table && !cut) { cls.push("cut"); cut = true; }
      const iv = r.interval && r.interval.lo !== null && r.interval.lo !== undefined
        ? `${fmt(r.interval.lo, 3)}–${fmt(r.interval.hi, 3)}` : (r.interval && r.interval.reason ? "none yet" : "–");
      return el("tr", {class: cls.join(" "), "data-seat": r.seat, "data-horizon": horizon}, [
        el("td", {class: "num"}, r.in_table && r.rank ? r.rank : ""),
        el("td", {}, el("a", {href: `api/seats/${encodeURIComponent(r.seat)}`}, r.seat)),
        el("td", {class: "num brier"}, fmt(r.brier)),
        el("td", {class: "num"}, iv),
        el("td", {class: "num"}, r.n), el("td", {class: "num"}, r.sessions),
      ]);
    });
    wrap.append(el("div", {class: "horizon"}, [
      el("h3", {}, `Horizon ${horizon}`),
      el("table", {class: "league", "data-horizon": horizon}, [
        el("thead", {}, el("tr", {}, ["#", "seat", "Brier", "interval", "n", "sessions"].map((h) => el("th", {}, h)))),
        el("tbody", {}, body),
      ]),
    ]));
  }
  host.append(wrap);
  host.append(el("p", {class: "note"}, `Source: ${league.source}.`));
}

function renderGrid(grid) {
  const host = document.getElementById("grid-maps");
  const byH = {};
  for (const c of grid.cells) (byH[c.horizon] = byH[c.horizon] || []).push(c);
  for (const [horizon, cells] of Object.entries(byH)) {
    const seats = [...new Set(cells.map((c) => c.seat))].sort();
    const assets = [...new Set(cells.map((c) => c.asset))].sort();
    const cw = 58, ch = 24, left = 110, top = 22;
    const s = svg("svg", {class: "heatmap", "data-horizon": horizon, width: left + cw * assets.length + 10,
      height: top + ch * seats.length + 10, role: "img", "aria-label": `Brier by seat and market, ${horizon}`});
    assets.forEach((a, j) => s.append(svg("text", {x: left + j * cw + cw / 2, y: 14, "text-anchor": "middle"}, a)));
    seats.forEach((seat, i) => s.append(svg("text", {x: left - 6, y: top + i * ch + 16, "text-anchor": "end"}, seat)));
    for (const c of cells) {
      const x = left + assets.indexOf(c.asset) * cw, y = top + seats.indexOf(c.seat) * ch;
      const g = svg("g", {class: "cell", "data-seat": c.seat, "data-asset": c.asset, "data-horizon": horizon,
        "data-brier": c.brier});
      g.append(svg("rect", {x, y, width: cw - 2, height: ch - 2, fill: heat(c.brier)}));
      g.append(svg("text", {x: x + cw / 2 - 1, y: y + 15, "text-anchor": "middle", fill: ink(c.brier)}, fmt(c.brier, 3)));
      g.append(svg("title", {}, `${c.seat} · ${c.asset} · ${horizon}: Brier ${fmt(c.brier)} over ${c.n} forecasts`));
      s.append(g);
    }
    const value = (seat, asset) => {
      const c = cells.find((x) => x.seat === seat && x.asset === asset);
      return c ? fmt(c.brier, 3) : "–";
    };
    host.append(el("h3", {}, `Horizon ${horizon}`), s,
      dataTable(`Brier by seat and market, ${horizon},`, ["seat", ...assets], seats.map((seat) => [seat, ...assets.map((a) => value(seat, a))])));
  }
  if (!grid.cells.length) host.append(el("p", {}, "No scored cells yet."));
  else host.prepend(heatLegend());
}

function renderNeff(neff) {
  const host = document.getElementById("neff-plot");
  const rows = neff.per_run.filter((r) => r.n_eff !== null && r.n >= 2);
  if (!rows.length) { host.append(el("p", {class: "note"}, `N_eff: ${neff.source}.`)); return; }
  const horizons = [...new Set(rows.map((r) => r.horizon))];
  // Colour-blind-safe colours (Okabe–Ito) and a dash pattern per horizon, so colour is never the only cue.
  const colors = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"], dashes = ["", "6 3", "2 3", "8 3 2 3"];
  const runs = [...new Set(rows.map((r) => r.run_id))];
  const w = 760, h = 230, left = 46, top = 26, bottom = h - 34;
  // N_eff exceeds n only when seats anti-correlate (ρ < 0); such points are drawn at n, the title says more.
  const maxY = Math.max(2, ...rows.map((r) => r.n));
  const sy = (v) => bottom - (Math.max(0, Math.min(v, maxY)) / maxY) * (bottom - top);
  const sx = (run) => left + (runs.indexOf(run) / Math.max(1, runs.length - 1)) * (w - left - 110);
  const s = svg("svg", {id: "neff-svg", width: w, height: h, role: "img",
    "aria-label": `N_eff per run for ${horizons.join(", ")}; the table below gives every value`});
  s.append(svg("line", {x1: left, y1: bottom, x2: w - 100, y2: bottom, stroke: "#556"}));
  s.append(svg("line", {x1: left, y1: top, x2: left, y2: bottom, stroke: "#556"}));
  const ticks = [...new Set([0, Math.round(maxY / 2), maxY])];
  for (const v of ticks) {
    s.append(svg("line", {class: "neff-tick", x1: left - 4, y1: sy(v), x2: w - 100, y2: sy(v), stroke: v ? "#e3e6eb" : "#556"}));
    s.append(svg("text", {x: left - 7, y: sy(v) + 4, "text-anchor": "end"}, v));
  }
  s.append(svg("text", {x: 4, y: top - 12}, "N_eff (independent voices)"));
  const first = rows[0].session, last = rows[rows.length - 1].session;
  s.append(svg("text", {x: left, y: bottom + 16}, first));
  s.append(svg("text", {x: w - 100, y: bottom + 16, "text-anchor": "end"}, last));
  s.append(svg("text", {x: (left + w - 100) / 2, y: bottom + 30, "text-anchor": "middle"}, `run (${runs.length} runs)`));
  horizons.forEach((hz, k) => {
    const color = colors[k % colors.length], dash = dashes[k % dashes.length];
    const pts = rows.filter((r) => r.horizon === hz).map((r) => [sx(r.run_id), sy(r.n_eff), r]);
    s.append(svg("polyline", {points: pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" "),
      fill: "none", stroke: color, "stroke-width": 1.8, "stroke-dasharray": dash}));
    for (const [x, y, r] of pts) {
      const dot = svg("circle", {class: "neff-point", cx: x, cy: y, r: 2.5, fill: color});
      dot.append(svg("title", {}, `${r.session} ${hz}: N_eff ${fmt(r.n_eff, 2)} of ${r.n} (ρ ${fmt(r.rho, 2)})`));
      s.append(dot);
    }
    const key = svg("g", {class: "legend-key", "data-horizon": hz});
    key.append(svg("line", {x1: w - 90, y1: top + 6 + 16 * k, x2: w - 62, y2: top + 6 + 16 * k, stroke: color,
      "stroke-width": 2.5, "stroke-dasharray": dash}));
    key.append(svg("text", {x: w - 56, y: top + 10 + 16 * k}, hz));
    s.append(key);
  });
  host.append(s, dataTable("N_eff per run", ["run", "session", "horizon", "seats (n)", "ρ", "N_eff"],
    rows.map((r) => [r.run_id, r.session, r.horizon, r.n, fmt(r.rho, 2), fmt(r.n_eff, 2)])));
  host.append(el("p", {class: "note"}, `Source: ${neff.source}.`));
}

function renderCalibration(cal) {
  const host = document.getElementById("calibration-plots");
  const groups = cal.groups.filter((g) => g.bins.some((b) => b.shown));
  const wrap = el("div", {class: "horizons"});
  for (const g of groups.slice(0, 16)) {
    const size = 160, pad = 34;
    const s = svg("svg", {class: "calibration", width: size + pad + 16, height: size + pad + 30, "data-who": g.who,
      "data-horizon": g.horizon, role: "img", "aria-label": `Calibration of ${g.who} at ${g.horizon}`});
    const sx = (p) => pad + ((p - 50) / 50) * size, sy = (p) => 8 + size - (p / 100) * size;
    s.append(svg("rect", {x: pad, y: 8, width: size, height: size, fill: "#f6f7f9", stroke: "#dde"}));
    for (const v of [50, 75, 100]) {
      s.append(svg("line", {x1: sx(v), y1: 8 + size, x2: sx(v), y2: 12 + size, stroke: "#556"}));
      s.append(svg("text", {class: "axis-x", x: sx(v), y: size + 23, "text-anchor": "middle"}, v));
    }
    for (const v of [0, 50, 100]) {
      s.append(svg("line", {x1: pad - 4, y1: sy(v), x2: pad, y2: sy(v), stroke: "#556"}));
      s.append(svg("text", {class: "axis-y", x: pad - 6, y: sy(v) + 4, "text-anchor": "end"}, v));
    }
    s.append(svg("text", {x: pad + size / 2, y: size + 36, "text-anchor": "middle"}, "stated % (folded)"));
    s.append(svg("text", {x: 10, y: 8 + size / 2, transform: `rotate(-90 10 ${8 + size / 2})`, "text-anchor": "middle"}, "realised %"));
    s.append(svg("line", {x1: sx(50), y1: sy(50), x2: sx(100), y2: sy(100), stroke: "#aab", "stroke-dasharray": "3 3"}));
    for (const b of g.bins.filter((b) => b.shown)) {
      const dot = svg("circle", {class: "calib-point", cx: sx(b.mean_stated), cy: sy(b.realised),
        r: 4, fill: "#4c78a8"});
      dot.append(svg("title", {}, `${b.bin[0]}–${b.bin[1]}: stated ${fmt(b.mean_stated, 1)}, realised ${fmt(b.realised, 1)} (n ${b.n})`));
      s.append(dot);
    }
    wrap.append(el("figure", {}, [s, el("figcaption", {}, `${g.who} · ${g.horizon}`)]));
  }
  host.append(wrap);
  const tableRows = cal.groups.map((g) => el("tr", {}, [el("td", {}, g.who), el("td", {}, g.horizon),
    ...g.bins.map((b) => el("td", {class: "num"}, b.shown ? `${fmt(b.realised, 0)}% (n ${b.n})` : `n ${b.n}`))]));
  host.append(el("details", {class: "data-table"}, [el("summary", {}, "Calibration as a table (every bin)"), el("table", {}, [
    el("thead", {}, el("tr", {}, ["who", "h", "50–60", "60–70", "70–80", "80–100"].map((h) => el("th", {}, h)))),
    el("tbody", {}, tableRows)])]));
  host.append(el("p", {class: "note"}, `Source: ${cal.source}; shown from ${cal.calib_min} forecasts per bin.`));
}

function renderPoints(points) {
  const host = document.getElementById("points-table");
  if (!points || !points.seats.length) {
    host.append(el("p", {class: "note"}, `No point forecasts scored yet (${points ? points.source : "no data"}).`));
    return;
  }
  const buckets = [...new Set(points.seats.flatMap((r) => Object.keys(r.buckets || {})))].sort();
  const rows = points.seats.map((r) => el("tr", {class: "points-row", "data-seat": r.seat}, [
    el("th", {scope: "row"}, r.seat), el("td", {class: "num"}, fmt(r.overall, 3)),
    ...buckets.map((b) => el("td", {class: "num"}, fmt((r.buckets || {})[b], 3))),
    el("td", {class: "num"}, r.windows),
  ]));
  host.append(el("table", {class: "points"}, [
    el("thead", {}, el("tr", {}, ["seat", "relative MASE", ...buckets, "windows"].map((h) => el("th", {scope: "col"}, h)))),
    el("tbody", {}, rows),
  ]), el("p", {class: "note"}, `Source: ${points.source}.`));
}

function renderArms(arms) {
  const host = document.getElementById("arms-table");
  host.replaceChildren();
  if (!arms || !arms.runs.length) {
    host.append(el("p", {class: "note"}, `No arm has run yet (${arms ? arms.source : "no data"}).`));
    return;
  }
  const arm = (x) => x ? [el("td", {class: "num"}, fmt(x.heat, 1)), el("td", {class: "num"}, fmt(x.n_eff, 2))]
    : [el("td", {}, "–"), el("td", {}, "–")];
  const rows = arms.runs.map((r) => el("tr", {class: "arms-row", "data-session": r.session}, [
    el("th", {scope: "row"}, r.session), el("td", {class: "num"}, r.seats),
    ...arm(r.open), ...arm(r.closed_book), ...arm(r.price_only),
  ]));
  const head = ["session", "seats", "open heat", "open N_eff", "closed-book heat", "closed-book N_eff",
    "price-only heat", "price-only N_eff"];
  host.append(el("table", {class: "arms"}, [
    el("thead", {}, el("tr", {}, head.map((h) => el("th", {scope: "col"}, h)))),
    el("tbody", {}, rows),
  ]), el("p", {class: "note"}, `Source: ${arms.source}; newest ${arms.runs.length} runs.`));
}

function renderProof(today) {
  const list = document.getElementById("proof-links");
  const links = (today && today.proof) || [];
  if (!links.length) list.append(el("li", {}, "No proof files for this day yet."));
  for (const href of links) list.append(el("li", {}, el("a", {href, class: "proof-link"}, href.split("/").pop())));
}

function renderCorrections(items) {
  const list = document.getElementById("correction-list");
  if (!items || !items.length) { list.append(el("li", {}, "No correction has been sealed.")); return; }
  for (const c of items) {
    const what = c.target === "price"
      ? `${c.market} ${c.horizon} ${c.field} of ${c.session} → ${c.value} (source: ${c.source})`
      : `${c.seat} ${c.market} ${c.horizon} cell → ${c.embargoed ? "shown once the session is scored"
        : `prob_up ${c.cell && c.cell.prob_up}`} (source: ${c.source})`;
    list.append(el("li", {class: "correction", "data-line": String(c.line)},
      `line ${c.line} corrects line ${c.of}: ${what}. Reason: ${c.reason}`));
  }
}

function contestTable(headers, rows, id) {
  return el("table", {id}, [
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows),
  ]);
}

function renderContest(c) {
  const box = document.getElementById("contest-body");
  box.replaceChildren();
  if (!c || !c.contest) {
    box.append(el("p", {}, "No contest files published yet."));
    return;
  }
  const acc = c.forecast_accuracy || {};
  const rows = (acc.agents || []).map((a) => el("tr", {class: "contest-row", "data-agent": a.agent, "data-brier": a.brier}, [
    el("td", {class: "num"}, a.rank ?? "–"), el("td", {}, a.name || a.agent), el("td", {class: "num"}, a.n),
    el("td", {class: "num"}, fmt(a.brier)), el("td", {}, a.ci ? `[${fmt(a.ci[0])}, ${fmt(a.ci[1])}]` : "–"),
    el("td", {}, (a.vs_crowd && a.vs_crowd.verdict) || "–"),
  ]));
  if (acc.crowd) {
    rows.push(el("tr", {class: "cut"}, [el("td", {}, ""), el("td", {}, acc.crowd.name || "crowd"),
      el("td", {class: "num"}, acc.crowd.n), el("td", {class: "num"}, fmt(acc.crowd.brier)),
      el("td", {}, acc.crowd.ci ? `[${fmt(acc.crowd.ci[0])}, ${fmt(acc.crowd.ci[1])}]` : "–"), el("td", {}, "")]));
  }
  box.append(el("h3", {}, "Forecast accuracy (resolved markets)"),
    contestTable(["rank", "agent", "n", "Brier", "95% interval", "vs crowd"], rows, "contest-accuracy"));
  const bets = c.betting_record || {};
  const betRows = (bets.agents || []).map((a) => el("tr", {}, [
    el("td", {class: "num"}, a.rank ?? "–"), el("td", {}, a.name || a.agent), el("td", {class: "num"}, a.played),
    el("td", {class: "num"}, `${a.wins}–${a.losses}`), el("td", {class: "num"}, a.no_bets),
    el("td", {class: "num"}, fmt(a.net_pnl, 2)),
  ]));
  box.append(el("h3", {}, `Betting record (${bets.rounds_counted ?? 0} rounds counted)`),
    contestTable(["rank", "agent", "played", "won–lost", "no bet", "net P&L"], betRows, "contest-bets"));
  const cards = (c.rounds || []).map((r) => {
    const card = (c.cards || {})[String(r.round_id)];
    const picks = ((card && card.cards) || []).map((x) => el("li", {}, [
      el("strong", {}, x.name || x.agent), ` (${x.model || "model not reported"}): `,
      x.outcome ? `${x.outcome} at ${fmt(x.price, 2)}, confidence ${fmt(x.confidence, 2)}` : "no bet",
      x.pnl === null || x.pnl === undefined ? "" : `, P&L ${fmt(x.pnl, 2)}`,
      x.quote ? ` — “${x.quote}”` : "",
    ]));
    const tag = r.excluded && r.excluded.length ? ` · outside the tables: ${r.excluded.join(", ")}` : "";
    return el("div", {class: "contest-card", "data-round": r.round_id}, [
      el("p", {}, [el("a", {href: `contest/cards/${r.round_id}.json`}, `Round ${r.round_id}`),
        ` · ${r.question} · ${r.state}${r.winner ? `, won by ${r.winner}` : ""}${tag}`]),
      el("ul", {}, picks),
    ]);
  });
  box.append(el("h3", {}, "Newest rounds"), ...(cards.length ? cards : [el("p", {}, "No round yet.")]));
}

async function loadContest() {
  try {
    const resp = await fetch("api/contest");
    if (!resp.ok) throw new Error(`the API answered ${resp.status}`);
    renderContest(await resp.json());
  } catch (err) {
    document.getElementById("contest-body").replaceChildren(el("p", {class: "error"}, `Could not load the contest: ${err.message}`));
  }
}

async function main() {
  const status = document.getElementById("status");
  try {
    const resp = await fetch("api/page");
    if (!resp.ok) throw new Error(`the API answered ${resp.status}`);
    const data = await resp.json();
    renderToday(data.today);
    renderLeague(data.league);
    renderGrid(data.grid);
    renderNeff(data.n_eff);
    renderCalibration(data.calibration);
    renderPoints(data.points);
    renderArms(data.arms);
    renderProof(data.today);
    renderCorrections(data.corrections);
    await loadContest();
    status.textContent = `Rendered ${new Date().toISOString().slice(0, 19)}Z.`;
    document.body.setAttribute("data-ready", "1");
  } catch (err) {
    status.append(el("p", {class: "error"}, `Could not load the league: ${err.message}`));
    document.body.setAttribute("data-ready", "error");
  }
}


// ---------------------------------------------------------------------------------------------------------
// The reader experiment (docs/readers.md): a form beside the council, posted to the readers' write service
// mounted under readers/ on the same origin. Each answer carries the next single-use anti-forgery token, so the
// page sends one request at a time (a queue) and takes a fresh token from readers/state after a refusal.
const readers = {state: null, csrf: "", queue: Promise.resolve()};

function readersBox() {
  return document.getElementById("readers-body");
}

async function readersCall(path, body) {
  const init = body === undefined ? {credentials: "same-origin"}
    : {method: "POST", credentials: "same-origin", headers: {"content-type": "application/json"},
      body: JSON.stringify({...body, csrf: readers.csrf})};
  const resp = await fetch(`readers/${path}`, init);
  let data = null;
  try { data = await resp.json(); } catch (err) { data = null; }
  if (data && data.csrf) readers.csrf = data.csrf;
  return {ok: resp.ok, status: resp.status, data: data || {}};
}

// One request at a time: a token is good once, so two forms sent at once must not share one.
function readersSend(path, body) {
  const next = readers.queue.then(async () => {
    const got = await readersCall(path, body);
    if (!got.ok && got.status !== 404) {
      const fresh = await readersCall("state");  // a refused request spent its token: take the next one
      if (!fresh.ok) readers.csrf = "";
    }
    return got;
  });
  readers.queue = next.catch(() => undefined);
  return next;
}

function refusal(got) {
  const d = got.data || {};
  return d.error ? `${d.error}${d.fix ? ` — ${d.fix}` : ""}` : `the service answered ${got.status}`;
}

function councilPanel(council) {
  const markets = readers.state.markets;
  const up = (council && council.up) || {};
  const from = council && council.session;
  const rows = markets.map((m) => el("tr", {class: "council-row", "data-market": m}, [
    el("th", {scope: "row"}, m),
    el("td", {class: "num"}, up[m] === undefined ? "–" : `${fmt(up[m], 0)} % up`),
  ]));
  return el("div", {id: "readers-council", class: "readers-council"}, [
    el("h3", {}, "The council"),
    el("p", {class: "note"}, from
      ? `The council's one-day consensus probability of up, from the latest published session (${from}); the `
        + "session you forecast stays sealed until it is scored."
      : "No council figures are published yet."),
    el("table", {}, [el("thead", {}, el("tr", {}, [el("th", {scope: "col"}, "market"), el("th", {scope: "col"}, "council")])),
      el("tbody", {}, rows)]),
  ]);
}

function showCouncil(council) {
  const old = document.getElementById("readers-council");
  const panel = councilPanel(council);
  if (old) old.replaceWith(panel);
  else document.getElementById("readers-council-slot").append(panel);
  const peek = document.getElementById("readers-peek-box");
  if (peek) peek.remove();
}

function peekBox() {
  const button = el("button", {type: "button", id: "readers-peek"}, "Show the council now");
  const msg = el("p", {class: "readers-msg", id: "readers-peek-msg"});
  button.addEventListener("click", async () => {
    button.disabled = true;
    const got = await readersSend("peek", {});
    if (got.ok) {
      showCouncil(got.data.council);
      document.querySelector("#readers-council h3").after(el("p", {class: "note", id: "readers-peeked"},
        "You opened the council before your first forecast: this is recorded as looking before forecasting."));
    } else {
      msg.className = "readers-msg error";
      msg.textContent = refusal(got);
      button.disabled = false;
    }
  });
  return el("div", {id: "readers-peek-box", class: "readers-peek"}, [
    el("p", {class: "note"}, "Your group sees the council after your first forecast of the session. You may open "
      + "it now, but opening it before you forecast is recorded as looking before forecasting (a peek)."),
    button, msg,
  ]);
}

function sideInputs(name, idPrefix) {
  return el("span", {class: "readers-side"}, ["up", "down"].map((side) => el("label", {}, [
    el("input", {type: "radio", name, value: side, id: `${idPrefix}-${side}`, required: "required"}), ` ${side}`,
  ])));
}

function confidenceInput(id) {
  const range = el("input", {type: "range", min: "55", max: "95", step: "1", value: "70", id, name: "confidence",
    "aria-label": "confidence in percent"});
  const shown = el("output", {for: id, class: "readers-conf"}, "70 %");
  range.addEventListener("input", () => { shown.textContent = `${range.value} %`; });
  return el("span", {class: "readers-confidence"}, [el("label", {for: id}, "confidence "), range, " ", shown]);
}

function chosen(form, name) {
  const picked = form.querySelector(`input[name="${name}"]:checked`);
  return picked ? picked.value : null;
}

function marketForm(market, already) {
  const key = market.replace(/[^A-Za-z0-9_-]/g, "_");
  const msg = el("span", {class: "readers-msg", "data-market": market},
    already ? "You have forecast this market for this session: a further forecast is recorded but does not count." : "");
  const form = el("form", {class: "readers-form", "data-market": market}, [
    el("strong", {class: "readers-market"}, market), " ",
    sideInputs(`side-${key}`, `readers-${key}`), " ", confidenceInput(`readers-${key}-confidence`), " ",
    el("button", {type: "submit", class: "readers-submit"}, "Forecast"), " ", msg,
  ]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const side = chosen(form, `side-${key}`);
    const confidence = Number(form.querySelector('input[name="confidence"]').value);
    const button = form.querySelector("button");
    button.disabled = true;
    const got = await readersSend("forecast", {session: readers.state.session, market, side, confidence});
    button.disabled = false;
    if (got.ok) {
      msg.className = `readers-msg ${got.data.counted ? "counted" : "later"}`;
      msg.textContent = got.data.counted
        ? `Counted: ${side} at ${confidence} % for ${readers.state.session}.`
        : `Recorded, not counted: ${got.data.why || "only your first forecast counts"}.`;
      if (got.data.council && !document.getElementById("readers-council")) showCouncil(got.data.council);
    } else {
      msg.className = "readers-msg error";
      msg.textContent = refusal(got);
    }
  });
  return form;
}

function revisionPart() {
  const markets = readers.state.markets;
  const select = el("select", {id: "revision-market", name: "market"}, markets.map((m) => el("option", {value: m}, m)));
  const msg = el("p", {class: "readers-msg", id: "revision-msg"});
  const shows = el("div", {id: "revision-display"});
  const privateForm = el("form", {id: "revision-private", class: "readers-form"}, [
    el("label", {for: "revision-market"}, "market "), select, " ", sideInputs("revision-side", "revision-private"), " ",
    confidenceInput("revision-private-confidence"), " ",
    el("button", {type: "submit"}, "Record my private forecast"),
  ]);
  const finalForm = el("form", {id: "revision-final", class: "readers-form", hidden: "hidden"}, [
    el("span", {id: "revision-final-market"}), " ", sideInputs("revision-final-side", "revision-final"), " ",
    confidenceInput("revision-final-confidence"), " ", el("button", {type: "submit"}, "Record my final forecast"),
  ]);
  const panelShown = (shown) => {
    const panel = document.getElementById("readers-council");
    if (panel) panel.hidden = !shown;
  };
  privateForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const market = select.value;
    const got = await readersSend("revision/private", {session: readers.state.session, market,
      side: chosen(privateForm, "revision-side"),
      confidence: Number(privateForm.querySelector('input[name="confidence"]').value)});
    if (!got.ok) { msg.className = "readers-msg error"; msg.textContent = refusal(got); return; }
    msg.className = "readers-msg"; msg.textContent = `Private forecast of ${market} recorded.`;
    const s = got.data.shows || {};
    shows.replaceChildren(el("p", {class: "revision-shows", "data-display": got.data.display},
      got.data.display === "council"
        ? (s.council === null || s.council === undefined ? `The council has no published figure for ${market}.`
          : `The council (session ${s.from_session}): ${fmt(s.council, 0)} % up for ${market}.`)
        : s.control));
    privateForm.hidden = true;
    finalForm.hidden = false;
    finalForm.setAttribute("data-market", market);
    document.getElementById("revision-final-market").textContent = `final forecast of ${market}:`;
  });
  finalForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const market = finalForm.getAttribute("data-market");
    const got = await readersSend("revision/final", {session: readers.state.session, market,
      side: chosen(finalForm, "revision-final-side"),
      confidence: Number(finalForm.querySelector('input[name="confidence"]').value)});
    if (!got.ok) { msg.className = "readers-msg error"; msg.textContent = refusal(got); return; }
    msg.className = "readers-msg"; msg.textContent = `Final forecast of ${market} recorded.`;
    finalForm.hidden = true;
    privateForm.hidden = false;
    shows.replaceChildren();
    panelShown(true);
  });
  const open = el("button", {type: "button", id: "revision-open"}, "Start the revision protocol");
  const body = el("div", {id: "revision-steps", hidden: "hidden"}, [
    el("p", {class: "note"}, "1. Record a private forecast (the council panel above is hidden meanwhile). "
      + "2. You are shown, drawn at random, either the council's figure or a control display with no forecast. "
      + "3. Record your final forecast of the same market."),
    privateForm, shows, finalForm, msg,
  ]);
  open.addEventListener("click", () => { body.hidden = false; open.hidden = true; panelShown(false); });
  return el("div", {id: "readers-revision", class: "readers-revision"}, [
    el("h3", {}, "Second part: revise a forecast"),
    el("p", {class: "note"}, "A separate study: it does not change the forecasts above. "
      + "One private and one final forecast per market and session."),
    open, body,
  ]);
}

function renderReaders(state) {
  readers.state = state;
  const box = readersBox();
  const groupText = state.group === "g1" ? "you see the council's figures at once"
    : "you see the council's figures after your first forecast of this session";
  const done = new Set(state.forecast || []);
  box.replaceChildren(
    el("p", {id: "readers-session"}, [`Forecasts for the session of `, el("strong", {}, state.session),
      `, open until ${state.closes_at} · your group: ${groupText}.`]),
    el("div", {id: "readers-council-slot"}),
    el("div", {id: "readers-forms"}, state.markets.map((m) => marketForm(m, done.has(m)))),
    revisionPart(),
  );
  box.parentElement.setAttribute("data-group", state.group);
  if (state.council_visible) showCouncil(state.council);
  else document.getElementById("readers-council-slot").append(peekBox());
}

async function loadReaders() {
  const section = document.getElementById("readers");
  try {
    // the server marks the section when no readers' service is mounted: no request that can only answer 404
    const got = section.getAttribute("data-readers-service") === "off" ? {status: 404} : await readersCall("state");
    if (got.status === 404) {
      readersBox().replaceChildren(el("p", {class: "readers-off"},
        "The reader experiment is not open on this server."));
      section.setAttribute("data-readers", "off");
      return;
    }
    if (!got.ok) throw new Error(refusal(got));
    renderReaders(got.data);
    section.setAttribute("data-readers", "ready");
  } catch (err) {
    readersBox().replaceChildren(el("p", {class: "error"}, `The reader experiment could not load: ${err.message}`));
    section.setAttribute("data-readers", "error");
  }
}

main();
loadReaders();
