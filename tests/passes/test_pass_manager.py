"""PassContext, instruments (verify / round trip / dump), PassManager and remarks."""

from __future__ import annotations

import io
import re
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ir"))

from irbuild import kernel_fn, loop_fn, program  # noqa: E402

from tilefold.errors import VerificationError  # noqa: E402
from tilefold.ir import AssignStmt, ConstInt, MakeTuple, SeqStmts, assert_structural_equal  # noqa: E402
from tilefold.passes import remarks as remarks_mod  # noqa: E402
from tilefold.passes.base import IRProperty as P  # noqa: E402
from tilefold.passes.base import Pass, function_pass, program_pass  # noqa: E402
from tilefold.passes.pass_manager import (  # noqa: E402
    DumpInstrument,
    PassContext,
    PassInstrument,
    PassManager,
    VerificationInstrument,
    run_pass,
)
from tilefold.passes.remarks import Remark, collect_remarks, emit, remarks_enabled  # noqa: E402
from tilefold.testing.round_trip import RoundTripError, RoundTripInstrument, round_trip_check  # noqa: E402


def identity(name: str = "Identity", **props) -> Pass:
    return program_pass(name, lambda p: p, **props)


def break_ssa_pass(**props) -> Pass:
    """Duplicates the second statement of every kernel (re-binding the same Var)."""

    def run(fn, program):
        stmts = list(fn.body.stmts)
        dup = AssignStmt(stmts[1].var, stmts[1].value)
        return fn.with_fields(body=SeqStmts(tuple(stmts[:2] + [dup] + stmts[2:])))

    return function_pass("BreakSSA", run, **props)


class Recorder(PassInstrument):
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def enter_context(self, ctx):
        self.log.append((self.tag, "enter"))

    def exit_context(self, ctx):
        self.log.append((self.tag, "exit"))

    def before_pass(self, pass_, program):
        self.log.append((self.tag, "before", pass_.name))

    def after_pass(self, pass_, before, after):
        self.log.append((self.tag, "after", pass_.name, before is after))


# ------------------------------------------------------------------------------------------------
# PassContext
# ------------------------------------------------------------------------------------------------


def test_current_context_default_and_nesting():
    default = PassContext.current()
    assert default.instruments == []
    assert PassContext.current() is default
    with PassContext(options={"tile_sizes": (16, 16, 16)}) as outer:
        assert PassContext.current() is outer
        with PassContext() as inner:
            assert PassContext.current() is inner
        assert PassContext.current() is outer
        assert outer.option("tile_sizes") == (16, 16, 16) and outer.option("b", 5) == 5
    assert PassContext.current() is default


def test_instruments_run_in_order_around_each_pass():
    log = []
    prog = program(kernel_fn())
    with PassContext([Recorder(log, "A"), Recorder(log, "B")]) as ctx:
        out = identity()(prog)  # Pass.__call__ goes through the context
        out = run_pass(identity("Second"), out)
    assert out is prog
    assert log == [
        ("A", "enter"), ("B", "enter"),
        ("A", "before", "Identity"), ("B", "before", "Identity"),
        ("A", "after", "Identity", True), ("B", "after", "Identity", True),
        ("A", "before", "Second"), ("B", "before", "Second"),
        ("A", "after", "Second", True), ("B", "after", "Second", True),
        ("A", "exit"), ("B", "exit"),
    ]
    assert ctx.history == ["Identity", "Second"]


def test_disabled_passes_are_skipped():
    log = []
    with PassContext([Recorder(log, "A")], disabled_passes=["identity"]):
        identity()(program(kernel_fn()))
    assert log == [("A", "enter"), ("A", "exit")]


def test_pass_returning_non_program_is_an_error():
    bad = program_pass("Bad", lambda p: None)
    with pytest.raises(TypeError, match="pass Bad returned NoneType"):
        bad(program(kernel_fn()))


def test_context_is_popped_on_exception():
    default = PassContext.current()
    with pytest.raises(RuntimeError):
        with PassContext():
            raise RuntimeError("boom")
    assert PassContext.current() is default


# ------------------------------------------------------------------------------------------------
# VerificationInstrument
# ------------------------------------------------------------------------------------------------


def test_verification_after_a_pass_that_breaks_its_produced_property():
    prog = program(kernel_fn())
    broken = break_ssa_pass(required=[P.SSAForm], produced=[P.SSAForm])
    assert len(broken.run(prog).functions[0].body.stmts) == 6  # without instruments, nothing checks
    with PassContext([VerificationInstrument()]):
        with pytest.raises(VerificationError) as info:
            broken(prog)
    msg = info.value.message
    assert msg.startswith("after pass BreakSSA (which must produce SSAForm): SSAForm violated in "
                          "function 'kernel'")
    assert "%hi is defined again" in msg
    assert re.search(r"at: %?hi: .*tile\.slice\(%?t, \[16, 64\], \[0, 64\]\)", msg)  # the statement, printed
    assert info.value.hint


