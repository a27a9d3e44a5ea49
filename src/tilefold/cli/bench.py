"""``tilefold bench [NAMES]``: run the checkout's benchmark scripts with single-threaded BLAS.

Contract: ``cmd_bench(args)`` runs only the ``benchmarks/`` of the checkout these sources belong to
(``benchmarks_dir``), never one of the current directory, and maps the runner's result to an exit code
(1 failed benchmark -> ``EXIT_USER``, unknown name -> ``EXIT_USAGE``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tilefold.cli.exits import EXIT_OK, EXIT_USAGE, EXIT_USER
from tilefold.errors import TilefoldError


def benchmarks_dir() -> Path | None:
    """The benchmarks/ of the checkout these sources belong to (src/tilefold/cli/bench.py ->
    <checkout>/benchmarks): never one found in the current directory or its parents, whose scripts would run as
    the user."""
    here = Path(__file__).resolve()
    candidate = here.parents[3] / "benchmarks" if len(here.parents) > 3 else None
    if candidate is not None and candidate.is_dir() and (here.parents[3] / "pyproject.toml").is_file():
        return candidate
    return None


#: the thread-count variables of the BLAS / OpenMP runtimes numpy may use
BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def _single_threaded_blas() -> None:
    """Run benchmarks with one BLAS thread, like the benchmark scripts do (a busy machine then cannot stall
    a measurement on a descheduled helper thread). The variables only take effect if numpy has not been
    imported yet — ``tilefold bench`` imports nothing numpy-heavy before this; subprocess benchmarks inherit
    them. When numpy is already loaded (an in-process caller), ``threadpoolctl`` limits the pools if it is
    installed."""
    for var in BLAS_THREAD_VARS:
        os.environ[var] = "1"
    if "numpy" in sys.modules:
        try:
            from threadpoolctl import threadpool_limits  # type: ignore[import-not-found]
        except ImportError:
            return
        threadpool_limits(1)


def cmd_bench(args: argparse.Namespace) -> int:
    _single_threaded_blas()
    from tilefold.bench import run_benchmarks

    own = benchmarks_dir()
    if own is None:
        raise TilefoldError("no benchmarks/ directory next to the tilefold sources",
                            hint="benchmarks ship with the source checkout, not with an installed package: run "
                                 "`tilefold bench` from a checkout installed with `make install`")
    argv = ["--plot"] if getattr(args, "plot", False) else None
    result = run_benchmarks(list(args.names) or None, root=own, argv=argv)  # never a benchmarks/ of the cwd
    # the runner's codes: 1 a benchmark failed, 2 an unknown name (a usage error here)
    return {0: EXIT_OK, 1: EXIT_USER, 2: EXIT_USAGE}.get(int(result), EXIT_USER)
