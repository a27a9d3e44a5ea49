"""The ``tilefold`` command (also ``python -m tilefold``).

Sub-commands::

    tilefold opt FILE.py [--passes a,b,...|default] [--print-after-all] [--verify] [--verify-properties P,...]
                         [--round-trip] [--remarks] [--target NAME] [--[no-]enable-auto-bind-sub-block]
                         [--pass-option NAME=VALUE]...   (also on compile and run; tilefold passes lists them)
    tilefold compile FILE.py --emit ir|pto [--target NAME] [--skip-pass NAME]... [--codegen strict|faithful]
                     [--print-after-all] [--remarks]
    tilefold run FILE.py --inputs random|FILE.npz [--target NAME] [--skip-pass NAME]... [--codegen ...]
                         [--block-dim N] [--[no-]enable-auto-bind-sub-block] [--seed N] [--set NAME=VALUE]...
                         [--kernels FILE.py|examples]... [--remarks]
    tilefold bench [NAMES...]      (single-threaded BLAS, like the benchmark scripts)
    tilefold demo
    tilefold passes
    tilefold ops [NAME] [--markdown]   (the op registry; --markdown writes docs/ops.md)

Exit codes (``EXIT_CODES``): 0 success; 1 a usage error (bad command line, unknown pass name); 2 a user
error (bad input, a failed verification, an unsupported program; reported as one paragraph from
``TilefoldError.render()``, never a traceback); 3 ``tilefold run`` found a mismatch or a device fault; 4 an
internal error (a bug: rerun with ``--traceback`` to see where).
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tilefold.errors import TilefoldError
from tilefold.terminal import key_value_table, print_table, status

EXIT_OK, EXIT_USAGE, EXIT_USER, EXIT_MISMATCH, EXIT_INTERNAL = 0, 1, 2, 3, 4

EXIT_CODES = """exit codes:
  0  success (run: the device result matches the golden reference)
  1  usage error: bad command line, unknown pass / op / benchmark name
  2  user error: the program or its inputs are wrong (located message with a hint, no traceback)
  3  tilefold run: mismatch or device fault (the evidence examples with --skip-pass exit 3 on purpose)
  4  internal error: a tilefold bug (rerun with --traceback)"""


class _Parser(argparse.ArgumentParser):
    """argparse with the documented usage exit code (1; argparse's own is 2, which means a user error here)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class UsageError(Exception):
    """A bad command line detected after argument parsing (e.g. an unknown pass name)."""


# ------------------------------------------------------------------------------------------------
# shared helpers
# ------------------------------------------------------------------------------------------------


def _parse_file(path: str):
    from tilefold.language import parse_file

    hint = "give the path of a .py file with a @pl.program class"
    if not Path(path).exists():
        raise TilefoldError(f"cannot read {path!r}: no such file", hint=hint)
    if not Path(path).is_file():
        raise TilefoldError(f"cannot read {path!r}: not a regular file", hint=hint)
    try:
        return parse_file(path)
    except (UnicodeDecodeError, OSError) as exc:
        raise TilefoldError(f"cannot read {path!r}: {exc}", hint=hint) from None


def _parse_program_or_jit(args: argparse.Namespace, tile_level: bool = False):
    """The program of ``args.file``: a ``@pl.program`` file, or one ``@pl.jit`` entry of a jit file (``--kernel``,
    ``--shape`` as for ``tilefold run``) as parsed (the pipeline outlines its scopes); ``tile_level``: lowered to
    tile ops too (what the tile passes of ``tilefold opt`` take)."""
    from tilefold.cli_jit import is_jit_file, parse_jit_file

    if not is_jit_file(args.file):
        return _parse_file(args.file)
    program = parse_jit_file(args.file, getattr(args, "kernel", None), getattr(args, "shape", None) or [])
    if tile_level:
        from tilefold.runtime.jit_compile import to_tile_program

        program = to_tile_program(program, type("Config", (), {"target": getattr(args, "target", None)})())
    return program


def _print_ir(program) -> str:
    from tilefold.passes.pass_manager import print_ir

    return print_ir(program)


def _split_list(text: str | None, option: str, hint: str) -> list[str]:
    """The items of a comma-separated list option (none when the option is not given). An empty item (``,,``, a
    leading / trailing comma, an empty value) is a usage error, not a shorter list: ``--passes ,,,`` would run no
    pass without a word."""
    if text is None:
        return []
    items = [item.strip() for item in text.split(",")]
    if "" in items:
        what = ("names nothing" if not any(items) else
                f"has an empty item (item {items.index('') + 1} of {len(items)})")
        raise UsageError(f"{option} {text!r} {what}\nhint: {hint}")
    return items


PASSES_HINT = ("name the passes separated by single commas, e.g. --passes tile-and-bind-sub-block,init-mem-ref; "
               "`tilefold passes` lists their CLI names (`default` = the default tile pipeline); leave --passes out "
               "to run no pass")


def _properties_hint() -> str:
    from tilefold.passes.base import IRProperty

    return ("name the properties separated by single commas, e.g. --verify-properties SSAForm,TileOps2D; known: "
            + ", ".join(p.value for p in IRProperty))


def _target(name: str | None):
    """Validate a target name; return what passes should receive."""
    if name is None:
        return None
    from tilefold.targets import get_target

    return get_target(name)


def _pipeline_options(args: argparse.Namespace) -> dict[str, Any]:
    """The pipeline options of the command line: ``--pass-option NAME=VALUE`` items (checked against
    ``PipelineOptions``), then the dedicated flags, which win."""
    from tilefold.passes.option_records import PipelineOptions
    from tilefold.passes.options import parse_assignments

    options: dict[str, Any] = parse_assignments(PipelineOptions, getattr(args, "pass_option", None) or [],
                                                origin="--pass-option")
    # a target given as a pass option is the command's target: compile, codegen and the simulator must all
    # use the chip the passes planned for, so it moves to --target (and two different targets are an error)
    option_target = options.pop("target", None)
    if option_target is not None:
        name = getattr(option_target, "name", option_target)
        given = getattr(args, "target", None)
        if given and str(given) != str(name):
            raise UsageError(f"--pass-option target={name} contradicts --target {given}; give the target once "
                             "(--target NAME)")
        args.target = name
    flag = getattr(args, "enable_auto_bind_sub_block", None)
    if flag is not None:
        options["enable_auto_bind_sub_block"] = flag
    if getattr(args, "custom_op_policy", None) is not None:
        options["custom_op_policy"] = args.custom_op_policy
    return options


def _properties(names: Sequence[str]):
    from tilefold.passes.base import IRProperty

    out = []
    for name in names:
        match = [p for p in IRProperty if p.value.lower() == name.lower() or p.name.lower() == name.lower()]
        if not match:
            raise UsageError(f"unknown IR property {name!r}; known: {', '.join(p.value for p in IRProperty)}")
        out.append(match[0])
    return out


# ------------------------------------------------------------------------------------------------
# opt
# ------------------------------------------------------------------------------------------------


def _pass_manager(names: Sequence[str], options: dict[str, Any]):
    """Passes by CLI name; ``test-*`` names are the verifier's fault-injection passes (testing aids that
    break one IR property on purpose, see ``tilefold.passes.verifier.fault_injection_pass``)."""
    from tilefold.passes.pass_manager import PassManager
    from tilefold.passes.pipeline import get_pass
    from tilefold.passes.verifier import fault_injection_pass, fault_injection_pass_names

    passes = []
    for name in names:
        if name in fault_injection_pass_names():
            passes.append(fault_injection_pass(name))
        else:
            passes.append(get_pass(name, **options))
    return PassManager(passes, name="opt")


def _expand_default(names: list[str]) -> list[str]:
    """``default`` in a pass list stands for the default tile pipeline (``pipeline.DEFAULT_ORDER``)."""
    if "default" not in names:
        return names
    from tilefold.passes.pipeline import DEFAULT_ORDER

    out: list[str] = []
    for name in names:
        out.extend(DEFAULT_ORDER if name == "default" else (name,))
    return out


def cmd_opt(args: argparse.Namespace) -> int:
    from tilefold.passes.pass_manager import DumpInstrument, PassContext, VerificationInstrument
    from tilefold.passes.remarks import collect_remarks
    from tilefold.passes.verifier import ALL_VERIFIABLE, verify_properties
    from tilefold.testing.round_trip import RoundTripInstrument

    names = _expand_default(_split_list(args.passes, "--passes", PASSES_HINT))
    options = _pipeline_options(args)
    target = _target(args.target)
    if target is not None:
        options["target"] = target
    try:
        manager = _pass_manager(names, options)
    except KeyError as exc:
        raise UsageError(exc.args[0] if exc.args else str(exc)) from None

    explicit = (_properties(_split_list(args.verify_properties, "--verify-properties", _properties_hint()))
                if args.verify_properties is not None else None)
    program = _parse_program_or_jit(args, tile_level=True)
    verify = args.verify or explicit is not None
    instruments = []
    if verify:
        instruments.append(VerificationInstrument(properties=explicit))
        if not names:
            props = explicit if explicit is not None else list(ALL_VERIFIABLE)
            verify_properties(program, props, context="input program")
    if args.round_trip:
        instruments.append(RoundTripInstrument(check_input=True))
    if args.print_after_all:
        instruments.append(DumpInstrument(sys.stdout))
        if not names:  # no pass runs: the only stage is the input
            _print_stage("input", program)

    with collect_remarks() as remarks, PassContext(instruments, options=options):
        result = manager.run(program)
    if explicit is not None and names:
        verify_properties(result, explicit, context=f"after the last pass ({manager.passes[-1].name})")
    if args.round_trip and not names:
        from tilefold.testing.round_trip import round_trip_check

        round_trip_check(result, "round trip of the input program")
    for p in manager.passes:  # passes may also expose remarks on the pass object
        for r in getattr(p, "remarks", None) or ():
            if r not in remarks:
                remarks.append(r)

    text = _print_ir(result)
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n")
    elif not args.print_after_all:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    # with --print-after-all (and no -o) the last dump above already is the final IR: not printed twice
    if args.remarks:
        _print_remarks(remarks)
    return EXIT_OK


def _print_remarks(remarks: Sequence[Any]) -> None:
    for r in remarks:
        print(str(r))
    if not remarks:
        print("remark: (no remarks)")


# ------------------------------------------------------------------------------------------------
# compile
# ------------------------------------------------------------------------------------------------


def _print_stage(stage: str, program) -> None:
    """One ``--print-after-all`` stage that is not a pass (the input program)."""
    text = _print_ir(program)
    sys.stdout.write(f"# ----- IR at stage {stage} -----\n{text.rstrip()}\n\n")
    sys.stdout.flush()


def _skip_passes(args: argparse.Namespace) -> tuple[str, ...]:
    """The --skip-pass names, checked here: an unknown name is a bad command line (exit 1), not a user error."""
    names = tuple(args.skip_pass or ())
    if names:
        from tilefold.passes.pipeline import default_tile_pipeline

        try:  # the pipeline owns the list of names it accepts and the message
            default_tile_pipeline(skip_passes=names)
        except TilefoldError as exc:
            raise UsageError(f"{exc.message}\nhint: {exc.hint}" if exc.hint else exc.message) from None
    return names


def cmd_compile(args: argparse.Namespace) -> int:
    from tilefold.compiler import compile as compile_fn
    from tilefold.passes.remarks import collect_remarks

    program = _parse_program_or_jit(args)
    kwargs: dict[str, Any] = {"skip_passes": _skip_passes(args), "options": _pipeline_options(args)}
    if args.target:
        kwargs["target"] = args.target
    if args.codegen:
        kwargs["codegen"] = args.codegen
    if args.entry:
        from tilefold.testing.harness import reference_program

        # a jit program's kernels are named by the outlining the pipeline does: the entry is one of those
        kwargs["entry"] = _entry_function(reference_program(program), args.entry).name
    if args.print_after_all:
        from tilefold.passes.pass_manager import DumpInstrument, PassContext

        _print_stage("input", program)
        # the pipeline's passes run through the current PassContext: the dump instrument sees every one
        with collect_remarks() as remarks, PassContext([DumpInstrument(sys.stdout)],
                                                        options=dict(kwargs["options"])):
            compiled = compile_fn(program, **kwargs)
        sys.stdout.write(f"# ----- output ({args.emit}) -----\n")
    else:
        with collect_remarks() as remarks:
            compiled = compile_fn(program, **kwargs)
    text = _print_ir(compiled.ir) if args.emit == "ir" else compiled.pto.text()
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.remarks:
        _print_remarks(remarks)
    return EXIT_OK


# ------------------------------------------------------------------------------------------------
# run
# ------------------------------------------------------------------------------------------------


def _entry_function(program, name: str | None = None):
    from tilefold.ir.stmt import FunctionType

    names = [f.name for f in program.functions]
    if not names:
        raise TilefoldError(f"program {program.name!r} has no functions", span=program.span,
                            hint="add a method decorated with @pl.function(type=pl.FunctionType.InCore) (a kernel) "
                                 "or an Orchestration function")
    if name is not None:
        for f in program.functions:
            if f.name == name:
                return f
        import difflib

        close = difflib.get_close_matches(name, names, n=1)
        raise TilefoldError(f"--entry {name}: program {program.name!r} has no function {name!r}", span=program.span,
                            hint=(f"did you mean {close[0]!r}? " if close else "")
                            + f"its functions: {', '.join(names)}")
    orch = [f for f in program.functions if f.func_type is FunctionType.Orchestration]
    if orch:
        return orch[0]
    kernels = [f for f in program.functions if f.func_type.is_incore]
    if len(kernels) == 1:
        return kernels[0]
    if len(program.functions) == 1:
        return program.functions[0]
    raise TilefoldError(f"program {program.name!r} has no Orchestration function and "
                        f"{len(kernels)} kernels; cannot tell which one to run", span=program.span,
                        hint=f"choose one with --entry NAME ({', '.join(names)}), or add an Orchestration "
                             "function that calls the kernels")


def _parse_scalar(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    raise TilefoldError(f"cannot read scalar value {text!r}", hint="use an int, a float, true or false")


#: the largest input array ``tilefold run`` makes or reads (per parameter): beyond it, refuse with a hint
MAX_INPUT_BYTES = 256 * 2**20
_NPZ_HINT = "save the inputs with numpy.savez(path, name=array, ...): one array per parameter, scalars as 0-d arrays"


def _scalar_for(name: str, text: str, dtype) -> Any:
    """The value of ``--set name=text`` for a scalar parameter of ``dtype``: INDEX / integer parameters take
    integers only (no 1e3, true or inf), float parameters finite numbers, bool parameters true / false."""
    import math
    import re

    if dtype.is_bool:
        if text.lower() in ("true", "false", "0", "1"):
            return text.lower() in ("true", "1")
        raise TilefoldError(f"--set {name}={text}: {name} is a {dtype.name} parameter and takes true or false")
    if dtype.is_float:
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):
            raise TilefoldError(f"--set {name}={text}: {name} is a {dtype.name} parameter and takes a finite "
                                "number", hint=f"e.g. --set {name}=0.5")
        return value
    if not re.fullmatch(r"[+-]?\d+", text):
        raise TilefoldError(f"--set {name}={text}: {name} is a {dtype.name} parameter and takes integers only",
                            hint=f"write the value as a whole number, e.g. --set {name}=3")
    value = int(text)
    if abs(value) >= 2**63:
        raise TilefoldError(f"--set {name}={text}: the value does not fit a 64-bit integer")
    return value


def _check_input_sizes(entry) -> None:
    """Refuse to make random inputs larger than MAX_INPUT_BYTES (a [10^6, 10^6] tensor is 4 TB)."""
    from tilefold.ir.types import TensorType

    for p in entry.params:
        t = p.type
        shape = t.static_shape if isinstance(t, TensorType) else None
        if shape is None:
            continue
        n = 1
        for d in shape:
            n *= d
        size = n * t.dtype.itemsize
        if size > MAX_INPUT_BYTES:
            raise TilefoldError(f"parameter {p.name} of {entry.name} is {list(shape)} {t.dtype.name}: "
                                f"{size:,} bytes, above the {MAX_INPUT_BYTES // 2**20} MiB limit for run inputs",
                                span=p.span if p.span.line else None,
                                hint="tilefold simulates byte by byte: run the kernel on a smaller tensor "
                                     "(e.g. one tile's worth of rows)")


def _load_npz(spec: str, entry) -> dict[str, Any]:
    """Read ``--inputs FILE.npz`` without trusting it: every member's header is checked (a readable .npy,
    no pickled objects, at most MAX_INPUT_BYTES, as many bytes as the header claims) before any array is
    allocated; scalar parameters must be stored as 0-d (or one-element) arrays."""
    import zipfile

    import numpy as np

    from tilefold.ir.types import ScalarType

    path = Path(spec)
    if not path.is_file():
        raise TilefoldError(f"cannot read inputs {spec!r}: no such file",
                            hint="pass --inputs random or an .npz file with one array per parameter")
    if not zipfile.is_zipfile(path):
        with open(path, "rb") as f:
            head = f.read(6)
        what = ("a single .npy array" if head == b"\x93NUMPY" else
                "a truncated or damaged .npz (zip) archive" if head.startswith(b"PK\x03\x04") else
                "not an .npz (zip) archive")
        raise TilefoldError(f"cannot read inputs {spec!r}: the file is {what}", hint=_NPZ_HINT)
    inputs: dict[str, Any] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with zf.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    if version == (1, 0):
                        shape, _fortran, dtype = np.lib.format.read_array_header_1_0(member)
                    else:
                        shape, _fortran, dtype = np.lib.format.read_array_header_2_0(member)
                    header_len = member.tell()
                if dtype.hasobject:
                    raise TilefoldError(f"cannot read inputs {spec!r}: array {name!r} holds Python objects "
                                        "(pickled data), which tilefold never loads", hint=_NPZ_HINT)
                count = 1
                for d in shape:
                    count *= d
                nbytes = count * dtype.itemsize
                if nbytes > MAX_INPUT_BYTES:
                    raise TilefoldError(f"cannot read inputs {spec!r}: array {name!r} claims shape {list(shape)} "
                                        f"{dtype} ({nbytes:,} bytes), above the {MAX_INPUT_BYTES // 2**20} MiB "
                                        "limit for run inputs", hint="run the kernel on smaller tensors")
                if info.file_size < header_len + nbytes:
                    raise TilefoldError(f"cannot read inputs {spec!r}: array {name!r} is truncated (its header "
                                        f"claims {nbytes:,} bytes of data, the file holds "
                                        f"{max(0, info.file_size - header_len):,})", hint=_NPZ_HINT)
            with np.load(path, allow_pickle=False) as data:
                for k in data.files:
                    inputs[k] = data[k]
    except TilefoldError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise TilefoldError(f"cannot read inputs {spec!r}: {type(exc).__name__}: {exc}", hint=_NPZ_HINT) from None
    for p in entry.params:
        if isinstance(p.type, ScalarType) and p.name in inputs:
            value = inputs[p.name]
            if isinstance(value, np.ndarray):
                if value.size != 1:
                    raise TilefoldError(f"{spec}: scalar parameter {p.name} of {entry.name} is stored as an array "
                                        f"of shape {list(value.shape)}",
                                        hint=f"store it as a 0-d array: numpy.savez(path, {p.name}=3, ...)")
                value = value.reshape(()).item()
            inputs[p.name] = value
    return inputs


def _make_inputs(program, spec: str, seed: int, settings: Sequence[str], entry_name: str | None = None
                 ) -> dict[str, Any]:

    from tilefold.ir.stmt import ParamDirection
    from tilefold.ir.types import ScalarType

    entry = _entry_function(program, entry_name)
    scalar_types = {p.name: p.type.dtype for p in entry.params if isinstance(p.type, ScalarType)}
    fixed: dict[str, Any] = {}
    for item in settings or ():
        if "=" not in item:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        name, value = item.split("=", 1)
        name = name.strip()
        dtype = scalar_types.get(name)
        fixed[name] = _parse_scalar(value.strip()) if dtype is None else _scalar_for(name, value.strip(), dtype)

    scalar_params = list(scalar_types)
    unknown = [name for name in fixed if name not in scalar_params]
    if unknown:
        listed = ", ".join(scalar_params) if scalar_params else "none"
        raise TilefoldError(f"--set {unknown[0]}=...: {entry.name} has no scalar parameter {unknown[0]!r}",
                            hint=f"the scalar parameters of {entry.name} are: {listed} (tensors come from "
                                 "--inputs)")
    if spec != "random":
        inputs = _load_npz(spec, entry)
        inputs.update(fixed)
        missing = [p.name for p, d in zip(entry.params, entry.param_directions, strict=False)
                   if p.name not in inputs and d is not ParamDirection.Out]
        if missing:
            raise TilefoldError(f"{spec} has no value for parameter(s) {', '.join(missing)} of {entry.name}",
                                hint=f"the file holds: {', '.join(sorted(inputs)) or 'nothing'}")
        return inputs

    _check_input_sizes(entry)
    from tilefold.testing import random_inputs

    return random_inputs(program, entry.name, seed, scalars=fixed)


def _fmt_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_fmt_cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def _fmt_cycles(value: Any) -> str:
    """Cycle counts as exact integers (``1234``, never ``1.23e+03``); a dict as ``unit=cycles, ...``."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_fmt_cycles(v)}" for k, v in value.items()) or "-"
    try:
        return str(int(round(float(value))))
    except (TypeError, ValueError, OverflowError):
        return str(value)


def _fmt_mismatch(report: Any) -> str:
    """The first mismatching element as ``name[i, j]`` (the form of ``RunReport.summary()``)."""
    index = getattr(report, "first_mismatch", None)
    name = getattr(report, "mismatch_output", None)
    if index is None:
        details = getattr(report, "details", None) or {}
        if name is not None and not getattr(report, "matches", False):
            return str(details.get(name, name))
        return "-"
    return f"{name or 'output'}{list(index)}"


def _split_evidence(report: Any) -> str:
    """Per kernel of the compiled IR: was its vector work split across the two sub-blocks?"""
    compiled = getattr(report, "compiled", None)
    program = getattr(compiled, "ir", None)
    if program is None:
        return "-"
    from tilefold.testing import sub_block_evidence as evidence

    parts = []
    for fn in program.functions:
        if not fn.func_type.is_incore:
            continue
        ev = evidence(program.with_fields(functions=(fn,)))
        if ev.split:
            axes = ", ".join(str(v) for v in ev.axis.values())
            parts.append(f"{fn.name}: split 1:2" + (f" on axis {axes}" if axes else ""))
        elif not ev.not_reverted:
            parts.append(f"{fn.name}: not split (TileAndBindSubBlock reverted the split; --remarks says why)")
        else:
            parts.append(f"{fn.name}: not split ({'; '.join(ev.problems) or 'no evidence of a split'})")
    return "; ".join(parts) or "-"


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)


def _register_kernels(sources: list[str] | tuple[str, ...]) -> None:
    """Register custom-op kernels before a run. ``examples`` registers the reference kernels of the
    example programs; a path runs that Python file, which is expected to call
    ``tilefold.register_custom_op`` (the analog of loading compiled kernels — this is the only place the
    CLI executes user code, and only when asked to)."""
    for source in sources:
        if source == "examples":
            from tilefold.ops.custom.library import register_example_kernels

            register_example_kernels()
            continue
        path = Path(source)
        if not path.is_file():
            raise TilefoldError(f"kernel file {source!r} not found",
                                hint="pass a Python file that calls tilefold.register_custom_op, or 'examples'")
        _run_kernel_file(path)


def _run_kernel_file(path: Path) -> None:
    """Execute a ``--kernels`` file; its mistakes are reported as the user's, at the file and line."""
    import runpy
    import traceback

    from tilefold.errors import Span

    hint = ("this error is in the kernel file, not in tilefold: fix it there (the file is run as a Python script "
            "that calls tilefold.register_custom_op(symbol, kernel))")
    try:
        runpy.run_path(str(path), run_name="tilefold_kernels")
    except SyntaxError as exc:
        span = Span(exc.filename or str(path), exc.lineno or 0, exc.offset or 0, exc.text or "")
        raise TilefoldError(f"syntax error in kernel file {str(path)!r}: {exc.msg}", span=span, hint=hint) from None
    except TilefoldError as exc:
        if exc.span is not None:
            raise
        raise type(exc)(f"{exc.message} (while running kernel file {str(path)!r})",
                        span=_kernel_file_span(traceback.extract_tb(exc.__traceback__), path),
                        hint=exc.hint) from exc
    except SystemExit as exc:
        raise TilefoldError(f"kernel file {str(path)!r} called exit({exc.code!r}) while it was being loaded",
                            hint=hint) from None
    except Exception as exc:
        span = _kernel_file_span(traceback.extract_tb(exc.__traceback__), path)
        raise TilefoldError(f"kernel file {str(path)!r} raised {type(exc).__name__}: {exc}", span=span,
                            hint=hint) from exc


def _kernel_file_span(frames, path: Path):
    """Span of the innermost traceback frame in the kernel file ``path`` (None if it has none)."""
    from tilefold.errors import Span

    target = path.resolve()
    for fr in reversed(frames):
        try:
            if Path(fr.filename).resolve() == target:
                return Span(fr.filename, fr.lineno or 0, 0, fr.line or "")
        except OSError:
            continue
    return None


def _check_custom_kernels(program, kernel_files: Sequence[str]) -> None:
    """Every custom op the program calls has a registered kernel; else say which --kernels file (or
    register_custom_op call) provides it, at the call."""
    from tilefold.ir.visitor import IRVisitor
    from tilefold.ops.custom.kernels import is_registered

    calls: list[Any] = []

    class _Customs(IRVisitor):
        def visit_Call(self, expr) -> None:
            symbol = expr.kwarg("symbol") if expr.op_name.startswith("tile.custom") else None
            if isinstance(symbol, str) and not is_registered(symbol):
                calls.append((symbol, expr))
            super().visit_Call(expr)

    for fn in program.functions:
        _Customs().visit_function(fn)
    if not calls:
        return
    symbol, call = calls[0]
    from tilefold.ops.custom.library import EXAMPLE_KERNELS

    if symbol in EXAMPLE_KERNELS:
        hint = "its reference kernel ships with the examples: add --kernels examples"
    else:
        given = f" (given: {', '.join(kernel_files)})" if kernel_files else ""
        hint = (f"pass --kernels FILE.py{given}, a Python file that calls tilefold.register_custom_op("
                f"{symbol!r}, kernel[, cost]); from Python, call tilefold.register_custom_op before running")
    raise TilefoldError(f"custom op {symbol!r} has no registered kernel", span=call.span if call.span.line else None,
                        hint=hint)


def _write_timelines(args: argparse.Namespace, sim: Any) -> None:
    """--trace / --timeline: the pipe timelines of the run, for Perfetto or as a picture."""
    if sim is None or not (args.trace or args.timeline):
        return
    from tilefold.sim.trace import plot_timeline, write_trace

    if args.trace:
        print(f"trace written to {write_trace(sim, args.trace)} (open it in https://ui.perfetto.dev)")
    if args.timeline:
        print(f"timeline written to {plot_timeline(sim, args.timeline)}")


def _write_dumps(args: argparse.Namespace, sim: Any) -> None:
    """--dump-args 1|2: the tensor dumps of the run (``tilefold.runtime.dfx.write_arg_dumps``) in --dump-dir."""
    if sim is None or not args.dump_args:
        return
    from tilefold.runtime.dfx import write_arg_dumps

    where = write_arg_dumps(sim, Path(args.dump_dir), args.dump_args)
    print(f"tensor dumps written to {where} ({len(sim.dumps)} record(s), index.json lists them)")


def cmd_run(args: argparse.Namespace) -> int:
    from tilefold.ir.types import ScalarType
    from tilefold.passes.remarks import collect_remarks
    from tilefold.testing import run_and_compare

    _register_kernels(args.kernels or ())
    from tilefold.cli_jit import is_jit_file, run_jit_file

    if is_jit_file(args.file):  # a file of @pl.jit kernels: --kernel picks one, --shape gives bare / dynamic shapes
        if args.inputs != "random":  # never silently run random values instead of the user's file
            raise UsageError(f"--inputs {args.inputs}: a @pl.jit file runs on random inputs of the --shape shapes "
                             "(--inputs FILE.npz is read for @pl.program files only); call the kernel from Python "
                             "with your arrays")
        if args.entry:
            raise UsageError(f"--entry {args.entry}: a @pl.jit file picks its kernel with --kernel NAME")
        options = _pipeline_options(args)  # first: a --pass-option target becomes args.target
        with collect_remarks() as remarks:
            program, report = run_jit_file(args.file, args.kernel, args.shape or [], args.seed, args.target,
                                           args.block_dim, _skip_passes(args), options,
                                           args.max_steps, args.set or [], _scalar_for, codegen=args.codegen,
                                           dump_args=args.dump_args)
        _write_timelines(args, getattr(report, "sim", None))
        _write_dumps(args, getattr(report, "sim", None))
        fault = report.fault
        print(_table([("program", f"{program.name} ({args.file}, @pl.jit)"),
                      ("target", str(args.target or "Ascend910B")),
                      ("result", "MATCH" if report.matches else "DEVICE FAULT" if fault else "MISMATCH"),
                      ("fault", "-" if fault is None else f"{type(fault).__name__}: {fault}"),
                      ("max abs error", "-" if fault is not None else _fmt_cell(report.max_abs_error)),
                      ("first mismatch", _fmt_mismatch(report)), ("cycles", _fmt_cycles(report.cycles))]))
        if args.remarks:
            _print_remarks(remarks)
        return EXIT_OK if report.matches else EXIT_MISMATCH
    if str(args.file).endswith(".mlir"):  # an HIVM MLIR kernel (tilefold.mlir lowers its AIV function)
        from tilefold.mlir import load_program

        program = load_program(args.file, args.entry)
    else:
        program = _parse_file(args.file)
    _check_custom_kernels(program, args.kernels or ())
    running = contextlib.ExitStack()  # a spinner on a terminal while compiling and running; closed before printing
    running.enter_context(status(f"compiling, simulating and running the golden reference on {args.file}"))
    inputs = _make_inputs(program, args.inputs, args.seed, args.set, args.entry)
    entry = _entry_function(program, args.entry)
    scalars = {p.name: inputs.get(p.name) for p in entry.params if isinstance(p.type, ScalarType)}
    explicit = {item.split("=", 1)[0].strip() for item in args.set or ()}
    kwargs: dict[str, Any] = {
        "skip_passes": _skip_passes(args),
        "codegen": args.codegen,
        "options": _pipeline_options(args),
        "block_dim": args.block_dim,
    }
    if args.entry:
        kwargs["entry"] = entry.name
    if args.target:
        kwargs["target"] = args.target
    if args.max_steps is not None:
        kwargs["max_steps"] = args.max_steps
    if args.dump_args:
        kwargs["dump_args"] = args.dump_args
    with collect_remarks() as remarks:
        report = run_and_compare(program, inputs, **kwargs)
    sim = getattr(report, "sim", None)
    _write_timelines(args, sim)
    _write_dumps(args, sim)
    fault = getattr(report, "fault", None)
    matches = bool(getattr(report, "matches", False))
    rows = [
        ("program", f"{program.name} ({args.file})"),
        ("target", str(args.target or "Ascend910B")),
        ("skipped passes", ", ".join(args.skip_pass or ()) or "-"),
        ("codegen", args.codegen),
        ("block dim", str(args.block_dim)),
        ("result", "MATCH" if matches else ("DEVICE FAULT" if fault is not None else "MISMATCH")),
        ("fault", "-" if fault is None else f"{type(fault).__name__}: {fault}"),
        ("max abs error", "-" if fault is not None else _fmt_cell(getattr(report, "max_abs_error", None))),
        ("first mismatch", _fmt_mismatch(report)),
        ("cycles", _fmt_cycles(getattr(report, "cycles", None))),
        ("unit cycles", _fmt_cycles(getattr(report, "unit_cycles", None))),
        ("time", "-" if sim is None else f"{sim.microseconds:.3f} us at {sim.target.clock_ghz:g} GHz"),
        ("launch", "-" if sim is None else f"{sim.launch_cycles:.0f} cycles (overhead), body "
                                            f"{sim.body_cycles:.0f} cycles"),
        ("utilisation", "-" if sim is None else "over the body: " + ", ".join(
            f"{p}={u:.0%}" for p, u in sim.pipe_utilisation().items() if u > 0) or "-"),
        ("critical pipe", "-" if sim is None else sim.critical_pipe()),
        ("scalars", ", ".join(f"{k}={v!r}" + ("" if k in explicit or args.inputs != "random" else " (random)")
                              for k, v in scalars.items()) or "-"),
        ("sub-block split", _split_evidence(report)),
    ]
    running.close()
    text = key_value_table(rows)
    if text is not None:
        print(text)
    if args.remarks:
        _print_remarks(remarks)
    return EXIT_OK if matches else EXIT_MISMATCH


# ------------------------------------------------------------------------------------------------
# bench / demo / passes
# ------------------------------------------------------------------------------------------------


def _benchmarks_dir() -> Path | None:
    """The benchmarks/ of the checkout these sources belong to (src/tilefold/cli.py -> <checkout>/benchmarks):
    never one found in the current directory or its parents, whose scripts would run as the user."""
    here = Path(__file__).resolve()
    candidate = here.parents[2] / "benchmarks" if len(here.parents) > 2 else None
    if candidate is not None and candidate.is_dir() and (here.parents[2] / "pyproject.toml").is_file():
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

    own = _benchmarks_dir()
    if own is None:
        raise TilefoldError("no benchmarks/ directory next to the tilefold sources",
                            hint="benchmarks ship with the source checkout, not with an installed package: run "
                                 "`tilefold bench` from a checkout installed with `make install`")
    argv = ["--plot"] if getattr(args, "plot", False) else None
    result = run_benchmarks(list(args.names) or None, root=own, argv=argv)  # never a benchmarks/ of the cwd
    # the runner's codes: 1 a benchmark failed, 2 an unknown name (a usage error here)
    return {0: EXIT_OK, 1: EXIT_USER, 2: EXIT_USAGE}.get(int(result), EXIT_USER)


def _fmt_default(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    return repr(value)


def op_signature(op: Any) -> str:
    """``name(operand: kind, ..., attr=default)``: operands by kind, then attributes with defaults."""
    parts = []
    for p in op.params:
        text = f"{p.name}: {p.kind.value}"
        declared = ([" / ".join(m.name for m in p.memory)] if p.memory else []) + (
            [f"rank {p.rank}"] if p.rank is not None else []) + (
            [" or ".join(c.value for c in p.dtypes)] if p.dtypes else [])
        if declared:  # the parameter's declaration, checked by the registry (ops.registry.check_operands)
            text += f"[{', '.join(declared)}]"
        if p.default is not None:
            text += f" = {_fmt_default(p.default)}"
        elif not p.required:
            text += " = None"
        parts.append(text)
    return f"{op.name}({', '.join(parts)})"


def op_facts(op: Any) -> list[tuple[str, str]]:
    """The registry facts of one op, as (label, value) rows (shared by the text and markdown output)."""
    rule = op.memory
    memory = rule.kind.value
    if rule.kind.value == "kwarg":
        memory += f" (target_memory attribute, default {rule.space.name if rule.space else '-'})"
    elif rule.kind.value == "fixed":
        memory += f" ({rule.space.name if rule.space else '-'})"
    elif rule.kind.value == "inherit":
        memory += f" (from operand {rule.operand})"
    aliasing = []
    if op.is_view:
        aliasing.append("zero-copy view of operand 0")
    if op.output_reuses_input is not None:
        aliasing.append(f"writes its result through operand {op.output_reuses_input}")
    if op.output_on_input_storage is not None:
        aliasing.append(f"result on the storage of operand {op.output_on_input_storage}")
    if op.results_reuse_segment:
        aliasing.append(f"results written into the {op.results_reuse_segment!r} segment")
    aliasing.append("not in-place safe" if op.not_inplace_safe else "in-place safe")
    return [
        ("signature", op_signature(op)),
        ("kind", op.kind.value),
        ("unit", op.unit.value),
        ("memory", memory),
        ("aliasing", "; ".join(aliasing)),
        ("pto", op.pto or "-"),
        ("cost class", op.cost),
        ("golden", "yes" if op.golden is not None else "no"),
    ] + ([("semantics", op.extra["note"])] if op.extra.get("note") else []) + (
        [("lowers to", op.extra["tile_op"])] if op.extra.get("tile_op") else []) + _dtype_facts(op)


def _dtype_facts(op: Any) -> list[tuple[str, str]]:
    from tilefold.ops.registry import operand_dtype_classes

    classes = operand_dtype_classes(op)
    return [("operand dtypes", " or ".join(c.value for c in classes) + " only")] if classes else []


def ops_markdown(ops: dict[str, Any]) -> str:
    """The op reference page (``docs/ops.md``), generated from the registry."""
    lines = [
        "# Op reference",
        "",
        "<!-- Generated by `python -m tilefold.cli ops --markdown > docs/ops.md`; do not edit by hand. -->",
        "",
        "Every op of the registry (`src/tilefold/ops/`: tile_ops, tensor_ops, catalog_ops). Parameter kinds: "
        "`tile`, `tensor`, "
        "`scalar` (a scalar expression), `tuple` (a list of scalars, one operand), `tile_list` (custom-op "
        "segments), `attr` (a compile-time attribute, stored in `Call.kwargs`). Memory: where the result tile "
        "lives (`kwarg` = the `target_memory` attribute, `fixed`, `inherit` = the memory of an operand, `none` = "
        "not a tile). `pto` is the PTO instruction the op lowers to (`-`: no instruction, e.g. a view). "
        "`tilefold ops NAME` prints the same facts for one op.",
        "",
        "| op | kind | unit | memory | pto |",
        "|---|---|---|---|---|",
    ]
    for name, op in ops.items():
        facts = dict(op_facts(op))
        lines.append(f"| [`{name}`](#{name.replace('.', '')}) | {facts['kind']} | {facts['unit']} | "
                     f"{op.memory.kind.value} | {facts['pto']} |")
    for name, op in ops.items():
        lines += ["", f"## {name}", ""]
        for label, value in op_facts(op):
            value = f"`{value}`" if label in ("signature", "pto") and value != "-" else value
            lines.append(f"- **{label}**: {value}")
    from tilefold.ops.catalog_ops import catalog_coverage_markdown

    lines += ["", *catalog_coverage_markdown()]
    return "\n".join(lines) + "\n"


def cmd_ops(args: argparse.Namespace) -> int:
    from tilefold.ops.registry import all_ops

    ops = dict(sorted(all_ops().items()))
    if args.name:
        wanted = args.name if args.name in ops else f"tile.{args.name}"
        if wanted not in ops:
            import difflib

            close = difflib.get_close_matches(args.name, list(ops), n=3, cutoff=0.6)
            close += [n for n in difflib.get_close_matches(f"tile.{args.name}", list(ops), n=3, cutoff=0.6)
                      if n not in close]
            guess = f"did you mean {', '.join(close[:3])}? " if close else ""
            raise UsageError(f"unknown op {args.name!r}; {guess}run `tilefold ops` for the list")
        ops = {wanted: ops[wanted]}
    if args.markdown:
        sys.stdout.write(ops_markdown(ops))
        return EXIT_OK
    if not args.name:  # the compact list: one line per op
        rows = []
        for name, op in ops.items():
            facts = dict(op_facts(op))
            rows.append((name, facts["kind"], facts["unit"], facts["pto"], _operands_of(op)))
        print_table(f"{len(rows)} ops (tilefold ops NAME for the full entry)",
                    ("op", "kind", "unit", "pto", "operands"), rows)
        return EXIT_OK
    for op in ops.values():
        text = key_value_table(op_facts(op))
        if text is not None:
            print(text)
    return EXIT_OK


def _operands_of(op: Any) -> str:
    """The parameter names of an op, for the one-line list (the full signature is in ``tilefold ops NAME``)."""
    return ", ".join(p.name for p in op.params)


def cmd_demo(args: argparse.Namespace) -> int:
    from tilefold.demo import main

    result = main()
    return int(result) if isinstance(result, int) else EXIT_OK


def cmd_passes(args: argparse.Namespace) -> int:
    from tilefold.passes.pipeline import DEFAULT_ORDER, list_passes, pass_options
    from tilefold.passes.verifier import fault_injection_pass_names

    print("passes (use with tilefold opt --passes a,b,...; options with --pass-option NAME=VALUE):")
    for name in list_passes():
        print(f"  {name}")
        for info in pass_options(name):
            print(f"      {info.describe()}")
    print("test-only fault injectors (break one IR property, for testing the verifiers with --verify):")
    for name in fault_injection_pass_names():
        print(f"  {name}")
    print("default pipeline: " + " -> ".join(DEFAULT_ORDER))
    return EXIT_OK


# ------------------------------------------------------------------------------------------------
# argument parsing and error handling
# ------------------------------------------------------------------------------------------------


CODEGEN_HELP = ("strict (default): refuse lowerings known to be unsafe; faithful: lower like upstream PyPTO, "
                "hazards included (to reproduce its bugs on the simulator)")
ENTRY_HELP = ("the function to compile / run (default: the Orchestration function, else the only kernel); "
              "needed when a program has several kernels and no Orchestration function")


def _add_pipeline_flags(p: argparse.ArgumentParser, skip: bool = True) -> None:
    p.add_argument("--target", metavar="NAME", help="target chip (Ascend910B, Ascend910C, Ascend950)")
    p.add_argument("--enable-auto-bind-sub-block", action=argparse.BooleanOptionalAction, default=None,
                   help="split AIV work across the two vector sub-blocks (default: on)")
    p.add_argument("--custom-op-policy", choices=("split", "limit-module"), default=None,
                   help="sub-block split of custom ops: 'split' those that pass the checks (default) or "
                        "'limit-module' (upstream master: no AIV function of a module with a custom op is split)")
    p.add_argument("--pass-option", action="append", metavar="NAME=VALUE",
                   help="a pipeline option by name (tilefold passes lists them with their types), e.g. "
                        "tile_sizes=96,112,96; repeatable")
    if skip:
        p.add_argument("--skip-pass", action="append", metavar="NAME",
                       help="leave a pass out of the default pipeline (pass name or CLI name); repeatable")


def _add_jit_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", metavar="NAME", help="the @pl.jit entry (files of jit kernels)")
    p.add_argument("--shape", action="append", metavar="NAME=16x128[:fp16]",
                   help="shape (and dtype) of a bare pl.Tensor parameter of a jit kernel, or of a parameter with "
                        "pl.dynamic extents (their values are read from it, as a call reads them from the arrays)")


def build_parser() -> argparse.ArgumentParser:
    from tilefold import __version__

    parser = _Parser(prog="tilefold", description="tilefold: a tile-level kernel compiler for Ascend-style NPUs",
                     epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"tilefold {__version__}")
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks of errors (debugging)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("opt", help="parse a pl file, run passes, print the IR")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--passes", metavar="a,b,...",
                   help="comma-separated pass CLI names (see `tilefold passes`); `default` = the default tile "
                        "pipeline; an empty item is an error (leave the option out to run no pass)")
    p.add_argument("--print-after-all", action="store_true", help="print the IR after every pass")
    p.add_argument("--verify", action="store_true",
                   help="verify IR properties: the input (when no passes are given) and each pass's required / "
                        "produced properties")
    p.add_argument("--verify-properties", metavar="P,...",
                   help="verify exactly these properties (implies --verify; e.g. SSAForm,TileOps2D): on the input "
                        "when no passes are given, else around every pass and on the final IR")
    p.add_argument("--round-trip", action="store_true", help="print + re-parse + compare the IR after every pass")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the IR")
    p.add_argument("-o", "--output", metavar="FILE", help="write the IR to FILE instead of stdout")
    _add_jit_flags(p)
    _add_pipeline_flags(p, skip=False)
    p.set_defaults(func=cmd_opt)

    p = sub.add_parser("compile", help="compile a pl file with the default pipeline")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--emit", choices=("ir", "pto"), default="pto", help="what to print (default: pto)")
    p.add_argument("--codegen", choices=("strict", "faithful"), default=None, help=CODEGEN_HELP)
    p.add_argument("--entry", metavar="NAME", help=ENTRY_HELP)
    p.add_argument("--print-after-all", action="store_true",
                   help="print the input IR and the IR after every pass of the pipeline, then the output")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the output")
    _add_jit_flags(p)
    _add_pipeline_flags(p)
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("run", help="compile, simulate and compare against the golden reference")
    p.add_argument("file", metavar="FILE.py")
    p.add_argument("--inputs", default="random", metavar="random|FILE.npz",
                   help="random inputs (default) or an .npz file with one array per parameter")
    p.add_argument("--codegen", choices=("strict", "faithful"), default="strict", help=CODEGEN_HELP)
    p.add_argument("--entry", metavar="NAME", help=ENTRY_HELP)
    p.add_argument("--block-dim", type=int, default=1, metavar="N", help="number of blocks (cores) to launch")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the random inputs (an integer >= 0)")
    p.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="value of a scalar parameter of the entry function (unset scalars are random in [0, 4))")
    p.add_argument("--remarks", action="store_true", help="print the passes' remarks after the result table")
    p.add_argument("--kernels", action="append", metavar="FILE.py|examples",
                   help="register custom-op kernels first: a Python file calling tilefold.register_custom_op, "
                        "or 'examples' for the example programs' reference kernels")
    p.add_argument("--trace", metavar="OUT.json", help="write the pipe timelines as Chrome trace-event / Perfetto JSON")
    p.add_argument("--timeline", metavar="OUT.png", help="draw the pipe timelines (needs tilefold[plot])")
    p.add_argument("--dump-args", type=int, choices=(1, 2), default=0, metavar="1|2",
                   help="write tensor dumps: 1 the pl.dump_tag / dumps= tensors, 2 every task's tensors, before and "
                        "after each task (docs/runtime.md)")
    p.add_argument("--dump-dir", default="dfx_outputs/args_dump", metavar="DIR",
                   help="where --dump-args writes (default: dfx_outputs/args_dump)")
    p.add_argument("--max-steps", type=int, default=None, metavar="N",
                   help="stop a run after N steps: golden statements and loop iterations, simulated instructions "
                        "(default 1,000,000 each)")
    _add_jit_flags(p)
    _add_pipeline_flags(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("mlir-opt", add_help=False,
                       help="read HIVM MLIR, run -hivm-bind-sub-block, print MLIR (docs/mlir.md)")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=lambda a: _cmd_mlir_opt(a.args))

    p = sub.add_parser("bench", help="run the benchmarks in benchmarks/ (all take several minutes; "
                                     "`tilefold bench NAME` runs one) with single-threaded BLAS")
    p.add_argument("names", nargs="*", metavar="NAME")
    p.add_argument("--plot", action="store_true", help="benchmarks that support it also write NAME.png of their table")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("demo", help="run the main job: compile, simulate and verify the example kernels")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("passes", help="list the passes and the default pipeline")
    p.set_defaults(func=cmd_passes)

    p = sub.add_parser("ops", help="list the registered ops with their signature and registry facts")
    p.add_argument("name", nargs="?", metavar="NAME", help="one op (e.g. tile.slice or slice)")
    p.add_argument("--markdown", action="store_true", help="print the docs/ops.md reference page")
    p.set_defaults(func=cmd_ops)
    for command in sub.choices.values():  # --traceback is accepted after the sub-command too
        command.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS,
                             help="show Python tracebacks of errors (debugging)")
        command.epilog, command.formatter_class = EXIT_CODES, argparse.RawDescriptionHelpFormatter
    return parser


