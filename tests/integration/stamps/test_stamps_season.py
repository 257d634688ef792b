"""A small season end to end: book → stamps (two local authorities over HTTP, calendar and Rekor
stand-ins) → proof pages → the reader's checks with openssl, head/sha256sum and verify_published."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
import subprocess
import threading
from datetime import UTC, datetime, timedelta
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import BLOCK_HEIGHT, BLOCK_TIME, Calendar, RekorLog

from league.book import Book
from league.clock import SimulatedClock
from league.publish.proof_pages import write_proof_pages
from league.stamping.stamper import Stamper
from league.stamps.interface import StampConfig, TsaEndpoint
from league.stamps.local_tsa import LocalTsa, create_authority
from league.stamps.ots import BlockHeaderFact
from league.stamps.rekor import generate_signing_key
from league.stamps.trust import TrustStore
from league.verify.reader import StepResult, verify_published
from league.verify.stamped import parse_stamped_list

BOOK = "council-book.jsonl"
SESSION = "2026-03-02"  # 09:30 America/New_York = 14:30Z (before daylight saving time)
ASK = b"Forecast the twelve markets.\n"


class Season:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.clock = SimulatedClock(datetime(2026, 3, 2, 13, 25, tzinfo=UTC))
        self.book_path = root / "data" / "books" / BOOK
        self.public = root / "data" / "public"
        self.stamps = root / "data" / "stamps"
        self.key = root / "data" / "keys" / "league-signing.pem"
        self.ask_sha = hashlib.sha256(ASK).hexdigest()

    def seal_morning(self, book: Book) -> None:
        book.append("run", {"run_id": "r1", "session": SESSION, "ask_sha256": self.ask_sha})
        for seat in ("alpha", "beta", "gamma"):
            self.clock.advance(timedelta(minutes=4))
            at = self.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
            book.append("answer", {"run_id": "r1", "seat": seat, "ask_sha256": self.ask_sha, "booked_at": at,
                                   "items": {"SPX": {"1d": {"prob_up": 55}}}})

    def publish(self) -> None:
        (self.public / "asks").mkdir(parents=True, exist_ok=True)
        (self.public / "asks" / f"{self.ask_sha}.md").write_bytes(ASK)
        shutil.copyfile(self.book_path, self.public / BOOK)
        (self.public / "tools").mkdir(exist_ok=True)
        (self.public / "replay.py").write_text("print('accounts: 3 recomputed, 0 differ')\n")
        (self.public / "tools" / "replay_brier.py").write_text("print('brier: 3 scores recomputed, 0 differ')\n")
        engine = b"def brier(p, o):\n    return (p - o) ** 2\n"
        (self.public / "arena-code-scoring-brier.py.txt").write_bytes(engine)
        manifest = {"files": [{"path": "league/scoring/brier.py", "published_as": "arena-code-scoring-brier.py.txt",
                               "sha256": hashlib.sha256(engine).hexdigest()}]}
        (self.public / "arena-code.json").write_text(json.dumps(manifest))
        write_proof_pages(self.stamps, self.public, books={BOOK: self.book_path},
                          public_key=self.key.with_name("league-signing.pub.pem"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, calendar: Calendar, rekor: RekorLog) -> Path:
    """Stamp and publish the season once; each test gets its own copy (see ``season``)."""
    tmp_path = tmp_path_factory.mktemp("season")
    s = Season(tmp_path)
    generate_signing_key(s.key)
    a = create_authority(tmp_path / "authorities" / "a", "Authority A")
    b = create_authority(tmp_path / "authorities" / "b", "Authority B")
    with LocalTsa("tsa-a", a, s.clock).serve() as url_a, LocalTsa("tsa-b", b, s.clock).serve() as url_b:
        config = StampConfig(
            tsa=(TsaEndpoint(name="tsa-a", url=url_a, ca_file=a.ca_pem),
                 TsaEndpoint(name="tsa-b", url=url_b, ca_file=b.ca_pem, cert_file=b.tsa_crt)),
            ots_calendars=(calendar.url,), rekor_url=rekor.url, key_path=s.key, retries=2, retry_wait=0,
        )
        stamper = Stamper(config, s.stamps, s.clock)
        with Book(s.book_path, s.clock) as book:
            s.seal_morning(book)
            s.clock.set(datetime(2026, 3, 2, 14, 0, tzinfo=UTC))
            first = stamper.stamp_books([(BOOK, s.book_path)])
            s.clock.set(datetime(2026, 3, 2, 21, 5, tzinfo=UTC))
            book.append("score", {"session": SESSION, "of": [2, 3, 4]})
            second = stamper.stamp_books([(BOOK, s.book_path)])
        assert first is not None and second is not None
        assert first.trust_level == "2+ pending" and all(o.ok for o in first.outcomes)
        s.publish()
    return tmp_path


@pytest.fixture
def season(built: Path, tmp_path: Path, calendar: Calendar) -> tuple[Season, Stamper]:
    shutil.copytree(built, tmp_path / "copy")
    s = Season(tmp_path / "copy")
    stamper = Stamper(StampConfig(ots_calendars=(calendar.url,)), s.stamps, s.clock)
    return s, stamper


def statuses(results: list[StepResult]) -> dict[int, str]:
    return {r.step: r.status for r in results}


def by_step(results: list[StepResult], step: int) -> StepResult:
    return next(r for r in results if r.step == step)


def test_openssl_accepts_every_published_token(season: tuple[Season, Stamper]) -> None:
    s, _ = season
    tokens = sorted((s.public / "proof").glob("*/*.tsr"))
    assert len(tokens) == 4
    for tsr in tokens:
        list_file = tsr.with_name(tsr.name.split(".txt.")[0] + ".txt")
        authority = tsr.name.split(".")[-2]
        cmd = ["openssl", "ts", "-verify", "-data", str(list_file.relative_to(s.public)),
               "-in", str(tsr.relative_to(s.public)), "-CAfile", f"proof/tsa/{authority}/ca.pem",
               "-untrusted", f"proof/tsa/{authority}/tsa.crt"]
        proc = subprocess.run(cmd, cwd=s.public, capture_output=True, text=True)
        assert proc.returncode == 0 and "Verification: OK" in proc.stdout, (tsr.name, proc.stderr)


def test_every_list_matches_head_n_of_the_published_book(season: tuple[Season, Stamper]) -> None:
    s, _ = season
    lists = sorted((s.public / "proof").glob("*/*Z.txt"))
    assert len(lists) == 2
    for lst in lists:
        ((name, n, digest, link),) = parse_stamped_list(lst.read_text())
        out = subprocess.run(f"head -n {n} {name} | sha256sum", shell=True, cwd=s.public, capture_output=True,
                             text=True, check=True).stdout.split()[0]
        assert out == digest
        assert json.loads((s.public / name).read_text().splitlines()[n - 1])["link"] == link


def test_proof_pages_hold_runs_ingest_close_and_the_key(season: tuple[Season, Stamper]) -> None:
    s, _ = season
    day = s.public / "proof" / SESSION
    runs = (day / "runs.txt").read_text()
    line2 = json.loads((s.public / BOOK).read_text().splitlines()[1])
    assert f"seal {line2['seal']} link {line2['link']}" in runs
    close = (day / "ingest-close.txt").read_text()
    assert "counted ingest closed at 2026-03-02T14:30:00Z" in close and "lines through 4" in close
    assert "140000Z.txt (signed 2026-03-02T14:00:00Z)" in close
    assert (s.public / "proof" / "league-signing.pub.pem").read_bytes() == s.key.with_name(
        "league-signing.pub.pem").read_bytes()
    index = (day / "index.txt").read_text()
    assert "trust level 2+ pending" in index and "log index" in index


def test_verify_passes_on_the_good_folder(season: tuple[Season, Stamper]) -> None:
    """The reader trusts the two authorities' roots (passed as her own anchors): every step is ok."""
    s, _ = season
    results = verify_published(s.public, trust=reader_store(s))
    assert [r.step for r in results] == [*range(1, 11), 13]  # 13: the CLI contest (none here)
    assert statuses(results) == {1: "ok", 2: "ok", 3: "ok", 4: "ok", 5: "ok", 6: "skipped", 7: "ok", 8: "ok", 9: "ok",
                                 10: "ok", 13: "skipped"}, [r.line() for r in results]
    assert "pending" in by_step(results, 6).detail
    assert "tsa-a, tsa-b: anchored in your trust store" in by_step(results, 9).detail
    assert not by_step(results, 9).strict


