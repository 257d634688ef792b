"""GIFT-Eval-CTX's pure data layer: windows, the hard-window filter, the structured effects and their validator.

The track (seed 004) gives a forecaster a history plus *structured effects* drawn from the realised future
and scores its path by MASE. This package builds the windows, keeps the hard ones, computes the effects by code
and re-checks any effects record against the series. No clock, no network; the only I/O is reading a series file
(``windows.read_series_csv`` / ``read_series_parquet``).
"""
