"""Seat adapters: vendor CLIs, SDK seats, baseline seats and a scripted seat for offline runs."""
