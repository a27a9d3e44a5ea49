"""``with pl.cluster():`` (frontend/cluster.py) in both forms: a body launching one kernel is that kernel, run on one
cluster, and gives the values numpy computes here; a body grouping several kernels is refused with an error that
says what PyPTO's documents leave unspecified; misuses are located errors."""

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, ParseError, TilefoldError
from tilefold.testing import run_and_compare

RNG = np.random.default_rng(1903)
T = "pl.Tensor[[16, 64], pl.FP32]"
JIT = (f"import tilefold.language as pl\n\n@pl.jit\ndef k(a: {T}, b: {T}, out: pl.Out[{T}]):\n")
PROGRAM = ("import tilefold.language as pl\n\n@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           f"    def kern(self, a: {T}, b: {T}, out: pl.Out[{T}]) -> {T}:\n"
           "        t = pl.mul(pl.load(a, [0, 0], [16, 64]), pl.load(b, [0, 0], [16, 64]))\n"
           "        out = pl.store(t, [0, 0], out)\n        return out\n\n"
           "    @pl.function\n"
           f"    def main(self, a: {T}, b: {T}, out: pl.Out[{T}]) -> {T}:\n")


def _run(src: str, expected) -> None:
    a = RNG.standard_normal((16, 64)).astype(np.float32)
    b = RNG.standard_normal((16, 64)).astype(np.float32)
    report = run_and_compare(pl.parse(src, "kern.py"), {"a": a, "b": b, "out": np.zeros_like(a)})
    assert report.fault is None, report.summary()
    want = expected(a, b)
    np.testing.assert_allclose(report.golden_outputs["out"], want, rtol=1e-5, atol=1e-6, err_msg="golden")
    np.testing.assert_allclose(report.outputs["out"], want, rtol=1e-5, atol=1e-6, err_msg="device")


def test_jit_cluster_around_one_scope():
    _run(JIT + "    with pl.cluster():\n        with pl.at(level=pl.Level.CORE_GROUP):\n"
               "            out[:] = pl.add(pl.exp(a), b)\n"
               "    with pl.at(level=pl.Level.CORE_GROUP):\n        out[:] = pl.mul(out, a)\n    return out\n",
         lambda a, b: (np.exp(a) + b) * a)


def test_jit_cluster_around_one_spmd_loop():
    _run(JIT + "    with pl.cluster():\n        for i in pl.spmd(2):\n"
               "            out[i * 8:(i + 1) * 8, :] = pl.sub(a[i * 8:(i + 1) * 8, :], b[i * 8:(i + 1) * 8, :])\n"
               "    return out\n", lambda a, b: a - b)


def test_program_cluster_around_one_kernel_call():
    _run(PROGRAM + "        with pl.cluster():\n            out = self.kern(a, b, out)\n        return out\n",
         lambda a, b: a * b)


def test_program_cluster_around_one_scope():
    _run(PROGRAM + "        with pl.cluster():\n            with pl.at(level=pl.Level.CORE_GROUP):\n"
                   "                out[:] = pl.add(a, b)\n        return out\n", lambda a, b: a + b)


def _refused(src: str, exc: type[TilefoldError], message: str) -> TilefoldError:
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "# <-" in ln)
    with pytest.raises(exc) as info:
        pl.parse(src, "kern.py")
    err = info.value
    assert message in err.message, err.message
    assert err.span is not None and err.span.line == line, str(err)
    assert err.hint
    return err


def test_two_kernels_in_one_cluster_are_refused_citing_what_is_unspecified():
    err = _refused(PROGRAM + "        with pl.cluster():  # <-\n            out = self.kern(a, b, out)\n"
                             "            out = self.kern(a, b, out)\n        return out\n",
                   NotSupportedError, "launches 2 kernels")
    for missing in ("OutlineClusterScopes has no page", "paired or launched", "only inside one InCore function"):
        assert missing in err.message
    assert "pl.split_aiv" in err.hint
    _refused(JIT + "    with pl.cluster():  # <-\n"
                   "        with pl.at(level=pl.Level.CORE_GROUP):\n            out[:] = pl.add(a, b)\n"
                   "        with pl.at(level=pl.Level.CORE_GROUP):\n            out[:] = pl.add(out, b)\n"
                   "    return out\n", NotSupportedError, "launches 2 kernels")


def test_an_orchestration_loop_of_launches_in_a_cluster_is_refused():
    _refused(JIT + "    with pl.cluster():  # <-\n        for i in pl.range(2):\n"
                   "            with pl.at(level=pl.Level.CORE_GROUP):\n                out[:] = pl.add(a, b)\n"
                   "    return out\n", NotSupportedError, "launches 2 kernels")


def test_a_call_of_orchestration_code_in_a_cluster_is_refused():
    src = PROGRAM.replace("    @pl.function\n    def main", "    @pl.function(type=pl.FunctionType.Orchestration)\n"
                          f"    def helper(self, a: {T}, b: {T}, out: pl.Out[{T}]) -> {T}:\n"
                          "        out = self.kern(a, b, out)\n        out = self.kern(a, b, out)\n        return out\n\n"
                          "    @pl.function\n    def main")
    _refused(src + "        with pl.cluster():  # <-\n            out = self.helper(a, b, out)\n        return out\n",
             NotSupportedError, "'helper', which is orchestration code")


@pytest.mark.parametrize("body,exc,message", [
    ("    with pl.cluster():  # <-\n        x = 1\n    return out\n", ParseError, "launches no kernel"),
    ("    with pl.cluster(2):  # <-\n        with pl.at(level=pl.Level.CORE_GROUP):\n            out[:] = pl.add(a, b)\n"
     "    return out\n", ParseError, "takes no arguments"),
    ("    with pl.cluster():\n        for i in pl.spmd(2, allow_early_resolve=True):  # <-\n"
     "            out[i * 8:(i + 1) * 8, :] = pl.add(a[i * 8:(i + 1) * 8, :], b[i * 8:(i + 1) * 8, :])\n"
     "    return out\n", ParseError, "allow_early_resolve= on a pl.spmd inside pl.cluster()"),
    ("    with pl.at(level=pl.Level.CORE_GROUP):\n        with pl.cluster():  # <-\n"
     "            out[:] = pl.add(a, b)\n    return out\n", ParseError, "pl.cluster() inside a pl.at scope"),
    ("    with pl.cluster():  # <-\n        with pl.at(level=pl.Level.HOST):\n"
     "            with pl.at(level=pl.Level.CORE_GROUP):\n                out[:] = pl.add(a, b)\n    return out\n",
     ParseError, "pl.Level.HOST scope inside pl.cluster()"),
])
def test_misuses_are_located(body, exc, message):
    _refused(JIT + body, exc, message)


def test_cluster_in_an_incore_function_is_refused():
    src = PROGRAM.replace("        t = pl.mul(", "        with pl.cluster():  # <-\n            t = pl.mul(")
    src = src.replace("        out = pl.store(t, [0, 0], out)\n        return out\n\n",
                      "            out = pl.store(t, [0, 0], out)\n        return out\n\n", 1)
    _refused(src + "        out = self.kern(a, b, out)\n        return out\n", ParseError, "inside kernel code")
