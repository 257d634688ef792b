"""What the council, the contest and the evaluation tracks share between a seat's reply and the book.

A track asks a seat through the seat port (``league_agents``: the registry builds any adapter, the tracks'
stand-ins included, on the registered sandbox; ``ask_one`` never raises), then seals what came back in its
own book. The sealing end is here, once: :mod:`league.seatcore.ledger`, the one writer of a track's book
that several threads append to, and :mod:`league.seatcore.files`, the files a sealed line names by their
SHA-256 (exact bytes, written atomically and fsync'd before the line naming them is sealed). What a track's
lines say, and what it publishes, stays in the track (league/contest/, league/evals/).
"""
