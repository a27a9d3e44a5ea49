"""``RunConfig``: how a jit kernel is compiled and run (PyPTO's fields that make sense on a simulator)."""

from __future__ import annotations

import difflib
import numbers
import os
from dataclasses import dataclass, field, fields
from typing import Any

from tilefold.errors import NotSupportedError, TilefoldError

#: PyPTO platform names -> tilefold targets (the simulators model Ascend 910B-class "a2a3" chips and the 950)
PLATFORMS = {"a2a3sim": "Ascend910B", "a2a3": "Ascend910B", "a5sim": "Ascend950", "a5": "Ascend950",
             "__PLATFORM__": "Ascend910B", "sim": "Ascend910B"}
#: PyPTO fields with no effect on a simulator (device selection, artefact / harness knobs): accepted, recorded
_IGNORED = ("device_id", "runtime_profiling", "save_kernels", "enable_profiling",
            "strategy", "codegen_only", "skip_ptoas", "backend_type", "pto_isa_commit",
            "compile_profiling", "rtol", "atol", "golden_data_dir")
_INT32_MAX = 2**31 - 1


def _ring_value(name: str, v: Any, ok: Any, rule: str) -> Any:
    """A ring override: None, one int (all four scope-depth rings) or a list of exactly 4 ints (0: default)."""
    if v is None:
        return None
    values = list(v) if isinstance(v, (list, tuple)) else [v]
    if isinstance(v, (list, tuple)) and len(values) != 4:
        raise TilefoldError(f"RunConfig({name}=...) takes one int or a list of exactly 4 ints, got {len(values)}",
                            hint=f"e.g. {name}=[0, 0, 0, 0] (0 leaves a ring at its default); each value {rule}")
    for x in values:
        if isinstance(x, bool) or not isinstance(x, int) or not ((x == 0 and len(values) == 4) or ok(x)):
            raise TilefoldError(f"RunConfig({name}={v!r}): {x!r} is not a valid value",
                                hint=f"{name} {rule}" + (" (in bytes)" if name == "ring_heap" else ""))
    return tuple(values) if len(values) == 4 else values[0]


def _pow2(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def _flag(name: str, v: Any, levels: tuple[int, ...] = (0, 1)) -> int:
    if isinstance(v, bool):
        # True asks for the flag's full level (PyPTO: enable_chip_swimlane=True is level 4); False is 0
        return levels[-1] if v and len(levels) > 3 else int(v)
    if isinstance(v, int) and v in levels:
        return v
    raise TilefoldError(f"RunConfig({name}={v!r}) is not a valid value",
                        hint=f"{name} takes True / False" + (f" or a level in {levels}" if len(levels) > 2 else ""))


#: PyPTO runtime fields tilefold validates. The rings and AICPU threads size a task runtime tilefold does not have
#: (orchestration runs in program order on one simulated chip): accepted, no effect. The DFX flags write what
#: the simulator can produce under ``<work_dir>/dfx_outputs/`` (see ``tilefold.runtime.dfx``).
RUNTIME_FIELDS: dict[str, Any] = {
    "ring_task_window": lambda v: _ring_value("ring_task_window", v, lambda x: _pow2(x) and x >= 4,
                                              "must be a power of two >= 4"),
    "ring_heap": lambda v: _ring_value("ring_heap", v, lambda x: _pow2(x) and x >= 1024,
                                       "must be a power of two >= 1024"),
    "ring_dep_pool": lambda v: _ring_value("ring_dep_pool", v, lambda x: 4 <= x <= _INT32_MAX,
                                           f"must be in [4, {_INT32_MAX}]"),
    "aicpu_thread_num": lambda v: v if v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1)
    else _bad("aicpu_thread_num", v, "a positive number of AICPU threads, or None"),
    "enable_dep_gen": lambda v: _flag("enable_dep_gen", v),
    # the swimlane level (PyPTO 1 AICORE_TIMING .. 4 ORCH_PHASES): every level >= 1 writes the simulator's
    # per-unit timeline; the AICPU / scheduler / orchestrator phases of levels 2-4 do not exist on a simulator
    "enable_chip_swimlane": lambda v: _flag("enable_chip_swimlane", v, (0, 1, 2, 3, 4)),
    "enable_scope_stats": lambda v: _flag("enable_scope_stats", v),
    "enable_pmu": lambda v: _flag("enable_pmu", v, (0, 1, 2)),
    "enable_dump_args": lambda v: _flag("enable_dump_args", v, (0, 1, 2)),
    "save_kernels_dir": lambda v: v if v is None or isinstance(v, (str, os.PathLike))
    else _bad("save_kernels_dir", v, "a directory path"),
    "dump_passes": lambda v: None if v is None else _dump_level(v),  # None: not set, as for the other fields
    # tilefold's own: the simulator's step budget for a run (tilefold.budget; default 1,000,000), as --max-steps
    "max_steps": lambda v: v if v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 1)
    else _bad("max_steps", v, "a positive number of steps (the simulator's budget, like --max-steps), or None"),
    "work_dir": lambda v: v if v is None or isinstance(v, (str, os.PathLike)) else _bad("work_dir", v, "a directory"),
}


def _dump_level(v: Any) -> Any:
    from tilefold.passes.pass_manager import dump_level

    return dump_level(v, "RunConfig(dump_passes)")


def _bad(name: str, v: Any, what: str) -> Any:
    raise TilefoldError(f"RunConfig({name}={v!r}) is not a valid value", hint=f"{name} takes {what}")


