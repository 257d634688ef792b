"""Publishing the open data (open-data.md): ``publish`` regenerates the folder from the books.

Import :func:`publish` from here; the documents it writes live in :mod:`league.publish.documents`.
"""

from __future__ import annotations

from league.publish.errors import PublishError
from league.publish.files import PublishedFile, PublishReport, publish

__all__ = ["PublishError", "PublishReport", "PublishedFile", "publish"]