def test_folder_certificates_alone_are_untrusted(season: tuple[Season, Stamper]) -> None:
    """The folder's own ca.pem files are not the reader's: untrusted by default, "declared by the
    operator" with trust_folder_certs, and in both cases refused by --strict."""
    s, _ = season
    step9 = by_step(verify_published(s.public), 9)
    assert step9.status == "untrusted" and "tsa-a, tsa-b: UNTRUSTED" in step9.detail, step9.line()
    assert "chain only to certificates found in the folder" in step9.strict
    declared = by_step(verify_published(s.public, trust_folder_certs=True), 9)
    assert declared.status == "ok" and "certificates declared by the operator" in declared.detail, declared.line()
    assert "declared by the operator, not independent" in declared.strict
    assert "only on the word of an authority the operator declared" in declared.detail


def test_a_forged_root_in_the_folder_is_not_trusted(season: tuple[Season, Stamper], tmp_path: Path) -> None:
    """An operator who mints a third root and re-signs nothing gains nothing: tokens chain to the
    published roots only, and the reader's own anchor for another authority does not vouch for them."""
    s, _ = season
    other = create_authority(tmp_path / "other", "Other")
    step9 = by_step(verify_published(s.public, trust=TrustStore.default([other.ca_pem], system=False)), 9)
    assert step9.status == "untrusted", step9.line()


