"""Lower an HIVM ``func.func`` (xDSL IR) to a tilefold ``pl`` function.

The lowering writes ``pl`` source and hands it to tilefold's own front end (``tilefold.language.parse``), so the
IR it produces is exactly what the DSL would build, type-checked by the registry. Every pl variable is named after
the MLIR value it stands for (``Lowering.names``), which is how the MLIR rewrite (``bind_sub_block``) reads the
pass's decisions back: the halved type of a name is the halved type of that value.

Mapping (MLIR -> tilefold):

* ``memref`` function arguments in GM (read through ``memref.reinterpret_cast`` to a static view, or static
  themselves) -> ``pl.Tensor`` parameters (``pl.Out`` when stored into); scalar arguments -> ``pl.Scalar``;
* ``memref.subview`` of a GM view -> a window (offsets, sizes) used by the load / store reading it;
* ``memref.alloc`` / ``tensor.empty`` -> a Vec tile (``pl.tile.create``) when used as an init; an alloc filled by
  ``hivm.hir.load`` becomes the loaded tile; memref-form hivm ops (``outs(%alloc)``, no result) define a new
  version of the alloc (SSA renaming); ``bufferization.to_tensor`` aliases the alloc's current version;
* ``hivm.hir.load`` / ``store`` -> ``pl.tile.load`` / ``pl.store``; elementwise / unary / ``vbrc`` /
  ``vreduce`` / ``vcast`` / ``vtranspose`` / ``custom`` -> the registry's ``tile.*`` op; ``get_block_idx`` /
  ``get_sub_block_idx`` -> ``pl.tile.get_block_idx`` / ``get_subblock_idx``;
* ``arith`` index / integer / float scalars -> inline scalar expressions; ``scf.for`` -> ``pl.range`` with
  ``init_values`` (GM tensors stored in the body are carried too); ``scf.if`` -> ``if`` / ``pl.yield_``; a
  scalar ``arith.select`` -> the same ``if`` / ``pl.yield_`` of its two operands;
* ``tensor.insert_slice`` -> ``tile.assemble``; ``memref.subview`` of a local buffer -> reads ``tile.slice`` it,
  writes ``tile.assemble`` into it; ``memref.view`` of a byte buffer -> a tile per (disjoint) view; a padded load
  -> ``tile.full`` + ``tile.load`` + ``tile.assemble``; local buffers written inside a loop / if are carried
  through it; ``scope.scope`` bodies are lowered in place; ``affine.apply`` / ``min`` / ``max`` -> scalar
  expressions;
* synchronisation and debug ops (``set_flag``, ``wait_flag``, ``pipe_barrier``, ``set_mask_norm``, ``debug``,
  ...) carry no data: tilefold inserts its own synchronisation.

Rank-1 values are tiles ``[1, n]`` (a tile is 2-D): MLIR axis 0 of a rank-1 value is tile axis 1.

Anything else raises :class:`NotLowered` with the op's source location.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from tilefold.errors import Span, TilefoldError
from tilefold.ir.names import NameSupply
from tilefold.mlir.dialect import HivmOp
from tilefold.mlir.operands import keyword_operand  # noqa: F401 - also imported from here
from tilefold.mlir.shapes import LocalView, _prod, kept_axes, shape_of, tile_shape  # noqa: F401
from tilefold.mlir.windows import WindowMixin

SYNC_OPS = {
    "hivm.hir.set_flag", "hivm.hir.wait_flag", "hivm.hir.pipe_barrier", "hivm.hir.set_mask_norm", "hivm.hir.debug",
    "hivm.hir.init_debug", "hivm.hir.finish_debug", "hivm.hir.sync_block_set", "hivm.hir.sync_block_wait",
    "hivm.hir.set_ffts_base_addr", "hivm.hir.dcci",
}
#: ops writing a GM memref given in their outs (a stored argument is a ``pl.Out`` parameter, carried by loops)
GM_WRITERS = ("hivm.hir.store", "hivm.hir.fixpipe", "hivm.hir.atomic_rmw")
BINARY = {"vadd": ("add", "adds"), "vsub": ("sub", "subs"), "vmul": ("mul", "muls"), "vdiv": ("div", "divs"),
          "vmax": ("maximum", "maxs"), "vmin": ("minimum", "mins"), "vand": ("and_", "ands"), "vor": ("or_", "ors")}
UNARY = {"vexp": "exp", "vabs": "abs", "vln": "log", "vrelu": "relu", "vsqrt": "sqrt", "vrsqrt": "rsqrt",
         "vrec": "recip", "vnot": "not_", "vsin": "sin", "vcos": "cos"}
EXPAND = {"vadd": "add", "vsub": "sub", "vmul": "mul", "vdiv": "div", "vmax": "max", "vmin": "min"}
REDUCE = {"sum": "sum", "max": "max", "min": "min", "prod": "prod"}
DTYPES = {"f32": "FP32", "f16": "FP16", "bf16": "BF16", "i32": "INT32", "i16": "INT16", "i8": "INT8",
          "i64": "INT64", "ui8": "UINT8", "i1": "BOOL"}


class NotLowered(TilefoldError):
    """An MLIR construct tilefold does not lower (located at the op)."""


def lowered_line_span(low: Lowering, line: int | None) -> Span | None:
    """The MLIR location of the op that line ``line`` (1-based) of the lowered text came from, if known."""
    k = (line or 0) - 1 - low.header_lines
    op = low.line_ops[k] if 0 <= k < len(low.line_ops) else None
    return op_span(op, low.filename, low.source, low.line_offset) if op is not None else None


def op_span(op: Operation, filename: str, source: str, line_offset: int = 0) -> Span:
    """file:line:col of an op, from the parser's location attribute (when present) or its position."""
    pos = getattr(op, "_tf_pos", None)
    if pos is None:
        return Span(filename, 0, 0)
    line = source.count("\n", 0, pos) + 1
    col = pos - (source.rfind("\n", 0, pos) + 1) + 1
    text = source.splitlines()[line - 1] if line - 1 < len(source.splitlines()) else ""
    return Span(filename, line + line_offset, col, text)


def elem_of(t: Attribute) -> str:
    el = t.get_element_type() if isinstance(t, MemRefType | TensorType) else t
    key = str(el)
    if key not in DTYPES:
        raise KeyError(key)
    return DTYPES[key]


