"""A Corpus saved as a folder: ``counts.npz`` (the CSR arrays, no pickle) and ``corpus.json``.

Plain arrays and dictionaries in and out, so that :class:`engine.data.corpus.Corpus`
(which builds itself from them) is the only module that knows the class.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from engine.errors import CorpusFormatError, LimitExceededError
from engine.limits import current_limits

_FORMAT, _VERSION = "engine-corpus", 1


def write_folder(folder: str | os.PathLike, counts: sp.csr_matrix, meta: dict[str, Any]) -> Path:
    """Write ``counts`` and ``meta`` to ``folder`` atomically, replacing a corpus saved there before.

    Any other non-empty folder (or a file) is refused with ``FileExistsError``.
    """
    target = Path(folder)
    if target.is_file() or (target.exists() and any(target.iterdir()) and not (target / "corpus.json").exists()):
        raise FileExistsError(f"{str(target)!r} exists and is not a saved corpus; choose another folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        np.savez(tmp / "counts.npz", data=counts.data, indices=counts.indices, indptr=counts.indptr,
                 shape=np.array(counts.shape, dtype=np.int64))
        (tmp / "corpus.json").write_text(json.dumps({"format": _FORMAT, "version": _VERSION, **meta},
                                                    ensure_ascii=False), encoding="utf-8")
        if target.exists():  # swap: the old folder out of the way, the new one in
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.replace(target, old / "corpus")
            os.replace(tmp, target)
            shutil.rmtree(old)
        else:
            os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def read_folder(folder: str | os.PathLike) -> tuple[sp.csr_matrix, dict[str, Any]]:
    """The counts and the metadata written by :func:`write_folder`; damaged folders raise CorpusFormatError."""
    folder = Path(folder)
    try:
        _check_declared_arrays(folder / "counts.npz", str(folder))
        meta = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
        with np.load(folder / "counts.npz", allow_pickle=False) as arrays:
            shape = tuple(int(n) for n in arrays["shape"])
            counts = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
    except FileNotFoundError as exc:
        raise CorpusFormatError(f"{str(folder)!r} is not a saved corpus: {exc.filename} is missing") from None
    except LimitExceededError:
        raise
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as exc:
        raise CorpusFormatError(f"{str(folder)!r} holds a damaged corpus ({exc}); save it again") from None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT or meta.get("version") != _VERSION:
        raise CorpusFormatError(f"{str(folder)!r}: corpus.json is not a version-{_VERSION} saved corpus")
    return counts, meta


def _check_declared_arrays(path: Path, label: str) -> None:
    """Check the shapes the ``.npy`` headers inside ``counts.npz`` declare, before NumPy allocates them.

    Each array's length is held to its limit (``max_entries`` for data and indices,
    ``max_documents`` for the row offsets) and to the bytes its archive entry
    declares; the entries together to ``max_expanded_mb``.
    """
    limits = current_limits()
    bounds = {"data": limits.max_entries, "indices": limits.max_entries, "indptr": limits.max_documents + 1,
              "shape": 2}
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        expanded = sum(info.file_size for info in infos)
        limits.check("max_expanded_bytes", expanded, f"the expanded size of {path.name} in {label!r}")
        for info in infos:
            key = info.filename.removesuffix(".npy")
            if key not in bounds:
                continue
            with archive.open(info) as member:
                version = np.lib.format.read_magic(member)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(member)
            length = math.prod(shape)
            if length > bounds[key]:
                raise LimitExceededError(
                    f"{label!r}: {info.filename} in {path.name} declares {length:,} values, more than a corpus "
                    f"within the limits holds ({bounds[key]:,}; set by SVI_TOPICS_MAX_ENTRIES and "
                    "SVI_TOPICS_MAX_DOCUMENTS); if the corpus is genuine, raise them")
            if dtype.hasobject or length * dtype.itemsize > info.file_size:
                raise CorpusFormatError(f"{label!r}: {info.filename} in {path.name} declares more data than it "
                                        "holds; the corpus is damaged: save it again")
