"""Runs on a Dask scheduler from the app: the setting, its environment default, the run list.

One LocalCluster of two single-threaded worker processes serves the module.
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from engine.inference.distributed import connect as connect_cluster
from engine.inference.distributed import local_cluster
from explorer import runs, tables
from explorer.state import Keys

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def address():
    with (
        local_cluster(2) as cluster,  # as "local:2" starts
        distributed.Client(cluster),
    ):
        yield cluster.scheduler_address
        runs.close_clients()


def _settings(**changes) -> runs.RunSettings:
    return dataclasses.replace(runs.RunSettings(n_topics=4, batch_size=32, n_test=30, target_docs=320), **changes)


def test_a_run_trains_on_the_scheduler_of_its_settings_like_here(collection, address, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_DASK_SCHEDULER", address)  # the operator's choice, allowed on a shared server
    here = runs.create_run(collection, _settings(), "here", checkpoint=False, one_kernel=True)
    there = runs.create_run(collection, _settings(scheduler=address), "there", checkpoint=False, one_kernel=True)
    assert here.run.trainer.cluster is None and there.run.trainer.cluster.address == address
    for record in (here, there):
        record.run.start()
        assert record.run.wait(timeout=60) and record.snapshot().error is None
    np.testing.assert_allclose(there.run.model.lambda_, here.run.model.lambda_, rtol=1e-10, atol=0)
    table = tables.run_table([here, there], lambda record: record.status)
    assert table[tables.WHERE_COLUMN].tolist() == ["this server", f"Dask {address}"]


def _train_page(app_path) -> AppTest:
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    at.switch_page("views/train.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_shared_server_offers_only_here_and_the_operators_scheduler(app_path, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_DASK_SCHEDULER", " tcp://127.0.0.1:8786 ")
    assert runs.default_scheduler() == "tcp://127.0.0.1:8786"
    at = _train_page(app_path)
    box = at.selectbox(key=Keys.scheduler)
    assert box.options == ["this server", "Dask tcp://127.0.0.1:8786"]
    assert box.value == "tcp://127.0.0.1:8786"
    assert not [field for field in at.text_input if field.key == Keys.scheduler]  # no free text
    box.set_value("").run()
    assert not at.exception, at.exception
    assert at.selectbox(key=Keys.scheduler).value == ""


def test_a_shared_server_without_a_scheduler_offers_this_server_only(app_path):
    at = _train_page(app_path)
    assert at.selectbox(key=Keys.scheduler).options == ["this server"]


def test_the_desktop_mode_takes_any_scheduler_starting_from_the_environment(app_path, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_WORKSPACE", "shared")
    monkeypatch.setenv("SVI_TOPICS_DASK_SCHEDULER", " tcp://127.0.0.1:8786 ")
    at = _train_page(app_path)
    assert at.text_input(key=Keys.scheduler).value == "tcp://127.0.0.1:8786"
    at.text_input(key=Keys.scheduler).set_value("local:2").run()
    assert not at.exception, at.exception


def test_the_desktop_mode_trains_on_any_address(collection, address, monkeypatch):
    monkeypatch.setenv("SVI_TOPICS_WORKSPACE", "shared")
    record = runs.create_run(collection, _settings(scheduler=f" {address} "), "there", checkpoint=False)
    assert record.run.trainer.cluster.address == address


def test_a_local_cluster_starts_after_the_app_ran(app_path):
    """Streamlit leaves the app's module as __main__; spawned workers must not re-run the app's script."""
    at = AppTest.from_file(app_path, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert sys.modules["__main__"].__file__.endswith("app.py")  # what a spawned process would re-run
    client = connect_cluster("local:1")
    try:
        assert client.submit(sum, [1, 2], pure=False).result(timeout=60) == 3
    finally:
        cluster = client.cluster
        client.close()
        cluster.close()
