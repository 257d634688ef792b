"""End to end on a 3-session demo: the protocol's claims, checked from the published files."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

READER_LOOP = '''
import json, hashlib
H = lambda o: hashlib.sha256(json.dumps(o, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
prev = ""
for i, line in enumerate(open("council-book.jsonl", encoding="utf-8"), 1):
    x = json.loads(line)
    assert x["n"] == i and x["prev"] == prev
    assert x["seal"] == H({k: v for k, v in x.items() if k not in ("seal", "link", "prev", "n")})
    assert x["link"] == H({k: v for k, v in x.items() if k != "link"})
    prev = x["link"]
print(i)
'''


def t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def book(public: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in open(public / "council-book.jsonl", encoding="utf-8")]


def rows(public: Path) -> list[dict[str, str]]:
    with open(public / "council-forecasts.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_reader_loop_accepts_the_book(demo_league: dict[str, Any]) -> None:
    public = demo_league["public"]
    out = subprocess.run([sys.executable, "-I", "-c", READER_LOOP], cwd=public, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == len(book(public))


def test_counted_daily_cells_sealed_before_their_reference(demo_league: dict[str, Any]) -> None:
    counted = [r for r in rows(demo_league["public"]) if r["status"] == "counted" and r["horizon"] == "1d"]
    assert len(counted) > 100
    lines = {x["n"]: x for x in book(demo_league["public"])}
    for r in counted:
        line = lines[int(r["line"])]
        sealed = max(t(line["at"]), t(line["booked_at"]))
        assert sealed <= t(r["event_reference_at"]), r


def test_bitcoin_reference_bar_starts_at_or_after_the_seal(demo_league: dict[str, Any]) -> None:
    lines = book(demo_league["public"])
    by_n = {x["n"]: x for x in lines}
    checked = 0
    for score in (x for x in lines if x["kind"] == "score"):
        events = {e["event_id_v2"]: e for e in score["markets"]}
        for row in score["seats"]:
            if row["market"] != "BTC" or row["status"] != "counted":
                continue
            ev = events[row["event_id_v2"]]
            answer = by_n[row["line"]]
            sealed = max(t(answer["at"]), t(answer["booked_at"]))
            assert ev["reference_bar"] is not None
            assert t(ev["reference_bar"]) >= sealed
            checked += 1
    assert checked >= 10


def test_malformed_reply_is_refused_shape_with_its_raw_hash(demo_league: dict[str, Any]) -> None:
    answers = [x for x in book(demo_league["public"]) if x["kind"] == "answer" and x["seat"] == "grumpy"]
    assert answers and all(a["status"] == "refused_shape" and a["parse_failure"] for a in answers)
    for a in answers:
        raw = (demo_league["data"] / "replies" / f"{a['own_sha256']}.txt").read_bytes()
        assert hashlib.sha256(raw).hexdigest() == a["own_sha256"]
    statuses = {r["status"] for r in rows(demo_league["public"])
                if r["seat"] == "grumpy" and r["run_role"] == "session_run"}
    assert statuses == {"refused_shape"}


def test_silent_seat_is_no_answer_after_the_second_wave(demo_league: dict[str, Any]) -> None:
    public = demo_league["public"]
    asks = [json.loads(x) for x in open(public / "asks.jsonl", encoding="utf-8")]
    for session in demo_league["days"]:
        attempts = sorted(a["attempt"] for a in asks if a["kind"] == "ask" and a["seat"] == "mute"
                          and a["session"] == session)
        assert attempts == [1, 2]
    mute = [r for r in rows(public) if r["seat"] == "mute"]
    assert mute and {r["status"] for r in mute} == {"no_answer"}


def test_second_wave_seat_counts_from_its_second_attempt(demo_league: dict[str, Any]) -> None:
    """dozer is silent at 08:30 and answers the 09:00 re-ask: its counted rows carry attempt 2."""
    public = demo_league["public"]
    asks = [json.loads(x) for x in open(public / "asks.jsonl", encoding="utf-8")]
    for session in demo_league["days"]:
        assert sorted(a["attempt"] for a in asks if a["kind"] == "ask" and a["seat"] == "dozer"
                      and a["session"] == session) == [1, 2]
    dozer = [r for r in rows(public) if r["seat"] == "dozer" and r["run_role"] == "session_run"]
    assert dozer and {r["attempt"] for r in dozer} == {"2"}
    assert "counted" in {r["status"] for r in dozer} and {r["status"] for r in dozer} <= {"counted", "counted_50"}
    first_runs = {r["run_id"] for r in rows(public) if r["seat"] == "aurora" and r["run_role"] == "session_run"}
    assert not first_runs & {r["run_id"] for r in dozer}  # the second wave's own run line


def test_each_hard_case_has_its_status_in_the_csv(demo_league: dict[str, Any]) -> None:
    session_rows = [r for r in rows(demo_league["public"]) if r["run_role"] == "session_run"]
    status = {seat: {r["status"] for r in session_rows if r["seat"] == seat} for seat in ("grumpy", "mute", "sloth")}
    assert status["grumpy"] == {"refused_shape"} and status["mute"] == {"no_answer"}
    assert {r["late_ref"] for r in session_rows if r["seat"] == "sloth" and r["horizon"] == "1d"} == {"1"}


def test_the_pro_league_trades_the_seats_targets(demo_league: dict[str, Any]) -> None:
    """Scripted seats send a pro-1 targets block within its rules: the pro league trades, shorts included,
    and none of their pro-1 decisions is rejected."""
    public = demo_league["public"]
    with open(public / "arena-trades.csv", encoding="utf-8", newline="") as fh:
        pro = [t for t in csv.DictReader(fh) if t["league"] == "pro-1" and not t["account"].startswith("_")]
    scripted = {"aurora", "aurora-mini", "basalt", "cobalt", "delta", "ember", "dozer"}
    assert scripted <= {t["account"] for t in pro}
    assert any(float(t["position_after"]) < 0 for t in pro)
    lines = book(public)
    pro_lines = [x for x in lines if x.get("league") == "pro-1" and x.get("account") in scripted]
    rejected = [x for x in pro_lines if x["kind"] == "rejection"]
    assert rejected == [], [x["reason"] for x in rejected]
    decided = [x for x in pro_lines if x["kind"] == "decision"]
    assert decided and {x["source"] for x in decided} == {"targets"}


def test_late_seat_gets_its_own_event_with_late_ref(demo_league: dict[str, Any]) -> None:
    late = [r for r in rows(demo_league["public"]) if r["seat"] == "sloth" and r["horizon"] == "1d"
            and r["run_role"] == "session_run"]
    assert late and any(r["asset"] == "BTC" for r in late)  # bitcoin too: sealed after ingest close
    common_ref = {r["session"]: r["event_reference_at"] for r in rows(demo_league["public"])
                  if r["seat"] == "aurora" and r["horizon"] == "1d" and r["asset"] == "SPX"}
    for r in late:
        assert r["late_ref"] == "1" and r["same_event"] == "0"
        assert r["reference_at"] == r["event_reference_at"]  # Appendix C: the row's own reference (seal second)
        assert t(r["event_reference_at"]) > t(common_ref[r["session"]])
        assert t(r["event_reference_at"]) >= t(r["sealed_at"])
    common = {r["event_id_v2"] for r in rows(demo_league["public"]) if r["seat"] == "aurora"}
    assert not common & {r["event_id_v2"] for r in late}


def test_conformance_checker_passes_on_the_demo(demo_league: dict[str, Any]) -> None:
    from league.verify import CONFORMANCE_PATH

    csv_path = demo_league["public"] / "council-forecasts.csv"
    out = subprocess.run([sys.executable, "-I", str(CONFORMANCE_PATH), str(csv_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-2000:]
    assert out.stdout.strip().endswith("rows, ok")


def test_every_answer_names_a_published_ask(demo_league: dict[str, Any]) -> None:
    public = demo_league["public"]
    for a in (x for x in book(public) if x["kind"] == "answer"):
        text = (public / "asks" / f"{a['ask_sha256']}.md").read_bytes()
        assert hashlib.sha256(text).hexdigest() == a["ask_sha256"]


def test_league_verify_passes_on_the_published_folder(demo_league: dict[str, Any]) -> None:
    from league.verify.reader import verify_published

    steps = {s.step: s for s in verify_published(demo_league["public"], trust_folder_certs=True)}
    assert all(s.status != "FAILED" for s in steps.values()), [s.line() for s in steps.values()]
    for step in (2, 3, 4, 5, 7, 8, 9):
        assert steps[step].status == "ok", steps[step].line()
    assert "local-a, local-b: certificates declared by the operator" in steps[9].detail
    plain = {s.step: s for s in verify_published(demo_league["public"])}
    assert plain[9].status == "untrusted" and plain[9].strict, plain[9].line()


def test_every_sealed_commitment_is_published_and_checked(demo_league: dict[str, Any]) -> None:
    """Snapshots, config and climatology hash (sha256sum, computed here) to the values the book seals."""
    from league.verify.reader import Checker

    public = demo_league["public"]
    lines = book(public)
    opening = lines[0]
    assert opening["kind"] == "opening"
    assert hashlib.sha256((public / "config.json").read_bytes()).hexdigest() == opening["config_sha256"]
    assert hashlib.sha256((public / "climatology.json").read_bytes()).hexdigest() == opening["climatology_sha256"]
    first_run = next(x["n"] for x in lines if x["kind"] == "run")
    assert first_run > opening["n"]  # the climatology is sealed before the season's first ask
    runs = [x for x in lines if x["kind"] == "run" and x.get("snapshot_sha256")]
    assert {x["session"] for x in runs} == set(demo_league["days"])
    for run in runs:
        data = (public / "snapshots" / f"{run['session']}.json").read_bytes()
        assert hashlib.sha256(data).hexdigest() == run["snapshot_sha256"]
    status, detail = Checker(public, None).step5()
    assert status == "ok" and "3 snapshots, config.json, climatology.json match" in detail, detail


@pytest.mark.parametrize("name", ["snapshots/2026-11-24.json", "config.json", "climatology.json"])
def test_a_tampered_commitment_fails_step_5_naming_the_file(demo_league: dict[str, Any], tmp_path: Path,
                                                           name: str) -> None:
    import shutil

    from league.verify.reader import Checker

    copy = tmp_path / "public"
    shutil.copytree(demo_league["public"], copy)
    target = copy / name
    target.write_bytes(target.read_bytes().replace(b"}", b" }", 1))
    status, detail = Checker(copy, None).step5()
    assert status == "FAILED" and f"{name} hashes to" in detail, detail
    target.unlink()
    status, detail = Checker(copy, None).step5()
    assert status == "FAILED" and f"{name} is not published" in detail, detail


def test_steps_6_and_10_run_on_the_demo_and_say_whose_services_they_are(demo_league: dict[str, Any]) -> None:
    from league.stamps.standins import LOCAL_LOG_ID
    from league.verify.reader import Checker

    public = demo_league["public"]
    lists = sorted((public / "proof").glob("*/[0-9]*Z.txt"))
    assert lists and all(p.with_name(p.name + ".ots").is_file() for p in lists)
    assert all(p.with_name(p.name + ".rekor.json").is_file() for p in lists)
    checker = Checker(public, None)
    status, detail = checker.step6()
    assert status == "skipped" and f"{len(lists)} proofs commit to their lists' hashes" in detail, detail
    status, detail = checker.step10()
    assert status == "untrusted" and f"{len(lists)} entries log their lists' SHA-256" in detail, detail
    assert LOCAL_LOG_ID in detail and "other than Sigstore's public Rekor" in checker.strict_notes[10]


@pytest.mark.parametrize(("step", "damage", "expected"), [
    (6, lambda p: p.write_bytes(p.read_bytes()[:40]), ".txt.ots: not a valid .ots proof"),
    (10, lambda p: p.write_text(p.read_text().replace('"rootHash": "', '"rootHash": "00', 1)),
     ".txt.rekor.json: Rekor entry 1: inclusion proof does not lead to root 00"),
    (9, lambda p: p.write_bytes(p.read_bytes().replace(b"MII", b"MIJ", 1)), "local-a"),
])
def test_a_tampered_proof_fails_its_step_naming_the_file(demo_league: dict[str, Any], tmp_path: Path, step: int,
                                                        damage: Any, expected: str) -> None:
    import shutil

    from league.verify.reader import Checker

    copy = tmp_path / "public"
    shutil.copytree(demo_league["public"], copy)
    first = sorted((copy / "proof").glob("*/[0-9]*Z.txt"))[1]
    target = {6: first.with_name(first.name + ".ots"), 10: first.with_name(first.name + ".rekor.json"),
              9: copy / "proof" / "tsa" / "local-a" / "tsa.crt"}[step]
    damage(target)
    checker = Checker(copy, None, trust_folder_certs=True)
    status, detail = getattr(checker, f"step{step}")()
    assert status == "FAILED" and expected in detail, detail
    if step == 9:
        assert "tsa.crt" in detail or "certificate" in detail, detail


def test_flipped_byte_in_a_stamped_line_fails_the_prefix_step(demo_league: dict[str, Any], tmp_path: Path) -> None:
    import shutil

    from league.verify.reader import verify_published

    copy = tmp_path / "public"
    shutil.copytree(demo_league["public"], copy)
    data = bytearray((copy / "council-book.jsonl").read_bytes())
    first_lf = data.index(b"\n")
    pos = data.index(b'"kind":"run"', first_lf) + 9  # inside line 2's kind value
    data[pos] = ord("R")
    (copy / "council-book.jsonl").write_bytes(bytes(data))
    steps = {s.step: s for s in verify_published(copy)}
    assert steps[3].status == "FAILED"
    assert "line 2" in steps[3].detail


def test_portfolio_replay_reproduces_every_account(demo_league: dict[str, Any], tmp_path: Path) -> None:
    import shutil

    public = demo_league["public"]
    out = subprocess.run([sys.executable, "-I", str(public / "replay.py"), str(public)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-1500:]
    assert " 0 DIFFERENT" in out.stdout.strip().splitlines()[-1]
    copy = tmp_path / "public"
    shutil.copytree(public, copy)
    trades = (copy / "arena-trades.csv").read_text().splitlines()
    header = trades[0].split(",")
    row = trades[1].split(",")
    qty = header.index("price")
    row[qty] = str(float(row[qty]) * 1.01)
    trades[1] = ",".join(row)
    (copy / "arena-trades.csv").write_text("\n".join(trades) + "\n")
    bad = subprocess.run([sys.executable, "-I", str(copy / "replay.py"), str(copy)], capture_output=True, text=True)
    assert bad.returncode == 1 and "DIFFERENT" in bad.stdout
    account = row[header.index("account")]
    assert any(account in line and "DIFFERENT" in line for line in bad.stdout.splitlines())


def test_openssl_accepts_every_published_token(demo_league: dict[str, Any]) -> None:
    import shutil

    if shutil.which("openssl") is None:
        import pytest

        pytest.skip("openssl is not installed")
    public = demo_league["public"]
    tokens = sorted(public.glob("proof/*/*.tsr"))
    assert len(tokens) >= 6  # two authorities, at least one stamp per job that seals a batch
    for tsr in tokens:
        listed = tsr.with_name(tsr.name.split(".txt.")[0] + ".txt")
        authority = tsr.name.split(".txt.")[1].removesuffix(".tsr")
        tsa = public / "proof" / "tsa" / authority
        out = subprocess.run(["openssl", "ts", "-verify", "-data", str(listed), "-in", str(tsr),
                              "-CAfile", str(tsa / "ca.pem"), "-untrusted", str(tsa / "tsa.crt")],
                             capture_output=True, text=True)
        assert out.returncode == 0 and "Verification: OK" in out.stdout, (tsr, out.stdout, out.stderr)


def test_brier_recount_and_line_check_on_the_demo(demo_league: dict[str, Any]) -> None:
    public = demo_league["public"]
    out = subprocess.run([sys.executable, "-I", str(public / "tools" / "replay_brier.py"), "--data", str(public)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-1500:]
    assert " 0 differ" in out.stdout.strip().splitlines()[-1]
    lines = {x["n"]: x for x in book(public)}
    for r in rows(public):
        if r["prob_up"] and r["line_kind"] == "answer":
            cell = lines[int(r["line"])]["items"][r["asset"]][r["horizon"]]
            assert float(r["prob_up"]) == cell["prob_up"]


def test_crowd_prices_are_sealed_but_never_shown_to_seats(demo_league: dict[str, Any]) -> None:
    public = demo_league["public"]
    lines = book(public)
    runs = [x for x in lines if x["kind"] == "run" and x["attempt"] == 1]
    assert runs and all(r["crowd"] for r in runs)
    for run in runs:
        text = (public / "asks" / f"{run['ask_sha256']}.md").read_text(encoding="utf-8")
        for quote in run["crowd"]:
            assert quote["question"] in text
            assert "volume" not in text.lower() and "midpoint" not in text.lower()
    resolved = {(x["venue"], x["contract_id"]) for x in lines if x["kind"] == "crowd"}
    assert resolved == {(q["venue"], q["contract_id"]) for r in runs for q in r["crowd"]}
    league = json.loads((public / "council-league.json").read_text(encoding="utf-8"))
    assert league["crowd"]["rows"] > 0
    assert {s["tier"] for s in league["crowd"]["seats"]} <= {"primary", "thin"}


def test_momentum_baseline_follows_the_previous_sessions_sealed_move(demo_league: dict[str, Any]) -> None:
    lines = book(demo_league["public"])
    scores = {x["session"]: x for x in lines if x["kind"] == "score"}
    sessions = sorted(scores)
    checked = 0
    for a in (x for x in lines if x["kind"] == "answer" and x["seat"] == "_momentum"):
        i = sessions.index(a["session"])
        if i == 0:
            assert not any("1d" in cells for cells in a["items"].values())
            continue
        moves = {}
        for m in scores[sessions[i - 1]]["markets"]:
            if not m["late_ref"] and m["change_pct"] is not None:
                moves.setdefault(m["market"], m["change_pct"])
        for code, move in moves.items():
            stated = a["items"].get(code, {}).get("1d", {}).get("prob_up")
            if move == 0:
                assert stated is None
            else:
                assert stated == (55 if move > 0 else 45), (a["session"], code, move, stated)
                checked += 1
    assert checked >= 12
