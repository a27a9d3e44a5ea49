"""PyPTO's runtime surface on the simulator: RunConfig's runtime fields and DFX outputs, the CompiledProgram
handle (output_dir, platform, call shape, from_dir, calling it), ChipWorker / DeviceTensor, benchmark, and
clear errors for what one simulated chip cannot do."""

import csv
import json

import numpy as np
import pytest

import tilefold.language as pl
from tilefold.errors import NotSupportedError, TilefoldError
from tilefold.runtime import ChipWorker, RunConfig, benchmark
from tilefold.runtime.compiled import CompiledKernel as CompiledProgram

RNG = np.random.default_rng(3)
A = RNG.standard_normal((64, 128)).astype(np.float32)
B = RNG.standard_normal((64, 128)).astype(np.float32)


@pl.jit
def two_stage(a: pl.Tensor[[64, 128], pl.FP32], scratch: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
              out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage1"):
        scratch[:] = pl.add(a, a)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage2"):
        out[:] = pl.add(scratch, scratch)
    return scratch, out


@pl.jit
def add(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [64, 128]), pl.load(b, [0, 0], [64, 128])), [0, 0], out)
    return out


# ---------------------------------------------------------------- RunConfig fields

@pytest.mark.parametrize("field, value, message, hint", [
    ("ring_heap", 64, "RunConfig(ring_heap=64): 64 is not a valid value", "power of two >= 1024 (in bytes)"),
    ("ring_heap", 3000, "3000 is not a valid value", "power of two >= 1024"),
    ("ring_task_window", 2, "2 is not a valid value", "power of two >= 4"),
    ("ring_task_window", [4, 8], "exactly 4 ints, got 2", "0 leaves a ring at its default"),
    ("ring_dep_pool", 3, "3 is not a valid value", "in [4, 2147483647]"),
    ("aicpu_thread_num", 0, "aicpu_thread_num=0", "positive number of AICPU threads"),
    ("enable_pmu", 5, "enable_pmu=5", "level in (0, 1, 2)"),
    ("enable_dep_gen", "yes", "enable_dep_gen='yes'", "True / False"),
    ("enable_chip_swimlane", 5, "enable_chip_swimlane=5", "level in (0, 1, 2, 3, 4)"),
    ("enable_dep_gen", 2, "enable_dep_gen=2", "True / False"),
])
def test_runtime_fields_are_validated_as_pypto_documents(field, value, message, hint):
    with pytest.raises(TilefoldError) as info:
        RunConfig(platform="a2a3sim", **{field: value})
    assert message in info.value.message and hint in info.value.hint


def test_runtime_fields_accepted_and_read_back():
    cfg = RunConfig(platform="a2a3sim", ring_task_window=64, ring_heap=1 << 20, ring_dep_pool=[0, 16, 0, 0],
                    aicpu_thread_num=4, enable_scope_stats=True)
    assert cfg.ring_task_window == 64 and cfg.ring_heap == 1 << 20 and cfg.ring_dep_pool == (0, 16, 0, 0)
    assert cfg.aicpu_thread_num == 4 and cfg.enable_scope_stats == 1 and cfg.enable_pmu is None
    # they size a runtime tilefold does not have: the same compiled program, the same result
    assert cfg.cache_key() == RunConfig(platform="a2a3sim").cache_key()
    assert cfg.cache_key() != RunConfig(platform="a2a3sim", block_dim=2).cache_key()
    with pytest.raises(TilefoldError, match="RunConfig has no field 'ring_heapz'") as info:
        RunConfig(ring_heapz=1024)
    assert "did you mean 'ring_heap'" in info.value.hint


def test_block_dim_must_be_positive():
    with pytest.raises(TilefoldError, match="block_dim=0"):
        RunConfig(block_dim=0)


# ---------------------------------------------------------------- DFX outputs

