"""tilefold mlir-opt on damaged inputs: each chunk either prints or is a located error, never an internal error
or a traceback (token deletions, duplications and reversals of the lit inputs, with a fixed seed)."""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path

import pytest

pytest.importorskip("xdsl", reason="the mlir extra (xdsl) is part of the dev install")

from tilefold.mlir.opt import main  # noqa: E402

LIT = Path(__file__).resolve().parents[1] / "lit" / "mlir"


def _mutants(n: int, seed: int = 7):
    rng = random.Random(seed)
    files = sorted(LIT.glob("*.mlir"))
    for _ in range(n):
        toks = re.split(r"(\s+)", rng.choice(files).read_text())
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(toks))
            r = rng.random()
            toks[i] = "" if r < 0.5 else rng.choice(toks) if r < 0.8 else toks[i][::-1]
        yield "".join(toks)


def test_damaged_inputs_give_output_or_located_errors(tmp_path):
    path = tmp_path / "m.mlir"
    for text in _mutants(30):
        path.write_text(text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([str(path), "-hivm-bind-sub-block", "-split-input-file"])
        assert "internal error" not in err.getvalue() and "Traceback" not in err.getvalue(), text
        if code != 0:
            assert re.search(r"m\.mlir:\d+:\d+", err.getvalue()), err.getvalue()


def test_empty_and_comment_only_inputs(tmp_path):
    path = tmp_path / "e.mlir"
    for text in ("", "// nothing here\n", "// -----\n// -----\n", "module {\n}\n"):
        path.write_text(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([str(path), "-hivm-bind-sub-block", "-split-input-file"]) == 0
        assert "internal error" not in out.getvalue()
