"""``benchmark(compiled, args, rounds=, warmup=)``: PyPTO's register-once, dispatch-many timing loop, on the
simulator.

The device time of a round is the simulated kernel time (``SimResult.microseconds``: deterministic, so every
round gives the same number); the host time is the measured wall clock of the round (simulation included).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from tilefold.errors import NotSupportedError, TilefoldError


@dataclass
class BenchmarkStats:
    device_wall_us: list[float] = field(default_factory=list)
    host_wall_us: list[float] = field(default_factory=list)
    rounds: int = 0
    warmup: int = 0

    @property
    def samples(self) -> list[float]:
        return self.device_wall_us

    @property
    def all_zero_device(self) -> bool:
        return all(x == 0 for x in self.device_wall_us)

    def per_round(self, metric: str = "device") -> list[float]:
        if metric == "device":
            return list(self.device_wall_us)
        if metric == "host":
            return list(self.host_wall_us)
        raise NotSupportedError(f"BenchmarkStats.per_round({metric!r}) is not supported",
                                hint="tilefold measures 'device' (simulated) and 'host' (wall clock)")

    def print_tree(self, *args: Any, **kwargs: Any) -> None:
        raise NotSupportedError("BenchmarkStats.print_tree: tilefold records no [STRACE] span tree",
                                hint="read device_wall_us (simulated) and host_wall_us")

    print_mean_tree = print_tree

    def __getattr__(self, name: str) -> Any:
        # device_wall_us_median / _min / _max / _mean and the shorter device_us_* / host_us_* aliases
        for prefix, values in (("device_wall_us_", "device_wall_us"), ("device_us_", "device_wall_us"),
                               ("host_wall_us_", "host_wall_us"), ("host_us_", "host_wall_us")):
            if name.startswith(prefix):
                agg = {"median": statistics.median, "min": min, "max": max, "mean": statistics.fmean}.get(
                    name[len(prefix):])
                if agg is not None:
                    return agg(self.__dict__[values])
        raise AttributeError(f"BenchmarkStats has no attribute {name!r}")


def benchmark(compiled: Any, args: list[Any] | tuple[Any, ...], rounds: int = 100, warmup: int = 3, *,
              platform: str | None = None, device_id: int | None = None, config: Any = None) -> BenchmarkStats:
    from tilefold.compiler import CompiledProgram
    from tilefold.runtime.compiled import CompiledKernel
    from tilefold.runtime.config import RunConfig
    from tilefold.runtime.execute import bind_arguments, execute

    if not isinstance(compiled, CompiledProgram):
        raise TilefoldError(f"benchmark takes a CompiledProgram, got {type(compiled).__name__}",
                            hint="compiled = kernel.compile(*args) (or CompiledProgram.from_dir(path))")
    compiled = CompiledKernel.of(compiled)
    if config is not None and (platform is not None or device_id is not None):
        raise TilefoldError("benchmark takes platform= / device_id= or config=, not both",
                            hint="put the platform in the RunConfig")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1 or not isinstance(warmup, int) \
            or warmup < 0:
        raise TilefoldError(f"benchmark(rounds={rounds!r}, warmup={warmup!r})",
                            hint="rounds is a positive int, warmup a non-negative int")
    if config is None:
        config = RunConfig(platform=platform or compiled.target.name,
                           **({"device_id": device_id} if device_id is not None else {}))
    if config.target != compiled.target.name:
        raise TilefoldError(f"the program was compiled for {compiled.target.name}, not {config.target}",
                            hint="compile for the platform you benchmark on")
    by_name = bind_arguments(compiled._entry_meta(), tuple(args), f"program {compiled.pto.name!r}")
    stats = BenchmarkStats(rounds=rounds, warmup=warmup)
    for i in range(warmup + rounds):
        t0 = time.perf_counter()
        _, sim = execute(compiled, by_name, config)
        host = (time.perf_counter() - t0) * 1e6
        if i >= warmup:
            stats.device_wall_us.append(float(sim.microseconds))
            stats.host_wall_us.append(host)
    return stats


__all__ = ["BenchmarkStats", "benchmark"]
