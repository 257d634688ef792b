"""The vendor-CLI contest (bench.md): a daily 30-market forecast sweep and betting rounds.

The contest is self-contained: it depends only on the book, the clock, the error root, the retry policy,
the seat protocol and the sandbox port. Every job is a plain function of a small
:class:`league.contest.context.ContestContext`, so the scheduler and the CLI call the same jobs.
"""
