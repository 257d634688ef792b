"""Stamp backends (OpenTimestamps, RFC 3161, Rekor, a local authority): what a stamp is, how each is taken
and checked. The stamper that runs them over the books is league.stamping."""
