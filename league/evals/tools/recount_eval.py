#!/usr/bin/env python3
"""Recount every published event-question evaluation from its open-data folder.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I recount_eval.py --data public

For every run listed in ``index.json`` it:

1. checks the eval book's hash chain with the formula of protocol.md §3 (every seal and link);
2. checks that ``runs/<run>/results.json`` has the SHA-256 sealed in the run's ``eval.close`` line and that
   ``questions/<file>.json`` has the hash sealed in ``eval.open``;
3. re-renders every admitted question's prompt from the published recipe and questions (written here from the
   rules in docs/evals.md, sharing no code with the league), adds the probability request sealed in
   ``eval.open`` when the run asked for one, and compares its SHA-256 with the sealed one and with
   ``prompts/<sha256>.txt``;
4. re-reads every raw reply from ``replies/<sha256>.txt`` (its hash must match), re-parses the last
   ``\\boxed{}`` and the probability block, and compares the result with the sealed verdict;
5. recomputes every figure of ``results.json``'s ``scores`` (pass@1 by group, exam, Pass^any/all, Tversky and
   its chance-corrected skill, Cohen's and Fleiss' κ, cost per correct answer, Brier, log loss, calibration)
   and compares them (to 1e-9).

Exit status 0 when everything matched, 1 on any mismatch, 2 when the folder cannot be read.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

BOXED = re.compile(r"\\boxed\{([^}]*)\}")
BLOCK = re.compile(r"<(probabilities|belief)>([\s\S]*?)</\1>")
TOLERANCE = 1e-9


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canon(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")


# ------------------------------------------------------------------------------------------ the book
def read_book(path: Path) -> list[dict[str, Any]]:
    lines, prev = [], ""
    with open(path, encoding="utf-8") as fh:
        for i, text in enumerate(fh, 1):
            x = json.loads(text)
            body = {k: v for k, v in x.items() if k not in ("n", "prev", "seal", "link")}
            if x["n"] != i or x["prev"] != prev or x["seal"] != sha(canon(body)):
                raise ValueError(f"eval book line {i}: n, prev or seal does not hold")
            if x["link"] != sha(canon({k: v for k, v in x.items() if k != "link"})):
                raise ValueError(f"eval book line {i}: link does not hold")
            prev = x["link"]
            lines.append(x)
    return lines


# -------------------------------------------------------------------------------------- prompts
def letter(i: int) -> str:
    return chr(ord("A") + i)


def kind(q: dict[str, Any]) -> str:
    return "mc_" + q["choice_type"] if q["question_type"] == "multiple_choice" else q["question_type"]


def render(q: dict[str, Any], recipe: dict[str, str], layout: str) -> str:
    k = kind(q)
    names = {"yes_no": "yes_no", "binary_named": "binary_named", "mc_single": "multiple_choice_single",
             "mc_multi": "multiple_choice_multi"}[k]
    template = recipe["prompt_template"] if layout == "single-template" else recipe[names + "_prompt_template"]
    output = recipe[names + "_output_format"]
    if k == "binary_named":
        output = output.replace("<options[0]>", q["options"][0]).replace("<options[1]>", q["options"][1])
    block = ""
    if q["question_type"] == "multiple_choice":
        rows = []
        for i, label in enumerate(q["options"]):
            mark = letter(i)
            rows.append(f"{mark}. {label}" if "A" <= mark <= "Z" else f"`{mark}`. {label}")
        block = "\n" + "\n".join(rows)
    return template.format(agent_role=recipe["agent_role"], event=q["event"], end_time=q["end_time"],
                           outcomes_block=block, output_format=output, guidance=recipe["guidance"])


# -------------------------------------------------------------------------------------- parsing
def parse(raw: str, q: dict[str, Any]) -> dict[str, Any]:
    letters_all = [letter(i) for i in range(len(q["options"]))]
    out: dict[str, Any] = {"letters": None, "payload": None, "failure": "", "probabilities": None,
                           "probability_failure": ""}
    boxes = list(BOXED.finditer(raw))
    if not boxes:
        out["failure"] = "no \\boxed{} in the reply"
    else:
        payload = boxes[-1].group(1).strip()
        out["payload"] = payload
        if not payload:
            out["failure"] = "the last \\boxed{} is empty"
        elif q["question_type"] == "yes_no":
            found = {"yes": "A", "no": "B"}.get(payload.lower())
            out["letters"] = [found] if found else None
            out["failure"] = "" if found else f"{payload!r} is neither Yes nor No"
        elif q["question_type"] == "binary_named":
            hits = [letter(i) for i, o in enumerate(q["options"]) if o.strip().lower() == payload.lower()]
            out["letters"] = hits[:1] or None
            out["failure"] = "" if hits else f"{payload!r} names neither option"
        else:
            tokens = [t for t in re.split(r"[,\s]+", payload) if t]
            bad = [t for t in tokens if t not in letters_all]
            if not tokens:
                out["failure"] = f"{payload!r} holds no letter"
            elif bad:
                out["failure"] = (f"{', '.join(repr(t) for t in bad)} is not an option letter "
                                  f"(A–{letters_all[-1]})")
            else:
                out["letters"] = sorted(set(tokens), key=ord)
    limit = boxes[-1].start() if boxes else len(raw)
    blocks = [m for m in BLOCK.finditer(raw) if m.end() <= limit]
    if blocks:
        out["probabilities"], out["probability_failure"] = parse_block(blocks[-1].group(1), blocks[-1].group(2),
                                                                       q, letters_all)
    return out


def parse_block(tag: str, body: str, q: dict[str, Any], letters_all: list[str]) -> tuple[Any, str]:
    try:
        doc = json.loads(body)
    except ValueError:
        return None, f"the <{tag}> block is not JSON"
    probs = doc.get("probabilities") if tag == "belief" and isinstance(doc, dict) else doc
    if not isinstance(probs, dict):
        return None, f"the <{tag}> block holds no probability object"
    if set(probs) != set(letters_all):
        return None, f"the probabilities are keyed {sorted(probs)}, not the option letters {letters_all}"
    ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 1
             for v in probs.values())
    if not ok:
        return None, "every probability must be a number from 0 to 1"
    clean = {k: float(probs[k]) for k in letters_all}
    if q["choice_type"] == "single" and abs(sum(clean.values()) - 1.0) > 1e-3:
        return None, f"single-answer probabilities sum to {sum(clean.values()):.4f}, not 1"
    return clean, ""


# -------------------------------------------------------------------------------------- scoring
def mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def tversky(pred: Any, gold: set[str]) -> float:
    pred = set(pred or [])
    tp = len(pred & gold)
    return 0.0 if tp == 0 else tp / (tp + 2.0 * len(pred - gold) + 0.5 * len(gold - pred))


def chance(k: int, m: int, multi: bool) -> float:
    if not multi:
        return 1.0 / k
    # a random subset holding tp of the m right letters and fp of the k - m wrong ones, each subset equally likely
    total = 0.0
    for tp in range(1, m + 1):
        for fp in range(k - m + 1):
            total += math.comb(m, tp) * math.comb(k - m, fp) * tp / (tp + 2.0 * fp + 0.5 * (m - tp))
    return total / 2 ** k


def kappa_two(a: list[str], b: list[str]) -> float | None:
    if not a:
        return None
    n = len(a)
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[c] * cb[c] for c in ca) / n / n
    return None if pe >= 1 else (po - pe) / (1 - pe)


def kappa_many(items: list[list[str]]) -> float | None:
    if not items or len(items[0]) < 2:
        return None
    n, r = len(items), len(items[0])
    p_bar = sum((sum(c * c for c in Counter(i).values()) - r) / (r * (r - 1)) for i in items) / n
    pe = sum((c / (n * r)) ** 2 for c in Counter(x for i in items for x in i).values())
    return None if pe >= 1 else (p_bar - pe) / (1 - pe)


def group(rows: list[dict[str, Any]], n_trials: int) -> dict[str, Any]:
    answered = [r for r in rows if r["answered"]]
    by_q: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_q[r["q"]["id"]].append(r)
    complete = [rs for rs in by_q.values() if len(rs) == n_trials and all(r["answered"] for r in rs)]
    skills = []
    for rs in by_q.values():
        ans = [r for r in rs if r["answered"]]
        if ans:
            q = ans[0]["q"]
            e = chance(len(q["options"]), len(ans[0]["gold"]), q["choice_type"] == "multi")
            skills.append((mean([tversky(r["letters"], r["gold"]) for r in ans]) - e) / (1 - e))
    exam_scores = [len(r["letters"]) / len(r["gold"]) if r["letters"] and set(r["letters"]) <= r["gold"] else 0.0
                   for r in answered]
    correct = sum(r["correct"] for r in answered)
    return {"questions": len(by_q), "trials": len(rows), "answered": len(answered), "correct": correct,
            "no_reply": len(rows) - len(answered), "parse_failures": sum(r["letters"] is None for r in answered),
            "pass_at_1": correct / len(answered) if answered else None, "exam": mean(exam_scores),
            "complete_questions": len(complete),
            "pass_any": mean([float(any(r["correct"] for r in rs)) for rs in complete]),
            "pass_all": mean([float(all(r["correct"] for r in rs)) for rs in complete]),
            "tversky": mean([tversky(r["letters"], r["gold"]) for r in answered]), "tversky_skill": mean(skills)}


def probability_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    stated = [r for r in rows if r["answered"] and r["probs"] is not None]
    briers, logs = [], []
    bins: list[list[tuple[float, float]]] = [[] for _ in range(10)]
    for r in stated:
        probs, gold = r["probs"], r["gold"]
        briers.append(sum((p - (k in gold)) ** 2 for k, p in probs.items()))

        def clip(p: float) -> float:
            return min(1 - 1e-6, max(1e-6, p))

        if r["q"]["choice_type"] == "multi":
            logs.append(-sum(math.log(clip(p if k in gold else 1 - p)) for k, p in probs.items()))
        else:
            logs.append(-math.log(clip(sum(p for k, p in probs.items() if k in gold))))
        for k, p in probs.items():
            bins[min(9, int(p * 10))].append((p, 1.0 if k in gold else 0.0))
    cal = [{"bin": i, "low": i / 10, "high": (i + 1) / 10, "count": len(b), "stated": mean([p for p, _ in b]),
            "observed": mean([o for _, o in b])} for i, b in enumerate(bins)]
    return {"trials": len(stated), "brier": mean(briers), "log_loss": mean(logs), "calibration": cal}


def scores(rows: list[dict[str, Any]], n_trials: int) -> dict[str, Any]:
    def split(key: Any) -> dict[str, Any]:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        return {k: group(v, n_trials) for k, v in sorted(groups.items())}

    full: dict[str, dict[int, str]] = {}
    for r in rows:
        full.setdefault(r["q"]["id"], {})[r["trial"]] = ",".join(r["letters"]) if r["letters"] is not None else None
    full = {q: t for q, t in full.items() if len(t) == n_trials and all(v is not None for v in t.values())}
    pairs = []
    for i, j in itertools.combinations(range(1, n_trials + 1), 2):
        qs = sorted(q for q in full if i in full[q] and j in full[q])
        pairs.append({"trials": [i, j], "questions": len(qs),
                      "kappa": kappa_two([full[q][i] for q in qs], [full[q][j] for q in qs])})
    ks = [p["kappa"] for p in pairs if p["kappa"] is not None]
    costed = [r for r in rows if r["answered"] and r["cost"] is not None]
    total = sum(r["cost"] for r in costed)
    right = sum(r["correct"] for r in costed)
    return {
        "overall": group(rows, n_trials),
        "by_question_type": split(lambda r: r["q"]["question_type"]),
        "by_choice_type": split(lambda r: r["q"]["choice_type"]),
        "by_kind": split(lambda r: kind(r["q"])),
        "agreement": {"questions": len(full), "cohen_pairs": pairs, "cohen_mean": mean(ks),
                      "fleiss": kappa_many([[full[q][k] for k in sorted(full[q])] for q in sorted(full)])},
        "cost": {"trials_with_cost": len(costed), "total": total if costed else None,
                 "per_answer": total / len(costed) if costed else None,
                 "per_correct": total / right if costed and right else None},
        "probabilities": probability_figures(rows),
    }


def differences(published: Any, recounted: Any, where: str) -> list[str]:
    if isinstance(recounted, dict):
        if not isinstance(published, dict):
            return [f"{where}: published {published!r}, recounted an object"]
        keys = set(published) | set(recounted)
        return [d for k in sorted(keys) for d in differences(published.get(k), recounted.get(k), f"{where}.{k}")]
    if isinstance(recounted, list):
        if not isinstance(published, list) or len(published) != len(recounted):
            return [f"{where}: lists differ in length"]
        pairs = enumerate(zip(published, recounted, strict=True))
        return [d for i, (p, r) in pairs for d in differences(p, r, f"{where}[{i}]")]
    if isinstance(recounted, float) and isinstance(published, (int, float)) and not isinstance(published, bool):
        if abs(published - recounted) <= TOLERANCE:
            return []
        return [f"{where}: published {published}, recounted {recounted}"]
    return [] if published == recounted else [f"{where}: published {published!r}, recounted {recounted!r}"]


# ------------------------------------------------------------------------------------------ a run
def recount_run(base: Path, entry: dict[str, Any], book: list[dict[str, Any]]) -> list[str]:
    run_id = entry["run_id"]
    opened = next(x for x in book if x["kind"] == "eval.open" and x["run_id"] == run_id)
    closed = next((x for x in book if x["kind"] == "eval.close" and x["run_id"] == run_id), None)
    problems = []
    results_bytes = (base / entry["results"]).read_bytes()
    if closed is None or closed["results_sha256"] != sha(results_bytes):
        problems.append(f"{run_id}: results.json does not have the SHA-256 sealed in eval.close")
    results = json.loads(results_bytes)
    qfile = base / "questions" / f"{opened['file']['sha256']}.json"
    qbytes = qfile.read_bytes()
    if sha(qbytes) != opened["questions_sha256"]:
        problems.append(f"{run_id}: {qfile.name} does not have the SHA-256 sealed in eval.open")
    qdoc = json.loads(qbytes)
    questions = {q["id"]: q for q in qdoc["questions"]}
    for qid in opened["admitted"]:
        text = render(questions[qid], qdoc["recipe"], qdoc["recipe_layout"])
        text += opened["probability_block"] or ""  # the league's probability request, sealed with the run
        digest = sha(text.encode("utf-8"))
        stored = base / "prompts" / f"{digest}.txt"
        if digest != opened["prompts"][qid] or not stored.is_file() or sha(stored.read_bytes()) != digest:
            problems.append(f"{run_id}: the prompt of {qid} does not re-render to its sealed hash")
    rows = []
    for x in (x for x in book if x["kind"] == "eval.reply" and x["run_id"] == run_id):
        q = questions[x["question_id"]]
        gold = {t.strip() for t in q["answer"].split(",")}
        verdict = None
        if x["status"] == "answered":
            raw_bytes = (base / "replies" / f"{x['raw_sha256']}.txt").read_bytes()
            if sha(raw_bytes) != x["raw_sha256"]:
                problems.append(f"{run_id}: reply of {q['id']} trial {x['trial']} does not match its hash")
            verdict = parse(raw_bytes.decode("utf-8"), q)
            problems += differences(x["verdict"], verdict, f"{run_id}: line {x['n']} verdict")
            if x["correct"] != (verdict["letters"] is not None and set(verdict["letters"]) == gold):
                problems.append(f"{run_id}: line {x['n']}: sealed correct={x['correct']} disagrees")
        rows.append({"q": q, "gold": gold, "trial": x["trial"], "answered": x["status"] == "answered",
                     "letters": verdict["letters"] if verdict else None,
                     "correct": bool(verdict and verdict["letters"] is not None and set(verdict["letters"]) == gold),
                     "cost": x.get("cost_usd"), "probs": verdict["probabilities"] if verdict else None})
    problems += differences(results["scores"], scores(rows, int(opened["trials"])), f"{run_id}: scores")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recount every published event-question evaluation.")
    parser.add_argument("--data", required=True, help="the open-data folder (holding index.json)")
    args = parser.parse_args(argv)
    base = Path(args.data)
    try:
        index = json.loads((base / "index.json").read_text(encoding="utf-8"))
        book = read_book(base / "eval-book.jsonl")
    except (OSError, ValueError, KeyError) as exc:
        sys.stdout.write(f"cannot read {base}: {exc}\n")
        return 2
    problems = []
    for entry in index:
        if entry.get("track") == "gift-eval-ctx":  # a contextual run: its own folder ships its own recount
            digest = sha((base / entry["results"]).read_bytes()) if (base / entry["results"]).is_file() else None
            found = [] if digest == entry["results_sha256"] else [
                f"{entry['run_id']}: {entry['results']} does not have the SHA-256 the index names"]
            problems += found
            sys.stdout.write(f"{entry['run_id']}: contextual run, {'ok' if not found else 'results differ'}; "
                             f"recount it with python3 {entry['recount']} --data {Path(entry['results']).parent}\n")
            continue
        try:
            found = recount_run(base, entry, book)
        except (OSError, ValueError, KeyError, StopIteration) as exc:
            found = [f"{entry.get('run_id')}: cannot recount ({type(exc).__name__}: {exc})"]
        problems += found
        sys.stdout.write(f"{entry['run_id']}: {'ok' if not found else f'{len(found)} difference(s)'}\n")
    for p in problems:
        sys.stdout.write(f"DIFFERS {p}\n")
    sys.stdout.write(f"recount: {len(index)} run(s), {len(problems)} difference(s)\n")
    return 1 if problems or not index else 0


if __name__ == "__main__":
    sys.exit(main())
