"""Price port: 1-minute bars from Yahoo (live) or replay (offline), a day cache, and the pure
reference/terminal/draw-band rules that turn bars into resolved events."""