@dataclass
class RunConfig:
    """How a jit kernel is compiled and run. ``platform``: a tilefold target name (``Ascend910B``, ...) or one of
    PyPTO's platform names (``a2a3sim`` ...). ``block_dim``: blocks per launch. ``skip_passes`` /
    ``pass_options``: the tile pipeline's knobs. PyPTO's runtime fields (``ring_*``, ``aicpu_thread_num``, the
    ``enable_*`` DFX flags, ``work_dir`` / ``save_kernels_dir``) are validated as PyPTO documents them; the DFX
    flags write what the simulator produces (docs/runtime.md). Device and harness fields (``device_id``, ...) are
    accepted and have no effect; any other field is an error."""

    platform: str = "Ascend910B"
    block_dim: int = 1
    skip_passes: tuple[str, ...] = ()
    pass_options: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    runtime: dict[str, Any] = field(default_factory=dict)

    def __init__(self, platform: str = "Ascend910B", block_dim: int = 1, skip_passes: tuple[str, ...] = (),
                 pass_options: dict[str, Any] | None = None, extras: dict[str, Any] | None = None,
                 runtime: dict[str, Any] | None = None, **others: Any) -> None:
        # extras= / runtime= are the recorded fields of another RunConfig (dataclasses.replace passes them):
        # they are validated again like keyword fields; an explicit keyword wins
        for name, given in (("extras", extras), ("runtime", runtime)):
            if given is not None and not isinstance(given, dict):
                raise TilefoldError(f"RunConfig({name}={given!r}) is not a dict",
                                    hint=f"{name}= takes a dict of field names to values (or leave it out)")
        others = {**dict(extras or {}), **dict(runtime or {}), **others}
        if not isinstance(platform, str):
            raise TilefoldError(f"RunConfig(platform={platform!r}) is not a platform name",
                                hint="platform= is text: a tilefold target (Ascend910B, Ascend950, ...) or a PyPTO "
                                     "simulator platform (a2a3sim, a5sim)")
        self.platform = platform
        if isinstance(block_dim, bool) or not isinstance(block_dim, numbers.Integral) or block_dim < 1:
            raise TilefoldError(f"RunConfig(block_dim={block_dim!r}) is not a valid value",
                                hint="block_dim is a positive number of blocks per launch")
        self.block_dim = int(block_dim)
        if not isinstance(skip_passes, (str, list, tuple, set, frozenset)):
            raise TilefoldError(f"RunConfig(skip_passes={skip_passes!r}) is not a pass name or a list of them",
                                hint="e.g. skip_passes=['InitMemRef'] (`tilefold passes` lists the names)")
        self.skip_passes = (skip_passes,) if isinstance(skip_passes, str) else tuple(skip_passes)
        self.pass_options = _checked_pass_options(pass_options)
        self.extras = {}
        self.runtime = {}
        known = [f.name for f in fields(RunConfig) if f.name not in ("extras", "runtime")]
        for k, v in others.items():
            if k in RUNTIME_FIELDS:
                self.runtime[k] = RUNTIME_FIELDS[k](v)
                continue
            if k in _IGNORED:
                self.extras[k] = v
                continue
            if k == "distributed_config":
                raise NotSupportedError("RunConfig(distributed_config=...): multi-rank (distributed) execution is "
                                        "not supported", hint="tilefold simulates one chip: drop distributed_config=")
            close = difflib.get_close_matches(k, known + list(RUNTIME_FIELDS) + list(_IGNORED), n=1)
            raise TilefoldError(f"RunConfig has no field {k!r}",
                                hint=(f"did you mean {close[0]!r}? " if close else "")
                                + f"fields: {', '.join(known + list(RUNTIME_FIELDS))} (PyPTO device fields "
                                  f"{', '.join(_IGNORED[:4])}, ... are accepted and ignored)")
        self.target  # noqa: B018  (validates the platform now)

    def __getattr__(self, name: str) -> Any:
        """PyPTO's runtime fields read back as attributes (``cfg.ring_heap``); unset ones are None."""
        if name in RUNTIME_FIELDS:
            return self.__dict__.get("runtime", {}).get(name)
        if name in _IGNORED:
            return self.__dict__.get("extras", {}).get(name)
        raise AttributeError(f"RunConfig has no field {name!r}")

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
        # the platform as spelt and the artefact directory are part of the compiled handle (compiled.platform,
        # compiled.output_dir); the runtime fields are not (they do not change what is compiled)
        # dump_passes (and where the dumps go) too: a cached kernel compiled without dumps would write none
        dumps = self.runtime.get("dump_passes")
        where = str(self.runtime.get("work_dir")) if dumps is not None else None
        return (self.target, self.platform, str(self.runtime.get("save_kernels_dir")), self.block_dim,
                self.skip_passes, tuple(sorted(self.pass_options.items())), dumps, where)


def _checked_pass_options(source: Any) -> dict[str, Any]:
    """``pass_options`` (a mapping, ``name=value`` text or items) checked against the pipeline's option records now,
    with each value converted (a target kept as its name, so the config stays a cache key)."""
    from tilefold.passes.option_records import PipelineOptions
    from tilefold.passes.options import parse_assignments
    from tilefold.targets import Target

    options = parse_assignments(PipelineOptions, source or None, origin="RunConfig pass_options")
    PipelineOptions(**options)  # the record's own checks (e.g. positive tile sizes)
    return {k: v.name if isinstance(v, Target) else v for k, v in options.items()}


__all__ = ["PLATFORMS", "RUNTIME_FIELDS", "RunConfig"]
