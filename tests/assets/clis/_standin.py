"""Shared behaviour of the stand-in vendor CLIs (stdlib only; copied next to each stand-in).

The prompt steers the stand-in: ``STANDIN:login``, ``STANDIN:usage``, ``STANDIN:ratelimit``,
``STANDIN:crash``, ``STANDIN:garbage``, ``STANDIN:sleep``. Otherwise it answers with a small
forecast, the flags it got and what it can see of its home and environment.
"""
import json
import os
import sys
import time


def home_listing():
    home = os.path.expanduser("~")
    found = []
    for root, _dirs, files in os.walk(home):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), home)
            if not rel.startswith("bin/"):
                found.append(rel)
    return sorted(found)


def reply_text(argv):
    answer = {"forecast": {"SPX": {"1d": {"prob_up": 61, "action": "hold"}, "years": "stand-in"}}}
    seen = {"flags": argv[1:], "home": home_listing(), "env": sorted(os.environ)}
    return "Stand-in reply.\nSEEN " + json.dumps(seen) + "\n```json\n" + json.dumps(answer) + "\n```\n"


def steer(prompt):
    for word in ("login", "usage", "ratelimit", "crash", "garbage", "sleep"):
        if "STANDIN:" + word in prompt:
            if word == "sleep":
                time.sleep(1000)
            return word
    return ""


def prompt_after(argv, flag):
    if flag in argv:
        return argv[argv.index(flag) + 1]
    return argv[-1]


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
