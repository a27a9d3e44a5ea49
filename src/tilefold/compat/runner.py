"""PyPTO's ``runtime.runner``: ``RunConfig``, ``RunResult`` and ``run(program, tensor_specs, golden, config)``,
which builds the arguments from ``TensorSpec``s, runs the program on the simulator, runs the golden function on
copies of the same arguments and compares every output with ``rtol`` / ``atol``.

``golden`` is PyPTO's reference: a function ``golden(tensors)`` or ``golden(tensors, params)`` that writes the
expected outputs into ``tensors`` (a dict name -> array / tensor); without one, tilefold's golden interpreter of the
program is the reference.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tilefold.compat.tensor_spec import TensorSpec
from tilefold.errors import TilefoldError
from tilefold.runtime import RunConfig
from tilefold.sim import DeviceFault


@dataclass
class RunResult:
    """``passed``; ``error`` (why not: a compile error, a device fault or the first mismatching output);
    ``execution_time`` (wall seconds of the whole run); ``cycles`` (the simulated device time)."""

    passed: bool
    error: str | None = None
    execution_time: float | None = None
    cycles: float | None = None
    outputs: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        if self.passed:
            return f"PASS ({self.cycles:.0f} cycles)" if self.cycles is not None else "PASS"
        return f"FAIL: {self.error}"


def _entry_params(program: Any) -> list[tuple[str, str]]:
    from tilefold.golden.interpreter import select_entry

    fn = select_entry(program, None)
    return [(p.name, d.value) for p, d in zip(fn.params, fn.param_directions, strict=True)]


def _call_golden(golden: Callable[..., Any], tensors: dict[str, Any], params: Any) -> None:
    try:
        n = len([p for p in inspect.signature(golden).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty])
    except (TypeError, ValueError):
        n = 1
    golden(tensors, params) if n >= 2 else golden(tensors)


def _returned_outputs(compiled: Any, specs: list[TensorSpec], params: set[str], arrays: dict[str, Any]
                      ) -> dict[str, Any]:
    """PyPTO's form ``out = pl.create_tensor(...); ...; return out`` in the orchestration: the output specs that
    name no parameter receive the returned tensors, in order."""
    returns = list(compiled._entry_meta().get("returns", ()))
    extra = [s for s in specs if s.is_output and s.name not in params]
    if not extra:
        return {}
    if len(extra) != len(returns):
        raise TilefoldError(f"run: output spec(s) {', '.join(repr(s.name) for s in extra)} name no parameter, and "
                            f"the program returns {len(returns)} tensor(s) it creates",
                            hint="name each output TensorSpec as an Out parameter, or return one created tensor "
                                 "per such spec (in return order)")
    return {r: arrays[s.name] for r, s in zip(returns, extra, strict=True)}


def run(program: Any, tensor_specs: Sequence[TensorSpec], golden: Callable[..., Any] | None = None,
        config: RunConfig | None = None, params: Any = None) -> RunResult:
    """Compile ``program`` (a ``@pl.program`` / ``ir.Program``, or a ``@pl.jit`` kernel) for ``config.platform``,
    run it on arguments made from ``tensor_specs`` and compare with ``golden``. A compile error or a device fault is
    a failed ``RunResult`` whose ``error`` says why."""
    from tilefold.compiler import compile as compile_program
    from tilefold.runtime.arrays import as_numpy, is_array
    from tilefold.runtime.compiled import CompiledKernel
    from tilefold.testing.precision import compare

    config = config if config is not None else RunConfig()
    if not isinstance(config, RunConfig):
        raise TilefoldError(f"run(config=...) takes a RunConfig, got {type(config).__name__}",
                            hint="from tilefold.runtime.runner import RunConfig")
    specs = list(tensor_specs)
    for s in specs:
        if not isinstance(s, TensorSpec) or s.name is None:
            raise TilefoldError(f"run(tensor_specs=...): {s!r} is not a named TensorSpec",
                                hint="TensorSpec(name, shape, dtype, init_value=..., is_output=...)")
    start = time.perf_counter()
    spec_of_return: dict[str, str] = {}
    arrays = {s.name: s.create_tensor() for s in specs}
    expected = {k: (v.clone() if not isinstance(v, np.ndarray) else v.copy()) for k, v in arrays.items()}
    try:
        if hasattr(program, "compile") and hasattr(program, "lower"):  # a @pl.jit kernel: arguments in order
            args = [arrays[s.name] for s in specs]
            program(*args, config=config)
            outputs = {s.name: as_numpy(arrays[s.name]) for s in specs if s.is_output}
            cycles = getattr(program, "last_cycles", None)
            reference_program = None
        else:
            compiled = CompiledKernel.of(compile_program(program, config.target, config.skip_passes,
                                                         config.pass_options))
            params_of = _entry_params(program)
            missing = [n for n, _d in params_of if n not in arrays and n in compiled.param_names]
            if missing:
                raise TilefoldError(f"run: no TensorSpec for parameter(s) {', '.join(map(repr, missing))}",
                                    hint="give one TensorSpec per entry parameter, named as the parameter")
            from tilefold.runtime.execute import execute

            by_name = {n: arrays[n] for n, _d in params_of if n in arrays}
            returned = _returned_outputs(compiled, specs, {n for n, _d in params_of}, arrays)
            by_name.update(returned)
            spec_of_return = {r: next(n for n, a in arrays.items() if a is v) for r, v in returned.items()}
            _, sim = execute(compiled, by_name, config)
            cycles = sim.cycles
            outs = {n for n, d in params_of if d != "In"} | {s.name for s in specs if s.is_output}
            outputs = {n: as_numpy(arrays[n]) for n in outs if n in arrays}
            reference_program = program
    except TilefoldError as exc:
        return RunResult(False, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    except DeviceFault as exc:  # a device fault is a result of the run, not a crash of the harness
        return RunResult(False, f"device fault: {exc}", time.perf_counter() - start)
    if golden is not None:
        _call_golden(golden, expected, params)
        reference = {n: as_numpy(expected[n]) if is_array(expected[n]) else np.asarray(expected[n]) for n in outputs}
    elif reference_program is not None:
        from tilefold.golden import run_program

        inputs = {n: as_numpy(v) for n, v in expected.items() if n not in spec_of_return.values()}
        reference = run_program(reference_program, inputs, target=config.target)  # device queries: its target
        reference = {spec_of_return.get(k, k): v for k, v in reference.items()}
    else:
        raise TilefoldError("run: a @pl.jit kernel needs a golden function", hint="run(kernel, specs, golden=fn)")
    rtol, atol = config.extras.get("rtol", 1e-5), config.extras.get("atol", 1e-5)
    for name in sorted(outputs):
        if name not in reference:  # an output nothing computes a reference for is not a pass
            return RunResult(False, f"output {name!r}: the reference program computes no value for it",
                             time.perf_counter() - start, cycles, outputs)
        c = compare(outputs[name], np.asarray(reference[name]).astype(outputs[name].dtype, copy=False),
                    rtol=rtol, atol=atol)
        if not c.matches:
            return RunResult(False, f"output {name!r} does not match golden: {c.describe()}",
                             time.perf_counter() - start, cycles, outputs)
    return RunResult(True, None, time.perf_counter() - start, cycles, outputs)


__all__ = ["RunConfig", "RunResult", "TensorSpec", "run"]
