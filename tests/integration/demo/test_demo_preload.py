"""What the demo's parent holds of the publish step: its own modules, imported with the demo, never the
statistics' numerical stack, which the publisher's side child imports (the parent is the demo's largest
process while it publishes; docs/costs.md)."""

from __future__ import annotations

import subprocess
import sys

_IMPORT_AND_LIST = """
import sys
import league.demo
print("HELD", *sorted({m.split(".")[0] for m in sys.modules} & {"scipy", "statsmodels", "arch"}))
print("PUBLISH", *(m in sys.modules for m in ("league.publish.forecast_cache", "league.publish.proof_pages",
                                              "league.publish.crowd", "league.evals.points")))
"""


def test_the_demo_holds_the_publish_modules_without_the_numerical_stack() -> None:
    done = subprocess.run([sys.executable, "-c", _IMPORT_AND_LIST], capture_output=True, text=True, timeout=120,
                          check=True)
    said = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line.split()}
    assert said["HELD"] == []
    assert said["PUBLISH"] == ["True", "True", "True", "True"]