def reader_store(s: Season) -> TrustStore:
    """A reader who checked both authorities' roots herself (here: the files the stamps were made with)."""
    roots = sorted((s.root / "authorities").glob("*/ca.pem"))
    assert len(roots) == 2
    return TrustStore.default(roots, system=False)


def test_upgrade_completes_the_proofs_and_step_6_verifies(season: tuple[Season, Stamper], calendar: Calendar) -> None:
    s, stamper = season
    assert all(not complete for _, complete in stamper.upgrade())  # not mined yet: still pending
    calendar.mined = True
    upgraded = stamper.upgrade()
    calendar.mined = False
    assert len(upgraded) == 2 and all(complete for _, complete in upgraded)
    status = json.loads((s.stamps / SESSION / "140000Z.status.json").read_text())
    assert status["trust_level"] == "2+"
    roots = [r for r in calendar.commitments.values() if r]
    assert len(set(roots)) == 2
    s.publish()
    # the stand-in mined both commitments into "blocks" at the same height; check each list alone
    for root in roots:
        headers = {BLOCK_HEIGHT: BlockHeaderFact(BLOCK_HEIGHT, root[::-1].hex(), BLOCK_TIME)}
        step6 = by_step(verify_published(s.public, block_headers=headers), 6)
        assert step6.status == "FAILED" and "does not match the merkle root" in step6.detail
    single = {BLOCK_HEIGHT: BlockHeaderFact(BLOCK_HEIGHT, roots[0][::-1].hex(), BLOCK_TIME)}
    (s.public / "proof" / SESSION / "210500Z.txt.ots").unlink()
    step6 = by_step(verify_published(s.public, block_headers=single), 6)
    assert step6.status == "ok" and f"block {BLOCK_HEIGHT}" in step6.detail


def _flip(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))


def test_flipped_byte_fails_at_the_prefix_step_naming_stamp_and_line(season: tuple[Season, Stamper]) -> None:
    s, _ = season
    _flip(s.public / BOOK, b'"seat":"beta"', b'"seat":"bet4"')
    results = verify_published(s.public)
    step3 = by_step(results, 3)
    assert step3.status == "FAILED"
    assert "proof/2026-03-02/140000Z.txt line 2 (council-book.jsonl: 4 lines)" in step3.detail
    assert "first bad book line: 3 (bad seal" in step3.detail
    assert by_step(results, 4).status == "FAILED" and "line 3" in by_step(results, 4).detail


def test_token_signed_after_the_reference_is_flagged(tmp_path: Path) -> None:
    clock = SimulatedClock(datetime(2026, 3, 2, 13, 40, tzinfo=UTC))
    s = Season(tmp_path)
    s.clock = clock
    generate_signing_key(s.key)
    a = create_authority(tmp_path / "a", "A")
    stamper = Stamper(StampConfig(tsa=(TsaEndpoint(name="a", url="local:" + str(tmp_path / "a")),)),
                      s.stamps, clock)
    with Book(s.book_path, clock) as book:
        s.seal_morning(book)
        clock.set(datetime(2026, 3, 2, 14, 45, tzinfo=UTC))  # after 09:30 ET
        assert stamper.stamp_books([(BOOK, s.book_path)]) is not None
    assert (s.stamps / "tsa" / "a" / "ca.pem").read_bytes() == a.ca_pem.read_bytes()
    s.publish()
    step9 = by_step(verify_published(s.public), 9)
    assert step9.status == "FAILED"
    assert "session 2026-03-02: proof/2026-03-02/144500Z.txt.a.tsr signed 2026-03-02T14:45:00Z" in step9.detail
    assert "after the reference time 2026-03-02T14:30:00Z" in step9.detail


