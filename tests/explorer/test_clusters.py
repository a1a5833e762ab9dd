"""Where runs may train (explorer/clusters.py): the operator's choice on a shared server, one client per cluster.

Fake clients stand for Dask's here (no cluster starts); tests/explorer/test_dask_runs.py trains on a real one.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest

from explorer import clusters, runs, workspace

EVIL = "tcp://attacker.example:8786"


class FakeClient:
    def __init__(self, address: str) -> None:
        self.address, self.status, self.closed = address, "running", False

    def close(self) -> None:
        self.closed, self.status = True, "closed"


@pytest.fixture
def connects(monkeypatch):
    """Every address connected, in order; connecting makes a FakeClient."""
    made: list[str] = []

    def connect(address):
        made.append(address)
        return FakeClient(address)

    monkeypatch.setattr(clusters, "connect_cluster", connect)
    yield made
    clusters.close_clients()


def _settings(**changes) -> runs.RunSettings:
    return dataclasses.replace(runs.RunSettings(n_topics=4, batch_size=32, n_test=30, target_docs=320), **changes)


@pytest.mark.parametrize("address", [EVIL, "local:1", "local:2", "tcp://127.0.0.1:8787"])
def test_a_shared_server_refuses_any_scheduler_but_its_operators(collection, connects, monkeypatch, address):
    monkeypatch.setenv("SVI_TOPICS_DASK_SCHEDULER", "tcp://127.0.0.1:8786")
    assert workspace.mode() == workspace.ISOLATED
    assert clusters.allowed() == ("", "tcp://127.0.0.1:8786")
    with pytest.raises(clusters.SchedulerNotAllowedError, match=r"SVI_TOPICS_DASK_SCHEDULER.*SVI_TOPICS_WORKSPACE"):
        runs.create_run(collection, _settings(scheduler=address), "bypass", checkpoint=False)  # no page involved
    assert connects == []


def test_a_shared_server_without_a_scheduler_trains_here_only(collection, connects):
    assert clusters.allowed() == ("",)
    assert runs.create_run(collection, _settings(), "here", checkpoint=False).run.trainer.cluster is None
    with pytest.raises(clusters.SchedulerNotAllowedError, match="unset"):
        runs.create_run(collection, _settings(scheduler="local:1"), "local", checkpoint=False)
    assert connects == []


def test_the_operators_local_cluster_is_allowed_in_any_spelling(connects, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_DASK_SCHEDULER", "local:01")
    assert clusters.allowed() == ("", "local:1")
    assert clusters.client(clusters.check(" local:001 ")) is clusters.client(clusters.check("local:1"))
    assert connects == ["local:1"]


def test_the_desktop_mode_allows_any_scheduler_and_local_spellings_share_one_client(connects, monkeypatch):
    monkeypatch.setenv(workspace.MODE_VARIABLE, "shared")
    assert clusters.allowed() is None
    first = clusters.client(clusters.check("local:01"))
    assert clusters.client(clusters.check("local:1")) is first
    assert clusters.client(clusters.check(EVIL)).address == EVIL
    assert connects == ["local:1", EVIL]


@pytest.mark.parametrize("address", ["local:100000", "local:0", "local:", "local:two", "local:-1"])
def test_a_local_cluster_beyond_the_cpus_or_malformed_is_refused(connects, monkeypatch, address):
    monkeypatch.setenv(workspace.MODE_VARIABLE, "shared")
    with pytest.raises(ValueError, match=r"'local:N' with N in \[1, \d+\]"):
        clusters.check(address)
    assert connects == []


def test_a_client_whose_scheduler_has_gone_is_replaced(connects, monkeypatch):
    monkeypatch.setenv(workspace.MODE_VARIABLE, "shared")
    first = clusters.client("tcp://a:1")
    first.status = "closed"  # the scheduler went away
    second = clusters.client("tcp://a:1")
    assert second is not first and second.status == "running" and first.closed
    assert connects == ["tcp://a:1", "tcp://a:1"]


def test_a_failed_connection_is_retried_by_the_next_run(monkeypatch):
    attempts = []

    def connect(address):
        attempts.append(address)
        if len(attempts) == 1:
            raise OSError("scheduler not up yet")
        return FakeClient(address)

    monkeypatch.setattr(clusters, "connect_cluster", connect)
    with pytest.raises(OSError, match="not up yet"):
        clusters.client("tcp://a:1")
    assert clusters.client("tcp://a:1").address == "tcp://a:1"
    clusters.close_clients()


def test_a_slow_connection_blocks_neither_other_schedulers_nor_runs_here(collection, monkeypatch):
    """Sessions asking for one scheduler share one attempt; everything else goes on meanwhile."""
    release, started, attempts = threading.Event(), threading.Event(), []

    def connect(address):
        attempts.append(address)
        if address == "tcp://slow:1":
            started.set()
            assert release.wait(10)
        return FakeClient(address)

    monkeypatch.setattr(clusters, "connect_cluster", connect)
    got = []
    waiting = [threading.Thread(target=lambda: got.append(clusters.client("tcp://slow:1"))) for _ in range(2)]
    for thread in waiting:
        thread.start()
    try:
        assert started.wait(10)
        assert clusters.client("tcp://fast:1").address == "tcp://fast:1"  # not behind the slow one
        assert runs.create_run(collection, _settings(), "here", checkpoint=False).run.trainer.cluster is None
    finally:
        release.set()
        for thread in waiting:
            thread.join(10)
    assert len(got) == 2 and got[0] is got[1]
    assert attempts.count("tcp://slow:1") == 1
    clusters.close_clients()


def test_close_clients_closes_them_all(connects, monkeypatch):
    monkeypatch.setenv(workspace.MODE_VARIABLE, "shared")
    opened = [clusters.client(address) for address in ("tcp://a:1", "local:1")]
    clusters.close_clients()
    assert all(client.closed for client in opened)
    assert clusters._clients == {}
