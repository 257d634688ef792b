"""Scoring and council statistics (``scoring.md``), pure and vectorised.

Computed only from forecast rows (``council-forecasts.csv``) and the sealed climatology table, so
that any reader can recompute every published number. Entry points, imported from their modules:

- :func:`league.scoring.frame.load_forecasts` parse the forecasts CSV (or rows) into a typed table;
- :func:`league.scoring.publish.build_all` / :func:`~league.scoring.publish.write_stats` the published
  statistics files;
- :func:`league.scoring.render.league_table` the rich league table for the CLI;
- :mod:`league.scoring.climatology` build, seal and re-check the fixed climatology table.

The package itself imports nothing: the statistics' modules (``publish``, ``render``) pull in scipy.stats,
statsmodels and arch (~1 s), and a process that needs only the climatology table or the score functions (a
league's day: the demo's season, the daemon's jobs) never imports them.
"""
