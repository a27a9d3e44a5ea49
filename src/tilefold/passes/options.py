"""Typed pass options: one frozen dataclass per pass that takes options, one for the pipeline, one parser.

A record declares each option as a typed field with a default and a one-line doc
(``enable: bool = option(True, "split the work")``). ``parse_options(Record, source)`` turns any of the
spellings users write into a record, checking every name and value against the field's type:

* a Python keyword dict (``{"enable_auto_bind_sub_block": False}``), as ``compile(..., options=...)`` takes;
* ``name=value`` assignments, one per item (CLI ``--pass-option NAME=VALUE``);
* an MLIR-style option string, items separated by spaces (``'enable-tile=false custom-op-policy=split'``);
  a bare boolean name means true, as in mlir-opt.

Names may be written with ``-`` or ``_``. A bad name or value is a ``TilefoldError`` located in the option text
(when the options came as text) whose hint names the known options and the expected type: a boolean is
``True`` / ``False`` (``true`` / ``false`` / ``1`` / ``0`` in text), never a truthy string such as ``"no"``.

Supported field types: ``bool``, ``int``, ``str``, ``Literal[...]`` choices, ``tuple[int, ...]`` (fixed or any
length; text ``96,112,96``), ``Target`` (a target name, resolved by ``tilefold.targets.get_target``) and
``X | None`` of any of them (text ``none``).
"""

from __future__ import annotations

import dataclasses
import numbers
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Literal, TypeVar

import numpy as np

from tilefold.errors import Span, TilefoldError
from tilefold.targets import Target, get_target

R = TypeVar("R")

_TRUE = ("true", "1")
_FALSE = ("false", "0")


def option(default: Any, doc: str) -> Any:
    """A typed option field: its default and its one-line documentation."""
    return dataclasses.field(default=default, metadata={"doc": doc})


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    """What a reader (``tilefold passes``, an error hint) needs to know of one option."""

    name: str
    type: Any
    default: Any
    doc: str

    @property
    def type_text(self) -> str:
        return type_text(self.type)

    def describe(self) -> str:
        return f"{self.name}: {self.type_text} = {_show(self.default)} -- {self.doc}"


def option_infos(cls: type) -> list[OptionInfo]:
    """The options of record ``cls`` in declaration order."""
    hints = typing.get_type_hints(cls)
    return [OptionInfo(f.name, hints[f.name], f.default, f.metadata.get("doc", "")) for f in dataclasses.fields(cls)]


