"""The Data page says which encoding an upload was decoded with and lets the user choose another (issue 15).

Also: the size an uploaded archive may expand to is the engine's one setting,
``SVI_TOPICS_MAX_EXPANDED_MB`` (``engine.current_limits``), not a second default of the explorer's.
"""

from __future__ import annotations

import pytest

import engine
from explorer import uploads
from explorer.state import Keys
from tests.reliability import _explorer_app as app

FRENCH = "Le château près de la forêt: une crème brûlée délicieuse, déjà goûtée à Noël, très célèbre."


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    yield from app.private_home(tmp_path, monkeypatch)


def _upload(at, files) -> None:
    app.page(at, "data")
    at.radio(key=Keys.source_kind).set_value("upload").run()
    uploader = at.file_uploader(key=Keys.uploader)
    for name, data in files:
        uploader.upload(name, data)
    at.run()
    assert not at.exception, at.exception


def _notes(at) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("Decoded as")]


def _vocabulary(at) -> tuple[str, ...]:
    return at.session_state[Keys.collection].corpus.vocabulary


def test_the_assumed_encoding_is_shown_and_another_can_be_chosen():
    at = app.app()
    files = [(f"fr{i}.txt", f"{FRENCH} Chapitre {i}.".encode("cp1252")) for i in range(3)]
    _upload(at, files)
    assert _notes(at) == ["Decoded as windows-1252 (detected)."]
    assert "château" in _vocabulary(at)  # decoded right, accents kept: the text is French
    at.selectbox(key=Keys.encoding).set_value("windows-1251").run()  # as if the files were Cyrillic
    assert not at.exception, at.exception
    assert _notes(at) == ["Decoded as windows-1251 (chosen)."]
    assert "chвteau" in _vocabulary(at) and "château" not in _vocabulary(at)  # the files were read again
    at.selectbox(key=Keys.encoding).set_value("").run()  # back to detection
    assert _notes(at) == ["Decoded as windows-1252 (detected)."] and "château" in _vocabulary(at)


def test_files_in_different_encodings_are_named_per_file():
    at = app.app()
    files = [("a.txt", FRENCH.encode("utf-8")), ("b.txt", FRENCH.encode("utf-8")),
             ("c.txt", FRENCH.encode("cp1252"))]
    _upload(at, files)
    assert _notes(at) == ["Decoded as utf-8 (2 files) and windows-1252 (1 file: c.txt) (detected per file)."]


def test_a_chosen_encoding_that_does_not_fit_says_so_and_keeps_the_collection():
    at = app.app()
    _upload(at, [("fr.txt", FRENCH.encode("cp1252")), ("en.txt", b"plain english words here")])
    before = at.session_state[Keys.collection].key
    at.selectbox(key=Keys.encoding).set_value("utf-8").run()
    assert not at.exception, at.exception
    [error] = [e.value for e in at.error]
    assert "'fr.txt' is not valid utf-8: byte 0xe2 at offset 5 (line 1)" in error
    assert error.endswith("The collection in use has not changed.")
    assert at.session_state[Keys.collection].key == before


def test_a_table_is_read_whole_in_the_encoding_of_its_preview():
    at = app.app()
    rows = ["title,text"] + [f'"t{i}","{FRENCH} {i}"' for i in range(4)]
    _upload(at, [("french.csv", "\n".join(rows).encode("cp1252"))])
    assert _notes(at) == ["Decoded as windows-1252 (detected)."]
    assert "château" in _vocabulary(at)  # the rows, not only the preview, were decoded as windows-1252
    at.selectbox(key=Keys.encoding).set_value("windows-1251").run()
    assert _notes(at) == ["Decoded as windows-1251 (chosen)."] and "chвteau" in _vocabulary(at)


def test_new_files_are_detected_again():
    at = app.app()
    _upload(at, [("fr.txt", FRENCH.encode("cp1252"))])
    at.selectbox(key=Keys.encoding).set_value("windows-1251").run()
    at.file_uploader(key=Keys.uploader).clear().upload("de.txt", "Größe und Übergröße, schön".encode()).run()
    assert not at.exception, at.exception
    assert _notes(at) == ["Decoded as utf-8 (detected)."]
    assert at.selectbox(key=Keys.encoding).value == ""


def test_the_expanded_size_limit_is_the_engines_one_setting(monkeypatch):
    monkeypatch.delenv("SVI_TOPICS_MAX_EXPANDED_MB", raising=False)
    assert uploads.UploadLimits.from_env().max_expanded_bytes == engine.current_limits().max_expanded_bytes
    assert uploads.UploadLimits().max_expanded_bytes == 1_000_000_000  # the engine's default, 1000 MB
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "2.5")
    assert uploads.UploadLimits.from_env().max_expanded_bytes == 2_500_000
    monkeypatch.setenv("SVI_TOPICS_MAX_EXPANDED_MB", "lots")
    with pytest.raises(ValueError, match="SVI_TOPICS_MAX_EXPANDED_MB must be a positive number, got 'lots'"):
        uploads.UploadLimits.from_env()
