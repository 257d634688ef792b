"""The news port: dated headlines for the closed-book arm, and the sealed packet built from them.

A packet is built once per session from headlines published before its cutoff, sealed under its SHA-256
before the first arm ask, published, and never rebuilt: rebuilding it from the recorded feed must give the
same hash (docs/experiments.md, "News packets").
"""
