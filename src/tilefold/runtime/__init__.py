"""Running ``@pl.jit`` kernels on the simulator: ``kernel(a, b, out)`` with numpy arrays (or torch tensors when
torch is installed) compiles the kernel for the arguments' signature (cached), simulates it and writes the
``pl.Out`` / ``pl.InOut`` arguments in place, as PyPTO's runtime does on a device.

``RunConfig`` takes PyPTO's fields that make sense on a simulator; ``run(kernel, *args, config=...)`` is the
function form. ``TensorSpec`` describes an argument by shape and dtype only (for ``compile`` / ``lower``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.ir.stmt import ParamDirection
from tilefold.language.jit import JITFunction, TensorSpec
from tilefold.runtime.arrays import as_numpy, is_array, write_back

#: PyPTO platform names -> tilefold targets (the simulators model Ascend 910B-class "a2a3" chips and the 950)
PLATFORMS = {"a2a3sim": "Ascend910B", "a2a3": "Ascend910B", "a5sim": "Ascend950", "a5": "Ascend950",
             "__PLATFORM__": "Ascend910B", "sim": "Ascend910B"}
_IGNORED = ("device_id", "runtime_profiling", "save_kernels", "save_kernels_dir", "enable_profiling",
            "strategy", "dump_passes", "codegen_only", "skip_ptoas", "backend_type", "pto_isa_commit",
            "compile_profiling", "rtol", "atol")


@dataclass
class RunConfig:
    """How a jit kernel is compiled and run. ``platform``: a tilefold target name (``Ascend910B``, ...) or one of
    PyPTO's platform names (``a2a3sim`` ...). ``block_dim``: blocks per launch. ``skip_passes`` /
    ``pass_options``: the tile pipeline's knobs. PyPTO's device / profiling / output-directory fields are
    accepted and have no effect on a simulator; any other field is an error."""

    platform: str = "Ascend910B"
    block_dim: int = 1
    skip_passes: tuple[str, ...] = ()
    pass_options: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)

    def __init__(self, platform: str = "Ascend910B", block_dim: int = 1, skip_passes: tuple[str, ...] = (),
                 pass_options: dict[str, Any] | None = None, **others: Any) -> None:
        self.platform = platform
        self.block_dim = int(block_dim)
        self.skip_passes = tuple(skip_passes)
        self.pass_options = dict(pass_options or {})
        self.extras = {}
        known = [f.name for f in fields(RunConfig) if f.name != "extras"]
        for k, v in others.items():
            if k in _IGNORED:
                self.extras[k] = v
                continue
            close = difflib.get_close_matches(k, known + list(_IGNORED), n=1)
            raise TilefoldError(f"RunConfig has no field {k!r}",
                                hint=(f"did you mean {close[0]!r}? " if close else "")
                                + f"fields: {', '.join(known)} (PyPTO device fields {', '.join(_IGNORED[:4])}, ... "
                                  "are accepted and ignored)")
        self.target  # noqa: B018  (validates the platform now)

    @property
    def target(self) -> str:
        from tilefold.targets import list_targets

        name = PLATFORMS.get(self.platform, self.platform)
        if name not in list_targets():
            raise TilefoldError(f"unknown platform {self.platform!r}",
                                hint=f"use a tilefold target ({', '.join(list_targets())}) or a PyPTO simulator "
                                     f"platform ({', '.join(sorted(PLATFORMS))})")
        return name

    def cache_key(self) -> Any:
        return (self.target, self.block_dim, self.skip_passes, tuple(sorted(self.pass_options.items())))


@dataclass
class RunResult:
    outputs: dict[str, np.ndarray]
    cycles: float
    compiled: Any


def run_jit(kernel: JITFunction, args: tuple[Any, ...], config: RunConfig | None = None) -> Any:
    """Compile (cached) and simulate ``kernel`` on ``args``; write Out / InOut arguments in place. Returns the
    kernel's return value: the written argument(s), like PyPTO."""
    from tilefold.sim import simulate

    config = config if config is not None else RunConfig()
    if not isinstance(config, RunConfig):
        raise TilefoldError(f"config= must be a tilefold.runtime.RunConfig, got {type(config).__name__}",
                            hint="from tilefold.runtime import RunConfig; kernel(..., config=RunConfig())")
    compiled = kernel.compile(*args, config=config)
    entry = compiled.source.function(kernel.__name__)
    names = [a.arg for a in kernel.source()[0].args.args]
    by_name = dict(zip(names, args, strict=True))
    inputs: dict[str, Any] = {}
    for name, a in by_name.items():
        if isinstance(a, TensorSpec):
            raise TilefoldError(f"argument {name!r} is a TensorSpec: running needs data",
                                hint="pass arrays to run; TensorSpec is for compile() / lower()")
        inputs[name] = np.ascontiguousarray(as_numpy(a, f"argument {name!r}")) if is_array(a) else a
    for p in entry.params:  # pl.dynamic extents: read from the arrays that carry them (all must agree)
        if p.name not in by_name:
            inputs[p.name] = _dynamic_extent(entry, p, inputs)
    sim = simulate(compiled.pto, inputs, compiled.target, block_dim=config.block_dim)
    written = []
    for p, d in zip(entry.params, entry.param_directions, strict=True):
        if d is not ParamDirection.In and p.name in sim.outputs and p.name in by_name:
            write_back(by_name[p.name], sim.outputs[p.name], f"argument {p.name!r}")
            written.append(by_name[p.name])
    kernel.last_cycles = sim.cycles
    return written[0] if len(written) == 1 else tuple(written) if written else None


def _dynamic_extent(entry: Any, dim: Any, inputs: dict[str, Any]) -> int:
    found: list[tuple[str, int, int]] = []
    for p in entry.params:
        for axis, e in enumerate(getattr(p.type, "shape", ())):
            if e is dim and p.name in inputs:
                found.append((p.name, axis, int(np.shape(inputs[p.name])[axis])))
    if not found:
        raise TilefoldError(f"no argument carries the dynamic extent {dim.name!r}",
                            hint="use the pl.dynamic name in a tensor parameter's shape")
    extents = {x for _n, _a, x in found}
    if len(extents) > 1:
        raise TilefoldError(f"the arguments disagree on the dynamic extent {dim.name!r}: " +
                            ", ".join(f"{n}.shape[{a}] = {x}" for n, a, x in found),
                            hint=f"pass arrays with one value of {dim.name}")
    return found[0][2]


def run(kernel: JITFunction, *args: Any, config: RunConfig | None = None) -> Any:
    """``run(kernel, *args, config=...)``: the same as calling the kernel."""
    if not isinstance(kernel, JITFunction):
        raise NotSupportedError("tilefold.runtime.run runs @pl.jit kernels",
                                hint="decorate the kernel with @pl.jit; for @pl.program IR use tilefold.testing")
    return run_jit(kernel, args, config)


__all__ = ["PLATFORMS", "RunConfig", "RunResult", "TensorSpec", "run", "run_jit"]
