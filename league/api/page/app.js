// The league page: one fetch of /api/page, then plain DOM and inline SVG. No build step, no libraries.
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

// Brier 0 → green, 0.25 → pale yellow, 0.5 and worse → red.
function heat(b) {
  if (b === null || b === undefined) return "#eceff3";
  const t = Math.max(0, Math.min(1, b / 0.5));
  const hue = 130 * (1 - t);
  return `hsl(${hue.toFixed(0)}, 62%, ${(78 - 18 * Math.abs(t - 0.5)).toFixed(0)}%)`;
}

function renderToday(today) {
  const box = document.getElementById("today");
  box.querySelector(".loading")?.remove();
  if (!today || !today.run_id) {
    box.append(el("p", {}, "No run sealed yet."));
    return;
  }
  const answered = today.answers.filter((a) => a.cells > 0).length;
  box.append(el("p", {id: "today-run"}, [
    el("strong", {}, today.session), ` · run ${today.run_id} (book line ${today.line}) · `,
    `${answered} of ${today.answers.length} seats answered · the book holds ${today.book_lines} lines`,
  ]));
  const rows = today.answers.map((a) => el("tr", {}, [
    el("td", {}, a.seat), el("td", {}, `${a.model || ""} ${a.version || ""}`), el("td", {}, a.at || ""),
    el("td", {class: "num"}, a.cells), el("td", {class: "num"}, el("a", {href: `/api/runs/${encodeURIComponent(today.run_id)}`}, `#${a.n}`)),
  ]));
  box.append(el("table", {id: "today-answers"}, [
    el("thead", {}, el("tr", {}, ["seat", "model", "sealed", "cells", "line"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows),
  ]));
}

function renderLeague(league) {
  document.getElementById("rule-forecasts").textContent = league.rule.forecasts;
  document.getElementById("rule-sessions").textContent = league.rule.sessions;
  const host = document.getElementById("league-tables");
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
        el("td", {}, el("a", {href: `/api/seats/${encodeURIComponent(r.seat)}`}, r.seat)),
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
      g.append(svg("text", {x: x + cw / 2 - 1, y: y + 15, "text-anchor": "middle"}, fmt(c.brier, 3)));
      g.append(svg("title", {}, `${c.seat} · ${c.asset} · ${horizon}: Brier ${fmt(c.brier)} over ${c.n} forecasts`));
      s.append(g);
    }
    host.append(el("h3", {}, `Horizon ${horizon}`), s);
  }
  if (!grid.cells.length) host.append(el("p", {}, "No scored cells yet."));
}

function renderNeff(neff) {
  const host = document.getElementById("neff-plot");
  const rows = neff.per_run.filter((r) => r.n_eff !== null && r.n >= 2);
  if (!rows.length) { host.append(el("p", {class: "note"}, `N_eff: ${neff.source}.`)); return; }
  const horizons = [...new Set(rows.map((r) => r.horizon))];
  const colors = ["#4c78a8", "#f58518", "#54a24b", "#b279a2"];
  const runs = [...new Set(rows.map((r) => r.run_id))];
  const w = 760, h = 200, pad = 34;
  // N_eff exceeds n only when seats anti-correlate (ρ < 0); such points are drawn at n, the title says more.
  const maxY = Math.max(2, ...rows.map((r) => r.n));
  const s = svg("svg", {id: "neff-svg", width: w, height: h + 30, role: "img", "aria-label": "N_eff per run"});
  s.append(svg("line", {x1: pad, y1: h, x2: w - 10, y2: h, stroke: "#99a"}));
  s.append(svg("text", {x: 4, y: pad - 16}, `N_eff (axis top: ${maxY} seats)`));
  horizons.forEach((hz, k) => {
    const pts = rows.filter((r) => r.horizon === hz).map((r) => {
      const x = pad + (runs.indexOf(r.run_id) / Math.max(1, runs.length - 1)) * (w - pad - 20);
      const y = h - (Math.max(0, Math.min(r.n_eff, maxY)) / maxY) * (h - pad);
      return [x, y, r];
    });
    s.append(svg("polyline", {points: pts.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" "),
      fill: "none", stroke: colors[k % colors.length], "stroke-width": 1.5}));
    for (const [x, y, r] of pts) {
      const dot = svg("circle", {class: "neff-point", cx: x, cy: y, r: 2.5, fill: colors[k % colors.length]});
      dot.append(svg("title", {}, `${r.session} ${hz}: N_eff ${fmt(r.n_eff, 2)} of ${r.n} (ρ ${fmt(r.rho, 2)})`));
      s.append(dot);
    }
    s.append(svg("text", {x: w - 60, y: 14 + 14 * k, fill: colors[k % colors.length]}, hz));
  });
  s.append(svg("text", {x: pad, y: h + 20}, `${runs.length} runs, first ${rows[0].session}`));
  host.append(s, el("p", {class: "note"}, `Source: ${neff.source}.`));
}

