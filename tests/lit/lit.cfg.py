# lit configuration for tilefold's IR-text tests.
#
# Test files are `pl` programs (.py) whose `# RUN:` lines drive `tilefold opt ...` and `filecheck`.
# Both tools are resolved from the Python environment running lit (the venv's bin directory), so
# `lit tests/lit` works without activating the venv.

import os
import re
import sys
import tempfile

import lit.formats

config.name = "tilefold"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".py"]
config.excludes = ["lit.cfg.py", "Output", "__pycache__", "inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"tilefold-lit-{os.getuid() if hasattr(os, 'getuid') else 0}")

bindir = os.path.dirname(os.path.abspath(sys.executable))


def _tool(name: str) -> str:
    path = os.path.join(bindir, name)
    if os.path.exists(path):
        return path
    if name == "tilefold":  # not installed as a script: run the module
        return f"{sys.executable} -m tilefold"
    return name


# `tilefold` / `filecheck` as whole words in RUN lines (not inside paths or module names)
for tool in ("tilefold", "filecheck"):
    config.substitutions.append((r"(?<![\w./-])" + re.escape(tool) + r"(?![\w./-])", _tool(tool)))
config.substitutions.append(("%python", sys.executable))

# the tools also resolve through PATH (e.g. for `not` pipelines spawned by the internal shell)
config.environment["PATH"] = os.pathsep.join([bindir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TMPDIR", "LANG", "LC_ALL"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
