"""benchmarks/public_compare.py sets aside only the run's clock: any other changed byte is reported."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("public_compare", BENCHMARKS / "public_compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _folder(root: Path, stamp: str, stats: str = '{"brier": 0.2}') -> Path:
    root.mkdir()
    (root / "council-stats.json").write_text(stats, encoding="utf-8")
    (root / "arena-protocol.json").write_text(json.dumps({"generated_at": stamp, "x": 1}, indent=1), encoding="utf-8")
    (root / "index.html").write_text(f"<p>Generated {stamp}. Files:</p>", encoding="utf-8")
    (root / "release-manifest.json").write_text(json.dumps({"generated_at": stamp, "files": [
        {"name": "arena-protocol.json", "bytes": 40, "sha256": stamp},
        {"name": "council-stats.json", "bytes": len(stats), "sha256": stats}]}, indent=1), encoding="utf-8")
    return root


def test_only_the_run_stamps_are_set_aside(tmp_path: Path) -> None:
    compare = _module().compare
    a = _folder(tmp_path / "a", "2026-12-01T00:00:00Z")
    assert compare(a, _folder(tmp_path / "b", "2026-12-01T01:02:03Z")) == []
    changed = _folder(tmp_path / "c", "2026-12-01T01:02:03Z", stats='{"brier": 0.3}')
    assert compare(a, changed) == ["differs: council-stats.json", "differs: release-manifest.json"]
