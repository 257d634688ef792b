"""The stamped release manifest (requirement 11) and the compliance table."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from league.verify.reader import manifest_step

MANIFEST = "release-manifest.json"


def _step12(folder: Path) -> tuple[str, str]:
    return manifest_step(folder)


def test_the_manifest_lists_every_published_file_and_its_hash_is_stamped(demo_public: Path) -> None:
    doc = json.loads((demo_public / MANIFEST).read_text(encoding="utf-8"))
    listed = {f["name"] for f in doc["files"]}
    on_disk = {p.relative_to(demo_public).as_posix() for p in demo_public.rglob("*") if p.is_file()}
    assert listed == {n for n in on_disk if not n.startswith("proof/") and n not in (MANIFEST, "index.html")}
    digest = hashlib.sha256((demo_public / MANIFEST).read_bytes()).hexdigest()
    stamped = [p for p in demo_public.glob("proof/*/*.txt") if f"{MANIFEST}: sha256 {digest}" in p.read_text()]
    assert stamped and any(demo_public.glob(f"proof/*/{stamped[0].name}.*.tsr"))
    status, detail = _step12(demo_public)
    assert status == "ok" and stamped[0].name in detail


def test_a_changed_file_fails_the_manifest_step_naming_it(copy: Path) -> None:
    path = copy / "markets-digest.json"
    path.write_bytes(path.read_bytes().replace(b"}", b" }", 1))
    status, detail = _step12(copy)
    assert status == "FAILED" and detail.startswith("markets-digest.json: ") and f"{MANIFEST} says" in detail


def test_a_manifest_rewritten_to_match_is_not_the_stamped_one(copy: Path) -> None:
    path = copy / "markets-digest.json"
    path.write_bytes(path.read_bytes().replace(b"}", b" }", 1))
    doc = json.loads((copy / MANIFEST).read_text(encoding="utf-8"))
    entry = next(f for f in doc["files"] if f["name"] == "markets-digest.json")
    entry.update(bytes=path.stat().st_size, sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    (copy / MANIFEST).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    status, detail = _step12(copy)
    assert status == "FAILED" and detail.startswith("no stamped list names its SHA-256")


def test_the_compliance_file_has_the_seventeen_requirements_and_verify_prints_them(
        demo_public: Path, clean_verify: tuple[int, str]) -> None:
    doc = json.loads((demo_public / "arena-compliance.json").read_text(encoding="utf-8"))
    rows = doc["requirements"]
    assert [r["number"] for r in rows] == list(range(1, 18))
    assert {r["status"] for r in rows} <= {"met", "partial", "not met", "not applicable"}
    assert next(r for r in rows if r["number"] == 16)["status"] == "not applicable"
    assert next(r for r in rows if r["number"] == 11)["status"] == "met"  # the manifest is published
    three = next(r for r in rows if r["number"] == 3)  # the demo's .ots and Rekor come from its local stand-ins
    assert three["status"] == "partial" and "services the operator runs" in three["evidence"], three
    code, output = clean_verify
    assert code == 0, output
    after = output.split("compliance with Sealed Before the Open", 1)[1].splitlines()[1:]
    table = [line.split() for line in after if re.match(r"^\s+\d+ (MUST|SHOULD) ", line)]
    assert [int(row[0]) for row in table] == list(range(1, 18)) and table[13][:3] == ["14", "MUST", "met"]


def test_a_bare_league_publish_stamps_its_new_manifest(demo_public: Path, tmp_path: Path) -> None:
    import shutil

    from typer.testing import CliRunner

    from league.cli import app

    root = tmp_path / "league"
    shutil.copytree(demo_public.parent.parent, root, symlinks=True)
    before = set((root / "data" / "stamps").rglob("*.txt"))
    result = CliRunner().invoke(app, ["publish", "--data", str(root / "data")])
    assert result.exit_code == 0, result.output
    new = set((root / "data" / "stamps").rglob("*.txt")) - before
    assert len(new) == 1 and f"{MANIFEST}: stamped in {next(iter(new)).name}" in result.output
    status, detail = _step12(root / "data" / "public")
    assert status == "ok" and next(iter(new)).name in detail


def test_a_folder_served_on_loopback_is_mirrored_rebuilt_and_checked(demo_public: Path) -> None:
    """By URL: the mirror fetches the derived files and every file the manifest lists; 11 and 12 pass."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from league.publish.rebuild import rebuild_step
    from league.verify.reader import verify_published

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(demo_public)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        steps = verify_published(url, extra=[(11, "derived files", rebuild_step), (12, "manifest", manifest_step)])
    finally:
        server.shutdown()
    by = {s.step: s for s in steps}
    assert by[11].status == "ok" and "council-stats.json" in by[11].detail, by[11].line()
    assert by[12].status == "ok", by[12].line()
    assert by[7].status == "skipped"  # scripts fetched from a URL are never run


def test_no_rebuild_skips_step_11_only(copy: Path) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    result = CliRunner().invoke(app, ["verify", "--no-rebuild", str(copy)])
    assert result.exit_code == 0, result.output
    assert "step 11 derived files: skipped — not asked for (--no-rebuild)" in result.output
    assert "step 12 release manifest: ok" in result.output
