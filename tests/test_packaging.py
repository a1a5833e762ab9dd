"""Packaging (pyproject.toml, setup.py): a wheel installed outside the checkout works whole.

The wheel is built from the checkout and installed into a fresh virtual environment that reuses
the installed dependencies (``--system-site-packages``), then used from a folder outside the
checkout: it carries the MIT licence (file and metadata), ``svi-topics --version`` runs, and
``explorer.samples`` finds the bundled samples and ``svi-topics app`` the bundled Streamlit settings,
and the installed app starts (Streamlit's AppTest) on its bundled sample.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.mark.slow
def test_a_wheel_installed_outside_the_checkout_has_the_samples_and_settings(tmp_path):
    env = {key: value for key, value in os.environ.items()
           if key not in {"PYTHONPATH", "SVI_TOPICS_SAMPLE_DATA", "VIRTUAL_ENV"}}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    wheels = tmp_path / "wheels"
    _run(sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-q", "-w", wheels,
         cwd=tmp_path, env=env)
    (wheel,) = wheels.glob("svi_topics-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        licences = [name for name in archive.namelist() if ".dist-info/" in name and name.endswith("/LICENSE")]
        assert licences, archive.namelist()
        assert "the svi-topics authors" in archive.read(licences[0]).decode()
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata.splitlines() and "License-File: LICENSE" in metadata.splitlines()
    # no pip of its own (ensurepip takes seconds): this pip installs into it (``--python``, pip >= 22.3)
    venv.create(tmp_path / "venv", system_site_packages=True, with_pip=False)
    bin_dir = tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--force-reinstall",
         "-q", wheel, cwd=tmp_path, env=env)

    version = _run(bin_dir / "svi-topics", "--version", cwd=tmp_path, env=env).stdout
    assert version.strip() == f"svi-topics {importlib.metadata.version('svi-topics')}"

    probe = ("import json, explorer, explorer.samples as s, engine.cli as c; "
             "print(json.dumps({'explorer': explorer.__file__, 'root': str(s.sample_root()), "
             "'samples': [x.key for x in s.available_samples()], 'config': str(c._streamlit_config()), "
             "'flags': c.app_command(None, [])}))")
    found = json.loads(_run(python, "-c", probe, cwd=tmp_path, env=env).stdout)
    assert not Path(found["explorer"]).is_relative_to(ROOT), found  # the installed copy, not the checkout
    assert sorted(found["samples"]) == ["jargon", "sotu", "synthetic"], found
    assert Path(found["root"]).parts[-2:] == ("_bundled", "sample_data")
    assert Path(found["config"]).parts[-3:] == ("_bundled", "streamlit", "config.toml")
    assert "--server.fileWatcherType=none" in found["flags"]

    # the installed app starts, outside the checkout, on its bundled State of the Union sample
    app_env = {**env, "SVI_TOPICS_HOME": str(tmp_path / "home"), "SVI_TOPICS_AUTOSTART": "0"}
    app_probe = ("import json, pathlib, explorer; from streamlit.testing.v1 import AppTest; "
                 "at = AppTest.from_file(str(pathlib.Path(explorer.__file__).parent / 'app.py'), default_timeout=120); "
                 "at.run(); "
                 "print(json.dumps({'exceptions': [str(e.value) for e in at.exception], "
                 "'sidebar': ' '.join(str(m.value) for m in [*at.sidebar.markdown, *at.sidebar.caption])}))")
    started = json.loads(_run(python, "-c", app_probe, cwd=tmp_path, env=app_env).stdout.strip().splitlines()[-1])
    assert started["exceptions"] == [], started
    assert "State of the Union" in started["sidebar"], started
