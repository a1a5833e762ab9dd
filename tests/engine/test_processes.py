"""Child processes import this installation's engine and explorer, not same-named folders where they start."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import engine
import explorer
from engine.processes import HOME, python_command


def _decoys(folder: Path) -> None:
    for name in ("engine", "explorer"):
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text("raise ImportError('the decoy was imported')\n")


def test_a_child_started_in_a_folder_of_decoys_imports_ours(tmp_path):
    _decoys(tmp_path)
    probe = "import json, sys, engine, explorer; print(json.dumps([engine.__file__, explorer.__file__, sys.argv]))"
    done = subprocess.run(python_command(probe, "one", "two"), cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    engine_file, explorer_file, argv = json.loads(done.stdout)
    assert Path(engine_file) == Path(engine.__file__).resolve()
    assert Path(explorer_file) == Path(explorer.__file__).resolve()
    assert argv == ["-c", "one", "two"]


def test_the_home_is_the_folder_holding_the_engine_package():
    assert Path(HOME) == Path(engine.__file__).resolve().parents[1]
