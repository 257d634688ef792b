"""Stamp backends (OpenTimestamps, RFC 3161, Rekor, a local authority) and the stamper."""
