"""The hivm / hacc dialects declared to xDSL.

Every ``hivm.hir.*`` op shares one shape of assembly format: keyword groups ``ins(%a, %b : t, t)``,
``outs(...)``, ``temp_buffer(...)``, keyword attributes ``broadcast = [1]``, bracketed lists ``[<PIPE_S>, ...]``,
enum shorthands ``<max>``, a string symbol (``hivm.hir.custom "name"``), bare operands ``%x : t`` and results
``-> t``, in any order, with the attribute dictionary where the op puts it. Rather than one hand-written format
per op (152 of them, several irregular), :class:`HivmOp` parses that shape generically and remembers the order
of the pieces, so the printer reproduces what it read (and a rewritten op prints in the same layout). Operand
types are those of the SSA values: the types written after ``:`` are read, checked against the values, and
printed from the values again (so halving a value's type halves it in the printed op).

``hacc.*`` / ``hivm.*`` attributes (``#hivm.func_core_type<AIV>``, ``#hivm.sub_block<x>``, ...) are read as
xDSL's unregistered attributes, which print back verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.lexer import Token

HIVM_PREFIX = "hivm."
#: ops whose ``: type`` after the operands is the result type (no ``->``)
_COLON_IS_RESULT = {"hivm.hir.pointer_cast", "hivm.hir.create_sync_block_lock"}


@dataclass
class Piece:
    """One piece of an op's text, in source order.

    kind: ``group`` (``kw(items : types)`` or a bare ``(...)``/``[...]``), ``attr`` (``kw = value`` /
    ``kw : value``), ``word`` (a bare keyword such as ``restrict``), ``symbol`` (a string literal),
    ``enum`` (raw ``<...>`` text), ``operands`` (bare ``%a, %b``), ``types`` (a top-level ``: t, t`` for
    the bare operands), ``attrdict``, ``results`` (``-> t``).
    """

    kind: str
    keyword: str = ""
    items: list = field(default_factory=list)  # group: ("operand",) | ("text", str) | ("attr", Attribute)
    open: str = "("
    typed: bool = False
    text: str = ""
    value: Attribute | None = None
    sep: str = "="
    count: int = 0  # operands: how many


_CLOSE = {"(": ")", "[": "]", "<": ">", "{": "}"}
#: keywords written before a bare operand, without ``=``
_OPERAND_KEYWORDS = ("pad_value",)
#: bare keywords some formats write on their own
_WORDS = ("dim", "low", "high", "atomic_kind", "from", "to", "restrict", "writable", "a_transpose", "b_transpose")


@dataclass
class _ParseState:
    """What :meth:`HivmOp.parse` has read so far."""

    start_line: int
    operands: list = field(default_factory=list)
    pieces: list = field(default_factory=list)
    results: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    regions: list = field(default_factory=list)
    bare_allowed: bool = True  # a bare operand may follow the op name, an attr dict or a comma


def _balanced_text(parser: Parser, open_: str) -> str:
    """The raw text from ``open_`` (current token) to its matching closer, inclusive, consumed."""
    lexer = parser.lexer
    start = parser._current_token.span.start
    src = lexer.input.content
    depth = 0
    i = start
    while i < len(src):
        c = src[i]
        if c in _CLOSE:
            depth += 1
        elif c in ")]>}":
            depth -= 1
            if depth == 0:
                break
        elif c == "-" and i + 1 < len(src) and src[i + 1] == ">":
            i += 1  # an arrow is not a closer
        i += 1
    else:
        parser.raise_error(f"unterminated {open_!r}")
    lexer.pos = i + 1
    parser._parser_state.current_token = lexer.lex()
    return src[start:i + 1]


def _line(parser: Parser, pos: int) -> int:
    return parser.lexer.input.content.count("\n", 0, pos)


def _region_follows(parser: Parser) -> bool:
    """At ``{``: a region (its first token on a later line, or an op / block label) rather than an attr dict."""
    state = _save(parser)
    line = _line(parser, parser._current_token.span.start)
    parser._consume_token()
    tok = parser._current_token
    region = _line(parser, tok.span.start) != line or tok.text.startswith(("%", "^")) or (
        tok.kind.name == "BARE_IDENT" and _peek_after_ident(parser) not in ("=", ",", "}"))
    _restore(parser, state)
    return region


def _save(parser: Parser):
    return parser.lexer.pos, parser._current_token


def _restore(parser: Parser, state) -> None:
    parser.lexer.pos, parser._parser_state.current_token = state


def _peek_after_ident(parser: Parser) -> str:
    """The punctuation/kind following the current bare identifier, without consuming anything."""
    state = _save(parser)
    parser._consume_token()
    tok: Token = parser._current_token
    text = tok.text
    _restore(parser, state)
    return text


class OperandTypeMismatch(Exception):
    """A type written for an operand (``outs(%x : t)``, ``%x : t``) is not the type of the SSA value: mlir-opt refuses
    the op (the value's type is what the op would use). Reported at the op (``opt.parse_chunk``)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.msg, self.hint = message, hint


def _value_name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "an operand"


def check_operand_types(op_name: str, where: str, values: Sequence[SSAValue], types: Sequence[Attribute]) -> None:
    """Refuse written ``types`` that are not those of ``values`` (in order; ``where`` names the group)."""
    if len(types) != len(values):
        raise OperandTypeMismatch(
            f"{op_name}: {where} has {len(values)} operand(s) and {len(types)} type(s)",
            "write one type per operand, in order (the type each value has where it is defined)")
    for v, t in zip(values, types, strict=True):
        if v.type != t:
            raise OperandTypeMismatch(
                f"{op_name}: use of value '{_value_name(v)}' expects different type than prior uses: '{t}' vs "
                f"'{v.type}' (the {where} annotation disagrees with the value's own type)",
                f"write {_value_name(v)}'s own type {v.type} in the annotation (a type is not converted by "
                "writing another one), or give the op a value of the written type")


def _parse_types_list(parser: Parser) -> list[Attribute]:
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(","):
        types.append(parser.parse_type())
    return types


class HivmOp(Operation):
    """A ``hivm.hir.*`` op in its custom assembly format (see the module docstring). One subclass per name."""

    name = "hivm.hir.unknown"
    traits = traits_def()
    pieces: list[Piece]

    @classmethod
    def with_name(cls, name: str) -> type[HivmOp]:
        return type(name.replace(".", "_"), (cls,), {"name": name})

    @classmethod
    def build(cls, operands: Sequence[SSAValue], result_types: Sequence[Attribute], pieces: list[Piece],
              attributes: dict[str, Attribute] | None = None, properties: dict | None = None) -> HivmOp:
        op = cls.create(operands=operands, result_types=result_types, attributes=attributes or {},
                        properties=properties or {})
        op.pieces = pieces
        return op

    # ---------------------------------------------------------------- parse
    @classmethod
    def parse(cls, parser: Parser) -> HivmOp:
        st = _ParseState(start_line=_line(parser, parser._current_token.span.start))
        readers = (cls._read_braces, cls._read_results, cls._read_colon, cls._read_bare_operands,
                   cls._read_literal_or_group, cls._read_keyword)
        while any(read(parser, st) for read in readers):
            pass
        op = cls.create(operands=st.operands, result_types=st.results, attributes=st.attrs, regions=st.regions)
        op.pieces = st.pieces
        return op

    @classmethod
    def _read_braces(cls, parser: Parser, st: _ParseState) -> bool:
        """A region, or the attribute dictionary."""
        if parser._current_token.text != "{":
            return False
        if _region_follows(parser):
            st.regions.append(parser.parse_region())
            st.pieces.append(Piece("region"))
            return True
        st.attrs.update(parser.parse_optional_attr_dict())
        st.pieces.append(Piece("attrdict"))
        st.bare_allowed = True
        return True

    @classmethod
    def _read_results(cls, parser: Parser, st: _ParseState) -> bool:
        """``-> t, t`` or ``-> (t, t)``."""
        if parser._current_token.text != "->":
            return False
        parser._consume_token()
        if parser.parse_optional_punctuation("("):
            if not parser.parse_optional_punctuation(")"):
                st.results = _parse_types_list(parser)
                parser.parse_punctuation(")")
            st.pieces.append(Piece("results", open="("))
        else:
            st.results = _parse_types_list(parser)
            st.pieces.append(Piece("results", open=""))
        st.bare_allowed = False  # results end a format: a ``%a, %b = ...`` after them is the next op
        return True

    @classmethod
    def _read_colon(cls, parser: Parser, st: _ParseState) -> bool:
        """``: t, t`` after bare operands (their types, or the result for a few ops), or a trailing type."""
        if parser._current_token.text != ":":
            return False
        parser._consume_token()
        after_operands = bool(st.pieces) and st.pieces[-1].kind == "operands"
        if cls.name in _COLON_IS_RESULT:
            st.results = _parse_types_list(parser)
            st.pieces.append(Piece("results", sep=":", open=""))
        elif after_operands:
            types = _parse_types_list(parser)
            check_operand_types(cls.name, "operand", st.operands[len(st.operands) - st.pieces[-1].count:], types)
            st.pieces.append(Piece("types", count=len(types)))
        else:  # ``scope.scope : () -> ()``, ``annotation.mark %x {..} : t``
            t = parser.parse_type()
            if isinstance(t, FunctionType):
                st.results = list(t.outputs.data)
            st.pieces.append(Piece("type", value=t))
        return True

    @classmethod
    def _read_bare_operands(cls, parser: Parser, st: _ParseState) -> bool:
        """``%a, %b`` written without a keyword group (not the next op's result list)."""
        tok = parser._current_token
        if not (tok.text.startswith("%") and st.bare_allowed
                and (_line(parser, tok.span.start) == st.start_line or st.pieces)):
            return False
        state = _save(parser)
        parser._consume_token()
        after = parser._current_token.text
        if after == ":":  # ``%r:2 = ...``: the next op's results, not ``%x : t`` of this one
            parser._consume_token()
            if parser._current_token.kind.name == "INTEGER_LIT":
                parser._consume_token()
                after = "=" if parser._current_token.text == "=" else ":"
        _restore(parser, state)
        if after == "=" or (after == "," and not st.pieces):
            return False  # the next op's result list
        count = 0
        while True:
            st.operands.append(parser.parse_operand())
            count += 1
            if not parser.parse_optional_punctuation(","):
                break
        st.pieces.append(Piece("operands", count=count))
        st.bare_allowed = False
        return True

    @classmethod
    def _read_literal_or_group(cls, parser: Parser, st: _ParseState) -> bool:
        """A symbol string, a bare ``(...)`` / ``[...]`` group, or an enum shorthand ``<...>``."""
        tok = parser._current_token
        if tok.kind.name == "STRING_LIT":
            st.pieces.append(Piece("symbol", text=parser.parse_str_literal()))
        elif tok.text in ("(", "["):
            st.pieces.append(cls._parse_group(parser, "", st.operands))
        elif tok.text == "<":
            st.pieces.append(Piece("enum", text=_balanced_text(parser, "<")))
        else:
            return False
        return True

    @classmethod
    def _read_keyword(cls, parser: Parser, st: _ParseState) -> bool:
        """``kw(...)`` group, ``kw = value`` / ``kw : value`` attribute, or a bare word (``restrict``)."""
        tok = parser._current_token
        text = tok.text
        if tok.kind.name != "BARE_IDENT" or "." in text:
            return False
        after = _peek_after_ident(parser)
        if after in ("(", "["):
            parser._consume_token()
            st.pieces.append(cls._parse_group(parser, text, st.operands))
            return True
        if after == "=" or (after == ":" and text == "round"):
            parser._consume_token()
            sep = parser._consume_token().text
            if parser._current_token.text == "<":
                st.pieces.append(Piece("attr", keyword=text, sep=sep, text=_balanced_text(parser, "<")))
            elif parser._current_token.text.startswith("%"):
                st.operands.append(parser.parse_operand())
                typed = parser.parse_optional_punctuation(":") is not None
                if typed:
                    parser.parse_type()
                st.pieces.append(Piece("attr", keyword=text, sep=sep, text="%", typed=typed))
            else:
                st.pieces.append(Piece("attr", keyword=text, sep=sep, value=parser.parse_attribute()))
            return True
        if after.startswith("%") and text in _OPERAND_KEYWORDS:  # ``pad_value %v : f32`` (vpad)
            parser._consume_token()
            st.operands.append(parser.parse_operand())
            typed = parser.parse_optional_punctuation(":") is not None
            if typed:
                parser.parse_type()
            st.pieces.append(Piece("attr", keyword=text, sep="", text="%", typed=typed))
            return True
        if text in _WORDS:
            parser._consume_token()
            st.pieces.append(Piece("word", text=text))
            return True
        return False

    @classmethod
    def _parse_group(cls, parser: Parser, keyword: str, operands: list[SSAValue]) -> Piece:
        open_ = parser._consume_token().text
        close = _CLOSE[open_]
        piece = Piece("group", keyword=keyword, open=open_)
        if parser.parse_optional_punctuation(close):
            return piece
        first = len(operands)
        while True:
            t = parser._current_token
            if t.text.startswith("%"):
                operands.append(parser.parse_operand())
                if parser._current_token.text == "{":  # ``ins(%a {align_dim = 1 : i64} : ...)``
                    piece.items.append(("operand", parser.parse_optional_attr_dict()))
                else:
                    piece.items.append(("operand",))
            elif t.text == "<":
                piece.items.append(("text", _balanced_text(parser, "<")))
            elif t.kind.name == "BARE_IDENT" and t.text not in ("true", "false", "unit", "dense", "array",
                                                                  "affine_map", "affine_set"):
                piece.items.append(("text", parser._consume_token().text))
            else:
                piece.items.append(("attr", parser.parse_attribute()))
            if parser.parse_optional_punctuation(","):
                continue
            break
        if parser.parse_optional_punctuation(":"):
            types = _parse_types_list(parser)
            if len(types) == len(piece.items):  # a type for every item: those of the operands are checked
                types = [t for t, item in zip(types, piece.items, strict=True) if item[0] == "operand"]
            where = f"{keyword}(...)" if keyword else f"{open_}...{close}"
            check_operand_types(cls.name, where, operands[first:], types)
            piece.typed = True
        parser.parse_punctuation(close)
        return piece

    # ---------------------------------------------------------------- print
    def print(self, printer: Printer) -> None:
        pieces = self.layout()
        it = iter(self.operands)
        attrs_printed = False
        regions_printed = 0
        pending: list[SSAValue] = []
        for p in pieces:
            if p.kind == "attrdict":
                self._print_attrs(printer)
                attrs_printed = True
            elif p.kind == "results":
                if p.sep == ":":
                    printer.print_string(" : ")
                else:
                    printer.print_string(" -> ")
                if p.open == "(":
                    printer.print_string("(")
                printer.print_list(self.result_types, printer.print_attribute)
                if p.open == "(":
                    printer.print_string(")")
            elif p.kind == "operands":
                pending = [next(it) for _ in range(p.count)]
                printer.print_string(" ")
                printer.print_list(pending, printer.print_operand)
            elif p.kind == "region":
                printer.print_string(" ")
                printer.print_region(self.regions[regions_printed])
                regions_printed += 1
            elif p.kind == "type":
                printer.print_string(" : ")
                t = p.value
                if isinstance(t, FunctionType) and len(t.outputs.data) == len(self.results):
                    t = FunctionType.from_lists(list(t.inputs.data), list(self.result_types))  # re-typed results
                printer.print_attribute(t)
            elif p.kind == "types":
                printer.print_string(" : ")
                printer.print_list([v.type for v in pending], printer.print_attribute)
            elif p.kind == "symbol":
                printer.print_string(" ")
                printer.print_string_literal(p.text)
            elif p.kind == "enum" or p.kind == "word":
                printer.print_string(" " + p.text)
            elif p.kind == "attr":
                printer.print_string(f" {p.keyword} {p.sep} " if p.sep else f" {p.keyword} ")
                if p.text == "%":
                    v = next(it)
                    printer.print_operand(v)
                    if p.typed:
                        printer.print_string(" : ")
                        printer.print_attribute(v.type)
                elif p.value is not None:
                    _print_hivm_attr(printer, p.value)
                else:
                    printer.print_string(p.text)
            elif p.kind == "group":
                sep = " " if p.keyword or (p.open == "(" and p is not pieces[0]) else ""
                printer.print_string(f"{sep}{p.keyword}{p.open}")
                vals: list[SSAValue] = []
                for i, item in enumerate(p.items):
                    if i:
                        printer.print_string(", ")
                    if item[0] == "operand":
                        v = next(it)
                        vals.append(v)
                        printer.print_operand(v)
                        if len(item) > 1 and item[1]:
                            printer.print_string(" ")
                            printer.print_attr_dict(item[1])
                    elif item[0] == "text":
                        printer.print_string(item[1])
                    else:
                        _print_hivm_attr(printer, item[1])
                if p.typed:
                    printer.print_string(" : ")
                    printer.print_list([v.type for v in vals], printer.print_attribute)
                printer.print_string(_CLOSE[p.open])
        if not attrs_printed and self.attributes:
            self._print_attrs(printer)

    def layout(self) -> list[Piece]:
        pieces = getattr(self, "pieces", None)
        if pieces is None:  # read in the generic form
            pieces = self.pieces = generic_pieces(self)
            self.properties.pop("operandSegmentSizes", None)
        return pieces

    def _print_attrs(self, printer: Printer) -> None:
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)

    # ---------------------------------------------------------------- queries
    def group(self, keyword: str) -> list[SSAValue]:
        """The operands of the ``keyword(...)`` group (``ins`` / ``outs`` / ...), in order."""
        out: list[SSAValue] = []
        idx = 0
        for p in self.layout():
            if p.kind == "operands":
                if keyword == "":
                    out.extend(self.operands[idx:idx + p.count])
                idx += p.count
            elif p.kind == "attr" and p.text == "%":
                idx += 1
            elif p.kind == "group":
                n = sum(1 for item in p.items if item[0] == "operand")
                if p.keyword == keyword:
                    out.extend(self.operands[idx:idx + n])
                idx += n
        return out

    def keyword_attr(self, keyword: str) -> Piece | None:
        for p in getattr(self, "pieces", None) or ():
            if p.kind == "attr" and p.keyword == keyword:
                return p
        return None

    def enum(self) -> str | None:
        for p in getattr(self, "pieces", None) or ():
            if p.kind == "enum":
                return p.text.strip("<>").strip()
        return None

    def symbol(self) -> str | None:
        for p in getattr(self, "pieces", None) or ():
            if p.kind == "symbol":
                return p.text
        return None


def _print_hivm_attr(printer: Printer, attr: Attribute) -> None:
    """Integer lists of a hivm format are dense i64 arrays: printed ``[1, 2]``."""
    if isinstance(attr, ArrayAttr) and all(isinstance(a, IntegerAttr) for a in attr.data):
        printer.print_string("[" + ", ".join(str(a.value.data) for a in attr.data) + "]")
    elif isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and attr.type.width.data == 64:
        printer.print_string(str(attr.value.data))
    else:
        printer.print_attribute(attr)


def generic_pieces(op: HivmOp) -> list[Piece]:
    """Pieces for an op read in the generic form: ``operandSegmentSizes`` gives ins / outs / temp_buffer."""
    seg = op.properties.get("operandSegmentSizes") or op.attributes.get("operandSegmentSizes")
    sizes = list(seg.get_values()) if seg is not None and hasattr(seg, "get_values") else [len(op.operands)]
    names = ("ins", "outs", "temp_buffer")
    pieces = []
    for i, n in enumerate(sizes):
        if n:
            kw = names[i] if i < len(names) else f"operands{i}"
            pieces.append(Piece("group", keyword=kw, items=[("operand",)] * n, typed=True))
    pieces.append(Piece("attrdict"))
    if op.results:
        pieces.append(Piece("results", open=""))
    return pieces


def default_pieces(n_ins: int, n_results: int, n_outs: int = 0) -> list[Piece]:
    """The ``ins(...) outs(...) -> t`` layout of an op built by a rewrite."""
    pieces = [Piece("group", keyword="ins", items=[("operand",)] * n_ins, typed=True)]
    if n_outs:
        pieces.append(Piece("group", keyword="outs", items=[("operand",)] * n_outs, typed=True))
    pieces.append(Piece("attrdict"))
    if n_results:
        pieces.append(Piece("results", open=""))
    return pieces


def hivm_op_class(name: str) -> type[HivmOp]:
    if name not in _CLASSES:
        _CLASSES[name] = HivmOp.with_name(name)
    return _CLASSES[name]


_CLASSES: dict[str, type[HivmOp]] = {}


class ToTensorOp(Operation):
    """``bufferization.to_tensor %m [restrict] [writable] : memref_t [to tensor_t]``. xDSL's own declaration insists
    that the memref type be the tensor type's plain memref, which refuses the memory spaces HIVM puts on local
    buffers (``#hivm.address_space<ub>``); this one reads any memref."""

    name = "bufferization.to_tensor"
    traits = traits_def()
    words: list[str]

    @classmethod
    def parse(cls, parser: Parser) -> ToTensorOp:
        src = parser.parse_operand()
        words = []
        while (w := parser.parse_optional_keyword_in(("restrict", "writable"))) is not None:
            words.append(w)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        check_operand_types(cls.name, "operand", [src], [parser.parse_type()])
        if parser.parse_optional_keyword("to") is not None:
            result = parser.parse_type()
        else:
            mt = src.type
            result = TensorType(mt.get_element_type(), mt.get_shape()) if isinstance(mt, MemRefType) else mt
        op = cls.create(operands=[src], result_types=[result], attributes=attrs)
        op.words = words
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        for w in getattr(self, "words", ()):
            printer.print_string(" " + w)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operands[0].type)
        printer.print_string(" to ")
        printer.print_attribute(self.results[0].type)


