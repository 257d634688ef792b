"""The contextual track (seed 004, GIFT-Eval-CTX): history-plus-effects windows and how their paths are scored.

``scores`` is pure (no clock, no I/O): MASE of a path against its window, the relative MASE per configuration
(bucket × arm) and the compliance figures (length, stated range, effects' strengths).
"""