def test_dfx_outputs_under_the_work_dir(tmp_path):
    cfg = RunConfig(platform="a2a3sim", work_dir=str(tmp_path), enable_dep_gen=True, enable_chip_swimlane=True,
                    enable_pmu=2, enable_dump_args=2, enable_scope_stats=True)
    scratch, out = np.zeros_like(A), np.zeros_like(A)
    two_stage(A, scratch, out, config=cfg)
    np.testing.assert_allclose(out, 4 * A, rtol=1e-6)
    dfx = tmp_path / "dfx_outputs"
    deps = json.loads((dfx / "deps.json").read_text())
    assert [t["kernel"] for t in deps["tasks"]] == ["stage1", "stage2"]
    assert {"from": 0, "to": 1, "tensor": "scratch", "kind": "RAW"} in deps["edges"]
    trace = json.loads((dfx / "chip_swimlane_records.json").read_text())
    assert any(e.get("ph") == "X" for e in trace["traceEvents"])
    rows = list(csv.DictReader((dfx / "pmu.csv").open()))
    vector = [r for r in rows if r["pipe"] == "VECTOR"]
    assert vector and all(0.0 < float(r["utilisation"]) <= 1.0 for r in vector)
    np.testing.assert_array_equal(np.load(dfx / "args_dump" / "a.in.npy"), A)
    np.testing.assert_allclose(np.load(dfx / "args_dump" / "out.out.npy"), 4 * A, rtol=1e-6)
    assert not (dfx / "scope_stats").exists()  # no runtime rings to measure


@pytest.mark.parametrize("level, stored", [(True, 4), (False, 0), (0, 0), (1, 1), (3, 3), (4, 4)])
def test_swimlane_takes_pypto_levels(level, stored):
    # PyPTO's swimlane flag is a collection level 0-4; True means the full level 4
    assert RunConfig(platform="a2a3", enable_chip_swimlane=level).enable_chip_swimlane == stored


@pytest.mark.parametrize("level", [1, 3])
def test_swimlane_level_writes_the_timeline(tmp_path, level):
    out = np.zeros_like(A)
    add(A, B, out, config=RunConfig(platform="a2a3", work_dir=str(tmp_path), enable_chip_swimlane=level))
    np.testing.assert_allclose(out, A + B, rtol=1e-6)
    trace = json.loads((tmp_path / "dfx_outputs" / "chip_swimlane_records.json").read_text())
    assert any(e.get("ph") == "X" for e in trace["traceEvents"])


def test_swimlane_level_zero_writes_nothing(tmp_path):
    add(A, B, np.zeros_like(A), config=RunConfig(work_dir=str(tmp_path), enable_chip_swimlane=0))
    assert not (tmp_path / "dfx_outputs").exists()


def test_no_dfx_flag_writes_nothing(tmp_path):
    out = np.zeros_like(A)
    add(A, B, out, config=RunConfig(work_dir=str(tmp_path)))
    assert not (tmp_path / "dfx_outputs").exists()


# ---------------------------------------------------------------- CompiledProgram

def test_compiled_program_handle(tmp_path):
    cfg = RunConfig(platform="a2a3sim", save_kernels_dir=str(tmp_path))
    compiled = add.compile(A, B, np.zeros_like(A), config=cfg)
    assert compiled.platform == "a2a3sim" and compiled.target.name == "Ascend910B"
    assert compiled.param_names == ["a", "b", "out"] and compiled.output_indices == [2]
    assert compiled.output_dir.parent == tmp_path
    assert {"program.pto", "program.py", "meta.json"} <= {p.name for p in compiled.output_dir.iterdir()}
    assert "tile.add" in (compiled.output_dir / "program.py").read_text()
    out = np.zeros_like(A)
    compiled(A, B, out)
    np.testing.assert_allclose(out, A + B, rtol=1e-6)
    again = CompiledProgram.from_dir(compiled.output_dir)
    assert again.program is None and again.param_names == ["a", "b", "out"]
    out2 = np.zeros_like(A)
    again(A, B, out2)
    np.testing.assert_array_equal(out2, out)
    np.testing.assert_allclose(compiled(A, B), A + B, rtol=1e-6)  # return-style: the Out array is made
    with pytest.raises(TilefoldError, match="takes 3 argument"):
        compiled(A)


def test_from_dir_of_a_non_artefact_directory(tmp_path):
    with pytest.raises(TilefoldError, match="not a tilefold artefact directory"):
        CompiledProgram.from_dir(tmp_path)