def _index_cast_ui() -> type[Operation]:
    """``arith.index_castui`` (xDSL declares only the signed ``arith.index_cast``; the syntax is the same)."""
    from xdsl.dialects.builtin import IndexType, IntegerType
    from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, result_def

    @irdl_op_definition
    class IndexCastUIOp(IRDLOperation):
        name = "arith.index_castui"
        input = operand_def(base(IntegerType) | base(IndexType))
        result = result_def(base(IntegerType) | base(IndexType))
        assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    return IndexCastUIOp


def _memref_cast() -> type[Operation]:
    """``memref.cast %m : T to U`` (xDSL's declaration has no custom format)."""
    from xdsl.dialects.builtin import MemRefType, UnrankedMemRefType
    from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, result_def

    @irdl_op_definition
    class MemRefCastOp(IRDLOperation):
        name = "memref.cast"
        source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
        dest = result_def(base(MemRefType) | base(UnrankedMemRefType))
        assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"

    return MemRefCastOp


#: standard ops whose xDSL declaration is stricter than what HIVM kernels write, or that xDSL does not declare
OVERRIDES: dict[str, type[Operation]] = {"bufferization.to_tensor": ToTensorOp,
                                         "arith.index_castui": _index_cast_ui(), "memref.cast": _memref_cast()}


