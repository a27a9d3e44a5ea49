"""The inputs of ``tilefold run``: random arrays, an ``.npz`` file read without trusting it, ``--set`` scalars.

Contract: ``make_inputs(program, spec, seed, settings, entry)`` returns one value per parameter of the entry
function: ``spec == "random"`` draws them (refusing tensors above ``MAX_INPUT_BYTES``), any other ``spec`` is an
``.npz`` file whose every member header is checked (readable, no pickled objects, within the size limit, not
truncated) before an array is allocated. ``--set NAME=VALUE`` fixes a scalar parameter; ``scalar_for`` checks the
value against the parameter's dtype. Every refusal is a ``TilefoldError`` with a hint.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tilefold.cli.exits import UsageError
from tilefold.cli.programs import entry_function
from tilefold.errors import TilefoldError


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


def scalar_for(name: str, text: str, dtype) -> Any:
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
    if path.is_dir():
        raise TilefoldError(f"cannot read inputs {spec!r}: it is a directory, not an .npz file",
                            hint="pass --inputs random or an .npz file with one array per parameter")
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


def make_inputs(program, spec: str, seed: int, settings: Sequence[str], entry_name: str | None = None
                 ) -> dict[str, Any]:

    from tilefold.ir.stmt import ParamDirection
    from tilefold.ir.types import ScalarType

    entry = entry_function(program, entry_name)
    scalar_types = {p.name: p.type.dtype for p in entry.params if isinstance(p.type, ScalarType)}
    fixed: dict[str, Any] = {}
    for item in settings or ():
        if "=" not in item:
            raise UsageError(f"--set expects NAME=VALUE, got {item!r}")
        name, value = item.split("=", 1)
        name = name.strip()
        dtype = scalar_types.get(name)
        fixed[name] = _parse_scalar(value.strip()) if dtype is None else scalar_for(name, value.strip(), dtype)

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
