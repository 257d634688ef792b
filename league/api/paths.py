"""Where the served files are: the open-data folder and the live book.

``league serve --data DIR`` accepts the data folder written by ``league demo --out DIR`` (open data
in ``DIR/public``, the live book in ``DIR/books``) or an open-data folder itself. The stream follows
the live book when there is one, so a line sealed a second ago is delivered without waiting for
the nightly publish.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from league.api.contest import contest_book
from league.api.errors import BadRequest, DataFolderError, NotFound, shown

BOOK = "council-book.jsonl"


@dataclass(frozen=True)
class DataPaths:
    public: Path
    book: Path
    contest_book: Path | None = None  # the CLI contest's book (live or published), when there is one

    @classmethod
    def resolve(cls, data_dir: Path) -> DataPaths:
        data_dir = Path(data_dir).resolve()
        if not (data_dir / "books").is_dir() and (data_dir / "data" / "books").is_dir():
            data_dir = data_dir / "data"  # the folder of `league demo --out DIR` holds config/ and data/
        public = data_dir / "public" if (data_dir / "public").is_dir() else data_dir
        live = data_dir / "books" / BOOK
        book = live if live.is_file() else public / BOOK
        if not book.is_file():
            raise DataFolderError(
                f"{data_dir}: no {BOOK} in books/ or public/",
                fix="pass the folder written by `league demo --out DIR` (or an open-data folder) as --data",
            )
        return cls(public=public, book=book, contest_book=contest_book(data_dir, public))

    def public_file(self, relative: str) -> Path:
        """The file ``relative`` names inside the open-data folder; traversal is refused, not resolved.

        A name the file system could not even look up (a segment over 255 bytes, thousands of
        segments) is refused before any lookup, and any other file-system error is a 404: a request
        never becomes a 500 with its path in the server's log."""
        parts = relative.split("/")
        shown = _shown(relative)
        if "\x00" in relative or "\\" in relative or any(p in ("..", ".") for p in parts) or relative.startswith("/"):
            raise BadRequest(f"path {shown} is refused: no '..', '.', backslash or absolute paths")
        if (len(parts) > MAX_SEGMENTS or len(relative.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES
                or any(len(p.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for p in parts)):
            raise NotFound(f"no file {shown} in the open data (no published name is that long)",
                           fix="see /index.html for the list of files")
        try:
            return self._existing(relative, shown)
        except OSError:
            raise NotFound(f"no file {shown} in the open data", fix="see /index.html for the list of files") from None

    def _existing(self, relative: str, shown: str) -> Path:
        target = (self.public / relative).resolve()
        if not target.is_relative_to(self.public.resolve()):
            raise BadRequest(f"path {shown} leaves the open-data folder")
        if target.is_dir():
            index = next((target / n for n in ("index.html", "index.txt") if (target / n).is_file()), None)
            if index is not None:
                return index
        if not target.is_file():
            raise NotFound(f"no file {shown} in the open data", fix="see /index.html for the list of files")
        return target


MAX_NAME_BYTES = 255  # NAME_MAX of Linux file systems
MAX_PATH_BYTES = 1024
MAX_SEGMENTS = 32


def _shown(relative: str) -> str:
    """The path as an error message quotes it: never more than 120 characters of what a client sent."""
    return shown(relative)
