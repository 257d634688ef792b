"""Offline evaluation tracks (docs/evals.md): event-question sets and point forecasts.

Track A reads question sets in the SQLite layout of the published OracleProto data set, renders each prompt
byte-stably from the file's own recipe, runs a seat N times per question in its sandbox, parses the last
``\\boxed{}`` and seals every prompt hash, raw-reply hash and verdict in an eval book of its own. Track B scores
the council's sealed ``target`` levels as point forecasts with MASE against the seasonal-naive forecast.

The package is self-contained: it depends only on the book, the clock, the error root, the seat
protocol, the seat registry and the sandbox port.
"""
