"""PyPTO's DFX outputs, produced from a simulated run under ``<work_dir>/dfx_outputs/``.

``<work_dir>`` is ``RunConfig(work_dir=...)``, else ``save_kernels_dir``, else the compiled program's
``output_dir``. What each flag writes here:

- ``enable_dep_gen`` -> ``deps.json``: the tasks (kernel launches of the orchestration, in program order) with
  the tensors each reads and writes, and the edges PyPTO's runtime derives from them (read-after-write,
  write-after-write, write-after-read on the same tensor). tilefold runs the tasks in this order.
- ``enable_chip_swimlane`` -> ``chip_swimlane_records.json``: the simulator's per-unit, per-pipe timeline as a
  Chrome trace / Perfetto file (``tilefold.sim.trace.chrome_trace``).
- ``enable_pmu`` -> ``pmu.csv``: busy cycles and utilisation of every pipe of every unit, and the kernel time.
- ``enable_dump_args=1|2`` -> ``args_dump/``: per task (kernel launch, numbered in program order) the values of
  its tensors before and after it, ``task<NNN>_<kernel>/<tensor>.before.npy`` / ``.after.npy``, listed in
  ``args_dump/index.json`` (``write_arg_dumps``; ``load_arg_dumps`` reads them back with their dtypes). Level 1:
  the tensors ``pl.dump_tag(t)`` marked (every later launch binding them) and the ``dumps=[...]`` of a ``pl.at`` /
  ``pl.submit`` (that task only); level 2: every tensor of every task, plus the entry's tensor arguments before and
  after the whole run, ``args_dump/<name>.in.npy`` / ``<name>.out.npy``.
- ``enable_scope_stats`` writes nothing: tilefold has no runtime rings to measure.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

_FLAGS = ("enable_dep_gen", "enable_chip_swimlane", "enable_pmu", "enable_dump_args")


def work_dir(config: Any, compiled: Any) -> Path:
    rt = config.runtime
    base = rt.get("work_dir") or rt.get("save_kernels_dir")
    return Path(base) if base else Path(compiled.output_dir)


def task_graph(pto: Any, program: Any = None) -> dict[str, Any]:
    """Tasks and buffer-derived edges of a PTO program's orchestration (one task for a single kernel), plus the
    ``deps=`` edges the post-pass ``program`` records on its kernels (``task_key`` / ``deps`` attributes)."""
    launches = pto.orchestration if pto.orchestration is not None else ()
    tasks: list[dict[str, Any]] = []
    if not launches:
        k = pto.entry_kernel
        reads = [t.name for t in k.tensors if t.direction != "Out"] if k else []
        writes = [t.name for t in k.tensors if t.direction != "In"] if k else []
        tasks.append({"id": 0, "kernel": pto.entry, "reads": reads, "writes": writes})
    for i, launch in enumerate(launches):
        kernel = pto.kernels[launch.kernel]
        binding = dict(launch.bindings)
        reads, writes = [], []
        for t in kernel.tensors:
            gm = binding.get(t.name)
            if not isinstance(gm, str):
                continue
            if t.direction != "Out":
                reads.append(gm)
            if t.direction != "In":
                writes.append(gm)
        tasks.append({"id": i, "kernel": launch.kernel, "reads": reads, "writes": writes})
    edges: list[dict[str, Any]] = []
    last_writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    for t in tasks:
        seen: set[tuple[int, str, str]] = set()

        def edge(src: int, name: str, kind: str, tid: int = t["id"], seen: set = seen) -> None:
            if src != tid and (src, name, kind) not in seen:
                seen.add((src, name, kind))
                edges.append({"from": src, "to": tid, "tensor": name, "kind": kind})

        for name in t["reads"]:
            if name in last_writer:
                edge(last_writer[name], name, "RAW")
        for name in t["writes"]:
            if name in last_writer:
                edge(last_writer[name], name, "WAW")
            for r in readers.get(name, ()):
                edge(r, name, "WAR")
        for name in t["reads"]:
            readers.setdefault(name, []).append(t["id"])
        for name in t["writes"]:
            last_writer[name] = t["id"]
            readers[name] = [x for x in readers.get(name, []) if x == t["id"]]
    if program is not None:
        by_key: dict[str, int] = {}
        for t in tasks:
            fn = next((f for f in program.functions if f.name == t["kernel"]), None)
            if fn is not None and fn.attr("task_key"):
                by_key[fn.attr("task_key")] = t["id"]
                t["task_id"] = fn.attr("task_key").split("#")[0]
            for key in (fn.attr("deps") or ()) if fn is not None else ():
                if key in by_key:
                    edges.append({"from": by_key[key], "to": t["id"], "tensor": None, "kind": "explicit"})
    return {"program": pto.name, "target": pto.target, "order": "program order (tilefold runs tasks one after "
            "another)", "tasks": tasks, "edges": edges}


def write_pmu(sim: Any, path: Path) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["unit", "pipe", "busy_cycles", "utilisation"])
        for unit, per in sim.busy.items():
            for pipe, cyc in per.items():
                name = getattr(pipe, "value", str(pipe))
                w.writerow([unit, name, f"{cyc:.1f}", f"{cyc / sim.cycles if sim.cycles else 0.0:.4f}"])
        w.writerow(["kernel", "total", f"{sim.cycles:.1f}", "1.0000"])
    return path


def write_dfx(config: Any, compiled: Any, sim: Any, dump_inputs: dict[str, np.ndarray] | None) -> Path | None:
    """Write the outputs the config's DFX flags ask for; returns the ``dfx_outputs`` directory (None: none)."""
    rt = config.runtime
    if not any(rt.get(k) for k in _FLAGS):
        return None
    root = work_dir(config, compiled) / "dfx_outputs"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:  # a work_dir that is a file, unwritable, or holds a NUL byte
        from tilefold.errors import TilefoldError

        raise TilefoldError(f"cannot write the DFX outputs under {str(root)!r}: "
                            f"{getattr(exc, 'strerror', None) or exc}",
                            hint="RunConfig(work_dir=...) (or save_kernels_dir=) must name a writable directory") \
            from None
    if rt.get("enable_dep_gen"):
        (root / "deps.json").write_text(json.dumps(task_graph(compiled.pto, compiled.ir), indent=1))
    if rt.get("enable_chip_swimlane"):
        from tilefold.sim.trace import write_trace

        write_trace(sim, root / "chip_swimlane_records.json")
    if rt.get("enable_pmu"):
        write_pmu(sim, root / "pmu.csv")
    level = rt.get("enable_dump_args")
    if level in (1, 2):
        dump = write_arg_dumps(sim, root / "args_dump", level)
        if level == 2:
            for name, arr in (dump_inputs or {}).items():
                np.save(dump / f"{name}.in.npy", arr)
            for name, arr in sim.outputs.items():
                np.save(dump / f"{name}.out.npy", np.asarray(arr))
    return root


