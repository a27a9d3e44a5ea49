"""The README's @pl.jit quickstart runs as written and checks itself."""

import runpy
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_quickstart_runs(tmp_path, capsys):
    section = README.read_text().split("## Quickstart")[1]
    code = section.split("```python")[1].split("```")[0]
    script = tmp_path / "quickstart.py"
    script.write_text(code)
    runpy.run_path(str(script), run_name="__main__")
    assert "pl.range(" in capsys.readouterr().out  # the printed tile program loops over row blocks