def _affine_max() -> type[Operation]:
    from tilefold.mlir.clipped_stores import AffineMaxOp

    return AffineMaxOp



class HivmContext(Context):
    """xDSL's context with the standard dialects, every ``hivm.*`` op as a :class:`HivmOp`, and unregistered
    attributes (``#hivm.*`` / ``#hacc.*``) and ops read generically."""

    #: set by the parser before each op: the op is written in the generic form ``"name"(...)``
    generic_next: bool = False

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()):
        if name.startswith(HIVM_PREFIX) and name.count(".") >= 2:
            return hivm_op_class(name)
        if name in OVERRIDES:
            return OVERRIDES[name]
        if name == "affine.max":
            return _affine_max()
        known = self._get_known_op(name)
        if known is not None:
            return known
        if not self.generic_next and "." in name:
            # an op of a dialect xDSL does not know (annotation.mark, scope.scope, ...) in its custom format: the
            # same generic reader as hivm ops (keywords, groups, attr dicts, regions, trailing types)
            return hivm_op_class(name)
        return super().get_optional_op(name, dialect_stack=dialect_stack)


def make_context() -> Context:
    from xdsl.dialects import affine, arith, bufferization, builtin, func, math, memref, scf, tensor
    from xdsl.dialects.builtin import Builtin  # noqa: F401

    ctx = HivmContext(allow_unregistered=True)
    for d in (builtin.Builtin, func.Func, arith.Arith, scf.Scf, memref.MemRef, tensor.Tensor,
              bufferization.Bufferization, affine.Affine, math.Math):
        ctx.load_dialect(d)
    return ctx


