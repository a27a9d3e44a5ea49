"""``tilefold mlir-opt``: an mlir-opt-like driver for HIVM MLIR files.

Options (single or double dash, as mlir-opt accepts them):
``-hivm-bind-sub-block`` (``--hivm-bind-sub-block='enable-tile=false'`` splits nothing and limits stores / custom
ops to sub-block 0), ``-split-input-file`` (chunks separated by ``// -----`` are independent; outputs are joined
with ``// -----``), ``-verify-diagnostics`` (``expected-error`` / ``expected-warning`` / ``expected-remark``
comments are matched against the diagnostics; output is printed only when all match), ``--remarks`` (the pass's
decisions on stderr), ``-o FILE``.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, field
from typing import ClassVar

from tilefold.errors import Span, TilefoldError
from tilefold.passes.options import option, parse_options

SPLIT_MARKER = re.compile(r"^// -----\s*$", re.M)
EXPECTED = re.compile(r"//\s*expected-(error|warning|remark|note)\s*(@[+-]?\w+)?\s*\{\{(.*?)\}\}")

USAGE = ("usage: tilefold mlir-opt FILE.mlir [-hivm-bind-sub-block[='enable-tile=false']] [-split-input-file] "
         "[-verify-diagnostics] [--remarks] [-o OUT]")


class MlirUnavailable(TilefoldError):
    pass


def require_xdsl() -> None:
    try:
        import xdsl  # noqa: F401
    except ImportError as exc:
        raise MlirUnavailable("reading MLIR needs xDSL, which is not installed",
                              hint="pip install 'tilefold[mlir]' (or pip install xdsl)") from exc


@dataclass(frozen=True)
class BindSubBlockOptions:
    """The options of ``-hivm-bind-sub-block`` (AscendNPU-IR's spelling), read by the generic option parser."""

    OWNER: ClassVar[str] = "-hivm-bind-sub-block"

    enable_tile: bool = option(True, "split the AIV work across the two sub-blocks; false: split nothing and "
                                     "limit stores / custom ops to sub-block 0")


@dataclass
class OptArgs:
    file: str = ""
    bind_sub_block: bool = False
    enable_tile: bool = True
    split_input_file: bool = False
    verify_diagnostics: bool = False
    remarks: bool = False
    output: str | None = None
    extra: list[str] = field(default_factory=list)


def parse_args(argv: list[str]) -> OptArgs:
    args = OptArgs()
    it = iter(argv)
    for a in it:
        flag = a.lstrip("-") if a.startswith("-") and a != "-" else None
        if flag is None:
            if args.file:
                raise TilefoldError(f"more than one input file: {args.file!r}, {a!r}", hint=USAGE)
            args.file = a
            continue
        name, _, value = flag.partition("=")
        if name == "hivm-bind-sub-block":
            args.bind_sub_block = True
            opts = parse_options(BindSubBlockOptions, value, origin=a)
            args.enable_tile = opts.enable_tile
        elif name == "split-input-file":
            args.split_input_file = True
        elif name == "verify-diagnostics":
            args.verify_diagnostics = True
        elif name == "remarks":
            args.remarks = True
        elif name in ("o", "output"):
            args.output = value or next(it, None)
        elif name in ("h", "help"):
            raise TilefoldError("help requested", hint=USAGE)
        else:
            raise TilefoldError(f"unknown option {a!r}", hint=USAGE)
    if not args.file:
        raise TilefoldError("no input file", hint=USAGE)
    return args


@dataclass
class Chunk:
    text: str
    line_offset: int  # lines before this chunk in the file


def split_chunks(source: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(source, 0)]
    chunks, start, line = [], 0, 0
    for m in SPLIT_MARKER.finditer(source):
        text = source[start:m.start()]
        chunks.append(Chunk(text, line))
        line += text.count("\n") + source[m.start():m.end()].count("\n")
        start = m.end()
    chunks.append(Chunk(source[start:], line))
    return chunks


@dataclass
class Diagnostic:
    kind: str
    line: int  # 1-based within the file
    message: str


def _expected(chunk: Chunk) -> list[Diagnostic]:
    out = []
    for i, text in enumerate(chunk.text.splitlines()):
        for m in EXPECTED.finditer(text):
            where = m.group(2)
            line = i + 1
            if where:
                w = where[1:]
                if w.startswith(("+", "-")) and w[1:].isdigit():
                    line += int(w)
                elif w.isdigit():
                    line = int(w) - chunk.line_offset
            out.append(Diagnostic(m.group(1), line + chunk.line_offset, m.group(3).strip()))
    return out


def print_module(module) -> str:
    import io

    from xdsl.dialects.builtin import AffineMapAttr
    from xdsl.printer import Printer

    from tilefold.mlir.affine_text import map_text

    class _MlirPrinter(Printer):
        def print_attribute(self, attribute) -> None:  # affine maps in mlir-opt's spelling
            if isinstance(attribute, AffineMapAttr):
                self.print_string(f"affine_map<{map_text(attribute.data)}>")
                return
            super().print_attribute(attribute)

        def _print_results(self, op) -> None:  # mlir-opt's `%r:2 = ...` and `%r#1` for several results
            results = op.results
            if len(results) <= 1:
                return super()._print_results(op)
            name = self.print_ssa_value(results[0])
            self.print_string(f":{len(results)} = ")
            for i, r in enumerate(results):
                self._ssa_values[r] = f"{name}#{i}"

    buf = io.StringIO()
    _MlirPrinter(stream=buf).print_op(module)
    text = buf.getvalue()
    # mlir-opt's spelling of the two ops every function has
    text = re.sub(r"^builtin\.module", "module", text, flags=re.M)
    text = re.sub(r"^(\s*)func\.return\b", r"\1return", text, flags=re.M)
    text = re.sub(r"^(\s*)\}\{", r"\1} {", text, flags=re.M)  # `} {attrs}` after a region, as mlir-opt prints
    return _alias_affine_maps(text).rstrip("\n") + "\n"


def _affine_maps(line: str):
    """(start, end, body) of each ``affine_map<...>`` in a line (``->`` is not a closer)."""
    out, i = [], 0
    while (j := line.find("affine_map<", i)) >= 0:
        k, depth = j + len("affine_map<"), 1
        while k < len(line) and depth:
            if line.startswith("->", k):
                k += 2
                continue
            depth += {"<": 1, ">": -1}.get(line[k], 0)
            k += 1
        out.append((j, k, line[j + len("affine_map<"):k - 1]))
        i = k
    return out


def _alias_affine_maps(text: str) -> str:
    """Affine maps as mlir-opt prints them: ``#map``, ``#map1``, ... defined before the module, in order of first
    use; ``affine.apply #map(%x)`` without a space; xDSL's doubled parentheses around a lone result dropped."""
    names: dict[str, str] = {}

    def canon(body: str) -> str:
        dims, _, results = body.partition(" -> ")
        results = results.strip()
        if results.startswith("((") and results.endswith("))"):
            inner = results[1:-1]
            if inner.count("(") == inner.count(")") and "," not in inner:
                results = inner
        return f"{dims} -> {results}"

    lines = []
    for line in text.splitlines():
        if "affine_map<" in line and not line.lstrip().startswith("//"):
            parts, last = [], 0
            for a, b, body in _affine_maps(line):
                key = canon(body)
                if key not in names:
                    names[key] = "#map" + (str(len(names)) if names else "")
                parts.append(line[last:a] + names[key])
                last = b
            line = "".join(parts) + line[last:]
            line = re.sub(r"(affine\.(?:apply|min|max) #map\d*) \(", r"\1(", line)
        lines.append(line)
    header = [f"{n} = affine_map<{b}>" for b, n in names.items()]
    return "\n".join(header + lines)




def parse_chunk(chunk: Chunk, filename: str):
    """The module of one chunk (xDSL), with source positions recorded on each op (``_tf_pos``)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError, VerifyException

    from tilefold.mlir.dialect import OperandTypeMismatch, bad_func_core_type, make_context

    class _Locating(Parser):
        def parse_operation(self):
            pos = self._current_token.span.start
            self.tf_op_start = pos  # the op being read (a failure inside it is reported at its start)
            state = self.lexer.pos, self._current_token
            self._parse_op_result_list()
            self.ctx.generic_next = self._current_token.kind.name == "STRING_LIT"
            self.lexer.pos, self._parser_state.current_token = state
            op = super().parse_operation()
            try:
                op._tf_pos = pos
            except AttributeError:  # pragma: no cover
                pass
            return op

    import warnings

    from xdsl.dialects.builtin import ModuleOp

    if not re.sub(r"//[^\n]*", "", chunk.text).strip():  # nothing but comments: an empty module, as mlir-opt
        return ModuleOp([])
    deep = _too_deep(chunk.text)
    if deep is not None:
        raise _parse_failure(chunk, filename, deep, ValueError(
            f"regions nested more than {MAX_REGION_DEPTH} deep (the reader and the passes recurse on nesting)"))
    oversized = _oversized_literal(chunk.text)
    if oversized is not None:
        raise _parse_failure(chunk, filename, oversized[0], ValueError(oversized[1]), oversized[2])
    bad_core = bad_func_core_type(chunk.text)
    if bad_core is not None:
        raise _parse_failure(chunk, filename, bad_core[0], ValueError(bad_core[1]), bad_core[2])
    parser = None
    try:
        with warnings.catch_warnings():  # operands are read before their types (the types come from the values)
            warnings.simplefilter("ignore", DeprecationWarning)
            parser = _Locating(make_context(), normalized(chunk.text), filename)  # reads the first token: may fail
            return parser.parse_module()
    except ParseError as exc:
        raise _parse_failure(chunk, filename, exc.span.start, exc) from None
    except OperandTypeMismatch as exc:  # at the op whose annotation is wrong (mlir-opt refuses the op)
        raise _parse_failure(chunk, filename, getattr(parser, "tf_op_start", 0), exc, exc.hint) from None
    except VerifyException as exc:  # an attribute the parser builds is invalid (e.g. an i64 constant out of range)
        pos = getattr(parser, "tf_op_start", 0)
        raise _parse_failure(chunk, filename, pos, exc) from None
    except RecursionError:  # nesting the depth check does not see (e.g. deeply nested attributes or types)
        pos = getattr(parser, "tf_op_start", 0)
        raise _parse_failure(chunk, filename, pos, ValueError("input nested too deeply")) from None
    except (ValueError, MemoryError) as exc:  # what the literal checks above do not foresee, at the op being read
        pos = getattr(parser, "tf_op_start", 0)
        raise _parse_failure(chunk, filename, pos, ValueError(f"unreadable literal ({type(exc).__name__}: {exc})"),
                             "integer literals have at most 40 digits and dense constants at most "
                             f"{MAX_DENSE_ELEMENTS:,} elements") from None


#: the longest integer literal read (an i64 has 19 digits; longer ones are typos or hostile input)
MAX_INT_DIGITS = 40
#: the most elements a ``dense<...>`` constant may expand to (a splat is expanded element by element)
MAX_DENSE_ELEMENTS = 2**20
_LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|(?<![\w.])(?:0x[0-9a-fA-F]+|\d+)'
                       r'|dense<[^<>]*>\s*:\s*(?:tensor|vector|memref)<((?:\d+x)+)')


def _oversized_literal(text: str) -> tuple[int, str, str] | None:
    """(offset, message, hint) of the first integer literal too long to read or dense constant too large to
    expand, strings and comments skipped; None if there is none. Checked before xDSL reads the text."""
    for m in _LITERALS.finditer(text):
        tok = m.group()
        if tok.startswith(('"', "//")):
            continue
        if m.group(1) is not None:
            count = math.prod(int(d) for d in m.group(1).rstrip("x").split("x") if len(d) <= MAX_INT_DIGITS)
            if count > MAX_DENSE_ELEMENTS:
                return (m.start(), f"a dense constant of {count:,} elements (more than {MAX_DENSE_ELEMENTS:,})",
                        "tilefold expands dense constants element by element: fill a buffer instead "
                        "(hivm.hir.vbrc / linalg.fill)")
        elif len(tok) > MAX_INT_DIGITS:
            return (m.start(), f"an integer literal of {len(tok):,} digits (at most {MAX_INT_DIGITS})",
                    "no MLIR integer type holds it: check the literal")
    return None


_LOC_ALIAS = re.compile(r"^(#loc\w*)\s*=\s*loc\((.*)\)\s*$", re.M)
_FOR_ARROW = re.compile(r"(scf\.for\b[^\n{]*?iter_args\([^()\n]*\)[ \t]*->[ \t]*)(?![ \t(])([^\n{]+?)([ \t]*\{)")
_LOC_START = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|(?<![\w.#])loc\(')


def _blank_locations(text: str) -> str:
    """Every ``loc(...)`` annotation replaced by spaces (columns kept): tilefold reports its own positions, and the
    reader does not take every location form (``fused[..]``, ``callsite(..)``, aliases)."""
    out, pos = [], 0
    for m in _LOC_START.finditer(text):
        if m.start() < pos or not m.group().startswith("loc("):
            continue
        depth, i = 0, m.start() + 3
        while i < len(text):
            ch = text[i]
            if ch == '"':
                i = text.find('"', i + 1)
                while i > 0 and text[i - 1] == "\\":
                    i = text.find('"', i + 1)
                if i < 0:
                    return "".join(out) + text[pos:]
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.append(text[pos:m.start()])
        out.append(re.sub(r"[^\n]", " ", text[m.start():i + 1]))
        pos = i + 1
    return "".join(out) + text[pos:]


def normalized(text: str) -> str:
    """Valid MLIR the xDSL reader does not take, rewritten to what it does (the line count kept, so every position
    stays on its line): location annotations ``loc(...)`` and alias definitions ``#loc1 = loc(...)`` (mlir-opt
    prints them at the end of the file, after their uses) are blanked; the single result type of an
    ``scf.for`` written without parentheses (``iter_args(..) -> i32``) is parenthesized."""
    text = _LOC_ALIAS.sub(lambda m: " " * len(m.group()), text)
    text = _blank_locations(text)
    return _FOR_ARROW.sub(_parenthesized, text)


def _parenthesized(m: re.Match) -> str:
    """``iter_args(..) -> T {`` as ``iter_args(..)->(T) {``, padded to its length where the blanks allow, so that
    the positions after it (reported in errors) do not move."""
    head = m.group(1).rstrip(" \t")
    head = head[:-2].rstrip(" \t") + "->"
    new = f"{head}({m.group(2).rstrip()})"
    return new + " " * max(1, len(m.group()) - len(new) - 1) + "{"


#: the deepest nesting of ``{ }`` regions / dictionaries a chunk may have (upstream kernels nest a handful deep)
MAX_REGION_DEPTH = 64


def _too_deep(text: str) -> int | None:
    """The offset of the first ``{`` nested deeper than MAX_REGION_DEPTH (strings and comments skipped), or None."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}]', text):
        tok = m.group()
        if tok == "{":
            depth += 1
            if depth > MAX_REGION_DEPTH:
                return m.start()
        elif tok == "}":
            depth = max(0, depth - 1)
    return None


def _parse_failure(chunk: Chunk, filename: str, pos: int, exc: Exception, hint: str | None = None) -> TilefoldError:
    line = chunk.text.count("\n", 0, pos) + 1
    col = pos - (chunk.text.rfind("\n", 0, pos) + 1) + 1
    lines = chunk.text.splitlines()
    text = lines[line - 1] if line - 1 < len(lines) else ""
    msg = str(exc.msg if hasattr(exc, "msg") else exc).strip().splitlines()[-1]
    return TilefoldError(f"cannot parse MLIR: {msg}", span=Span(filename, line + chunk.line_offset, col, text),
                         hint=hint or "tilefold reads func / scf / arith / memref / tensor / bufferization / affine "
                                      "and hivm / hacc (docs/mlir.md)")


def run_chunk(chunk: Chunk, args: OptArgs, remarks_out: list[str]) -> str:
    from tilefold.mlir.bind_sub_block import Options, run_on_module

    module = parse_chunk(chunk, args.file)
    if args.bind_sub_block:
        opts = Options(enable_tile=args.enable_tile)
        run_on_module(module, args.file, chunk.text, opts, chunk.line_offset)
        remarks_out.extend(f"remark: @{r.function}: {r.text}" for r in opts.remarks)
    return print_module(module)


def read_source(path: str) -> str:
    """The text of an MLIR file; unreadable files and bytes that are not UTF-8 are located TilefoldErrors."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise TilefoldError(f"cannot read {path}: {exc.strerror}",
                            hint="give the path of an .mlir text file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        text = data.splitlines()[line - 1].decode("utf-8", "replace") if data.splitlines() else ""
        raise TilefoldError(f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8 text",
                            span=Span(path, line, col, text),
                            hint="MLIR files are UTF-8 text: is this a binary (bytecode) file?") from None


def main(argv: list[str]) -> int:
    """Returns the exit code; writes the output to stdout (or ``-o``) and diagnostics to stderr."""
    try:
        args = parse_args(list(argv))
        require_xdsl()
        source = read_source(args.file)
    except TilefoldError as exc:
        print(exc.render(), file=sys.stderr)
        return 1
    outputs: list[str] = []
    remarks: list[str] = []
    failed = False
    for chunk in split_chunks(source, args.split_input_file):
        expected = _expected(chunk) if args.verify_diagnostics else []
        try:
            out = run_chunk(chunk, args, remarks)
            got: list[Diagnostic] = []
        except TilefoldError as exc:
            out = None
            line = exc.span.line if exc.span is not None else 0
            got = [Diagnostic("error", line, exc.message)]
            if not args.verify_diagnostics:
                print(exc.render(), file=sys.stderr)
                failed = True
                if not args.split_input_file:
                    return 1
                continue
        except Exception as exc:  # noqa: BLE001 - a bug: reported, never a traceback
            print(f"{args.file}:{chunk.line_offset + 1}: internal error: {type(exc).__name__}: {exc}\n"
                  "hint: this is a tilefold bug; please report it with the input", file=sys.stderr)
            failed = True
            continue
        if args.verify_diagnostics:
            if not _match(expected, got, args.file):
                failed = True
        if out is not None:
            outputs.append(out)
    text = "// -----\n".join(outputs) if args.split_input_file else "".join(outputs)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            print(TilefoldError(f"cannot write {args.output}: {exc.strerror}",
                                hint="-o names a file in an existing, writable directory").render(), file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    if args.remarks:
        for r in remarks:
            print(r, file=sys.stderr)
    return 1 if failed else 0


def _match(expected: list[Diagnostic], got: list[Diagnostic], filename: str) -> bool:
    ok = True
    remaining = list(got)
    for e in expected:
        hit = next((g for g in remaining if g.kind == e.kind and (g.line in (e.line, 0)) and e.message in g.message),
                   None)
        if hit is None:
            print(f"{filename}:{e.line}: error: expected {e.kind} \"{e.message}\" was not produced", file=sys.stderr)
            ok = False
        else:
            remaining.remove(hit)
    for g in remaining:
        print(f"{filename}:{g.line}: error: unexpected {g.kind}: {g.message}", file=sys.stderr)
        ok = False
    return ok
