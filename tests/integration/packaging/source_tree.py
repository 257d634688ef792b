"""What the packaging tests share: a checked command, and a copy of the source tree a wheel is built from."""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def source_copy(target: Path) -> Path:
    """Tracked and new (not ignored) files, so the build leaves nothing in the checkout and sees this work."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "league", "agents",
                             "sandbox", "league_agents", "pyproject.toml", "README.md", "LICENSE", "config"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    archive = target.with_suffix(".tar")
    with tarfile.open(archive, "w") as tar:
        for name in listed:
            if (ROOT / name).exists() or (ROOT / name).is_symlink():
                tar.add(ROOT / name, arcname=name, recursive=False)
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="tar")
    return target
