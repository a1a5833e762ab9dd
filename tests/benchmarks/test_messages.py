"""benchmarks/messages.py: texts made messages of real posts, and the posts read without unpickling."""

from __future__ import annotations

import importlib.util
import pickle
import zlib
from pathlib import Path

import pytest

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "messages.py"
_SPEC = importlib.util.spec_from_file_location("messages_benchmark", _PATH)
messages_benchmark = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(messages_benchmark)

POSTS = [
    "Path: a!b!c\nFrom: ann@host.edu (Ann)\nSubject: Re: moons\nMessage-ID: <1@host.edu>\nDate: 1 Apr 1993\n\n"
    "Moons orbit planets.\n-- \nAnn, Host University\n",
    "Path: d!e\nFrom: bob@site.com (Bob)\nSubject: rockets\nMessage-ID: <2@site.com>\nDate: 2 Apr 1993\n\n"
    "Rockets burn fuel.\n",
]


def test_texts_become_messages_that_read_back_as_the_texts():
    texts = [f"text {i} about rivers\nand bridges over them\nsecond line {i}" for i in range(40)]
    made = messages_benchmark.as_messages(texts, POSTS, seed=3)
    assert all(engine.is_message(message) for message in made)
    replies = [message for message in made if " writes:\n> " in message]
    signed = [message for message in made if "\n-- \nAnn, Host University" in message]
    assert 8 <= len(replies) <= 32 and 8 <= len(signed) <= 40  # about half and 60 %
    assert any("Message-ID: <2@site.com>" in message for message in made)  # the posts' blocks, in turn
    for text, message in zip(texts, made, strict=True):
        subject = " ".join(text.split()[:6])
        assert f"Subject: {subject}\n" in message
        assert engine.message_text(message) == f"{subject}\n\n{text}"  # quotes, attribution and signature go


def test_the_posts_are_read_from_the_pickles_strings_without_running_it(tmp_path, monkeypatch):
    class Bomb:
        def __reduce__(self):
            return (pytest.fail, ("the benchmark ran the pickle",))

    data = {"data": [*POSTS, "no header here"], "target": [0, 1, 2], "hook": Bomb()}
    folder = tmp_path / "gensim"
    (folder / "test" / "test_data").mkdir(parents=True)
    (folder / "test" / "test_data" / "mini_newsgroup").write_bytes(zlib.compress(pickle.dumps(data, protocol=0)))
    fake = type("module", (), {"__file__": str(folder / "__init__.py")})
    monkeypatch.setitem(__import__("sys").modules, "gensim", fake)
    assert messages_benchmark.newsgroup_posts() == POSTS
