"""Hostile inputs of the hostile5 round at the @pl.jit call boundary and in RunConfig: each refused case is a
TilefoldError naming the argument or field, with a hint (never a raw TypeError / ValueError / OSError / pickling
error from inside tilefold); the accepted ones are checked against numpy written here."""

from __future__ import annotations

import jit_hostile_kernels as k
import numpy as np
import pytest

from tilefold.errors import TilefoldError
from tilefold.runtime import RunConfig
from tilefold.runtime.call_boundary import ArgumentError

X = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)


def _refused(info: pytest.ExceptionInfo, *fragments: str) -> None:
    err = info.value
    assert isinstance(err, TilefoldError) and err.hint, err
    for fragment in fragments:
        assert fragment in err.message, err.render()


@pytest.mark.parametrize(("array", "shown"), [
    (X.astype(object), "dtype object"),
    (np.zeros((16, 64), [("a", "f4")]), "dtype [('a', '<f4')]"),
    (X.astype(np.complex64), "dtype complex64"),
    (np.zeros((16, 64), "datetime64[s]"), "dtype datetime64[s]"),
])
def test_an_array_no_element_type_holds_is_refused_by_parameter_name(array, shown):
    # was "exp_bare argument #0: unsupported array dtype ..." with no location
    with pytest.raises(ArgumentError) as info:
        k.exp_bare(array, np.zeros((16, 64), np.float32))
    _refused(info, "argument 'a'", shown)
    assert info.value.span is not None and info.value.span.filename.endswith("jit_hostile_kernels.py")


def test_a_read_only_output_is_refused_before_the_run():
    out = np.zeros((16, 64), np.float32)
    out.flags.writeable = False
    with pytest.raises(ArgumentError) as info:
        k.exp_bare(X, out)
    _refused(info, "argument 'out' is a read-only numpy array, but the kernel writes it")
    assert info.value.span is not None


def test_a_read_only_input_and_a_negative_stride_output_still_run():
    x = X.copy()
    x.flags.writeable = False
    out = np.zeros((16, 64), np.float32)[::-1]
    k.exp_bare(x, out)
    np.testing.assert_allclose(out.astype(np.float64), np.exp(X.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("fields", "fragment"), [
    ({"platform": ["a2a3sim"]}, "is not a platform name"),  # was TypeError: unhashable type: 'list'
    ({"skip_passes": 3}, "is not a pass name or a list of them"),  # was TypeError: 'int' object is not iterable
    ({"skip_passes": None}, "is not a pass name or a list of them"),
    ({"extras": [1]}, "RunConfig(extras=[1]) is not a dict"),  # was a TypeError from dict()
    ({"runtime": "x"}, "RunConfig(runtime='x') is not a dict"),  # was a ValueError from dict()
])
def test_run_config_fields_of_the_wrong_type_are_refused(fields, fragment):
    with pytest.raises(TilefoldError) as info:
        RunConfig(**fields)
    _refused(info, fragment)


@pytest.mark.parametrize("work_dir", ["FILE", "/tmp/tilefold\x00nul"])
def test_a_dfx_work_dir_that_cannot_be_a_directory_is_refused(work_dir, tmp_path):
    # a work_dir that is a file: was NotADirectoryError; one with a NUL byte: ValueError("embedded null byte")
    if work_dir == "FILE":
        work_dir = tmp_path / "a_file"
        work_dir.write_text("x")
    with pytest.raises(TilefoldError) as info:
        k.exp_bare(X, np.zeros((16, 64), np.float32), config=RunConfig(enable_pmu=1, work_dir=str(work_dir)))
    _refused(info, "cannot write the DFX outputs")


def test_dfx_outputs_without_a_work_dir_save_the_artefacts_after_a_run():
    # the artefact directory pickles the PTO program: the simulator's caches on a kernel (op definitions with
    # closures) made that fail with "Can't pickle local object" once the kernel had run
    out = np.zeros((16, 64), np.float32)
    k.exp_bare(X, out)  # a first run fills the caches
    out2 = np.zeros((16, 64), np.float32)
    k.exp_bare(X, out2, config=RunConfig(enable_pmu=1))
    np.testing.assert_allclose(out2.astype(np.float64), np.exp(X.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_a_saved_kernel_loads_and_runs_after_it_was_simulated(tmp_path):
    from tilefold.runtime.compiled import CompiledKernel

    compiled = k.exp_bare.compile(X, np.zeros((16, 64), np.float32))
    compiled(X, np.zeros((16, 64), np.float32))  # simulated once: caches on its kernels
    compiled.save(tmp_path / "art")
    loaded = CompiledKernel.from_dir(tmp_path / "art")
    out = np.zeros((16, 64), np.float32)
    loaded(X, out)
    np.testing.assert_allclose(out.astype(np.float64), np.exp(X.astype(np.float64)), rtol=1e-5, atol=1e-6)
