"""Build hook: a wheel carries ``sample_data/`` and ``.streamlit/config.toml`` inside ``explorer/``.

Both stay at the top of the repository (``streamlit run explorer/app.py`` reads the config from
the folder it starts in); building a wheel copies them to ``explorer/_bundled/``, where
``explorer.samples`` and ``svi-topics app`` look when the project is not a checkout.  Editable
installs read them from the checkout, so nothing is copied for them.  Metadata: pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "explorer" / "_bundled"
        shutil.copytree(ROOT / "sample_data", target / "sample_data", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (target / "streamlit").mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / ".streamlit" / "config.toml", target / "streamlit" / "config.toml")


setup(cmdclass={"build_py": BuildPyWithData})