def test_verification_before_a_pass_checks_its_requirements():
    bad = break_ssa_pass().run(program(kernel_fn()))
    needs_ssa = identity("NeedsSSA", required=[P.SSAForm, P.TileOps2D])
    inst = VerificationInstrument()
    with PassContext([inst]):
        with pytest.raises(VerificationError, match=r"before pass NeedsSSA \(which requires SSAForm, "
                                                    r"TileOps2D\): SSAForm violated"):
            needs_ssa(bad)
        needs_ssa(program(kernel_fn(), loop_fn()))
    assert inst.checked == [("NeedsSSA", "before", (P.SSAForm, P.TileOps2D))]


def test_verification_property_filter_and_switches():
    bad = break_ssa_pass().run(program(kernel_fn()))
    needs_ssa = identity("NeedsSSA", required=[P.SSAForm])
    only_2d = VerificationInstrument(properties=[P.TileOps2D])
    with PassContext([only_2d]):
        assert needs_ssa(bad) is bad  # SSAForm not selected: nothing to check, no error
    assert only_2d.checked == []
    after_only = VerificationInstrument(before=False)
    with PassContext([after_only]):
        assert needs_ssa(bad) is bad
    assert after_only.checked == []  # the pass produces nothing, and its requirement is not checked
    both = VerificationInstrument()
    with PassContext([both]), pytest.raises(VerificationError, match="SSAForm violated"):
        needs_ssa(bad)  # the same program with both switches on: the violation is caught


# ------------------------------------------------------------------------------------------------
# RoundTripInstrument
# ------------------------------------------------------------------------------------------------


@pytest.fixture
def fake_frontend(monkeypatch):
    """A stand-in printer / parser pair: the 'text' is a key into a table of programs, and the parser can
    be told to perturb what it returns (a deliberate printer/parser disagreement)."""
    table = {}
    state = {"perturb": None}

    def python_print(prog):
        key = f"prog{len(table)}"
        table[key] = prog
        return key

    language = types.ModuleType("tilefold.language")

    def parse(text, filename="<string>"):
        prog = table[text]
        return state["perturb"](prog) if state["perturb"] else prog

    language.parse = parse
    import tilefold.frontend.printer as printer

    monkeypatch.setattr(printer, "python_print", python_print)
    monkeypatch.setitem(sys.modules, "tilefold.language", language)
    import tilefold
    import tilefold.ir

    monkeypatch.setattr(tilefold, "language", language, raising=False)
    return state


def _shift_slice_offset(prog):
    fn = prog.functions[0]
    stmts = list(fn.body.stmts)
    s = stmts[1]
    off = MakeTuple((ConstInt(0), ConstInt(32)))
    stmts[1] = AssignStmt(s.var, s.value.with_fields(args=(s.value.args[0], s.value.args[1], off)))
    return prog.with_fields(functions=(fn.with_fields(body=SeqStmts(tuple(stmts))),))


def test_round_trip_instrument_passes_when_printer_and_parser_agree(fake_frontend):
    inst = RoundTripInstrument(check_input=True)
    with PassContext([inst]):
        identity()(program(kernel_fn()))
    assert inst.checked == ["Identity"]


def test_round_trip_instrument_catches_a_disagreement(fake_frontend):
    fake_frontend["perturb"] = _shift_slice_offset
    with PassContext([RoundTripInstrument()]):
        with pytest.raises(RoundTripError) as info:
            identity("Canon")(program(kernel_fn()))
    msg = info.value.message
    assert "round trip after pass Canon: printing and re-parsing changed the program" in msg
    assert "function 'kernel' > body[1] (AssignStmt) > value > args[2] > elements[1]" in msg
    assert "64 vs 32" in msg
    assert isinstance(info.value, VerificationError)


def test_round_trip_reports_unparsable_text(fake_frontend, monkeypatch):
    import tilefold.language as lang
    from tilefold.errors import ParseError, Span

    def bad_parse(text, filename="<string>"):
        raise ParseError("unexpected token", span=Span(filename, 1, 1, text))

    monkeypatch.setattr(lang, "parse", bad_parse)
    with pytest.raises(RoundTripError, match="does not parse back: unexpected token"):
        round_trip_check(program(kernel_fn()), "round trip after pass X")


