"""Path confinement (issue 15): nothing read from a file or an upload becomes a path outside the workspace.

A model file names the collection it was trained on by a key; a crafted file that
names ``../../../../../tmp/somewhere`` used to make the app load a collection from
there.  Keys must now be 16 hexadecimal digits and every path is resolved and checked
to lie inside the workspace before anything is read.
"""

from __future__ import annotations

import json
import os

import pytest

from engine.data.corpus import Corpus
from explorer import model_extra, porting, storage
from explorer.workspace import UnsafePathError, Workspace, check_collection_key, check_run_id, confined
from tests.reliability import _explorer_app as ui

WORDS = ["harbour", "ship", "cargo", "crane", "orchard", "apple"]
TRAVERSAL = "../../../../../tmp/somewhere"
HOME = "a/b/c/svi-home"  # so that the traversal from <home>/corpora lands in the test's tmp_path


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    yield from ui.private_home(tmp_path, monkeypatch, HOME)


@pytest.fixture
def planted_outside(tmp_path, monkeypatch):
    """A real collection where the traversal key leads from the workspace's corpora folder, and a spy on reads."""
    workspace = Workspace.shared_at(tmp_path / HOME)
    target = (workspace.corpora / TRAVERSAL).resolve()
    assert target == tmp_path / "tmp" / "somewhere"
    Corpus.from_texts([" ".join(WORDS)] * 5).save(target)
    target.with_suffix(".json").write_text(json.dumps({"name": "planted", "origin": ""}))
    reads = []
    real_load = Corpus.load.__func__

    def spy(cls, folder, *args, **kwargs):
        reads.append(os.fspath(folder))
        return real_load(cls, folder, *args, **kwargs)

    monkeypatch.setattr(Corpus, "load", classmethod(spy))
    assert Corpus.load(target).n_words == len(WORDS) and reads == [os.fspath(target)]  # the spy sees reads
    reads.clear()
    return reads


def _crafted(tmp_path, key: object = TRAVERSAL) -> bytes:
    return ui.model_file(tmp_path / "crafted.npz", WORDS, explorer={"collection_key": key,
                                                                    "collection_name": "somewhere"})


def test_a_model_file_with_a_traversal_key_is_refused_and_nothing_outside_is_read(tmp_path, planted_outside):
    with pytest.raises(model_extra.ExplorerSettingsError,
                       match=r"collection_key must be 16 hexadecimal digits \(a collection's key\), "
                             r"got '\.\./\.\./\.\./\.\./\.\./tmp/somewhere'; the file was not loaded"):
        porting.import_model("crafted.npz", _crafted(tmp_path))
    assert planted_outside == []  # Corpus.load was never called


def test_the_export_page_refuses_the_crafted_file_with_one_sentence(tmp_path, planted_outside):
    at = ui.app()
    before = len(ui.runs(at))
    ui.upload_model(at, "crafted.npz", _crafted(tmp_path))
    [error] = at.error
    assert "collection\\_key must be 16 hexadecimal digits" in error.value  # Markdown-escaped '_'
    assert "the file was not loaded" in error.value
    assert len(ui.runs(at)) == before and planted_outside == []


@pytest.mark.parametrize("key", ["/etc", "..", "0123456789abcdef/..", "0123456789ABCDEF", "0123456789abcde",
                                 "0123456789abcdef0", 1234, ["0123456789abcdef"]])
def test_collection_keys_must_be_sixteen_hex_digits(key, tmp_path):
    with pytest.raises(UnsafePathError, match="a collection key is 16 hexadecimal digits"):
        check_collection_key(key)
    with pytest.raises(model_extra.ExplorerSettingsError, match="collection_key must be 16 hexadecimal digits"):
        porting.import_model("crafted.npz", _crafted(tmp_path, key))


@pytest.mark.parametrize("run_id", ["../x", "a/b", "", ".hidden", "x" * 65, "a\x00b", None])
def test_run_ids_that_are_not_plain_names_are_refused(run_id, home):
    with pytest.raises(UnsafePathError, match="a run id is 1 to 64 letters"):
        check_run_id(run_id)
    with pytest.raises(UnsafePathError):
        storage.checkpoint_path(run_id)
    with pytest.raises(UnsafePathError):
        storage.write_record(run_id, {"name": "x"})


def test_storage_refuses_keys_and_links_that_lead_outside_the_workspace(tmp_path, home, planted_outside):
    workspace = Workspace.shared_at(home)
    with pytest.raises(UnsafePathError, match="a collection key is 16 hexadecimal digits"):
        storage.load_collection(TRAVERSAL, workspace)
    # a link inside the workspace that points outside it is not followed
    outside = tmp_path / "outside"
    outside.mkdir()
    Corpus.from_texts([" ".join(WORDS)] * 5).save(outside / "corpus")
    (workspace.make(workspace.corpora) / "0123456789abcdef").symlink_to(outside / "corpus")
    with pytest.raises(UnsafePathError, match="would lead outside the workspace"):
        storage.load_collection("0123456789abcdef", workspace)
    assert planted_outside == []
    with pytest.raises(UnsafePathError):
        confined(home / ".." / "elsewhere", home)


def test_checkpoints_that_are_links_or_name_a_traversal_key_are_not_used(tmp_path, home):
    workspace = Workspace.shared_at(home)
    folder = storage.checkpoint_dir(workspace)
    secret = tmp_path / "secret.npz"
    secret.write_bytes(_crafted(tmp_path, None))
    (folder / "linked.npz").symlink_to(secret)
    storage.write_record("linked", {"name": "linked"}, workspace)
    (folder / "crafted.npz").write_bytes(_crafted(tmp_path, None))
    storage.write_record("crafted", {"name": "crafted", "collection_key": TRAVERSAL}, workspace)
    [info] = storage.list_checkpoints(workspace)  # the link is not listed
    assert info.run_id == "crafted" and info.collection_key == ""  # the traversal key is dropped
    with pytest.raises(FileNotFoundError, match="no longer stored in this workspace"):
        porting.checkpoint_action("resume", info)