#: what ``args_dump/index.json`` says of itself
DUMP_FORMAT = ("one record per dumped tensor per task (kernel launch, in program order): 'before' / 'after' are "
               ".npy files (relative to this directory) of its values before and after the task; 'dtype' is the "
               "tilefold dtype, 'numpy_dtype' the numpy one (bfloat16 / float8 files hold raw bytes: view them as "
               "ml_dtypes.<numpy_dtype>, or read them with tilefold.runtime.dfx.load_arg_dumps)")


def write_arg_dumps(sim: Any, directory: Path, level: int) -> Path:
    """Write ``sim.dumps`` (``simulate(..., dump_level=level)``) as ``.npy`` files and ``index.json``."""
    from tilefold.ir.types import dtype_from_numpy

    directory.mkdir(parents=True, exist_ok=True)
    records = []
    for r in getattr(sim, "dumps", ()):
        task_dir = f"task{r['task']:03d}_{r['kernel']}"
        (directory / task_dir).mkdir(exist_ok=True)
        entry = {k: r[k] for k in ("task", "kernel", "tensor", "param", "direction")}
        arr = r["before"]
        dt = dtype_from_numpy(arr.dtype)
        entry.update(shape=list(arr.shape), dtype=dt.name if dt is not None else str(arr.dtype),
                     numpy_dtype=str(arr.dtype))
        for when in ("before", "after"):
            rel = f"{task_dir}/{r['tensor']}.{when}.npy"
            np.save(directory / rel, r[when])
            entry[when] = rel
        records.append(entry)
    index = {"level": level, "tensors": "tagged (pl.dump_tag / dumps=)" if level == 1 else "every task argument",
             "format": DUMP_FORMAT, "records": records}
    (directory / "index.json").write_text(json.dumps(index, indent=1))
    return directory


def load_arg_dumps(directory: str | Path) -> list[dict[str, Any]]:
    """The records of an ``args_dump`` directory, with ``before`` / ``after`` loaded as arrays of their dtype."""
    from tilefold.ir.types import DataType

    directory = Path(directory)
    index = json.loads((directory / "index.json").read_text())
    out = []
    for r in index["records"]:
        r = dict(r)
        np_dtype = DataType[r["dtype"]].np_dtype if r["dtype"] in DataType.__members__ else np.dtype(r["numpy_dtype"])
        for when in ("before", "after"):
            arr = np.load(directory / r[when])
            r[when] = arr.view(np_dtype) if arr.dtype != np_dtype else arr
        out.append(r)
    return out


__all__ = ["DUMP_FORMAT", "load_arg_dumps", "task_graph", "work_dir", "write_arg_dumps", "write_dfx", "write_pmu"]