def affine_scalar(e: AffineExpr, dims: list[str], syms: list[str]) -> str:
    """An affine expression over pl scalar expressions (``mod`` / ``floordiv`` round towards minus infinity, as
    Python's ``%`` / ``//``; ``ceildiv`` is ``-((-a) // b)``)."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineConstantExpr):
        return str(e.value) if e.value >= 0 else f"(0 - {-e.value})"
    assert isinstance(e, AffineBinaryOpExpr)
    a, b = affine_scalar(e.lhs, dims, syms), affine_scalar(e.rhs, dims, syms)
    if e.kind is AffineBinaryOpKind.CeilDiv:
        return f"(0 - ((0 - {a}) // {b}))"
    sym = {AffineBinaryOpKind.Add: "+", AffineBinaryOpKind.Mul: "*", AffineBinaryOpKind.Mod: "%",
           AffineBinaryOpKind.FloorDiv: "//"}[e.kind]
    return f"({a} {sym} {b})"




@dataclass
class GMView:
    param: str  # the pl parameter
    offsets: list[str]  # pl expressions, one per axis of the param
    sizes: list[int]  # static (bounds of run-time sizes)
    valid: list[str | None] | None = None  # run-time sizes (tile axes; None: the static size), None: all static


@dataclass
class Lowering(WindowMixin):
    function_type = "AIV"  # the pl function type (``lower_ops.CubeLowering``: AIC)
    fn: func.FuncOp
    filename: str
    source: str
    line_offset: int = 0
    names: dict[SSAValue, str] = field(default_factory=dict)  # value -> pl name (tiles, tensors, scalars)
    exprs: dict[SSAValue, str] = field(default_factory=dict)  # scalar value -> pl expression
    views: dict[SSAValue, GMView] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    outs: set[str] = field(default_factory=set)
    gm_current: dict[str, str] = field(default_factory=dict)  # param -> current SSA name of that GM tensor
    alloc_version: dict[SSAValue, str] = field(default_factory=dict)
    versions: list[tuple[SSAValue, str]] = field(default_factory=list)  # (buffer, name of a loop / if version)
    local_views: dict[SSAValue, LocalView] = field(default_factory=dict)  # subviews of local buffers
    byte_views: dict[SSAValue, list[tuple[int, int]]] = field(default_factory=dict)  # byte alloc -> view ranges
    bounds: dict[SSAValue, list[int]] = field(default_factory=dict)  # run-time-size value -> its static tile bound
    valids: dict[SSAValue, list[str | None]] = field(default_factory=dict)  # ... and its run-time extents
    dynamic: list[Operation] = field(default_factory=list)  # ops making run-time-size windows (not re-typed)
    nested: list[Operation] = field(default_factory=list)  # subviews of windows of local buffers (not re-typed)
    depth: int = 0  # indentation of the op being lowered (a read of a local subview emits its slice there)
    ops_of: dict[str, Operation] = field(default_factory=dict)  # pl name -> defining MLIR op
    stores: list[Operation] = field(default_factory=list)
    customs: list[Operation] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    line_ops: list[Operation | None] = field(default_factory=list)  # the MLIR op each line of ``lines`` lowers
    header_lines: int = 0  # lines of the lowered text before ``lines``
    _at: Operation | None = None  # the op being lowered
    _used: NameSupply = field(default_factory=NameSupply)
    _view_params: dict[Operation, str] = field(default_factory=dict)

    # ------------------------------------------------------------ helpers
    def fail(self, op: Operation, msg: str, hint: str | None = None):
        name = op.op_name.data if op.name == "builtin.unregistered" else op.name  # a generic ``"foo.bar"(..)``
        raise NotLowered(f"{name}: {msg}", span=op_span(op, self.filename, self.source, self.line_offset),
                         hint=hint or "tilefold rolls such a function back (its stores run on sub-block 0); see "
                                      "docs/mlir.md for what is lowered")

    def fresh(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "v"
        if base[0].isdigit():
            base = "v" + base
        if base in ("pl", "self", "range", "if", "for", "in", "and", "or", "not", "is", "return", "def", "class"):
            base = base + "_v"
        return self._used.fresh(base)

    def name_for(self, v: SSAValue) -> str:
        hint = v.name_hint or (f"arg{v.index}" if isinstance(v, BlockArgument) else "v")
        return self.fresh(hint)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * (depth + 2) + text)
        self.line_ops.append(self._at)

    def ttype(self, t: Attribute, op: Operation) -> str:
        shape = shape_of(t)
        try:
            dt = elem_of(t)
        except KeyError:
            self.fail(op, f"element type {t} is not supported")
        if shape is None or any(d < 0 for d in shape):
            self.fail(op, f"type {t} is not a static shaped tile")
        return f"pl.Tile[[{', '.join(map(str, tile_shape(shape)))}], pl.{dt}, pl.Mem.Vec]"

    def scalar(self, v: SSAValue, op: Operation) -> str:
        if v in self.exprs:
            return self.exprs[v]
        if v in self.names and not isinstance(v.type, MemRefType | TensorType):
            return self.names[v]
        self.fail(op, f"operand {v.name_hint or '?'} is not a scalar tilefold can evaluate")

    def tile(self, v: SSAValue, op: Operation) -> str:
        if v in self.local_views:  # a read of a window of a local buffer: the slice of its current version
            lv = self.local_views[v]
            nm = self.fresh((v.name_hint or "win") + "_read")
            valid = f", {self._valid_text(lv.valid, lv.sizes)}" if lv.valid else ""
            expr = (f"pl.tile.slice({self.tile(lv.base, op)}, [{', '.join(map(str, lv.sizes))}], "
                    f"[{', '.join(lv.offsets)}]{valid})")
            if lv.shape != lv.sizes:
                expr = f"pl.tile.reshape({expr}, [{', '.join(map(str, lv.shape))}])"
            ann = self._ann(lv.shape, v.type, op) if lv.valid else self.ttype(v.type, op)
            self.emit(self.depth, f"{nm}: {ann} = {expr}")
            return nm
        if v in self.alloc_version:
            return self.alloc_version[v]
        if v in self.names:
            return self.names[v]
        self.fail(op, f"operand %{v.name_hint or '?'} is not a tile this lowering produced")

    def define(self, v: SSAValue, op: Operation) -> str:
        name = self.name_for(v)
        self.names[v] = name
        self.ops_of[name] = op
        return name

    # ------------------------------------------------------------ entry
    def lower(self) -> str:
        fn = self.fn
        body = fn.body.blocks[0]
        sig = []
        stored: set[SSAValue] = set()
        for op in fn.walk():
            if op.name in GM_WRITERS and isinstance(op, HivmOp):
                for v in op.group("outs"):
                    stored.add(self._root(v))
        for arg in body.args:
            t = arg.type
            name = self.name_for(arg)
            self.names[arg] = name
            if isinstance(t, MemRefType):
                views = [u.operation for u in arg.uses if isinstance(u.operation, memref.ReinterpretCastOp)]
                others = [u.operation for u in arg.uses if not isinstance(u.operation, memref.ReinterpretCastOp)]
                shape = shape_of(t)
                kind = "pl.Out" if arg in stored else None
                if shape is not None and all(d >= 0 for d in shape) and not views:
                    self._param(sig, name, shape, t, kind)
                    self.views[arg] = GMView(name, ["0"] * len(tile_shape(shape)), tile_shape(shape))
                    continue
                static = [v for v in views if all(d >= 0 for d in shape_of(v.result.type))]
                if others or len(static) != len(views) or not views or (kind and len(views) != 1):
                    self.fail(fn, f"argument %{arg.name_hint} ({t}) is not read through static views (or is "
                                  "stored through several)",
                              hint="each reinterpret_cast view of a GM argument becomes a tensor parameter; a "
                                   "stored argument must have one view so that tilefold sees every access to it")
                # each view is a tensor of its own (read-only views cannot alias a write)
                for k, v in enumerate(views):
                    vname = name if k == 0 else self.fresh(f"{name}_view{k}")
                    vshape = shape_of(v.result.type)
                    self._check_view_layout(v, vshape)
                    self._param(sig, vname, vshape, t, kind)
                    self.views[v.result] = GMView(vname, ["0"] * len(tile_shape(vshape)), tile_shape(vshape))
                    self._view_params[v] = vname
            elif isinstance(t, IndexType | IntegerType):
                sig.append(f"{name}: pl.Scalar[pl.{'INDEX' if isinstance(t, IndexType) else self._dt(t, fn)}]")
            elif str(t) in DTYPES:
                sig.append(f"{name}: pl.Scalar[pl.{DTYPES[str(t)]}]")
            else:
                self.fail(fn, f"argument type {t} is not supported")
        self.block(body, 0)
        outs = [self.gm_current[p] for p in self.params if p in self.outs]
        ret = f"return {', '.join(outs)}" if outs else "return"
        self.emit(0, ret)
        header = ["import tilefold.language as pl", "", "", "@pl.program", f"class {self._cls()}:",
                  f"    @pl.function(type=pl.FunctionType.{self.function_type})",
                  f"    def {self.fresh_fn()}(self, {', '.join(sig)}):"]
        self.header_lines = len(header)
        return "\n".join(header + self.lines) + "\n"

    def _check_view_layout(self, view: memref.ReinterpretCastOp, shape: list[int]) -> None:
        """A view becomes a dense row-major tensor parameter: right for static strides that nest row-major (the
        last is 1, each row stride spans at least the row below, padding allowed), so distinct elements never share
        an address. Other static strides (a stride-0 broadcast, a transposed or overlapping layout) would be read or
        written as something else, and a sub-block split of such a store would race: refused. Dynamic strides are
        not judged."""
        strides = list(view.static_strides.get_values())
        if len(strides) != len(shape) or any(s == DYNAMIC_INDEX for s in strides):
            return
        ok = not strides or strides[-1] == 1
        for i in range(len(strides) - 1):
            ok = ok and strides[i] >= shape[i + 1] * strides[i + 1]
        if not ok:
            self.fail(view, f"a view with sizes {shape} and strides {strides} is not a row-major layout",
                      hint="tilefold reads each reinterpret_cast view of a GM argument as a dense row-major tensor: "
                           "use strides whose last entry is 1 and whose others each span the row below")

    def _param(self, sig: list[str], name: str, shape: list[int], t: Attribute, kind: str | None) -> None:
        tensor_t = f"pl.Tensor[[{', '.join(map(str, tile_shape(shape)))}], pl.{self._dt(t, self.fn)}]"
        sig.append(f"{name}: {kind}[{tensor_t}]" if kind else f"{name}: {tensor_t}")
        self.params.append(name)
        self.gm_current[name] = name
        if kind:
            self.outs.add(name)

    def fresh_fn(self) -> str:
        return "".join(c if c.isalnum() or c == "_" else "_" for c in self.fn.sym_name.data) or "kernel"

    def _cls(self) -> str:
        return "MlirModule"

    def _dt(self, t: Attribute, op: Operation) -> str:
        try:
            return elem_of(t)
        except KeyError:
            self.fail(op, f"element type {t} is not supported")

    def _root(self, v: SSAValue) -> SSAValue:
        while isinstance(v.owner, memref.SubviewOp | memref.ReinterpretCastOp):
            v = v.owner.source
        return v

    # ------------------------------------------------------------ bodies
    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def op(self, op: Operation, d: int) -> None:
        self.depth = d
        outer, self._at = self._at, op
        try:
            self._op(op, d)
        finally:
            self._at = outer
        self.depth = d

    def _op(self, op: Operation, d: int) -> None:
        name = op.name
        if name in SYNC_OPS or name in ("func.return", "scf.yield"):
            return
        if isinstance(op, arith.ConstantOp):
            v = op.value
            if isinstance(v, IntegerAttr):
                self.exprs[op.result] = str(v.value.data)
            elif isinstance(v, FloatAttr):
                self.exprs[op.result] = repr(float(v.value.data))
            else:
                self._tensor_constant(op, d)
            return
        if name in ("arith.addi", "arith.subi", "arith.muli", "arith.floordivsi", "arith.divsi", "arith.divui",
                    "arith.remsi", "arith.addf", "arith.subf", "arith.mulf", "arith.maxsi", "arith.minsi",
                    "arith.index_cast", "arith.index_castui", "arith.extsi", "arith.trunci", "arith.cmpi",
                    "arith.ceildivsi", "arith.ceildivui", "arith.remui", "arith.maxui", "arith.minui",
                    "arith.extui"):
            self._arith(op)
            return
        if name in ("affine.apply", "affine.min", "affine.max"):
            self._affine(op)
            return
        if name == "arith.select":
            self._select(op, d)
            return
        if name == "scope.scope":
            self._scope(op, d)
            return
        if name == "annotation.mark" and not op.results:
            return  # a hint to later passes (multi-buffering, ...): carries no data
        if isinstance(op, memref.ReinterpretCastOp):
            if op.source in self.alloc_version or op.source in self.local_views:
                self._local_cast(op)
                return
            if op not in self._view_params:  # views of arguments were made parameters up front
                self.fail(op, "a reinterpret_cast of something else than a function argument is not lowered")
            return
        if isinstance(op, memref.SubviewOp):
            self._subview(op)
            return
        if isinstance(op, memref.ViewOp):
            self._byte_view(op, d)
            return
        if isinstance(op, memref.AllocOp) and op.results[0].uses and all(
                isinstance(u.operation, memref.ViewOp) for u in op.results[0].uses):
            self.byte_views[op.results[0]] = []  # a byte buffer only viewed: each view is a buffer of its own
            return
        if isinstance(op, memref.AllocOp | memref.AllocaOp | tensor.EmptyOp):
            t = op.results[0].type
            if any(x < 0 for x in shape_of(t)):
                self._dynamic_empty(op, d)
                return
            nm = self.define(op.results[0], op)
            shape = tile_shape(shape_of(t))
            self.emit(d, f"{nm}: {self.ttype(t, op)} = pl.tile.create([{', '.join(map(str, shape))}], "
                         f"dtype=pl.{self._dt(t, op)}, target_memory=pl.Mem.Vec)")
            if isinstance(op, memref.AllocOp | memref.AllocaOp):
                self.alloc_version[op.results[0]] = nm
            return
        if op.name == "bufferization.to_tensor":
            src = op.operands[0]
            self.names[op.results[0]] = self.tile(src, op)
            if src in self.local_views and self.local_views[src].valid:
                lv = self.local_views[src]
                self._note_dynamic(op.results[0], op, lv.shape, lv.valid)
            elif src in self.valids:
                self._note_dynamic(op.results[0], op, self.bounds[src], self.valids[src])
            return
        if isinstance(op, HivmOp):
            self._hivm(op, d)
            return
        if isinstance(op, scf.ForOp):
            self._for(op, d)
            return
        if isinstance(op, scf.IfOp):
            self._if(op, d)
            return
        if isinstance(op, scf.WhileOp):
            self._while(op, d)
            return
        if isinstance(op, tensor.ExtractSliceOp):
            self._extract_slice(op, d)
            return
        if isinstance(op, tensor.InsertSliceOp):
            self._insert_slice(op, d)
            return
        if isinstance(op, tensor.ExtractOp | tensor.InsertOp):
            self._element(op, d)
            return
        self.fail(op, "this op is not lowered to tilefold")

    def _affine(self, op: Operation) -> None:
        """``affine.apply`` / ``min`` / ``max`` of index values -> a scalar expression (``pl.min`` / ``pl.max``
        over the map's results); dims are the first operands, symbols the rest."""
        attr = op.properties.get("map") or op.attributes.get("map")
        if not isinstance(attr, AffineMapAttr):
            self.fail(op, "an affine op without a map")
        m = attr.data
        args = [self.scalar(v, op) for v in op.operands]
        if len(args) != m.num_dims + m.num_symbols or not m.results:
            self.fail(op, "the affine map's operands do not match its dims and symbols")
        texts = [affine_scalar(e, args[:m.num_dims], args[m.num_dims:]) for e in m.results]
        if op.name == "affine.apply" and len(texts) != 1:
            self.fail(op, "affine.apply of a map with several results")
        fn = "pl.min" if op.name == "affine.min" else "pl.max"
        expr = texts[0]
        for t in texts[1:]:
            expr = f"{fn}({expr}, {t})"
        self.exprs[op.results[0]] = expr

    def _scope(self, op: Operation, d: int) -> None:
        """``scope.scope`` (ScopeDialect.md: a region run once, in place, its ``scope.return`` values its results)
        -> its body lowered inline. A scope with region arguments or several blocks is refused."""
        if len(op.regions) != 1 or len(op.regions[0].blocks) != 1 or op.regions[0].blocks[0].args:
            self.fail(op, "a scope.scope with region arguments or several blocks is not lowered")
        block = op.regions[0].blocks[0]
        ret = block.last_op
        for inner in block.ops:
            if inner is ret and inner.name == "scope.return":
                continue
            self.op(inner, d)
        returned = list(ret.operands) if ret is not None and ret.name == "scope.return" else []
        if len(returned) != len(op.results):
            self.fail(op, "a scope.scope whose scope.return does not give its results")
        for r, v in zip(op.results, returned, strict=True):
            if isinstance(v.type, MemRefType | TensorType):
                self.names[r] = self.tile(v, op)
            else:
                self.exprs[r] = self.scalar(v, op)

    def _element(self, op: tensor.ExtractOp | tensor.InsertOp, d: int) -> None:
        """``tensor.extract`` -> ``pl.tile.read`` (a scalar), ``tensor.insert`` -> ``pl.tile.write`` (the next
        value of the tile): the scalar unit's element access; a rank-1 index ``i`` is ``[0, i]``."""
        src = op.tensor if isinstance(op, tensor.ExtractOp) else op.dest
        idx = [self.scalar(i, op) for i in op.indices]
        if len(idx) == 1:
            idx = ["0", idx[0]]
        tile = self.tile(src, op)
        nm = self.define(op.result, op)
        if isinstance(op, tensor.ExtractOp):
            self.emit(d, f"{nm}: pl.Scalar[pl.{self._dt(src.type, op)}] = pl.tile.read({tile}, [{', '.join(idx)}])")
            self.exprs[op.result] = nm
            return
        value = self.scalar(op.scalar, op)
        self.emit(d, f"{nm}: {self.ttype(op.result.type, op)} = pl.tile.write({tile}, [{', '.join(idx)}], {value})")

    def _slice_window(self, op: tensor.ExtractSliceOp | tensor.InsertSliceOp, full: Attribute,
                      part: Attribute) -> tuple[list[str], list[int], list[int], list[str | None] | None]:
        """(tile offsets, tile sizes, the part's tile shape, run-time extents or None) of a unit-stride slice
        ``part`` of ``full``; a rank-reducing slice (``part`` drops unit sizes) is allowed, the part then being
        reshaped. A run-time size is bounded (``WindowMixin._sizes``): the sizes are the bound, the extents the
        run-time sizes (tile axes)."""
        full_shape = shape_of(full)
        offs = self._offsets(op)
        sizes, valid = self._sizes(op, full_shape, offs)
        strides = list(op.static_strides.get_values())
        if any(x != 1 for x in strides):
            self.fail(op, f"a slice with strides {strides} is not lowered (unit strides only)",
                      hint="tilefold's tile windows are contiguous: slice with unit strides")
        part_shape = shape_of(part)
        pattern = [DYNAMIC_INDEX if v is not None else s for s, v in zip(sizes, valid, strict=True)]
        kept = kept_axes(pattern, part_shape) if len(sizes) == len(full_shape) else None
        if kept is None:
            self.fail(op, f"a slice of sizes {pattern} does not give the shape {part_shape}")
        dynamic = any(v is not None for v in valid)
        if dynamic:
            self._fits(op, full_shape, offs, sizes, op.offsets)
        if len(sizes) > 2 and (dynamic or len(kept) != len(sizes)):
            self.fail(op, "a run-time-size or rank-reducing slice of a rank-3 (or higher) value is not lowered")
        self._flat_rectangle(op, full_shape, offs, sizes)
        part_b = [sizes[a] for a in kept]
        if len(sizes) == 1:
            sizes, offs, valid = [1, sizes[0]], ["0", offs[0]], [None, valid[0]]
        part_t = tile_shape(part_b) if part_b else [1, 1]
        if dynamic and part_t != sizes:
            self.fail(op, "a rank-reducing slice with run-time sizes other than a row is not lowered (a partial "
                          "tile cannot be reshaped)")
        return offs, sizes, part_t, valid if dynamic else None

    def _extract_slice(self, op: tensor.ExtractSliceOp, d: int) -> None:
        """``tensor.extract_slice`` -> ``tile.slice`` (then ``tile.reshape`` to the result's shape when the slice
        is rank-reducing, e.g. a row ``[1, n]`` of a matrix read as ``tensor<n>``); a run-time size is the slice
        of its bound with the size as valid extent."""
        src = self.tile(op.source, op)
        if any(x != 1 for x in op.static_strides.get_values()):
            self._strided_slice(op, src, d)
            return
        offs, sizes, part, valid = self._slice_window(op, op.source.type, op.result.type)
        nm = self.define(op.result, op)
        extra = f", {self._valid_text(valid, sizes)}" if valid else ""
        expr = f"pl.tile.slice({src}, [{', '.join(map(str, sizes))}], [{', '.join(offs)}]{extra})"
        if part != sizes:
            expr = f"pl.tile.reshape({expr}, [{', '.join(map(str, part))}])"
        if valid:
            self._note_dynamic(op.result, op, sizes, valid)
            self.emit(d, f"{nm}: {self._ann(sizes, op.result.type, op)} = {expr}")
            return
        self.emit(d, f"{nm}: {self.ttype(op.result.type, op)} = {expr}")

    def _insert_slice(self, op: tensor.InsertSliceOp, d: int) -> None:
        """``tensor.insert_slice %v into %t[offs] [sizes] [1]`` -> ``tile.assemble(t, v, offs)``: the tile ``t``
        with the window written by ``v`` (reshaped to the window first when the slice is rank-reducing); a
        run-time-size ``v`` writes its valid region only (``WindowMixin._partial_write``)."""
        dst = self.tile(op.dest, op)
        value = self.tile(op.source, op)
        offs, sizes, part, valid = self._slice_window(op, op.dest.type, op.source.type)
        if len(sizes) > 2:
            self.fail(op, "an insert_slice into a rank-3 (or higher) value is not lowered")
        if valid:
            self.dynamic.append(op)
            new = self._partial_write(op.dest, dst, value, offs, sizes, valid, op, d)
            self.names[op.result] = new
            self.ops_of[new] = op
            return
        if part != sizes:
            value = f"pl.tile.reshape({value}, [{', '.join(map(str, sizes))}])"
        nm = self.define(op.result, op)
        self.emit(d, f"{nm}: {self.ttype(op.result.type, op)} = pl.tile.assemble({dst}, {value}, "
                     f"[{', '.join(offs)}])")

    def _while(self, op: scf.WhileOp, d: int) -> None:
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        cond_op = before.last_op
        if not isinstance(cond_op, scf.ConditionOp) or list(cond_op.args) != list(before.args):
            self.fail(op, "only a while whose condition passes its arguments on unchanged is lowered")
        if any(isinstance(a.type, MemRefType) for a in op.arguments):
            self.fail(op, "a while carrying a buffer (memref) is not lowered")
        gm = self._carried_gm(list(after.ops))
        bufs = self._written_buffers(list(after.ops))
        inits = [self.tile(a, op) if isinstance(a.type, TensorType) else self.scalar(a, op) for a in op.arguments]
        inits += [self.gm_current[p] for p in gm] + [self.alloc_version[b] for b in bufs]
        names = []
        for a, b in zip(before.args, after.args, strict=True):
            nm = self.name_for(a)
            for v in (a, b):
                self.names[v] = nm
                if not isinstance(v.type, TensorType):
                    self.exprs[v] = nm
            names.append(nm)
        saved = dict(self.gm_current)
        for p in gm:
            self.gm_current[p] = self.fresh(p + "_iter")
            names.append(self.gm_current[p])
        names += self._enter_buffers(bufs, "_iter")
        self.emit(d, f"for ({', '.join(names)},) in pl.while_(init_values=({', '.join(inits)},)):")
        for o in before.ops:
            if o is not cond_op:
                if isinstance(o, HivmOp):
                    self.fail(o, "only scalar work in a while condition region is lowered")
                self.op(o, d + 1)
        self.emit(d + 1, f"pl.cond({self.scalar(cond_op.condition, op)})")
        self.block(after, d + 1)
        yielded = after.last_op
        ys = [self.tile(v, op) if isinstance(v.type, TensorType) else self.scalar(v, op)
              for v in (yielded.operands if yielded is not None else ())]
        ys += [self.gm_current[p] for p in gm] + [self.alloc_version[b] for b in bufs]
        self.gm_current = saved
        outs_n = []
        for r in op.results:
            outs_n.append(self.define(r, op))
            if not isinstance(r.type, TensorType):
                self.exprs[r] = self.names[r]
        for p in gm:
            nm = self.fresh(p + "_out")
            outs_n.append(nm)
            self.gm_current[p] = nm
        outs_n += self._enter_buffers(bufs, "_out")
        self.emit(d + 1, f"{', '.join(outs_n)} = pl.yield_({', '.join(ys)})")

    def _arith(self, op: Operation) -> None:
        syms = {"addi": "+", "subi": "-", "muli": "*", "floordivsi": "//", "divsi": "//", "divui": "//",
                "remsi": "%", "addf": "+", "subf": "-", "mulf": "*"}
        short = op.name.split(".")[1]
        if short in ("maxui", "minui", "remui", "ceildivui") and not all(
                isinstance(v.type, IndexType) for v in op.operands):
            self.fail(op, "unsigned arithmetic on integers other than index values is not lowered")
        short = {"maxui": "maxsi", "minui": "minsi", "remui": "remsi"}.get(short, short)  # index values are >= 0
        if short in ("index_cast", "index_castui", "extsi", "extui", "trunci"):
            self.exprs[op.results[0]] = self.scalar(op.operands[0], op)
            return
        a, b = (self.scalar(v, op) for v in op.operands)
        if short == "cmpi":
            pred = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}
            self.exprs[op.results[0]] = f"({a} {pred[op.predicate.value.data]} {b})"
            return
        if short in ("maxsi", "minsi"):
            self.exprs[op.results[0]] = f"pl.{short[:3]}({a}, {b})"
            return
        if short in ("ceildivsi", "ceildivui"):
            self.exprs[op.results[0]] = f"(0 - ((0 - {a}) // {b}))"
            return
        self.exprs[op.results[0]] = f"({a} {syms[short]} {b})"

    def _select(self, op: Operation, d: int) -> None:
        """``arith.select %c, %a, %b`` of scalars -> the ``if`` / ``pl.yield_`` form an ``scf.if`` with one scalar
        result lowers to (tilefold's scalar expressions have no select): both operands are already computed
        values, so choosing one after the fact is the select. Tiles / vectors are refused (``vsel`` selects
        elementwise)."""
        cond, a, b = op.operands
        if any(isinstance(v.type, MemRefType | TensorType | VectorType) for v in op.operands):
            self.fail(op, "arith.select of tiles / vectors / tensors is not lowered (use hivm.hir.vsel)")
        c, x, y = (self.scalar(v, op) for v in (cond, a, b))
        nm = self.fresh(op.results[0].name_hint or "sel")
        self.emit(d, f"if {c}:")
        self.emit(d + 1, f"{nm} = pl.yield_({x})")
        self.emit(d, "else:")
        self.emit(d + 1, f"{nm} = pl.yield_({y})")
        self.names[op.results[0]] = nm
        self.ops_of[nm] = op
        self.exprs[op.results[0]] = nm

    def _byte_view(self, op: memref.ViewOp, d: int) -> None:
        """``memref.view %bytes[%shift][] : memref<Nxi8> to memref<shape x t>`` -> a Vec tile of its own. Views of
        one byte buffer at constant, pairwise disjoint byte ranges cannot alias, so each is an independent buffer;
        overlapping or run-time shifted views (which could alias) are refused."""
        src = op.source
        if src not in self.byte_views:
            self.fail(op, "a view of something else than a local byte buffer (memref.alloc) only viewed")
        shape = shape_of(op.result.type)
        if op.sizes or shape is None or any(x < 0 for x in shape):
            self.fail(op, "a view with dynamic sizes is not lowered")
        try:
            shift = int(self.scalar(op.byte_shift, op))
        except ValueError:
            self.fail(op, "a view at a run-time byte shift is not lowered (it could alias another view)")
        el = op.result.type.get_element_type()
        width = getattr(el, "bitwidth", None) or getattr(el, "width", None)
        width = getattr(width, "data", width)
        if not isinstance(width, int):
            self.fail(op, f"element type {el} of the view has no known width")
        lo, hi = shift, shift + max(1, width // 8) * int(_prod(shape))
        total = shape_of(src.type)
        if len(total) != 1 or total[0] < 0 or lo < 0 or hi > total[0]:
            self.fail(op, f"the view's bytes [{lo}, {hi}) leave its buffer {src.type}")
        for a, b in self.byte_views[src]:
            if lo < b and a < hi:
                self.fail(op, f"the view's bytes [{lo}, {hi}) overlap another view's [{a}, {b}) of the buffer",
                          hint="tilefold treats each view of a byte buffer as a buffer of its own: use disjoint "
                               "byte ranges")
        self.byte_views[src].append((lo, hi))
        t = op.result.type
        nm = self.define(op.result, op)
        self.emit(d, f"{nm}: {self.ttype(t, op)} = pl.tile.create([{', '.join(map(str, tile_shape(shape)))}], "
                     f"dtype=pl.{self._dt(t, op)}, target_memory=pl.Mem.Vec)")
        self.alloc_version[op.result] = nm

    def _local_subview(self, op: memref.SubviewOp) -> None:
        """A unit-stride window of a local buffer: reads slice the buffer's current version, writes assemble the
        written tile into it (``tile.slice`` / ``tile.assemble``); a run-time size is a window of its bound with
        the size as valid extent; a window of a window is one window of the buffer."""
        base = op.source
        if base in self.local_views:
            self._nested_subview(op)
            return
        full = shape_of(base.type)
        offs = self._offsets(op)
        sizes, valid = self._sizes(op, full, offs)
        strides = list(op.static_strides.get_values())
        part = shape_of(op.result.type)
        pattern = [DYNAMIC_INDEX if v is not None else s for s, v in zip(sizes, valid, strict=True)]
        kept = kept_axes(pattern, part) if len(sizes) == len(full) else None
        if any(x != 1 for x in strides) or kept is None:
            self.fail(op, f"a subview of a local buffer with strides {strides} (or sizes that do not give its type) "
                          "is not lowered",
                      hint="tilefold's tile windows are contiguous: use unit strides")
        dynamic = any(v is not None for v in valid)
        if dynamic:
            self._fits(op, full, offs, sizes, op.offsets)
            self.dynamic.append(op)
        if len(sizes) > 2 and (dynamic or len(kept) != len(sizes)):
            self.fail(op, "a run-time-size or rank-reducing subview of a rank-3 (or higher) local buffer is not "
                          "lowered")
        self._flat_rectangle(op, full, offs, sizes)
        part_b = [sizes[a] for a in kept]
        if len(sizes) == 1:
            sizes, offs, valid = [1, sizes[0]], ["0", offs[0]], [None, valid[0]]
        shape = tile_shape(part_b) if part_b else [1, 1]
        if dynamic and shape != sizes:
            self.fail(op, "a rank-reducing subview with run-time sizes other than a row is not lowered")
        self.local_views[op.result] = LocalView(base, offs, sizes, shape, valid if dynamic else None)

    def _subview(self, op: memref.SubviewOp) -> None:
        src = op.source
        if src in self.alloc_version or src in self.local_views:
            self._local_subview(op)
            return
        if src not in self.views:
            self.fail(op, "a subview of something else than a GM view or a local buffer is not lowered")
        base = self.views[src]
        offs = self._offsets(op)
        src_shape = shape_of(src.type)
        sizes, valid = self._sizes(op, src_shape, offs)
        strides = list(op.static_strides.get_values())
        if any(s != 1 for s in strides):
            self.fail(op, f"a GM window with strides {strides} is not lowered (unit strides only)",
                      hint="tilefold moves contiguous rows of GM: use unit strides")
        if base.valid:
            self.fail(op, "a subview of a run-time-size GM window is not lowered")
        dynamic = any(v is not None for v in valid)
        if dynamic:
            self.dynamic.append(op)
        if len(offs) == 1 and len(base.offsets) == 2:  # rank 1: the tensor [1, n]
            offs, sizes, valid = ["0", offs[0]], [1, sizes[0]], [None, valid[0]]
        if len(offs) != len(base.offsets):
            self.fail(op, "a rank-reducing subview is not lowered")
        new = [o if b == "0" else f"({b} + {o})" for b, o in zip(base.offsets, offs, strict=True)]
        self.views[op.result] = GMView(base.param, new, sizes, valid if dynamic else None)

    def _hivm(self, op: HivmOp, d: int) -> None:
        short = op.name.split(".")[-1]
        ins, outs = op.group("ins"), op.group("outs")
        if short in ("get_block_idx", "get_sub_block_idx", "get_block_num", "get_sub_block_num"):
            nm = self.define(op.results[0], op)
            fn = {"get_block_idx": "get_block_idx", "get_sub_block_idx": "get_subblock_idx",
                  "get_block_num": "get_block_num", "get_sub_block_num": None}[short]
            if fn is None:
                self.exprs[op.results[0]] = "2"
                return
            self.emit(d, f"{nm}: pl.Scalar[pl.INDEX] = pl.tile.{fn}()")
            self.exprs[op.results[0]] = nm
            return
        from tilefold.mlir import lower_ops  # the ops beyond the core set (lower_ops.py imports this module)

        if lower_ops.handles(op, short):
            lower_ops.lower_op(self, op, short, ins, outs, d)
            return
        if short in ("load", "store") and (len(ins) != 1 or len(outs) != 1):
            self.fail(op, f"a {short} needs one ins and one outs operand")
        if short == "load":
            src, dst = ins[0], outs[0]
            view = self.views.get(src)
            if view is None:
                self.fail(op, "the load does not read a GM window")
            if view.valid or (dst in self.local_views and self.local_views[dst].valid) or dst in self.valids:
                self._dynamic_load(op, view, dst, d)
                return
            shape = shape_of(dst.type)
            if view.sizes != tile_shape(shape) or op.keyword_attr("pad_mode") is not None:
                self._padded_load(op, view, dst, d)
                return
            offs, sizes = self._window(view)
            if op.results:  # tensor form: ``%t = hivm.hir.load ins(%gm) outs(%empty) -> tensor``
                nm = self.define(op.results[0], op)
            else:
                nm = self.fresh(dst.name_hint or "t")
                self.ops_of[nm] = op
            self.emit(d, f"{nm}: {self.ttype(dst.type, op)} = pl.tile.load({self.gm_current[view.param]}, "
                         f"{offs}, {sizes}, target_memory=pl.Mem.Vec)")
            if not op.results:
                self._write(dst, nm, op)
            return
        if short == "store":
            src, dst = ins[0], outs[0]
            view = self.views.get(dst)
            if view is None:
                self.fail(op, "the store does not write a GM window")
            if op.results:
                self.fail(op, "a store with a tensor result is not lowered")
            tile = self._stored_tile(op, src, view)
            offs, _ = self._window(view)
            nm = self.fresh(view.param)
            self.ops_of[nm] = op
            self.stores.append(op)
            self.emit(d, f"{nm} = pl.store({tile}, {offs}, {self.gm_current[view.param]})")
            self.gm_current[view.param] = nm
            return
        if short in ("vcmp", "vsel"):
            self._compare_select(op, short, ins, outs, d)
            return
        if short in ("varange", "vgather"):
            self._index_op(op, short, ins, outs, d)
            return
        if short in BINARY or short in UNARY or short in ("vbrc", "vreduce", "vcast", "vtranspose", "copy",
                                                          "custom", "custom_macro"):
            self._compute(op, short, ins, outs, d)
            return
        self.fail(op, "this hivm op is not lowered to tilefold")

    def _padded_load(self, op: HivmOp, view: GMView, dst: SSAValue, d: int) -> None:
        """``load ins(%win) outs(%buf) pad_mode = <PadValue> pad_value = %v [left_padding_num = %l]`` of a window
        narrower than its buffer on the last axis: the buffer is ``%v`` everywhere but ``[.., l : l + n)``, which
        holds the window (HIVMDialect.md: left and right padding, ``pad_value`` of the element type; the padded axis
        is the last, the only one a padded load's shapes may differ on here) -> ``tile.full`` / ``tile.expands`` of
        the pad value, ``tile.load`` of the window, ``tile.assemble`` at ``[0, l]``. Other pad modes (PadNull leaves
        the padding undefined, PadFirstElem is not described) and ``init_condition`` are refused."""
        mode = op.keyword_attr("pad_mode")
        pad = keyword_operand(op, "pad_value")
        if mode is None or "PadValue" not in (mode.text or "") or pad is None:
            self.fail(op, "a load whose window and buffer shapes differ needs pad_mode = <PadValue> and a pad_value",
                      hint="tilefold lowers value padding only (PadNull leaves the padding undefined)")
        if op.keyword_attr("init_condition") is not None:
            self.fail(op, "a padded load with an init_condition is not lowered")
        buf = tile_shape(shape_of(dst.type))
        win = list(view.sizes)
        left_v = keyword_operand(op, "left_padding_num")
        left = self.scalar(left_v, op) if left_v is not None else "0"
        if win[:-1] != buf[:-1] or win[-1] > buf[-1] or (left.isdigit() and int(left) + win[-1] > buf[-1]):
            self.fail(op, f"a padded load of a {win} window into a {buf} buffer pads other axes than the last, or "
                          "its window does not fit")
        dtype = self._dt(dst.type, op)
        value = self.scalar(pad, op)
        try:
            float(value)
            fill = (f"pl.tile.full([{', '.join(map(str, buf))}], dtype=pl.{dtype}, value={value}, "
                    "target_memory=pl.Mem.Vec)")
        except ValueError:
            fill = f"pl.tile.expands({self._init(dst, op, d)}, {value})"
        base = dst.name_hint or "t"
        padn, raw = self.fresh(base + "_pad"), self.fresh(base + "_win")
        self.emit(d, f"{padn}: {self.ttype(dst.type, op)} = {fill}")
        offs, sizes = self._window(view)
        self.emit(d, f"{raw}: pl.Tile[[{', '.join(map(str, win))}], pl.{dtype}, pl.Mem.Vec] = pl.tile.load("
                     f"{self.gm_current[view.param]}, {offs}, {sizes}, target_memory=pl.Mem.Vec)")
        nm = self.define(op.results[0], op) if op.results else self.fresh(base)
        self.ops_of[nm] = op
        self.emit(d, f"{nm}: {self.ttype(dst.type, op)} = pl.tile.assemble({padn}, {raw}, [0, {left}])")
        if not op.results:
            self._write(dst, nm, op)

    def _window(self, view: GMView) -> tuple[str, str]:
        offs = list(view.offsets)
        sizes = list(view.sizes)
        return f"[{', '.join(offs)}]", f"[{', '.join(map(str, sizes))}]"

    def _write(self, dst: SSAValue, nm: str, op: Operation) -> None:
        """``outs(%buf)`` of a memref-form op: the buffer's next version is ``nm`` (a window of a buffer: the
        buffer's next version is its current one with ``nm`` assembled into the window)."""
        if dst in self.local_views and self.local_views[dst].valid:
            lv = self.local_views[dst]
            new = self._partial_write(lv.base, self.tile(lv.base, op), nm, lv.offsets, lv.sizes, lv.valid, op,
                                      self.depth)
            self.versions.append((lv.base, new))
            self.alloc_version[lv.base] = self.names[lv.base] = new
            return
        if dst in self.local_views:
            lv = self.local_views[dst]
            if len(lv.sizes) > 2:
                self.fail(op, "a write into a window of a rank-3 (or higher) local buffer is not lowered")
            value = nm if lv.shape == lv.sizes else f"pl.tile.reshape({nm}, [{', '.join(map(str, lv.sizes))}])"
            new = self.fresh((lv.base.name_hint or "buf") + "_w")
            self.versions.append((lv.base, new))
            self.emit(self.depth, f"{new}: {self.ttype(lv.base.type, op)} = pl.tile.assemble("
                                  f"{self.tile(lv.base, op)}, {value}, [{', '.join(lv.offsets)}])")
            self.alloc_version[lv.base] = self.names[lv.base] = new
            return
        if dst in self.alloc_version:
            self.alloc_version[dst] = nm
            self.names[dst] = nm
        else:
            self.fail(op, "the destination is not a local buffer (memref.alloc)")

    def _compute(self, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
        if not outs or (not ins and short not in ("custom", "custom_macro")):
            self.fail(op, "expected ins and outs operands")
        if len(outs) != 1 and short not in ("custom", "custom_macro"):
            self.fail(op, "expected one outs operand")
        res_t = op.results[0].type if op.results else outs[0].type
        shaped = [v for v in ins if isinstance(v.type, MemRefType | TensorType)]
        if short in BINARY:
            full, scal = BINARY[short]
            if len(ins) != 2:
                self.fail(op, "expected two ins operands")
            a, b = ins
            if len(shaped) == 2:
                sa, sb_ = tile_shape(shape_of(a.type)), tile_shape(shape_of(b.type))
                if sa == sb_:
                    expr = f"pl.tile.{full}({self.tile(a, op)}, {self.tile(b, op)})"
                elif short in EXPAND and len(sa) == 2 and sb_ == [sa[0], 1]:  # ``broadcast = [1]``
                    expr = f"pl.tile.row_expand_{EXPAND[short]}({self.tile(a, op)}, {self.tile(b, op)})"
                elif short in EXPAND and len(sa) == 2 and sb_ == [1, sa[1]]:  # ``broadcast = [0]``
                    expr = f"pl.tile.col_expand_{EXPAND[short]}({self.tile(a, op)}, {self.tile(b, op)})"
                else:
                    self.fail(op, f"an elementwise op on shapes {sa} and {sb_} is not lowered (only a [n, 1] or "
                                  "[1, m] second operand broadcasts)")
            elif len(shaped) == 1 and shaped[0] is a:
                expr = f"pl.tile.{scal}({self.tile(a, op)}, {self.scalar(b, op)})"
            elif len(shaped) == 1 and short in ("vadd", "vmul", "vmax", "vmin"):
                expr = f"pl.tile.{scal}({self.tile(b, op)}, {self.scalar(a, op)})"
            else:
                self.fail(op, "a scalar first operand is not lowered")
        elif short in UNARY:
            expr = f"pl.tile.{UNARY[short]}({self.tile(ins[0], op)})"
        elif short == "vbrc" and not isinstance(ins[0].type, MemRefType | TensorType):  # a scalar filled in
            t = tile_shape(shape_of(outs[0].type))
            value = self.scalar(ins[0], op)
            try:
                float(value)
                expr = (f"pl.tile.full([{', '.join(map(str, t))}], dtype=pl.{self._dt(res_t, op)}, value={value}, "
                        "target_memory=pl.Mem.Vec)")
            except ValueError:
                expr = f"pl.tile.expands({self._init(outs[0], op, d)}, {value})"
        elif short == "vbrc":
            src, dst = ins[0], outs[0]
            s, t = tile_shape(shape_of(src.type)), tile_shape(shape_of(dst.type))
            if len(s) != 2 or s == t:
                expr = f"pl.tile.move({self.tile(src, op)}, target_memory=pl.Mem.Vec)"
            elif s[1] == 1 and s[0] == t[0]:
                expr = f"pl.tile.row_expand({self._init(dst, op, d)}, {self.tile(src, op)})"
            elif s[0] == 1 and s[1] == t[1]:
                expr = f"pl.tile.col_expand({self._init(dst, op, d)}, {self.tile(src, op)})"
            else:
                self.fail(op, "a broadcast of a scalar-like tile on both axes is not lowered")
        elif short == "vreduce":
            kind = op.enum()
            dims = op.keyword_attr("reduce_dims")
            if kind not in REDUCE or dims is None or not isinstance(dims.value, ArrayAttr):
                self.fail(op, "only sum / max / min / prod reductions with reduce_dims are lowered")
            axes = [a.value.data for a in dims.value.data]
            rank = len(shape_of(ins[0].type))
            if rank == 1:
                axes = [1]
            if axes == [rank - 1] or (rank == 1):
                expr = f"pl.tile.row_{REDUCE[kind]}({self.tile(ins[0], op)})"
            elif axes == [0] and rank == 2:
                expr = f"pl.tile.col_{REDUCE[kind]}({self.tile(ins[0], op)})"
            else:
                self.fail(op, f"a reduction over dims {axes} is not lowered")
        elif short == "vcast":
            expr = f"pl.tile.cast({self.tile(ins[0], op)}, target_type=pl.{self._dt(res_t, op)})"
        elif short == "vtranspose":
            expr = f"pl.tile.transpose({self.tile(ins[0], op)}, 0, 1)"
        elif short == "copy":
            src_v = ins[0]
            if src_v in self.views or outs[0] in self.views:
                self.fail(op, "a copy to or from GM is not lowered (use load / store)")
            expr = f"pl.tile.move({self.tile(src_v, op)}, target_memory=pl.Mem.Vec)"
        else:
            self._custom(op, ins, outs, d)
            return
        if op.results:
            nm = self.define(op.results[0], op)
            self.emit(d, f"{nm}: {self.ttype(res_t, op)} = {expr}")
        else:
            nm = self.fresh(outs[0].name_hint or "t")
            self.ops_of[nm] = op
            self.emit(d, f"{nm}: {self.ttype(res_t, op)} = {expr}")
            self._write(outs[0], nm, op)

    def _compare_select(self, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
        """``vcmp`` -> ``tile.cmp`` / ``tile.cmps`` (a scalar second operand), ``vsel`` -> ``tile.sel`` /
        ``tile.sels`` (a scalar false value). The i1 mask is tilefold's 1 / 0 mask tile, which has the dtype of the
        compared values: the pl variable is typed so, its shape (all the pass reads back) is the MLIR one."""
        if len(outs) != 1 or op.keyword_attr("broadcast") is not None or op.keyword_attr("transpose") is not None:
            self.fail(op, f"{short} with a broadcast / transpose or several outs is not lowered")
        shaped = [isinstance(v.type, MemRefType | TensorType) for v in ins]
        if short == "vcmp":
            mode = op.keyword_attr("compare_mode")
            text = (mode.text or str(mode.value)) if mode is not None else "<eq>"
            kind = text[text.find("<") + 1:text.rfind(">")].strip() if "<" in text else text
            if kind not in ("eq", "ne", "lt", "gt", "ge", "le") or len(ins) != 2 or not shaped[0]:
                self.fail(op, "vcmp needs two ins (a vector first) and compare_mode = <eq|ne|lt|gt|ge|le>")
            a, b = ins
            dtype = self._dt(a.type, op)
            expr = (f"pl.tile.cmp({self.tile(a, op)}, {self.tile(b, op)}, cmp_type={kind!r})" if shaped[1]
                    else f"pl.tile.cmps({self.tile(a, op)}, {self.scalar(b, op)}, cmp_type={kind!r})")
        else:
            if len(ins) != 3 or not shaped[0] or not shaped[1]:
                self.fail(op, "vsel needs ins (mask, true values, false values), the first two vectors")
            m, a, b = ins
            dtype = self._dt(a.type, op)
            expr = (f"pl.tile.sel({self.tile(m, op)}, {self.tile(a, op)}, {self.tile(b, op)})" if shaped[2]
                    else f"pl.tile.sels({self.tile(m, op)}, {self.tile(a, op)}, {self.scalar(b, op)})")
        res_t = op.results[0].type if op.results else outs[0].type
        shape = tile_shape(shape_of(res_t))
        self._define_compute(op, outs, f"pl.Tile[[{', '.join(map(str, shape))}], pl.{dtype}, pl.Mem.Vec]", expr, d)

    def _index_op(self, op: HivmOp, short: str, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
        """``varange`` -> ``tile.ci`` (consecutive integers; a stride s scales it, a float result is cast) for one
        rank-1 stride or the contiguous strides ``[n, 1]`` of ``[m, n]``; any other 2-D strides ``[s0, s1]`` ->
        ``ci([m, 1]) * s0`` broadcast-added to ``ci([1, n]) * s1``; ``vgather ins(src) indices(idx)`` (along the
        last axis) -> ``tile.gather(src, 1, idx)``."""
        if len(outs) != 1:
            self.fail(op, f"{short} with several outs is not lowered")
        res_t = op.results[0].type if op.results else outs[0].type
        shape = tile_shape(shape_of(res_t))
        dtype = self._dt(res_t, op)
        if short == "vgather":
            idx = op.group("indices")
            if len(ins) != 1 or len(idx) != 1 or op.group("temp_buffer"):
                self.fail(op, "vgather needs one ins, one indices operand and no temp_buffer")
            expr = f"pl.tile.gather({self.tile(ins[0], op)}, 1, {self.tile(idx[0], op)})"
            self._define_compute(op, outs, f"pl.Tile[[{', '.join(map(str, shape))}], pl.{dtype}, pl.Mem.Vec]",
                                 expr, d)
            return
        offset = op.group("offset")
        strides = [self.scalar(v, op) for v in op.group("strides")]
        start = self.scalar(offset[0], op) if offset else "0"
        rank = len(shape_of(res_t))
        if rank == 1 and len(strides) == 1:
            expr = self._ramp(shape, strides[0])
        elif rank == 2 and len(strides) == 2 and strides[1] == "1" and strides[0] == str(shape[1]):
            expr = self._ramp(shape, "1")
        elif rank == 2 and len(strides) == 2:
            # element [i, j] is i * s0 + j * s1: a column of row numbers plus a row of column numbers
            m, n = shape
            grid = f"pl.tile.full([{m}, {n}], dtype=pl.INT32, value=0, target_memory=pl.Mem.Vec)"
            expr = (f"pl.tile.row_expand_add(pl.tile.col_expand({grid}, {self._ramp([1, n], strides[1])}), "
                    f"{self._ramp([m, 1], strides[0])})")
        else:
            self.fail(op, f"varange with {len(strides)} strides of a rank-{rank} result is not lowered (one stride "
                          "per axis of a rank-1 or rank-2 result)")
        if start != "0":
            expr = f"pl.tile.adds({expr}, {start})"
        if dtype != "INT32":
            expr = f"pl.tile.cast({expr}, target_type=pl.{dtype})"
        self._define_compute(op, outs, self.ttype(res_t, op), expr, d)

    @staticmethod
    def _ramp(shape: list[int], step: str) -> str:
        """``k * step`` at row-major position ``k`` of an INT32 tile of ``shape``."""
        expr = f"pl.tile.ci(0, [{', '.join(map(str, shape))}], dtype=pl.INT32)"
        return expr if step == "1" else f"pl.tile.muls({expr}, {step})"

    def _define_compute(self, op: HivmOp, outs: list[SSAValue], ann: str, expr: str, d: int) -> None:
        """``nm: ann = expr`` for the op's result, or as the next version of its memref ``outs``."""
        if op.results:
            nm = self.define(op.results[0], op)
        else:
            nm = self.fresh(outs[0].name_hint or "t")
            self.ops_of[nm] = op
        self.emit(d, f"{nm}: {ann} = {expr}")
        if not op.results:
            self._write(outs[0], nm, op)

    def _init(self, v: SSAValue, op: Operation, d: int) -> str:
        """The shape-giving target of a row / col expand: a defined tile (a broadcast reads its target)."""
        shape = tile_shape(shape_of(v.type))
        nm = self.fresh((v.name_hint or "t") + "_shape")
        self.emit(d, f"{nm}: {self.ttype(v.type, op)} = pl.tile.full([{', '.join(map(str, shape))}], "
                     f"dtype=pl.{self._dt(v.type, op)}, value=0.0, target_memory=pl.Mem.Vec)")
        return nm

    def _custom(self, op: HivmOp, ins: list[SSAValue], outs: list[SSAValue], d: int) -> None:
        sym = op.symbol() or (op.attributes.get("symbol").data if isinstance(op.attributes.get("symbol"),
                                                                               StringAttr) else None)
        if sym is None:
            self.fail(op, "a custom op without a name")
        maps = op.attributes.get("indexing_map") or op.attributes.get("indexing_maps")
        iters = op.attributes.get("iterator_types")
        args = [f"{sym!r}", "ins=[" + ", ".join(self._custom_in(v, op) for v in ins) + "]",
                "outs=[" + ", ".join(self.tile(v, op) for v in outs) + "]"]
        tmps = op.group("tmps") + op.group("temp_buffers")
        if tmps:
            args.append("tmps=[" + ", ".join(self.tile(v, op) for v in tmps) + "]")
        if sym.startswith("__builtin"):
            args.append("builtin=True")
        if "extra_buffers_types" in op.attributes or "extra_buffers_sizes" in op.attributes:
            args.append(f"extra_buffers_info=({str(op.attributes.get('extra_buffers_types'))!r},)")
        macro = op.name.endswith("custom_macro")
        if macro and ("sync_event_slots" in op.attributes or op.group("sync_related_args")):
            self.fail(op, "a custom_macro with synchronisation slots or arguments is not lowered")
        if isinstance(maps, ArrayAttr):
            texts = []
            for m in maps.data:
                if not isinstance(m, AffineMapAttr):
                    self.fail(op, "indexing_maps must be affine maps")
                texts.append(f"pl.affine_map({str(m.data)!r})")
            args.append("indexing_maps=[" + ", ".join(texts) + "]")
        if isinstance(iters, ArrayAttr):
            kinds = []
            for it in iters.data:
                # only a parallel iterator may be split; any other kind (reduction, broadcast, transpose, ...)
                # is kept whole, as a reduction is
                kinds.append("pl.parallel" if "<parallel>" in str(it) or str(it).strip('"') == "parallel"
                             else "pl.reduction")
            args.append("iterator_types=[" + ", ".join(kinds) + "]")
        if "no_side_effect" in op.attributes:
            args.append("no_side_effect=True")
        kind = "custom_macro" if macro else "custom"
        self.customs.append(op)
        if len(op.results) > 1:  # ``%r:2 = custom ... outs(%a, %b)``: ``r_0, r_1 = pl.tile.custom(...)``
            if len(outs) != len(op.results):
                self.fail(op, "a custom op whose results do not match its outs one to one")
            names = [self.define(r, op) for r in op.results]
            for r in op.results:
                self.ttype(r.type, op)  # each result is a static tile
            self.emit(d, f"{', '.join(names)} = pl.tile.{kind}({', '.join(args)})")
        elif op.results:
            nm = self.define(op.results[0], op)
            self.emit(d, f"{nm}: {self.ttype(op.results[0].type, op)} = pl.tile.{kind}({', '.join(args)})")
        else:
            if len(outs) != 1:
                self.fail(op, "a memref-form custom op must have one outs buffer")
            nm = self.fresh(outs[0].name_hint or "t")
            self.ops_of[nm] = op
            self.emit(d, f"{nm}: {self.ttype(outs[0].type, op)} = pl.tile.{kind}({', '.join(args)})")
            self._write(outs[0], nm, op)

    def _custom_in(self, v: SSAValue, op: Operation) -> str:
        if isinstance(v.type, MemRefType | TensorType):
            return self.tile(v, op)
        return self.scalar(v, op)

    # ------------------------------------------------------------ control flow
    def _carried_gm(self, region_ops) -> list[str]:
        """GM params stored inside a region: carried through loops / ifs as tensors."""
        carried = []
        for inner in region_ops:
            for o in inner.walk():
                if o.name in GM_WRITERS and isinstance(o, HivmOp):
                    view = self.views.get(o.group("outs")[0]) if o.group("outs") else None
                    root = self._root(o.group("outs")[0]) if o.group("outs") else None
                    p = self.views[root].param if view is None and root in self.views else (
                        view.param if view else None)
                    if p is None:
                        p = self.names.get(root)
                    if p is not None and p not in carried:
                        carried.append(p)
        return carried

    def _for(self, op: scf.ForOp, d: int) -> None:
        body = op.body.blocks[0]
        iv, iter_args = body.args[0], body.args[1:]
        lb, ub, step = (self.scalar(v, op) for v in (op.lb, op.ub, op.step))
        for a in op.iter_args:
            if a in self.alloc_version:
                self.fail(op, "a local buffer passed as an iter_arg is not lowered")
        gm = self._carried_gm(list(body.ops))
        bufs = self._written_buffers(list(body.ops))
        ivn = self.name_for(iv)
        self.exprs[iv] = ivn
        inits = [self.tile(a, op) if isinstance(a.type, MemRefType | TensorType) else self.scalar(a, op)
                 for a in op.iter_args] + [self.gm_current[p] for p in gm] + [self.alloc_version[b] for b in bufs]
        names = []
        for a in iter_args:
            nm = self.name_for(a)
            self.names[a] = nm
            if not isinstance(a.type, MemRefType | TensorType):
                self.exprs[a] = nm
            names.append(nm)
        saved = dict(self.gm_current)
        gm_names = []
        for p in gm:
            nm = self.fresh(p + "_iter")
            gm_names.append(nm)
            self.gm_current[p] = nm
        gm_names += self._enter_buffers(bufs, "_iter")
        carried = names + gm_names
        if carried:
            self.emit(d, f"for {ivn}, ({', '.join(carried)},) in pl.range({lb}, {ub}, {step}, "
                         f"init_values=({', '.join(inits)},)):")
        else:
            self.emit(d, f"for {ivn} in pl.range({lb}, {ub}, {step}):")
        n0 = len(self.lines)
        self.block(body, d + 1)
        yielded = body.last_op
        ys = [self.tile(v, op) if isinstance(v.type, MemRefType | TensorType) else self.scalar(v, op)
              for v in (yielded.operands if yielded is not None else ())]
        ys += [self.gm_current[p] for p in gm] + [self.alloc_version[b] for b in bufs]
        self.gm_current = saved
        if carried:
            outs_n = []
            for r in op.results:
                outs_n.append(self.define(r, op))
                if not isinstance(r.type, MemRefType | TensorType):
                    self.exprs[r] = self.names[r]
            for p in gm:
                nm = self.fresh(p + "_out")
                outs_n.append(nm)
                self.gm_current[p] = nm
            outs_n += self._enter_buffers(bufs, "_out")
            self.emit(d + 1, f"{', '.join(outs_n)}{',' if len(outs_n) == 1 else ''} = pl.yield_({', '.join(ys)})"
                      if len(outs_n) > 1 else f"{outs_n[0]} = pl.yield_({ys[0]})")
        elif len(self.lines) == n0:
            self.emit(d + 1, "pass")

    def _if(self, op: scf.IfOp, d: int) -> None:
        cond = self.scalar(op.cond, op)
        then_ops = list(op.true_region.blocks[0].ops) if op.true_region.blocks else []
        else_ops = list(op.false_region.blocks[0].ops) if op.false_region.blocks else []
        gm = self._carried_gm(then_ops + else_ops)
        bufs = self._written_buffers(then_ops + else_ops)
        results = list(op.results)
        out_names = [self.fresh(r.name_hint or "r") for r in results] + [self.fresh(p + "_if") for p in gm]
        buf_names = [self.fresh((b.name_hint or "buf") + "_if") for b in bufs]
        out_names += buf_names
        saved = dict(self.gm_current)
        saved_bufs = {b: self.alloc_version[b] for b in bufs}
        branches = []
        for ops in (then_ops, else_ops):
            self.gm_current = dict(saved)
            for b in bufs:
                self.alloc_version[b] = self.names[b] = saved_bufs[b]
            self.emit(d, "if " + cond + ":" if not branches else "else:")
            n0 = len(self.lines)
            for o in ops:
                self.op(o, d + 1)
            ys = []
            if ops and ops[-1].name == "scf.yield":
                ys = [self.tile(v, op) if isinstance(v.type, MemRefType | TensorType) else self.scalar(v, op)
                      for v in ops[-1].operands]
            ys += [self.gm_current[p] for p in gm] + [self.alloc_version[b] for b in bufs]
            if out_names:
                self.emit(d + 1, f"{', '.join(out_names)} = pl.yield_({', '.join(ys)})")
            elif len(self.lines) == n0:
                self.emit(d + 1, "pass")
            branches.append(ys)
        self.gm_current = saved
        for r, nm in zip(results, out_names, strict=False):
            self.names[r] = nm
            self.ops_of[nm] = op
            if not isinstance(r.type, MemRefType | TensorType):
                self.exprs[r] = nm
        for p, nm in zip(gm, out_names[len(results):len(results) + len(gm)], strict=True):
            self.gm_current[p] = nm
        for b, nm in zip(bufs, buf_names, strict=True):
            self.alloc_version[b] = self.names[b] = nm
            self.versions.append((b, nm))

    def _written_buffers(self, region_ops: list[Operation]) -> list[SSAValue]:
        """Local buffers defined before a loop / if and written inside it by memref-form ops (``outs(%buf)``, no
        result): each is carried through the loop / if as a value (loop-carried, if-yielded)."""
        bufs: list[SSAValue] = []
        for inner in region_ops:
            for o in inner.walk():
                if isinstance(o, HivmOp) and o.name not in GM_WRITERS and not o.results:
                    for v in o.group("outs"):
                        # a window of a buffer (defined outside the region, or inside it) writes the buffer
                        while isinstance(v.owner, memref.SubviewOp | memref.ReinterpretCastOp) and \
                                v not in self.alloc_version:
                            v = v.owner.source
                        if v in self.alloc_version and v not in bufs:
                            bufs.append(v)
        return bufs

    def _enter_buffers(self, bufs: list[SSAValue], suffix: str) -> list[str]:
        """Fresh names for the carried ``bufs`` (their current versions from now on)."""
        names = []
        for b in bufs:
            nm = self.fresh((b.name_hint or "buf") + suffix)
            self.alloc_version[b] = self.names[b] = nm
            self.versions.append((b, nm))
            names.append(nm)
        return names


def lower_function(fn: func.FuncOp, filename: str, source: str, line_offset: int = 0) -> Lowering:
    """Lower one function; ``Lowering.lines`` / ``.lower()`` give the pl source, ``.names`` the value names."""
    low = Lowering(fn, filename, source, line_offset)
    return low
