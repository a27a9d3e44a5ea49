"""The generator of benchmarks/jit_frontend.py makes a valid, correct program (a small one here)."""

import importlib.util
from pathlib import Path

import tilefold.language as pl
from tilefold.testing import run_and_compare

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "jit_frontend.py"


def test_generated_program_runs_correctly():
    spec = importlib.util.spec_from_file_location("jit_frontend", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.generate_program(60, stmts_per_scope=12)
    program = pl.parse(text, "<bench>")
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()


def test_generated_loop_program_runs_correctly():
    # all three scope kinds: row blocks with an if, the K-blocked matmul_acc, the online softmax
    spec = importlib.util.spec_from_file_location("jit_frontend", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = mod.generate_loop_program(80, stmts_per_loop=4)
    assert text.count("pl.at(") == 3 and "pl.matmul_acc" in text and "pl.yield_(m0" in text
    program = pl.parse(text, "<bench>")
    report = run_and_compare(program, "random")
    assert report.fault is None and report.matches, report.summary()
