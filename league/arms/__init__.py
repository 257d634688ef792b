"""The arms beside the daily council (docs/experiments.md): the same seats asked again under another packet.

An arm is a named variant of a run: what the ask shows (``closed_book``: the snapshot and a sealed packet of
headlines, told not to search; ``price_only``: the snapshot alone; the repeats: the open question, or the
closed-book one, asked again), the network policy it runs under, its own run line and run id, its own ask
hashes in its own ask chain, and its answers sealed on arrival as their own line kind in a book of their own,
so that nothing of the daily council's books, tables or files changes when arms run.
"""
