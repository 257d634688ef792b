"""The local authority reads its signer once while its files are unchanged, and counts serials as before."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from league.clock import SimulatedClock
from league.stamps.local_tsa import LocalTsa, create_authority
from league.stamps.rfc3161 import decode_reply, verify_token

CLOCK = SimulatedClock(datetime(2026, 6, 1, 13, 0, tzinfo=UTC))


def test_serials_count_up_in_the_file_as_openssl_kept_them(tmp_path: Path) -> None:
    tsa = LocalTsa("a", create_authority(tmp_path / "a", "a"), CLOCK)
    tsa.files.serial.write_text("FE\n", encoding="ascii")
    serials = [decode_reply(tsa.stamp(b"list %d" % i).data, "a").tst_info.serial_number for i in range(3)]
    assert serials == [0xFE, 0xFF, 0x100]
    assert tsa.files.serial.read_bytes() == b"101\n"
    tsa.files.serial.write_text("0A\n", encoding="ascii")  # shorter than the last text: nothing of it is left
    tsa.stamp(b"again")
    assert tsa.files.serial.read_bytes() == b"0B\n"


def test_a_replaced_signer_is_read_again(tmp_path: Path) -> None:
    tsa = LocalTsa("a", create_authority(tmp_path / "a", "a"), CLOCK)
    first = tsa.stamp(b"one")
    verify_token(first.data, b"one", ca_file=tsa.files.ca_pem, tsa_file=tsa.files.tsa_crt, authority="a")
    other = create_authority(tmp_path / "b", "b")  # another root and signer, put in place of the first's files
    for name in ("ca.pem", "tsa.crt", "tsa.key"):
        shutil.copyfile(other.directory / name, tsa.files.directory / (name + ".new"))
        (tsa.files.directory / (name + ".new")).replace(tsa.files.directory / name)
    second = tsa.stamp(b"two")
    certs = [decode_reply(art.data, "a").signed_data.certificates for art in (first, second)]
    assert certs[0] != certs[1]
    verify_token(second.data, b"two", ca_file=tsa.files.ca_pem, tsa_file=tsa.files.tsa_crt, authority="a")
