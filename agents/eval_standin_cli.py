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
"""

import hashlib
import json
import os
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
    envelope = {"model": req.get("model", "standin"), "result": reply(req),
                "total_cost_usd": req.get("cost_usd"), "network": interfaces(),
                "proxy": os.environ.get("HTTPS_PROXY", "")}
    sys.stdout.write(json.dumps(envelope, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