function renderCalibration(cal) {
  const host = document.getElementById("calibration-plots");
  const groups = cal.groups.filter((g) => g.bins.some((b) => b.shown));
  const wrap = el("div", {class: "horizons"});
  for (const g of groups.slice(0, 16)) {
    const size = 160, pad = 24;
    const s = svg("svg", {class: "calibration", width: size + pad, height: size + pad + 16, "data-who": g.who,
      "data-horizon": g.horizon});
    const sx = (p) => pad + ((p - 50) / 50) * size, sy = (p) => 8 + size - (p / 100) * size;
    s.append(svg("rect", {x: pad, y: 8, width: size, height: size, fill: "#f6f7f9", stroke: "#dde"}));
    s.append(svg("line", {x1: sx(50), y1: sy(50), x2: sx(100), y2: sy(100), stroke: "#aab", "stroke-dasharray": "3 3"}));
    for (const b of g.bins.filter((b) => b.shown)) {
      const dot = svg("circle", {class: "calib-point", cx: sx(b.mean_stated), cy: sy(b.realised),
        r: 4, fill: "#4c78a8"});
      dot.append(svg("title", {}, `${b.bin[0]}–${b.bin[1]}: stated ${fmt(b.mean_stated, 1)}, realised ${fmt(b.realised, 1)} (n ${b.n})`));
      s.append(dot);
    }
    s.append(svg("text", {x: pad, y: size + pad + 10}, `${g.who} · ${g.horizon}`));
    wrap.append(s);
  }
  host.append(wrap);
  const tableRows = cal.groups.map((g) => el("tr", {}, [el("td", {}, g.who), el("td", {}, g.horizon),
    ...g.bins.map((b) => el("td", {class: "num"}, b.shown ? `${fmt(b.realised, 0)}% (n ${b.n})` : `n ${b.n}`))]));
  host.append(el("details", {}, [el("summary", {}, "every bin"), el("table", {}, [
    el("thead", {}, el("tr", {}, ["who", "h", "50–60", "60–70", "70–80", "80–100"].map((h) => el("th", {}, h)))),
    el("tbody", {}, tableRows)])]));
  host.append(el("p", {class: "note"}, `Source: ${cal.source}; shown from ${cal.calib_min} forecasts per bin.`));
}

function renderProof(today) {
  const list = document.getElementById("proof-links");
  const links = (today && today.proof) || [];
  if (!links.length) list.append(el("li", {}, "No proof files for this day yet."));
  for (const href of links) list.append(el("li", {}, el("a", {href, class: "proof-link"}, href.split("/").pop())));
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
      el("p", {}, [el("a", {href: `/contest/cards/${r.round_id}.json`}, `Round ${r.round_id}`),
        ` · ${r.question} · ${r.state}${r.winner ? `, won by ${r.winner}` : ""}${tag}`]),
      el("ul", {}, picks),
    ]);
  });
  box.append(el("h3", {}, "Newest rounds"), ...(cards.length ? cards : [el("p", {}, "No round yet.")]));
}

async function loadContest() {
  try {
    const resp = await fetch("/api/contest");
    if (!resp.ok) throw new Error(`the API answered ${resp.status}`);
    renderContest(await resp.json());
  } catch (err) {
    document.getElementById("contest-body").replaceChildren(el("p", {class: "error"}, `Could not load the contest: ${err.message}`));
  }
}

async function main() {
  const status = document.getElementById("status");
  try {
    const resp = await fetch("/api/page");
    if (!resp.ok) throw new Error(`the API answered ${resp.status}`);
    const data = await resp.json();
    renderToday(data.today);
    renderLeague(data.league);
    renderGrid(data.grid);
    renderNeff(data.n_eff);
    renderCalibration(data.calibration);
    renderProof(data.today);
    await loadContest();
    status.textContent = `Rendered ${new Date().toISOString().slice(0, 19)}Z.`;
    document.body.setAttribute("data-ready", "1");
  } catch (err) {
    status.append(el("p", {class: "error"}, `Could not load the league: ${err.message}`));
    document.body.setAttribute("data-ready", "error");
  }
}

main();
