"""The hostile-input corpus: every file in ``cases/`` is one malformed, hostile or oversized input with its
expected exit code and message fragments in a header comment::

    # exit: 2                       expected exit status of the tilefold command
    # expect: loop step is 0        a fragment the output (stdout + stderr) must contain; repeatable
    # argv: run {file} --set off=0  the command line ({file}: this case, {data}: tests/hostile/data)

Each case runs the CLI in-process. Besides its own fragments, every case must answer without a traceback and
without an internal error (exit 4), and a user error (exit 2) must carry a location or name its input.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilefold import cli

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases").iterdir())


def _header(path: Path) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = re.match(r"#\s*(exit|expect|argv):\s?(.*)$", line)
        if m is None:
            if line.strip() and not line.startswith("#"):
                break
            continue
        fields.setdefault(m.group(1), []).append(m.group(2).rstrip())
    return fields


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_case(case: Path, capsys) -> None:
    fields = _header(case)
    assert "exit" in fields and "argv" in fields, f"{case.name}: header needs '# exit:' and '# argv:'"
    argv = fields["argv"][0].format(file=str(case), data=str(HERE / "data")).split()
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse usage errors and --version
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    text = out + err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    assert code == int(fields["exit"][0]), f"exit {code}, expected {fields['exit'][0]}:\n{text}"
    for fragment in fields.get("expect", []):
        assert fragment in text, f"{fragment!r} not in:\n{text}"
