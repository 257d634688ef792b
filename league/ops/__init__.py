"""What an operator watches: Prometheus metrics, the health endpoint, and systemd's notify protocol.

Kept apart from the jobs so that the read-only API and the daemon share the same metric names, and
so that recording a metric can never change what is sealed: every recorder here swallows nothing and
raises nothing of its own (prometheus-client's counters do not fail).
"""
