"""Running ``@pl.jit`` kernels on the simulator: ``kernel(a, b, out)`` with numpy arrays (or torch tensors when
torch is installed) compiles the kernel for the arguments' signature (cached), simulates it and writes the
``pl.Out`` / ``pl.InOut`` arguments in place, as PyPTO's runtime does on a device.

``RunConfig`` takes PyPTO's fields that make sense on a simulator; ``run(kernel, *args, config=...)`` is the
function form. ``TensorSpec`` describes an argument by shape and dtype only (for ``compile`` / ``lower``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tilefold.errors import NotSupportedError
from tilefold.runtime.compiled import CompiledKernel
from tilefold.runtime.config import PLATFORMS, RUNTIME_FIELDS, RunConfig
from tilefold.runtime.execute import run_jit
from tilefold.runtime.jit import JITFunction
from tilefold.runtime.tensor_args import TensorSpec


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    cycles: float
    compiled: Any


def run(kernel: JITFunction, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
    """``run(kernel, *args, config=...)``: the same as calling the kernel (or the ``CompiledProgram``)."""
    from tilefold.compiler import CompiledProgram

    if isinstance(kernel, CompiledProgram):
        return CompiledKernel.of(kernel)(*args, config=config, **kwargs)
    if not isinstance(kernel, JITFunction):
        raise NotSupportedError("tilefold.runtime.run runs @pl.jit kernels and compiled programs",
                                hint="decorate the kernel with @pl.jit; for @pl.program IR use tilefold.testing")
    return run_jit(kernel, args, config, kwargs)


from tilefold.runtime.benchmark import BenchmarkStats, benchmark  # noqa: E402  (they use RunConfig)
from tilefold.runtime.worker import ChipWorker, DeviceTensor  # noqa: E402

#: PyPTO runtime names that have no meaning on one simulated chip -> why
UNSUPPORTED = {
    "DistributedWorker": "multi-rank (distributed) execution",
    "DistributedCompiledProgram": "multi-rank (distributed) programs",
    "DistributedConfig": "multi-rank (distributed) programs",
    "write_golden": "recorded golden artefacts (tilefold compares with its golden interpreter on every run: "
                    "tilefold.testing.run_and_compare)",
    "TraceInvocation": "[STRACE] host span trees of a device runtime",
}


def __getattr__(name: str) -> Any:
    if name in UNSUPPORTED:
        raise NotSupportedError(f"tilefold.runtime.{name} is not supported: {UNSUPPORTED[name]}",
                                hint="tilefold simulates one chip; see docs/runtime.md for what the runtime offers")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["PLATFORMS", "RUNTIME_FIELDS", "BenchmarkStats", "ChipWorker", "CompiledKernel", "DeviceTensor",
           "JITFunction", "RunConfig", "RunResult", "TensorSpec", "benchmark", "run", "run_jit"]
