"""The forecasting league daemon.

One process-wide setting is made here, before numpy or scipy can be imported by anything in the
package: OpenBLAS runs single-threaded unless the operator says otherwise. The league's linear
algebra is tiny (the ETS baseline's L-BFGS-B steps on a handful of parameters, small bootstraps);
OpenBLAS's worker threads wake and spin for each such call, which on a shared 2-core machine made
the ETS seat ~9x slower in wall time and ~7x in CPU time for the same fitted numbers
(docs/league-day.md, "Where the demo's time went"). ``setdefault`` keeps an explicit
``OPENBLAS_NUM_THREADS`` from the environment.
"""

import os as _os

#: The release's version, written here only: pyproject.toml reads it (setuptools' dynamic version), the wheel's
#: metadata carries it, and `league --version` prints it.
__version__ = "0.2.0"

_os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
