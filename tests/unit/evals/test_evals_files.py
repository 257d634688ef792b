"""Files of the evaluation folder: atomic writes that concurrent writers of the same bytes cannot break."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from league.seatcore.files import store_text


def test_many_threads_storing_the_same_reply_all_succeed(tmp_path: Path) -> None:
    """Found by the benchmark: two identical replies sealed at once shared one temporary name."""
    text = "Final answer: \\boxed{A}"
    barrier = threading.Barrier(16)
    digests: list[str] = []
    errors: list[BaseException] = []

    def store() -> None:
        barrier.wait()
        try:
            for _ in range(20):
                digests.append(store_text(tmp_path, text))
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=store) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    digest = hashlib.sha256(text.encode()).hexdigest()
    assert set(digests) == {digest}
    assert [p.name for p in tmp_path.iterdir()] == [f"{digest}.txt"]
    assert (tmp_path / f"{digest}.txt").read_text() == text
