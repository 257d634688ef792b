"""The stamper: the books' heads in a stamped list, stamped with every configured backend (league.stamps).

The writer's side of stamping: it reads the books (league.book), writes DATA/stamps/ and counts what it did
(league.ops.metrics). The backends it runs, and that a reader's checks run too, are league.stamps, which
imports none of this.
"""
