"""Running a compiled program on arrays: bind the arguments to the entry's parameters, simulate, write the
``Out`` / ``InOut`` arguments back in place, and write the DFX outputs the RunConfig asks for.

Shared by ``kernel(*args)`` (a ``@pl.jit`` call), ``compiled(*args)`` (``CompiledProgram.__call__``) and
``ChipWorker.run``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefold.errors import TilefoldError
from tilefold.ir.stmt import Function, ParamDirection
from tilefold.ir.types import ScalarType, TensorType
from tilefold.runtime.arrays import as_numpy, is_array, write_back
from tilefold.runtime.call_boundary import MAX_ARGUMENT_BYTES, ArgumentError, logical_bytes


def hidden_extents(entry: Function) -> dict[str, list[list[Any]]]:
    """Scalar parameters that are the extent of a tensor parameter's axis (``pl.dynamic`` dims) -> the
    [tensor parameter, axis] pairs that carry them: a caller may leave them out, they are read from the arrays."""
    out: dict[str, list[list[Any]]] = {}
    for p in entry.params:
        if not isinstance(p.type, ScalarType):
            continue
        where = [[q.name, axis] for q in entry.params if isinstance(q.type, TensorType)
                 for axis, e in enumerate(q.type.shape) if e is p]
        if where:
            out[p.name] = where
    return out


def user_params(entry: Function) -> list[str]:
    hidden = hidden_extents(entry)
    return [p.name for p in entry.params if p.name not in hidden]


def bind_arguments(meta: dict[str, Any], args: tuple[Any, ...], where: str) -> dict[str, Any]:
    """Argument name -> value: all parameters, or the parameters without the hidden extents."""
    names = list(meta["params"])
    if len(args) != len(names):
        names = list(meta["user_params"])
    returns = list(meta.get("returns", ()))
    if returns and len(args) == len(names) + len(returns):
        # PyPTO's call of a program whose entry returns tensors it creates: one destination array per returned
        # tensor after the parameters (the runtime allocates them; here they are written like Out arguments)
        names = names + returns
    if len(args) != len(names):
        extra = f" (then, optionally, one array per returned tensor: {len(returns)})" if returns else ""
        raise TilefoldError(f"{where} takes {len(names)} argument(s) ({', '.join(names)}){extra}, got {len(args)}",
                            hint="pass one array (or number) per parameter, in order")
    return dict(zip(names, args, strict=True))


def dynamic_extent(name: str, where: list[list[Any]], inputs: dict[str, Any]) -> int:
    found = [(p, axis, int(np.shape(inputs[p])[axis])) for p, axis in where if p in inputs]
    if not found:
        raise TilefoldError(f"no argument carries the dynamic extent {name!r}",
                            hint="use the pl.dynamic name in a tensor parameter's shape")
    extents = {x for _n, _a, x in found}
    if len(extents) > 1:
        raise TilefoldError(f"the arguments disagree on the dynamic extent {name!r}: " +
                            ", ".join(f"{n}.shape[{a}] = {x}" for n, a, x in found),
                            hint=f"pass arrays with one value of {name}")
    return found[0][2]


def execute(compiled: Any, by_name: dict[str, Any], config: Any) -> tuple[Any, Any]:
    """Simulate ``compiled`` on the bound arguments; write Out / InOut arguments back. Returns (the written
    argument(s) like PyPTO's call, the SimResult)."""
    from tilefold.runtime.dfx import write_dfx
    from tilefold.runtime.tensor_args import TensorSpec
    from tilefold.sim import simulate

    meta = compiled._entry_meta()
    inputs: dict[str, Any] = {}
    for name, a in by_name.items():
        if isinstance(a, TensorSpec):
            raise TilefoldError(f"argument {name!r} is a TensorSpec: running needs data",
                                hint="pass arrays to run; TensorSpec is for compile() / lower()")
        a = getattr(a, "_tilefold_array", lambda a=a: a)()  # a ChipWorker DeviceTensor: its storage
        if is_array(a):  # every path (jit call, CompiledProgram call, ChipWorker): bounded before the copy
            arr = as_numpy(a, f"argument {name!r}")
            size = logical_bytes(arr.shape, arr.dtype.itemsize)
            if size > MAX_ARGUMENT_BYTES:
                raise ArgumentError(f"argument {name!r} is {list(arr.shape)} {arr.dtype}: {size:,} bytes, above the "
                                    f"{MAX_ARGUMENT_BYTES // 2**20} MiB limit per argument",
                                    hint="tilefold simulates GM byte by byte: run the kernel on a smaller tensor (a "
                                         "broadcast / stride-0 view counts its full logical size)")
            # GM holds native-order bytes: a byte-swapped array is converted (its values, not its bytes)
            inputs[name] = np.ascontiguousarray(arr, dtype=arr.dtype if arr.dtype.isnative
                                                else arr.dtype.newbyteorder("="))
        else:
            inputs[name] = a
    for name, where in meta["hidden_extents"].items():  # pl.dynamic extents: from the arrays (all must agree)
        if name not in by_name:
            inputs[name] = dynamic_extent(name, where, inputs)
    dump_inputs = {k: np.array(v) for k, v in inputs.items() if isinstance(v, np.ndarray)} \
        if config is not None and config.runtime.get("enable_dump_args") == 2 else None
    level = config.runtime.get("enable_dump_args") if config is not None else 0
    sim = simulate(compiled.pto, inputs, compiled.target, block_dim=getattr(config, "block_dim", 1),
                   dump_level=level or 0, max_steps=config.runtime.get("max_steps") if config is not None else None)
    written = []
    destinations = [n for n, d in zip(meta["params"], meta["directions"], strict=True) if d != ParamDirection.In.value]
    for name in destinations + list(meta.get("returns", ())):
        if name in sim.outputs and name in by_name:
            target = by_name[name]
            write_back(getattr(target, "_tilefold_array", lambda t=target: t)(), sim.outputs[name],
                       f"argument {name!r}")
            written.append(target)
        elif name in sim.outputs and name not in destinations:  # a returned tensor with no destination given
            written.append(sim.outputs[name])
    if config is not None:
        write_dfx(config, compiled, sim, dump_inputs)
    return (written[0] if len(written) == 1 else tuple(written) if written else None), sim




def run_jit(kernel: Any, args: tuple[Any, ...], config: Any = None,
            kwargs: dict[str, Any] | None = None) -> Any:
    """Compile (cached) and simulate ``kernel`` on ``args`` / ``kwargs`` (bound as Python binds a call); write
    Out / InOut arguments in place. Returns the kernel's return value: the written argument(s), like PyPTO."""
    from tilefold.runtime.config import RunConfig

    config = config if config is not None else RunConfig()
    if not isinstance(config, RunConfig):
        raise TilefoldError(f"config= must be a tilefold.runtime.RunConfig, got {type(config).__name__}",
                            hint="from tilefold.runtime import RunConfig; kernel(..., config=RunConfig())")
    args = kernel.bind_arguments(tuple(args), kwargs)
    compiled = kernel.compile(*args, config=config)
    names = [a.arg for a in kernel.source()[0].args.args]
    by_name = dict(zip(names, args, strict=True))
    result, sim = execute(compiled, by_name, config)
    kernel.last_cycles = sim.cycles
    return result


__all__ = ["bind_arguments", "dynamic_extent", "execute", "hidden_extents", "run_jit", "user_params"]
