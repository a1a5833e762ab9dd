"""A stand-in for the process's kernel warm-up, whose status the test sets (engine and explorer tests)."""

from __future__ import annotations

import threading

import pytest

from engine.inference import warmup


class FakeWarmUp:
    """Answers like :class:`engine.inference.warmup.KernelWarmUp`, with one status for every workload.

    ``ready_after``: the status turns "ready" once :meth:`status` was asked that many times
    (a TrainingRun asks once before its first evaluation and once before each step).
    """

    def __init__(self, status: str = "compiling", ready_after: int | None = None):
        self._status = status
        self.ready_after = ready_after
        self.requested: list[warmup.Workload] = []
        self.asked = 0
        self._changed = threading.Condition()

    def set(self, status: str) -> None:
        with self._changed:
            self._status = status
            self._changed.notify_all()

    def request(self, workloads) -> None:
        self.requested.extend(workloads)

    def status(self, workload) -> str:
        with self._changed:
            self.asked += 1
            if self.ready_after is not None and self.asked > self.ready_after:
                self._status = "ready"
            return self._status

    def statuses(self) -> dict:
        return {workload: self._status for workload in self.requested}

    def error(self, workload) -> str | None:
        return "RuntimeError: no compiler here" if self._status == "failed" else None

    @property
    def compiling(self) -> bool:
        return self._status == "compiling"

    def wait(self, workloads=None, timeout=None, until=("ready", "failed", "unavailable")) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._status in until, timeout)


def install(monkeypatch: pytest.MonkeyPatch, fake: FakeWarmUp) -> FakeWarmUp:
    """Make ``engine.inference.warmup.start_warm_up`` hand out ``fake`` for the rest of the test."""
    monkeypatch.setattr(warmup, "_process_warm_up", fake)
    return fake
