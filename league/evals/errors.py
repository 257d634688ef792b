"""The evaluation tracks' error root; every deliberate failure of ``league eval`` derives from it."""

from __future__ import annotations

from league.errors import LeagueError


class EvalError(LeagueError):
    """Something in an evaluation could not be done; the message says what and ``fix`` what to do."""


class QuestionFileError(EvalError):
    """A question file (or its prompt recipe) cannot be used as it is; the message names the table, key or slot."""

    exit_code = 2


class RecountFailed(EvalError):
    """The stand-alone recount disagreed with a published figure, or could not read the folder."""

    exit_code = 4