def unit_attr() -> Attribute:
    return UnitAttr()


def string_attr(s: str) -> Attribute:
    return StringAttr(s)


#: the cases of ``TFuncCoreType`` (HIVMDialect.md): the values ``#hivm.func_core_type<..>`` may hold
FUNC_CORE_TYPES = ("AIC", "AIV", "MIX", "AIC_OR_AIV")
_CORE_TYPE_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|#hivm\.func_core_type\s*<\s*([^>]*?)\s*>')


def bad_func_core_type(text: str) -> tuple[int, str, str] | None:
    """(offset, message, hint) of the first ``#hivm.func_core_type<X>`` whose ``X`` is not a ``TFuncCoreType``
    case, strings and comments skipped; None if every one is valid. xDSL reads ``#hivm.*`` attributes as opaque
    text, so without this check an unknown core type (a typo such as ``AVI``) would pass as "not AIV" and the
    function would silently be left alone."""
    for m in _CORE_TYPE_SCAN.finditer(text):
        value = m.group(1)
        if value is None or value in FUNC_CORE_TYPES:
            continue
        return (m.start(), f"unknown #hivm.func_core_type<{value}>: expected one of {', '.join(FUNC_CORE_TYPES)}",
                "HIVMDialect.md's TFuncCoreType has the cases AIC, AIV, MIX and AIC_OR_AIV")
    return None
