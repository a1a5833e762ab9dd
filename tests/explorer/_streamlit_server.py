"""A real ``streamlit run explorer/app.py`` server for the browser tests, and Debian's Chromium to drive it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]


def require_chromium() -> None:
    """Skip without Chromium, except in CI, where the browser tests must run."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; the browser tests must run in CI")
        pytest.skip(f"{CHROMIUM} is not installed")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_server(url: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not answer within a minute")


@dataclass(frozen=True)
class ServerDiagnosis:
    """What a test shows when it gives up waiting on the server: its log and the stacks of its threads."""

    process: subprocess.Popen
    log_path: Path

    def report(self, tail_chars: int = 12_000) -> str:
        """Ends the server with SIGABRT, after which Python's fault handler writes every thread's stack to the log.

        Only for a test that is failing anyway: the server does not serve afterwards.
        """
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=15)
        text = self.log_path.read_text(errors="replace")
        heading = f"--- the server's log (last {tail_chars} characters), with its threads' stacks ---"
        return f"{heading}\n{text[-tail_chars:]}"


@contextlib.contextmanager
def streamlit_server(env: dict[str, str], log_path: Path, diagnosis: list | None = None) -> Iterator[str]:
    """Start the app with ``env``, wait until it answers, yield its URL, stop it afterwards.

    The server runs with Python's fault handler on; ``diagnosis``, a list, receives a
    :class:`ServerDiagnosis` for a test that wants the server's stacks when it fails.
    """
    require_chromium()
    port = _free_port()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", "-m", "streamlit", "run", "explorer/app.py",
             "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        if diagnosis is not None:
            diagnosis.append(ServerDiagnosis(process, log_path))
        try:
            _wait_for_server(url, process)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