def _cmd_mlir_opt(argv: list[str]) -> int:
    try:
        from tilefold.mlir import main as mlir_main
    except ImportError as exc:  # xDSL missing
        _error(f"error: tilefold mlir-opt needs xDSL ({exc.name} is not installed)\n"
               "hint: pip install 'tilefold[mlir]'")
        return EXIT_USER
    return mlir_main(argv)


def _error(text: str) -> None:
    sys.stdout.flush()
    print(text, file=sys.stderr)


def _seed(text: str) -> int:
    """``--seed``: a non-negative integer (numpy's generators refuse negative seeds deep inside)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed {text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed {value} is negative: give an integer >= 0")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mlir-opt"]:  # mlir-opt's own single-dash options (-split-input-file, ...): parsed there
        return _cmd_mlir_opt(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with 2 on usage errors
    show_tb = args.traceback or bool(os.environ.get("TILEFOLD_TRACEBACK"))
    try:
        return args.func(args)
    except UsageError as exc:
        _error(f"tilefold {args.command}: error: {exc}")
        return EXIT_USAGE
    except TilefoldError as exc:
        if show_tb:
            raise
        _error(exc.render())
        from tilefold.sim.faults import DeviceFault

        return EXIT_MISMATCH if isinstance(exc, DeviceFault) else EXIT_USER  # a device fault is a run's result
    except (ValueError, KeyError, OSError) as exc:
        # errors a pass or loader raises on bad input (e.g. an unsupported Acc window is a ValueError)
        if show_tb:
            raise
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if isinstance(exc, OSError) and exc.filename is not None:  # a path of the command line: name it plainly
            text = (f"cannot use {exc.filename}: {exc.strerror}\nhint: check the path (its directory must exist; "
                    "--dump-dir names a directory, --trace / --timeline / -o a file)")
        _error(f"error: {text}")
        return EXIT_USER
    except BrokenPipeError:  # `tilefold ops | head`: the reader left; not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - last resort: a bug, reported without a traceback
        if show_tb:
            raise
        _error(f"internal error: {type(exc).__name__}: {exc}\nhint: this is a tilefold bug; rerun with "
               "--traceback to see where it happened")
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
