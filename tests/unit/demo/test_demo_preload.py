"""What the demo's parent imports ahead of publishing: the publish step's own modules, never the statistics'
numerical stack, which the publisher's side child imports (the parent is the demo's largest process while it
publishes; docs/costs.md, "The demo's processes")."""

from __future__ import annotations

import subprocess
import sys

_PRELOAD_AND_LIST = """
import sys
from league.demo import preload_publishing
preload_publishing()
print("HELD", *sorted({m.split(".")[0] for m in sys.modules} & {"scipy", "statsmodels", "arch"}))
print("PUBLISH", "league.publish.forecast_cache" in sys.modules, "league.publish.proof_pages" in sys.modules)
"""


def test_the_parent_preloads_the_publish_modules_without_the_numerical_stack() -> None:
    done = subprocess.run([sys.executable, "-c", _PRELOAD_AND_LIST], capture_output=True, text=True, timeout=120,
                          check=True)
    said = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines() if line.split()}
    assert said["HELD"] == []
    assert said["PUBLISH"] == ["True", "True"]
