"""Per-session isolation (issue 15): a browser session never lists, opens or reads another's runs and documents.

Every session works in a workspace named by a secret token kept in the page address;
on disk it is a folder named by a hash of the token.  Two AppTest sessions stand for two
people on one server: the second sees none of the first's checkpoints on the Export
page and the storage functions of its workspace find nothing of the first's, while the
first person, coming back with their token (a bookmark, after a restart), finds them all.
"""

from __future__ import annotations

import pytest
import streamlit as st

from explorer import porting, storage, workspace
from explorer.state import Keys
from explorer.workspace import Workspace
from tests.reliability import _explorer_app as ui

SECRET = "zanzibarite"  # a word only the first person's documents hold


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    yield from ui.private_home(tmp_path, monkeypatch)


def _upload_private_documents(at) -> None:
    ui.page(at, "data")
    at.radio(key=Keys.source_kind).set_value("upload").run()
    uploader = at.file_uploader(key=Keys.uploader)
    for i in range(12):
        phrase = ["harbour ship cargo crane", "orchard apple pear harvest", f"{SECRET} ledger audit"][i % 3]
        words = " ".join([phrase] * 3)
        uploader.upload(f"private-{i}.txt", words.encode())
    at.run()
    assert not at.exception, at.exception
    assert SECRET in at.session_state[Keys.collection].corpus.vocabulary


def _token(at) -> str:
    token = at.query_params[workspace.QUERY_PARAMETER]
    assert workspace.valid_token(token)
    return token


def _listed(at) -> list[str]:
    """The run names the Export page lists (its table), or [] when it says there is none."""
    ui.page(at, "export")
    tables = [d.value for d in at.dataframe if "Run" in d.value.columns]
    if not tables:
        assert any(c.value == "No checkpoint yet." for c in at.caption)
        assert Keys.checkpoint not in [w.key for w in at.selectbox]  # nothing to open, resume or delete
        return []
    return [name.removesuffix(" (training now)") for name in tables[0]["Run"]]


def test_a_second_session_can_neither_list_nor_open_nor_read_the_first_ones_runs(home):
    first = ui.app()
    _upload_private_documents(first)
    record = ui.train_to_the_end(first)
    first_token = _token(first)
    collection_key = record.collection.key
    assert _listed(first) == [record.name]

    second = ui.app()  # another person, at the same time, on the same server
    second_token = _token(second)
    assert second_token != first_token
    assert _listed(second) == []  # the Export page lists nothing of the first session's

    # the storage functions, in the second session's workspace, find nothing of the first's
    theirs = Workspace.of_token(second_token, home)
    mine = Workspace.of_token(first_token, home)
    assert storage.list_checkpoints(theirs) == []
    assert storage.load_collection(collection_key, theirs) is None
    assert not storage.checkpoint_path(record.run_id, theirs).exists()
    assert storage.read_record(record.run_id, theirs) is None
    assert [c.run_id for c in storage.list_checkpoints(mine)] == [record.run_id]
    assert SECRET in storage.load_collection(collection_key, mine).corpus.vocabulary

    # the first person's model file names their collection's key: loaded in the second session, it
    # does not bring the first person's documents along (they are in another workspace)
    ui.upload_model(second, "shared-by-a-colleague.npz", porting.model_bytes(record)())
    loaded = ui.runs(second).latest()
    assert loaded.collection is None
    assert any("Its documents are not here" in s.value for s in second.success)
    ui.page(second, "documents")
    assert any("are not available here" in i.value for i in second.info)
    assert all(SECRET not in str(element.value) for element in [*second.markdown, *second.caption, *second.html])

    # on disk: one folder per workspace, named by a hash; the token is written nowhere
    folders = sorted(p.name for p in (home / "workspaces").iterdir())
    assert folders == sorted([mine.folder.name, theirs.folder.name])
    for path in home.rglob("*"):
        assert first_token not in path.name and second_token not in path.name
        if path.is_file():
            data = path.read_bytes()
            assert first_token.encode() not in data and second_token.encode() not in data
    assert not (home / "checkpoints").exists()  # nothing in the flat layout of earlier versions
    assert (mine.folder.stat().st_mode & 0o077) == 0  # the server's user only


def test_the_token_in_the_address_brings_a_person_back_to_their_runs(home):
    first = ui.app()
    record = ui.train_to_the_end(first)
    token = _token(first)
    ui.page(first, "topics")
    assert _token(first) == token  # page navigation keeps the token in the address

    st.cache_resource.clear()  # a restart: the server's memory goes (the runs stop), the disk stays
    back = ui.app(token)  # a reload, a bookmark, or the server restarted
    assert _token(back) == token
    assert _listed(back) == [record.name]
    back.button(key=Keys.checkpoint_open).click().run()
    assert not back.exception, back.exception
    opened = ui.runs(back).latest()
    assert opened.name == f"{record.name} (checkpoint)" and opened.collection is not None


@pytest.mark.parametrize("bad", ["../../etc", "x" * 23, "short", "a b c d e f g h i j k l", "é" * 22])
def test_a_malformed_token_is_refused_and_a_new_workspace_made(home, bad):
    at = ui.app(bad)
    token = _token(at)
    assert token != bad
    assert any("The workspace in this page's address is not valid" in w.value for w in at.sidebar.warning)
    assert not any(bad in str(p) for p in home.rglob("*"))


def test_the_shared_desktop_mode_lists_every_run_and_the_old_flat_layout(home, monkeypatch):
    monkeypatch.setenv(workspace.MODE_VARIABLE, "shared")
    first = ui.app()
    record = ui.train_to_the_end(first)
    assert workspace.QUERY_PARAMETER not in first.query_params  # no token: one person, one workspace
    assert (home / "checkpoints" / f"{record.run_id}.npz").exists()  # the flat layout of earlier versions
    assert _listed(ui.app()) == [record.name]  # a later session (another day) sees it
    assert any("shared (desktop mode)" in c.value for c in first.sidebar.caption)

    monkeypatch.setenv(workspace.MODE_VARIABLE, "isolated")  # the default: the flat layout is not listed
    assert _listed(ui.app()) == []
