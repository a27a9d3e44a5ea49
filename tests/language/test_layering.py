"""The printer lives in the front end (``tilefold.frontend.printer``) and reaches ``ir`` through a registered
hook (the layer contract itself is tests/architecture/test_layers.py)."""

import tilefold.ir as ir
import tilefold.language as pl


def test_as_python_goes_through_the_language_printer():
    prog = pl.parse(
        "import tilefold.language as pl\n\n"
        "@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) "
        "-> pl.Tensor[[16, 16], pl.FP32]:\n"
        "        t = pl.load(x, [0, 0], [16, 16])\n"
        "        out = pl.store(t, [0, 0], out)\n"
        "        return out\n")
    assert prog.as_python() == pl.python_print(prog) == ir.python_print(prog)
    assert pl.parse(prog.as_python()).as_python() == prog.as_python()