def test_round_trip_with_the_real_printer_and_parser():
    import tilefold.frontend.printer as printer
    import tilefold.language as language

    before = program(kernel_fn(), loop_fn())
    instrument = RoundTripInstrument(check_input=True)
    with PassContext([instrument]):
        identity()(before)
    assert instrument.checked == ["Identity"]
    # what the instrument compared: the printed text parses back to the same program
    assert_structural_equal(language.parse(printer.python_print(before)), before)


def test_round_trip_with_a_deliberately_broken_printer(monkeypatch):
    import tilefold.frontend.printer as printer

    real = printer.python_print

    def broken(prog):
        return real(prog).replace("[0, 64]", "[0, 32]")

    monkeypatch.setattr(printer, "python_print", broken)
    with PassContext([RoundTripInstrument()]):
        with pytest.raises(RoundTripError, match="printing and re-parsing changed the program"):
            identity()(program(kernel_fn()))


# ------------------------------------------------------------------------------------------------
# DumpInstrument
# ------------------------------------------------------------------------------------------------


def test_dump_instrument_collects_and_prints_after_each_pass():
    stream = io.StringIO()
    dump = DumpInstrument(stream, print_input=True)
    with PassContext([dump]):
        PassManager([identity("First"), break_ssa_pass()], name="p")(program(kernel_fn()))
    assert [name for name, _ in dump.dumps] == ["<input>", "First", "BreakSSA"]
    out = stream.getvalue()
    assert "# ----- IR before all passes -----" in out
    assert "# ----- IR after First (first) (unchanged) -----" in out
    assert "# ----- IR after BreakSSA (break-ssa) -----" in out
    assert out.index("IR after First") < out.index("IR after BreakSSA")
    # the dump after BreakSSA shows the duplicated statement twice
    after = dump.dumps[-1][1]
    assert after.count("tile.slice(") == 2


def test_dump_only_selected_passes():
    dump = DumpInstrument(only=["break-ssa"])
    with PassContext([dump]):
        PassManager([identity("First"), break_ssa_pass()])(program(kernel_fn()))
    assert [name for name, _ in dump.dumps] == ["BreakSSA"]


# ------------------------------------------------------------------------------------------------
# PassManager
# ------------------------------------------------------------------------------------------------


def test_pass_manager_runs_in_order_and_computes_requirements():
    order = []

    def tracer(name, **props):
        return program_pass(name, lambda p: (order.append(name), p)[1], **props)

    pm = PassManager([tracer("A", required=[P.SSAForm], produced=[P.TileOps2D]),
                      tracer("B", required=[P.TileOps2D, P.UseAfterDef], invalidated=[P.TileOps2D]),
                      tracer("C", required=[P.TileOps2D])], name="demo")
    prog = program(kernel_fn())
    assert pm(prog) is prog
    assert order == ["A", "B", "C"]
    assert pm.required == frozenset({P.SSAForm, P.UseAfterDef, P.TileOps2D})
    assert "A -> B -> C" in repr(pm)


def test_from_names_unknown_pass():
    with pytest.raises(KeyError, match="unknown pass 'no-such-pass'"):
        PassManager.from_names(["no-such-pass"])


def test_from_names_builds_registered_passes():
    pm = PassManager.from_names(["flatten-tile-nd-to-2d"], enable_auto_bind_sub_block=False)
    assert [p.cli_name for p in pm.passes] == ["flatten-tile-nd-to-2d"]


# ------------------------------------------------------------------------------------------------
# remarks
# ------------------------------------------------------------------------------------------------


def test_remarks_are_collected_by_every_active_collector():
    r1 = Remark("P", "kernel", "kept", "slice kept zero-copy", {"offset": (0, 8)})
    emit(r1)  # nobody listening: dropped
    assert not remarks_enabled()
    with collect_remarks() as outer:
        assert remarks_enabled()
        with collect_remarks() as inner:
            emit(r1)
        emit(Remark("Q", "other", "split", "split on axis 0"))
    assert list(inner) == [r1]
    assert len(outer) == 2
    assert outer.of(pass_name="Q")[0].kind == "split"
    assert outer.of(function="kernel", kind="kept") == [r1]
    assert str(r1) == "remark: [P] kernel: kept: slice kept zero-copy {offset=(0, 8)}"
    assert remarks_mod._ACTIVE == []


def test_empty_collectors_are_removed_by_identity():
    with collect_remarks() as a:
        with collect_remarks() as b:
            pass
        emit(Remark("P", "f", "k", "m"))
    assert len(a) == 1 and len(b) == 0
