"""council-sides.json and council-tertiles.json in the demo folder: published, rebuilt from the books byte for
byte (verify step 11), recounted by tools/recount_sides.py (exit 0), and a changed figure caught (exit 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from league.publish.sides import SIDES_JSON, TERTILES_JSON


def recount(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", "tools/recount_sides.py", "."], cwd=folder, capture_output=True,
                          text=True, check=False, timeout=600)


def test_published_and_rebuilt(demo_public: Path, rebuilt: Path) -> None:
    for name in (SIDES_JSON, TERTILES_JSON):
        assert (demo_public / name).read_bytes() == (rebuilt / name).read_bytes()
    doc = json.loads((demo_public / SIDES_JSON).read_text(encoding="utf-8"))
    assert doc["computed"] is True and doc["labels"] == ["cn", "us"]
    assert any(r["computed"] for r in doc["runs"])


def test_recount_agrees_and_catches_a_change(demo_public: Path, tmp_path: Path) -> None:
    proc = recount(demo_public)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    copy = tmp_path / "public"
    shutil.copytree(demo_public, copy)
    doc = json.loads((copy / SIDES_JSON).read_text(encoding="utf-8"))
    run = next(r for r in doc["runs"] if r["computed"])
    run["eigen"]["top_share"] = (run["eigen"]["top_share"] or 0) + 0.01
    (copy / SIDES_JSON).write_text(json.dumps(doc), encoding="utf-8")
    changed = recount(copy)
    assert changed.returncode == 1 and "top_share" in changed.stdout