# ---------------------------------------------------------------- ChipWorker

def test_chip_worker_resident_tensor_and_handle():
    compiled = add.compile(A, B, np.zeros_like(A), config=RunConfig(platform="a2a3sim"))
    with ChipWorker(config=RunConfig(platform="a2a3sim")) as w:
        resident = w.alloc_tensor((64, 128), np.float32, init=B)
        for _ in range(2):
            out = np.zeros_like(A)
            w.run(compiled, A, resident, out)
            np.testing.assert_allclose(out, A + B, rtol=1e-6)
        dev_out = w.alloc_tensor((64, 128), pl.FP32)
        handle = w.register(compiled)
        handle(A, resident, dev_out)
        host = np.zeros_like(A)
        w.copy_from(host, dev_out.data_ptr, dev_out.nbytes)
        np.testing.assert_allclose(host, A + B, rtol=1e-6)
        w.free_tensor(resident)
        with pytest.raises(TilefoldError, match="was freed"):
            w.run(compiled, A, resident, out)
        with ChipWorker(config=RunConfig(platform="a2a3sim")) as other, \
                pytest.raises(TilefoldError, match="belongs to another ChipWorker"):
            other.run(compiled, A, dev_out, out)
    with pytest.raises(TilefoldError, match="closed"):
        w.alloc_tensor((1,), np.float32)


def test_chip_worker_refuses_another_platform():
    compiled = add.compile(A, B, np.zeros_like(A), config=RunConfig(platform="a2a3sim"))
    with pytest.raises(TilefoldError, match="compiled for Ascend910B"):
        ChipWorker(config=RunConfig(platform="a5sim")).register(compiled)


def test_benchmark_reports_the_simulated_time():
    compiled = add.compile(A, B, np.zeros_like(A))
    out = np.zeros_like(A)
    stats = benchmark(compiled, [A, B, out], rounds=3, warmup=1, platform="a2a3sim")
    assert len(stats.samples) == 3 and not stats.all_zero_device
    assert stats.device_wall_us_median == stats.device_us_min > 0  # deterministic simulator
    np.testing.assert_allclose(out, A + B, rtol=1e-6)
    with pytest.raises(NotSupportedError, match="span tree"):
        stats.print_tree(launch=0)
    with pytest.raises(TilefoldError, match="not both"):
        benchmark(compiled, [A, B, out], platform="a2a3", config=RunConfig())


@pytest.mark.parametrize("name", ["DistributedWorker", "write_golden"])
def test_unsupported_runtime_names_fail_clearly(name):
    import tilefold.runtime as rt

    with pytest.raises(NotSupportedError, match=f"tilefold.runtime.{name} is not supported"):
        getattr(rt, name)


def test_debug_names_fail_clearly():
    with pytest.raises(NotSupportedError, match="tilefold.debug.torch_codegen") as info:
        from tilefold.debug import torch_codegen  # noqa: F401
    assert "tilefold.golden.run_program" in info.value.hint


def test_distributed_config_is_not_supported():
    with pytest.raises(NotSupportedError, match="distributed_config"):
        RunConfig(platform="a2a3", distributed_config=object())


@pl.jit
def explicit_edge(a: pl.Tensor[[64, 128], pl.FP32], b: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
                  out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first:
        b[:] = pl.exp(a)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="second", deps=[first]):
        out[:] = pl.add(a, a)  # shares no written buffer with `first`: only the declared edge orders them
    return b, out


def test_dep_gen_lists_declared_edges(tmp_path):
    b, out = np.zeros_like(A), np.zeros_like(A)
    explicit_edge(A, b, out, config=RunConfig(work_dir=str(tmp_path), enable_dep_gen=True))
    deps = json.loads((tmp_path / "dfx_outputs" / "deps.json").read_text())
    assert deps["tasks"][0]["task_id"] == "first"
    assert {"from": 0, "to": 1, "tensor": None, "kind": "explicit"} in deps["edges"]
    assert not [e for e in deps["edges"] if e["kind"] != "explicit"]  # no shared buffer: no derived edge
    np.testing.assert_allclose(out, 2 * A, rtol=1e-6)
