"""What a tuner reads: the simulated timelines as a Chrome trace-event / Perfetto JSON, or a picture.

``chrome_trace(result)`` gives one process per unit and one thread (lane) per pipe, in PyPTO's L0 trace
order MTE2, MTE1, CUBE, VECTOR, FIXPIPE, MTE3, then S; every instruction is a complete ("X") slice named
by its PTO text, its ``args`` holding the cycles and the cost origin (measured / extrapolated / declared /
assumed: where the instruction's price comes from, ``targets/costs.py``); every ``set_flag`` -> ``wait_flag``
pair that ordered two pipes is a flow arrow ("s" / "f" events). A first process "launch" shows each kernel
launch's overhead as its own span (why the units' lanes start late). Times are microseconds at the target's
clock (the format's unit).
Open the file in https://ui.perfetto.dev or chrome://tracing.

``plot_timeline(result, path)`` draws the same lanes with matplotlib (the optional ``tilefold[plot]``
extra); without matplotlib it raises a ``TilefoldError`` that says how to install it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError

from .timeline import ORIGIN_NAMES, PIPES, S

_LANE_COLOURS = {"launch": "#d3d3d3", "MTE2": "#4e79a7", "MTE1": "#59a14f", "CUBE": "#e15759", "VECTOR": "#f28e2b",
                 "FIXPIPE": "#b07aa1", "MTE3": "#76b7b2", "S": "#9c9c9c"}


def _text(instr: Any) -> str:
    text = getattr(instr, "text", None)
    return text() if callable(text) else str(instr)


def chrome_trace(result, *, include_scalar: bool = True) -> dict[str, Any]:
    """The trace-event JSON object of a ``SimResult`` (``{"traceEvents": [...], ...}``)."""
    target = result.target
    per_us = (target.clock_ghz * 1000.0) if target is not None else 1000.0
    events: list[dict[str, Any]] = []
    flow_id = 0
    spans = list(getattr(result, "launch_spans", ()))
    first = 1 if spans else 0
    if spans:
        events.append({"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "launch"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": 0, "tid": 0, "args": {"sort_index": 0}})
        events.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "launch overhead"}})
        for kernel, start, end in spans:
            events.append({"ph": "X", "name": f"launch @{kernel}", "cat": "launch", "pid": 0, "tid": 0,
                           "ts": start / per_us, "dur": (end - start) / per_us,
                           "args": {"start_cycle": start, "end_cycle": end, "cost": "launch overhead (fitted)"}})
    for pid, unit in enumerate(result.traces, start=first):
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": unit.name}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pid}})
        for tid, pipe in enumerate(PIPES):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": pipe.value}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                           "args": {"sort_index": tid}})
        for r, pipe in enumerate(unit.pipe):
            if pipe == S and not include_scalar:
                continue
            start, end = unit.start[r], unit.end[r]
            events.append({"ph": "X", "name": _text(unit.instr[r]), "cat": PIPES[pipe].value, "pid": pid,
                           "tid": pipe, "ts": start / per_us, "dur": (end - start) / per_us,
                           "args": {"start_cycle": start, "end_cycle": end,
                                    "cost": ORIGIN_NAMES[unit.origin[r]] or "-"}})
        for set_rec, wait_rec in unit.flows:
            flow_id += 1
            events.append({"ph": "s", "name": "sync", "cat": "sync", "id": flow_id, "pid": pid,
                           "tid": unit.pipe[set_rec], "ts": unit.end[set_rec] / per_us})
            events.append({"ph": "f", "bp": "e", "name": "sync", "cat": "sync", "id": flow_id, "pid": pid,
                           "tid": unit.pipe[wait_rec], "ts": unit.start[wait_rec] / per_us})
    meta = {"cycles": result.cycles, "target": getattr(target, "name", None),
            "clock_ghz": getattr(target, "clock_ghz", None),
            "launch_cycles": getattr(result, "launch_cycles", 0.0), "body_cycles": getattr(result, "body_cycles", None)}
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": meta}


def write_trace(result, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(chrome_trace(result)))
    return path


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TilefoldError("drawing a picture needs matplotlib, which is not installed",
                            hint="install the optional extra: pip install 'tilefold[plot]' (or pip install "
                                 "matplotlib); --trace out.json needs nothing extra") from None
    return plt


def plot_timeline(result, path: str | Path, *, title: str | None = None) -> Path:
    """A PNG of every unit's pipe lanes (busy spans as bars; scalar issue omitted when nothing else ran), under
    a first lane "launch" holding each launch's overhead span: the units start after it."""
    plt = _pyplot()
    lanes: list[tuple[str, str, list[tuple[float, float]]]] = []
    launch = [(s, e - s) for _, s, e in getattr(result, "launch_spans", ()) if e > s]
    if launch:
        lanes.append(("kernel", "launch", launch))
    for unit in result.traces:
        spans: dict[int, list[tuple[float, float]]] = {}
        for r, pipe in enumerate(unit.pipe):
            d = unit.end[r] - unit.start[r]
            if d > 0:
                spans.setdefault(pipe, []).append((unit.start[r], d))
        for tid, pipe in enumerate(PIPES):
            if tid in spans:
                lanes.append((unit.name, pipe.value, spans[tid]))
    fig, ax = plt.subplots(figsize=(11, 0.45 * max(3, len(lanes)) + 1.2))
    for i, (_, pipe, spans) in enumerate(lanes):
        ax.broken_barh(spans, (i - 0.4, 0.8), facecolors=_LANE_COLOURS.get(pipe, "#888888"),
                       edgecolor="white", linewidth=0.3)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"{u} {p}" for u, p, _ in lanes], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("cycles (the launch lane: launch overhead before the first block starts)")
    target = getattr(result.target, "name", "")
    launch_cyc = getattr(result, "launch_cycles", 0.0)
    ax.set_title(title or f"{target}: {result.cycles:.0f} cycles ({result.microseconds:.2f} us) = launch "
                          f"{launch_cyc:.0f} + body {result.cycles - launch_cyc:.0f}", fontsize=10)
    ax.grid(axis="x", linewidth=0.3)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_table(headers: list[str], rows: list[list[Any]], path: str | Path, *, title: str = "",
               label_column: int = 0, value_columns: tuple[int, ...] = (1,)) -> Path:
    """A grouped bar chart of a benchmark table: one group per row, one bar per value column."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows) + 2), 4))
    width = 0.8 / max(1, len(value_columns))
    for j, col in enumerate(value_columns):
        xs = [i + j * width for i in range(len(rows))]
        ax.bar(xs, [float(r[col]) for r in rows], width, label=headers[col])
    ax.set_xticks([i + width * (len(value_columns) - 1) / 2 for i in range(len(rows))])
    ax.set_xticklabels([str(r[label_column]) for r in rows], fontsize=8, rotation=20)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = ["chrome_trace", "plot_table", "plot_timeline", "write_trace"]
