"""Leakage discipline (docs/evals.md): which questions a seat may be scored on. Pure.

A question is admitted for a seat only when the seat's declared knowledge cutoff is strictly before the
question's information cutoff (its ``info_cutoff``/``created_at`` column; the resolution date when the file has
neither), and that information cutoff is strictly before the resolution. Everything else is excluded with the
reason, and the exclusions are published beside the scores: a question a model may have read the answer of is
reported, never silently dropped and never scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from league.evals.questions import Question


@dataclass(frozen=True)
class Admission:
    admitted: bool
    reason: str
    anchor: str  # "info_cutoff" or "resolution": which date the seat's cutoff was compared with


def admit(question: Question, knowledge_cutoff: date) -> Admission:
    info = question.info_cutoff
    end = question.end_time
    if info is None:
        if knowledge_cutoff < end:
            return Admission(True, "", "resolution")
        return Admission(False, f"resolved {end} on or before the seat's knowledge cutoff {knowledge_cutoff}",
                         "resolution")
    if not info < end:
        return Admission(False, f"information cutoff {info} is not before the resolution {end}", "info_cutoff")
    if not knowledge_cutoff < info:
        return Admission(False, f"the seat's knowledge cutoff {knowledge_cutoff} is not before the question's "
                                f"information cutoff {info}", "info_cutoff")
    return Admission(True, "", "info_cutoff")
