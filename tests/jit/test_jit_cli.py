"""`tilefold run FILE.py` on a file of @pl.jit kernels."""

from pathlib import Path

from tilefold import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "jit"


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_a_fully_annotated_kernel(capsys):
    code, out, _ = run(["run", EXAMPLES / "elementwise.py", "--kernel", "add"], capsys)
    assert code == 0 and "MATCH" in out and "@pl.jit" in out


def test_run_a_bare_kernel_with_shapes(capsys):
    code, out, _ = run(["run", EXAMPLES / "softmax.py", "--kernel", "softmax", "--shape", "a=256x128",
                        "--shape", "out=256x128"], capsys)
    assert code == 0 and "MATCH" in out


def test_several_entries_need_kernel_and_bad_shapes_are_errors(capsys):
    code, _, err = run(["run", EXAMPLES / "softmax.py"], capsys)
    assert code != 0 and "expected one @pl.jit entry, found 2" in err and "--kernel" in err
    code, _, err = run(["run", EXAMPLES / "softmax.py", "--kernel", "softmax", "--shape", "a=0x4"], capsys)
    assert code != 0 and "--shape expects NAME=D0xD1[:dtype]" in err
    code, _, err = run(["run", EXAMPLES / "softmax.py", "--kernel", "softmax", "--shape", "b=4x4"], capsys)
    assert code != 0 and "no parameter(s) ['b']" in err


def test_tuple_module_constants_in_text_mode(capsys):
    # elementwise.py writes `ROWS, COLS, TILE_ROWS = 512, 128, 128`; text mode folds it like decorator mode
    code, out, _ = run(["run", EXAMPLES / "elementwise.py", "--kernel", "add_chunked"], capsys)
    assert code == 0 and "MATCH" in out