@pytest.mark.parametrize(
    ("step", "damage", "expected"),
    [
        (9, lambda p: (p / "proof/2026-03-02/140000Z.txt.tsa-a.tsr").write_bytes(b"\x30\x82garbage"),
         "140000Z.txt.tsa-a.tsr: tsa-a: the reply is not an RFC 3161"),
        (9, lambda p: (p / "proof/tsa/tsa-b/ca.pem").unlink(), "certificate proof/tsa/tsa-b/ca.pem is missing"),
        (9, lambda p: shutil.copyfile(p / "proof/tsa/tsa-b/ca.pem", p / "proof/tsa/tsa-a/ca.pem"),
         "tsa-a: its certificate chains to no trusted root"),
        (9, lambda p: shutil.copyfile(p / "proof/tsa/tsa-b/tsa.crt", p / "proof/tsa/tsa-a/tsa.crt"),
         "140000Z.txt.tsa-a.tsr: tsa-a:"),
        (6, lambda p: (p / "proof/2026-03-02/140000Z.txt.ots").write_bytes(
            (p / "proof/2026-03-02/140000Z.txt.ots").read_bytes()[:40]), "140000Z.txt.ots: not a valid .ots proof"),
        (10, lambda p: (p / "proof/2026-03-02/210500Z.txt.rekor.json").write_text("{\"x\": 1}"),
         "210500Z.txt.rekor.json: Rekor entry x is malformed"),
        (5, lambda p: next((p / "asks").iterdir()).write_text("edited"), "hashes to"),
        (8, lambda p: (p / "arena-code-scoring-brier.py.txt").write_text("changed"), "arena-code.json says"),
        (7, lambda p: (p / "replay.py").write_text("import sys\nsys.exit('account _spy differs')\n"),
         "replay.py exited 1: account _spy differs"),
        (2, lambda p: (p / "proof/2026-03-02/140000Z.txt").write_text("council-book.jsonl: 4 lines, sha256 zz\n"),
         "does not read as"),
    ],
)
def test_bad_input_gives_a_clear_failed_line(season: tuple[Season, Stamper], step: int, damage: Any,
                                             expected: str) -> None:
    s, _ = season
    damage(s.public)
    results = verify_published(s.public)
    assert len(results) == 11
    result = by_step(results, step)
    assert result.status == "FAILED" and expected in result.detail, result.line()
    assert "could not run this step" not in " ".join(r.detail for r in results)


def test_verify_by_url(season: tuple[Season, Stamper]) -> None:
    s, _ = season
    handler = functools.partial(_QuietHandler, directory=str(s.public))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        results = verify_published(f"http://127.0.0.1:{server.server_address[1]}/")
    finally:
        server.shutdown()
        server.server_close()
    local = statuses(verify_published(s.public))
    assert statuses(results) == {**local, 7: "skipped"}, [r.line() for r in results]
    assert "not run automatically" in by_step(results, 7).detail


def test_missing_folder_and_empty_folder(tmp_path: Path) -> None:
    assert verify_published(tmp_path / "nope")[0].status == "FAILED"
    results = verify_published(tmp_path)  # nothing to verify is not "ok": step 1 fails, no other step runs
    assert [(r.step, r.status) for r in results] == [(1, "FAILED")] and "no book here" in results[0].detail


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_league_verify_prints_one_line_per_step(season: tuple[Season, Stamper]) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    s, _ = season
    runner = CliRunner()
    good = runner.invoke(app, ["verify", str(s.public)])
    assert good.exit_code == 0, good.output
    # steps 1-10, then 11 (derived files: none published here), 12 (release manifest: not published) and
    # 13 (the CLI contest: none here)
    assert sum(line.startswith("step ") for line in good.output.splitlines()) == 13
    assert "step  1 the folder: ok" in good.output
    assert "step  3 prefix digests: ok" in good.output
    _flip(s.public / BOOK, b'"seat":"gamma"', b'"seat":"gammA"')
    bad = runner.invoke(app, ["verify", str(s.public)])
    assert bad.exit_code != 0 and "step  3 prefix digests: FAILED" in bad.output


def test_league_verify_strict_refuses_operator_declared_tokens(season: tuple[Season, Stamper]) -> None:
    """A folder whose only CA certificates are its own: exit 0 (the tokens reported untrusted), non-zero
    under --strict, with or without --trust-folder-certs; the reader's own anchors make --strict pass."""
    from typer.testing import CliRunner

    from league.cli import app

    s, _ = season
    runner = CliRunner()
    plain = runner.invoke(app, ["verify", str(s.public)])
    assert plain.exit_code == 0 and "step  9 RFC 3161 tokens: untrusted" in plain.output, plain.output
    for extra in ([], ["--trust-folder-certs"]):
        strict = runner.invoke(app, ["verify", str(s.public), "--strict", *extra])
        assert strict.exit_code != 0 and "--strict: step 9" in str(strict.exception), strict.output
    declared = runner.invoke(app, ["verify", str(s.public), "--trust-folder-certs"])
    assert declared.exit_code == 0 and "declared by the operator" in declared.output
    anchors = [a for root in sorted((s.root / "authorities").glob("*/ca.pem")) for a in ("--trust-anchor", str(root))]
    trusted = runner.invoke(app, ["verify", str(s.public), "--strict", *anchors])
    assert trusted.exit_code == 0 and "anchored in your trust store" in trusted.output, trusted.output
