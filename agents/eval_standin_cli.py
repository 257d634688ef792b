#!/usr/bin/python3
"""A stand-in for a vendor CLI in the evaluation tracks: stdlib only, run inside the real sandbox.

It reads one JSON request on stdin (the prompt, the question's options, the seat's options and, for the
stand-in only, the recorded answer as a hint) and prints one JSON envelope like a CLI's JSON output mode:
``{"model", "result", "total_cost_usd", "network", "proxy"}``. ``network`` lists the interfaces the process can see
(``/proc/net/dev``), so a test can tell a closed-book run from one with the host network.

Every choice is a pure function of (seed, seat, question, trial) through SHA-256: with probability ``skill``
it answers the hint, otherwise a uniformly random answer of the question's kind. It first writes a draft
box with a different answer, so only the LAST box is its answer. When the prompt asks for a probability block
it writes one before the final box. Modes: normal, silent (prints nothing), prose (no box at all), crash
(exit 1), mixed (about one reply in five breaks one parsing rule: no box, an empty box, a lower-case letter,
an unknown letter).

A contextual-track path ask (league.evals.context: its prompt holds "History values: [...]" and "Horizon: N
steps", and the request no question) is answered with a path: in direct mode the last H history values as one
JSON array in a code block; in editing mode, on the first reply one program that averages the path with the
last H history values, then DONE. Mode ``prose`` answers in words only; ``mixed`` breaks about one path in five
(prose, one step short, a NaN, or a program that fails).
"""

import hashlib
import json
import os
import re
import sys
import time
from typing import Any

Request = dict[str, Any]


def unit(*parts: object) -> float:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def letters_of(question: dict[str, Any]) -> list[str]:
    return [chr(ord("A") + i) for i in range(len(question["options"]))]


def random_answer(req: Request, salt: str) -> list[str]:
    q = req["question"]
    letters = letters_of(q)
    if q["choice_type"] != "multi":
        return [letters[int(unit(req["seed"], req["seat"], q["id"], req["trial"], salt) * len(letters))]]
    picked = [x for x in letters if unit(req["seed"], req["seat"], q["id"], req["trial"], salt, x) < 0.5]
    return picked or [letters[0]]


def choose(req: Request) -> list[str]:
    q = req["question"]
    hint = req.get("hint")
    if hint and unit(req["seed"], req["seat"], q["id"], req["trial"], "skill") < float(req.get("skill", 0.0)):
        return list(hint)
    return random_answer(req, "pick")


def payload(q: dict[str, Any], letters: list[str]) -> str:
    if q["question_type"] == "yes_no":
        return "Yes" if letters == ["A"] else "No"
    if q["question_type"] == "binary_named":
        return str(q["options"][ord(letters[0]) - ord("A")])
    return ", ".join(letters)


def probabilities(q: dict[str, Any], letters: list[str], confidence: float) -> dict[str, float]:
    every = letters_of(q)
    if q["choice_type"] == "multi":
        return {x: (0.7 if x in letters else 0.2) for x in every}
    rest = round((1.0 - confidence) / (len(every) - 1), 3)
    probs = {x: rest for x in every}
    probs[letters[0]] = round(1.0 - rest * (len(every) - 1), 3)
    return probs


def broken(req: Request, final: str) -> str:
    """Mode ``mixed``: about one reply in five breaks one rule (deterministically)."""
    u = unit(req["seed"], req["seat"], req["question"]["id"], req["trial"], "mixed")
    if u < 0.05:
        return "I would rather not commit to an answer here."
    if u < 0.10:
        return "Final answer: \\boxed{ }"
    if u < 0.15 and req["question"]["question_type"] == "multiple_choice":
        return f"Final answer: \\boxed{{{final.lower()}}}"
    if u < 0.20 and req["question"]["question_type"] == "multiple_choice":
        return "Final answer: \\boxed{Z9}"
    return f"Final answer: \\boxed{{{final}}}"


def reply(req: Request) -> str:
    q = req["question"]
    letters = choose(req)
    draft = payload(q, random_answer(req, "draft"))
    final = payload(q, letters)
    parts = [f"Thinking about: {q['event']}", f"A first guess, to be revised: \\boxed{{{draft}}}"]
    if "<probabilities>" in req.get("prompt", ""):
        confidence = 0.5 + 0.45 * unit(req["seed"], req["seat"], q["id"], req["trial"], "confidence")
        parts.append("<probabilities>" + json.dumps(probabilities(q, letters, confidence)) + "</probabilities>")
    mode = req.get("mode", "normal")
    if mode == "prose":
        parts.append(f"My answer is {final}.")
    elif mode == "mixed":
        parts.append(broken(req, final))
    else:
        parts.append(f"Final answer: \\boxed{{{final}}}")
    return "\n".join(parts)


PATH_HISTORY = re.compile(r"History values: (\[[^\]]*\])")
PATH_HORIZON = re.compile(r"Horizon: (\d+) steps")
BLEND = "```python\nlast = history[-len(path):]\npath = [0.5 * (p + h) for p, h in zip(path, last)]\n```"


def is_path_ask(req: Request) -> bool:
    prompt = str(req.get("prompt", ""))
    return not req.get("question") and bool(PATH_HISTORY.search(prompt) and PATH_HORIZON.search(prompt))


def path_reply(req: Request) -> str:
    """A contextual-track path ask: the last H history values (direct), or one blending program then DONE."""
    prompt = str(req["prompt"])
    history = [float(v) for v in json.loads(PATH_HISTORY.search(prompt).group(1))]  # type: ignore[union-attr]
    horizon = int(PATH_HORIZON.search(prompt).group(1))  # type: ignore[union-attr]
    mode = req.get("mode", "normal")
    u = unit(req["seed"], req["seat"], hashlib.sha256(prompt.encode("utf-8")).hexdigest(), req["trial"], "path")
    if mode == "prose" or (mode == "mixed" and u < 0.05):
        return "The series should keep its recent pattern, a little higher than now."
    if "Improve a statistical base forecast" in prompt:
        if "This is reply 1 of" not in prompt:
            return "DONE"
        if mode == "mixed" and u < 0.2:
            return "Blending with the last cycle.\n```python\npath = [p / 0 for p in path]\n```"
        return "Blending the base with the last cycle.\n" + BLEND
    last = (history * (horizon // len(history) + 1))[-horizon:] if len(history) < horizon else history[-horizon:]
    values: list[object] = [round(v, 6) for v in last]
    if mode == "mixed" and u < 0.1:
        values = values[:-1]
    elif mode == "mixed" and u < 0.2:
        values[0] = "NaN"
    text = json.dumps(values).replace('"NaN"', "NaN")
    return "The last cycle, continued.\n```json\n" + text + "\n```"


def interfaces() -> list[str]:
    try:
        with open("/proc/net/dev", encoding="utf-8") as fh:
            return sorted(line.split(":")[0].strip() for line in fh.readlines()[2:])
    except OSError:
        return []


def main() -> int:
    req = json.loads(sys.stdin.read())
    time.sleep(max(0.0, min(float(req.get("think_s") or 0.0), 600.0)))  # a vendor's response time, if asked
    mode = req.get("mode", "normal")
    if mode == "silent":
        return 0
    if mode == "crash":
        sys.stderr.write("stand-in: simulated crash\n")
        return 1
    envelope = {"model": req.get("model", "standin"), "result": path_reply(req) if is_path_ask(req) else reply(req),
                "total_cost_usd": req.get("cost_usd"), "network": interfaces(),
                "proxy": os.environ.get("HTTPS_PROXY", "")}
    sys.stdout.write(json.dumps(envelope, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
