"""The contextual point-forecast track (seed 004, GIFT-Eval-CTX): history-plus-effects windows and how their
paths are scored. Pure (no clock, no network): ``windows`` (windows from a series, their hashes; the only I/O is
reading a series file), ``hard`` (the hard-window filter against a named reference forecaster), ``effects``
(Macro and Micro effects computed by code from the realised future), ``validate`` (every value recomputed),
``scores`` (MASE of a path, relative MASE per configuration, compliance figures).
"""