def option_names(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def type_text(tp: Any) -> str:
    """A reader's spelling of an option type (``bool``, ``'split' | 'limit-module' | None``, ...)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return " | ".join(repr(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join("None" if a is type(None) else type_text(a) for a in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"tuple of {type_text(args[0])}"
        return f"({', '.join(type_text(a) for a in args)})"
    if tp is Target:
        return "target name"
    return getattr(tp, "__name__", str(tp))


def _show(value: Any) -> str:
    if isinstance(value, Target):
        return value.name
    return repr(value)


# ------------------------------------------------------------------------------------------------
# the parser
# ------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Item:
    """One option as written: its name, its value (text when ``is_text``) and where it was written."""

    name: str
    value: Any
    is_text: bool
    span: Span | None = None


def parse_options(cls: type[R], source: Any = None, *, origin: str = "<options>", **keywords: Any) -> R:
    """The record ``cls`` for ``source`` (None, a record of ``cls``, a mapping, an option string, or an iterable
    of ``name=value`` strings) with ``keywords`` applied on top. Every name and value is checked."""
    same = type(source) is cls
    if same and not keywords:
        return source
    values = {f.name: getattr(source, f.name) for f in dataclasses.fields(cls)} if same else {}
    items = [] if same else _items(source, origin)
    items += [_Item(k, v, False) for k, v in keywords.items()]
    values.update(convert_items(cls, items))
    return cls(**values)


def parse_assignments(cls: type, source: Any, *, origin: str = "<options>") -> dict[str, Any]:
    """The options written in ``source`` (as ``parse_options`` takes it), converted and checked, without the
    defaults of the ones not written: what a caller passes on to be merged with other settings."""
    return convert_items(cls, _items(source, origin))


def _items(source: Any, origin: str) -> list[_Item]:
    if source is None:
        return []
    if isinstance(source, str):
        return _text_items(source, origin)
    if isinstance(source, Mapping):
        return [_Item(str(k), v, False) for k, v in source.items()]
    if dataclasses.is_dataclass(source) and not isinstance(source, type):
        return [_Item(f.name, getattr(source, f.name), False) for f in dataclasses.fields(source)]
    if isinstance(source, Iterable):
        out: list[_Item] = []
        for text in source:
            if not isinstance(text, str):
                raise TilefoldError(f"pass option {text!r} is not text", hint="write options as NAME=VALUE")
            out += _text_items(text, origin, whole=True)
        return out
    raise TilefoldError(f"pass options must be a mapping or NAME=VALUE text, not {type(source).__name__}",
                        hint="e.g. {'enable_auto_bind_sub_block': False} or 'enable-auto-bind-sub-block=false'")


def _text_items(text: str, origin: str, whole: bool = False) -> list[_Item]:
    """``name=value`` items of ``text``; ``whole``: the text is one assignment (its value may hold spaces)."""
    body = text.strip()
    if len(body) >= 2 and body[0] == body[-1] and body[0] in "'\"":
        body = body[1:-1]
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    start = text.find(body) if body else 0
    pieces = [(body.strip(), start + len(body) - len(body.lstrip()))] if whole else _split_words(body, start)
    out = []
    for piece, col in pieces:
        if not piece:
            continue
        name, eq, value = piece.partition("=")
        span = Span(origin, 1, col + 1, text)
        out.append(_Item(name.strip(), value.strip() if eq else None, True, span))
    return out


def _split_words(body: str, start: int) -> list[tuple[str, int]]:
    out, col = [], start
    for word in body.split(" "):
        out.append((word, col))
        col += len(word) + 1
    return out


def convert_items(cls: type, items: list[_Item]) -> dict[str, Any]:
    infos = {i.name: i for i in option_infos(cls)}
    out: dict[str, Any] = {}
    for item in items:
        key = item.name.replace("-", "_")
        info = infos.get(key)
        if info is None:
            raise TilefoldError(f"unknown option {item.name!r} of {_owner(cls)}", span=item.span,
                                hint=known_options_hint(cls))
        out[key] = _convert(info, item, cls)
    return out


def _owner(cls: type) -> str:
    return getattr(cls, "OWNER", cls.__name__)


def known_options_hint(cls: type) -> str:
    return "known options: " + "; ".join(f"{i.name} ({i.type_text}, default {_show(i.default)})"
                                         for i in option_infos(cls))


def _convert(info: OptionInfo, item: _Item, cls: type) -> Any:
    try:
        return _value(info.type, item.value, item.is_text)
    except _BadValue as bad:
        shown = item.value if item.is_text else repr(item.value)
        raise TilefoldError(f"option {info.name} of {_owner(cls)} takes {info.type_text}, got {shown}"
                            + (f" ({bad.detail})" if bad.detail else ""), span=item.span,
                            hint=f"{info.name}: {info.doc}; {known_options_hint(cls)}") from None


class _BadValue(Exception):
    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


def _value(tp: Any, value: Any, is_text: bool) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None or (is_text and str(value).lower() == "none"):
            if type(None) in args:
                return None
            raise _BadValue()
        inner = [a for a in args if a is not type(None)]
        for i, a in enumerate(inner):
            try:
                return _value(a, value, is_text)
            except _BadValue:
                if i == len(inner) - 1:
                    raise
    if value is None and not (is_text and tp is bool):
        raise _BadValue("no value")
    if origin is Literal:
        if value in args:
            return value
        raise _BadValue()
    if origin is tuple:
        return _tuple(args, value, is_text)
    if tp is bool:
        return _bool(value, is_text)
    if tp is int:
        return _int(value, is_text)
    if tp is str:
        if isinstance(value, str):
            return value
        raise _BadValue()
    if tp is Target:
        return _target(value)
    raise TypeError(f"option type {tp!r} is not supported")  # a record declared a type the parser lacks


def _bool(value: Any, is_text: bool) -> bool:
    if not is_text:
        if isinstance(value, (bool, np.bool_)):  # a numpy boolean (a comparison's result) is a boolean too
            return bool(value)
        raise _BadValue()
    if value is None:  # a bare name in option text: true
        return True
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise _BadValue()


def _int(value: Any, is_text: bool) -> int:
    if is_text:
        try:
            return int(value)
        except ValueError:
            raise _BadValue() from None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _BadValue()
    return int(value)


def _tuple(args: tuple[Any, ...], value: Any, is_text: bool) -> tuple[Any, ...]:
    if is_text:
        parts: list[Any] = [p.strip() for p in value.split(",")] if value else []
    elif isinstance(value, (tuple, list)):
        parts = list(value)
    else:
        raise _BadValue()
    if len(args) == 2 and args[1] is Ellipsis:
        elem_types = [args[0]] * len(parts)
    else:
        if len(parts) != len(args):
            raise _BadValue(f"{len(parts)} values, {len(args)} expected")
        elem_types = list(args)
    return tuple(_value(t, p, is_text) for t, p in zip(elem_types, parts, strict=True))


def _target(value: Any) -> Target:
    if isinstance(value, Target):
        return value
    if not isinstance(value, str):
        raise _BadValue()
    try:
        return get_target(value)
    except TilefoldError as exc:
        raise _BadValue(exc.hint or exc.message) from None


def project(record: Any, cls: type[R]) -> R:
    """The record ``cls`` holding the fields of ``record`` (e.g. a pipeline record) that ``cls`` declares."""
    if type(record) is cls:
        return record
    return cls(**{f.name: getattr(record, f.name) for f in dataclasses.fields(cls) if hasattr(record, f.name)})


def as_keywords(record: Any) -> dict[str, Any]:
    """The fields of ``record`` as keyword arguments (for a pass factory whose parameters are those fields)."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


__all__ = ["OptionInfo", "as_keywords", "convert_items", "known_options_hint", "option", "option_infos",
           "option_names", "parse_assignments", "parse_options", "project", "type_text"]
