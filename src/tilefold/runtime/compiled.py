"""``CompiledKernel``: a compiled program as PyPTO's handle (``tilefold.compiler.CompiledProgram`` plus the run).

PyPTO's handle members: ``program`` (the program handed to the compiler, or the post-pass one on the jit path;
``None`` after ``from_dir``), ``output_dir`` (the artefact directory: ``program.pto``, ``program.py``,
``meta.json`` and the pickled PTO program; written on first access, in a fresh temporary directory unless one
was given), ``platform`` / ``backend_type``, ``param_names`` / ``output_indices`` / ``has_return``; calling it
with arrays runs it on the simulator (``compiled(a, b, out, config=...)``), writing outputs in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tilefold.compiler import CompiledProgram
from tilefold.targets import get_target


@dataclass
class CompiledKernel(CompiledProgram):
    """A ``CompiledProgram`` that runs: PyPTO's compiled-program handle."""

    config: Any = None  # the RunConfig it was compiled with (jit path)
    _output_dir: Any = None
    _meta: dict[str, Any] | None = None

    @classmethod
    def of(cls, compiled: CompiledProgram) -> CompiledKernel:
        """The handle of a compiler result (itself when it is one already)."""
        if isinstance(compiled, CompiledKernel):
            return compiled
        return cls(compiled.ir, compiled.pto, compiled.target, compiled.passes, compiled.program)

    # ------------------------------------------------------------------ PyPTO's handle
    @property
    def platform(self) -> str:
        """The platform it was built for, as the RunConfig spelt it (``a2a3sim``), else the target name."""
        if self.config is not None and getattr(self.config, "platform", None):
            return self.config.platform
        return (self._meta or {}).get("platform_name") or self.target.name

    @property
    def backend_type(self) -> Any:
        from tilefold.backend.backend_type import BackendType

        for b in BackendType:
            if b.value == self.target.name:
                return b
        return self.target.name

    def _entry_meta(self) -> dict[str, Any]:
        if self._meta is None:
            from tilefold.runtime.execute import hidden_extents, user_params

            entry = self.ir.function(self.pto.entry)
            names = [p.name for p in entry.params]
            dirs = [d.value for d in entry.param_directions]
            self._meta = {"name": self.pto.name, "entry": self.pto.entry, "platform": self.target.name,
                          "platform_name": getattr(self.config, "platform", None) or self.target.name,
                          "params": names, "directions": dirs, "user_params": user_params(entry),
                          "hidden_extents": hidden_extents(entry), "has_return": bool(entry.return_types),
                          "returns": [n for n, _t in getattr(self.pto, "entry_returns", ())],
                          "passes": list(self.passes)}
        return self._meta

    @property
    def param_names(self) -> list[str]:
        """The parameters a caller passes, in order (``pl.dynamic`` extents are read from the arrays)."""
        return list(self._entry_meta()["user_params"])

    @property
    def output_indices(self) -> list[int]:
        """Positions (in ``param_names``) of the ``Out`` / ``InOut`` parameters."""
        m = self._entry_meta()
        direction = dict(zip(m["params"], m["directions"], strict=True))
        return [i for i, n in enumerate(m["user_params"]) if direction[n] != "In"]

    @property
    def has_return(self) -> bool:
        return bool(self._entry_meta()["has_return"])

    @property
    def output_dir(self) -> Any:
        if self._output_dir is None:
            import tempfile

            base = getattr(self.config, "runtime", {}).get("save_kernels_dir") if self.config is not None else None
            if base:
                from pathlib import Path

                self._output_dir = Path(base) / self.pto.name
            else:
                self._output_dir = tempfile.mkdtemp(prefix=f"tilefold-{self.pto.name}-")
            self.save(self._output_dir)
        from pathlib import Path

        return Path(self._output_dir)

    @output_dir.setter
    def output_dir(self, value: Any) -> None:
        self._output_dir = value
        if value is not None:
            self.save(value)  # complete the directory (meta.json, the pickled PTO) so from_dir can load it

    def save(self, directory: Any) -> Any:
        """Write the artefacts to ``directory``: ``program.pto`` (PTO text), ``program.py`` (post-pass IR),
        ``meta.json`` (call shape) and ``program.pto.pickle`` (what ``from_dir`` loads)."""
        import json
        import pickle
        from pathlib import Path

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        (out / "program.pto").write_text(self.pto.text())
        if self.ir is not None:
            (out / "program.py").write_text(self.ir.as_python())
        meta = self._entry_meta() if self.ir is not None else dict(self._meta or {})
        (out / "meta.json").write_text(json.dumps(meta, indent=1))
        with (out / "program.pto.pickle").open("wb") as f:
            pickle.dump(self.pto, f)
        return out

    @classmethod
    def from_dir(cls, directory: Any) -> CompiledKernel:
        """Rebuild a handle from an artefact directory written by ``save`` / ``output_dir``: it runs, and has no
        ``program`` (as in PyPTO)."""
        import json
        import pickle
        from pathlib import Path

        from tilefold.errors import TilefoldError

        d = Path(directory)
        try:
            meta = json.loads((d / "meta.json").read_text())
            with (d / "program.pto.pickle").open("rb") as f:
                pto = pickle.load(f)  # noqa: S301 - tilefold's own artefact
        except (OSError, ValueError, pickle.UnpicklingError) as exc:
            raise TilefoldError(f"{d} is not a tilefold artefact directory: {exc}",
                                hint="pass compiled.output_dir of a tilefold CompiledProgram") from None
        out = cls(None, pto, get_target(meta["platform"]), tuple(meta.get("passes", ())), _output_dir=d,
                  _meta=meta)
        out.program = None
        return out

    load = from_dir

    def __call__(self, *args: Any, config: Any = None) -> Any:
        """Run on the simulator with arrays (numpy / torch); Out / InOut arguments are written in place."""
        from tilefold.runtime.config import RunConfig
        from tilefold.runtime.execute import bind_arguments, execute

        config = config if config is not None else (self.config or RunConfig(platform=self.target.name))
        meta = self._entry_meta()
        outs = self._omitted_outputs(args)
        if outs is not None:  # return-style: compiled(a, b) -> out (the Out arguments are made here)
            by_name = dict(zip([n for n in meta["user_params"] if n not in outs], args, strict=True))
            by_name.update(outs)
            execute(self, by_name, config)
            values = [outs[n] for n in meta["user_params"] if n in outs]
            return values[0] if len(values) == 1 else tuple(values)
        by_name = bind_arguments(meta, args, f"program {self.pto.name!r}")
        return execute(self, by_name, config)[0]

    def _omitted_outputs(self, args: tuple[Any, ...]) -> dict[str, Any] | None:
        """When ``args`` are exactly the non-Out parameters: a zero-filled array for each pl.Out parameter (of
        its static shape, or with the pl.dynamic extents read from the given arrays); else None."""
        import sys

        import numpy as np

        from tilefold.errors import TilefoldError
        from tilefold.ir.types import TensorType

        meta = self._entry_meta()
        direction = dict(zip(meta["params"], meta["directions"], strict=True))
        out_names = [n for n in meta["user_params"] if direction[n] == "Out"]
        if not out_names or len(args) != len(meta["user_params"]) - len(out_names) or self.ir is None:
            return None
        entry = self.ir.function(self.pto.entry)
        given = dict(zip([n for n in meta["user_params"] if n not in out_names], args, strict=True))
        extents: dict[str, int] = {}
        from tilefold.runtime.execute import dynamic_extent

        for name, where in meta["hidden_extents"].items():
            try:
                extents[name] = dynamic_extent(name, where, given)
            except TilefoldError:
                pass
        torch = sys.modules.get("torch")
        use_torch = torch is not None and any(isinstance(a, torch.Tensor) for a in args)
        outs = {}
        for p in entry.params:
            if p.name not in out_names or not isinstance(p.type, TensorType):
                continue
            dims = []
            for e in p.type.shape:
                v = getattr(e, "value", None)
                v = extents.get(getattr(e, "name", None)) if v is None else v
                if v is None:
                    raise TilefoldError(f"output {p.name!r} has an extent no argument carries",
                                        hint="pass the output array too")
                dims.append(int(v))
            if int(np.prod(dims, dtype=object)) * p.type.dtype.np_dtype.itemsize > (1 << 28):
                raise TilefoldError(f"output {p.name!r} {dims} is larger than 256 MiB", hint="use smaller shapes")
            arr = np.zeros(dims, p.type.dtype.np_dtype)
            outs[p.name] = torch.from_numpy(arr) if use_torch and p.type.dtype.name != "BF16" else arr
        return outs


__all__ = ["CompiledKernel"]
