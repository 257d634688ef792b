"""The league day, one module per stage, in the order the data flows:

snapshot → ask → seal (on arrival) → second wave → ingest close → score → crowd, portfolio → stamp → publish

* :mod:`~league.jobs.snapshot` the morning prices (and the crowd's quotes), hashed before any ask;
* :mod:`~league.jobs.ask` the run line and every seat's exact text, sealed in the ask chain, then sent
  through the :mod:`~league.runner` (the one seam seats run through);
* :mod:`~league.jobs.seal` each reply sealed the moment it arrives;
* :mod:`~league.jobs.second_wave`, :mod:`~league.jobs.ingest_close` the re-ask and the counted cut-off;
* :mod:`~league.jobs.score` reference prices taken only now, after the seals; the counting rule itself
  is :mod:`league.counting`;
* :mod:`~league.jobs.crowd`, :mod:`~league.jobs.portfolio`, :mod:`~league.jobs.stamp`,
  :mod:`~league.jobs.publish`, :mod:`~league.jobs.preflight` the optional stages;
* :mod:`~league.jobs.scheduler` when each job runs (the DAY table, catch-up, the daemon);
* :mod:`~league.jobs.context` the League every job receives.

Every job is idempotent per (session, job) by the book itself. Leagues are built by
:mod:`league.compose`, never here.
"""
