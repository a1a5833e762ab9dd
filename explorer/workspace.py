"""Workspaces: the part of the disk one person's runs live in, named by a secret token.

No Streamlit here.  On a shared server (a classroom, a research group) every browser
session works in its own *isolated* workspace: a random token (``secrets.token_urlsafe``)
kept in the page's address, so a bookmark or a reload (even after a server restart)
returns to it.  On disk the workspace is ``<home>/workspaces/<sha-256 of the token>/``,
holding that workspace's checkpoints and stored collections; the token itself is never
written anywhere, and nothing lists the workspaces, so a session can only reach the
runs whose token it was given.

``SVI_TOPICS_WORKSPACE=shared`` is the single-user desktop mode: every session uses the
home folder itself (``<home>/checkpoints``, ``<home>/corpora``, the layout of earlier
versions), so one person sees all their past checkpoints after every restart.
Checkpoints saved in that flat layout are seen in this mode only.

Also here: the patterns that names read from files must match before they become part
of a path (:func:`check_run_id`, :func:`check_collection_key`) and :func:`confined`,
which resolves a path and refuses it unless it lies inside a given folder.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from explorer.engine_api import settings

__all__ = [
    "ISOLATED",
    "MODE_VARIABLE",
    "QUERY_PARAMETER",
    "SHARED",
    "UnsafePathError",
    "Workspace",
    "check_collection_key",
    "check_run_id",
    "confined",
    "mode",
    "new_token",
    "valid_token",
]

MODE_VARIABLE = "SVI_TOPICS_WORKSPACE"
ISOLATED, SHARED = "isolated", "shared"
QUERY_PARAMETER = "workspace"  # the page address's ?workspace=<token>

_TOKEN_BYTES = 16  # 128 random bits: 22 URL-safe characters
_TOKEN = re.compile(r"[A-Za-z0-9_-]{22}")
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_COLLECTION_KEY = re.compile(r"[0-9a-f]{16}")  # explorer.storage.fingerprint
_DOMAIN = b"svi-topics workspace\x00"  # the folder name hashes this prefix and the token


class UnsafePathError(ValueError):
    """A name read from a file or an upload that would lead outside its folder, or is not a name at all."""


def mode() -> str:
    """``"shared"`` if ``SVI_TOPICS_WORKSPACE=shared``, else ``"isolated"`` (the safe default)."""
    return SHARED if settings.get(MODE_VARIABLE) == SHARED else ISOLATED


def new_token() -> str:
    """A fresh secret workspace token."""
    return secrets.token_urlsafe(_TOKEN_BYTES)


def valid_token(token: object) -> bool:
    """Whether ``token`` has the exact form :func:`new_token` makes."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None


@dataclass(frozen=True)
class Workspace:
    """Where one workspace keeps its checkpoints and collections (its token is not kept).

    Use :meth:`of_token` (isolated) or :meth:`shared_at` (the desktop mode's flat layout).
    """

    folder: Path
    shared: bool = False
    checkpoints_override: Path | None = None  # SVI_TOPICS_CHECKPOINTS, the shared workspace only

    @classmethod
    def of_token(cls, token: str, home: Path) -> Workspace:
        """The isolated workspace of ``token`` under ``home`` (raises for a malformed token)."""
        if not valid_token(token):
            raise UnsafePathError("a workspace token is 22 letters, digits, '-' or '_'; the one given is not")
        digest = hashlib.sha256(_DOMAIN + token.encode("ascii")).hexdigest()
        return cls(home / "workspaces" / digest)

    @classmethod
    def shared_at(cls, home: Path) -> Workspace:
        """The one workspace of the desktop mode: the home folder itself (``SVI_TOPICS_CHECKPOINTS`` honoured)."""
        return cls(home, shared=True, checkpoints_override=settings.get("SVI_TOPICS_CHECKPOINTS"))

    @property
    def checkpoints(self) -> Path:
        return self.checkpoints_override or self.folder / "checkpoints"

    @property
    def corpora(self) -> Path:
        return self.folder / "corpora"

    def make(self, folder: Path) -> Path:
        """Create ``folder`` (one of this workspace's); an isolated workspace is open to the server's user only."""
        if not self.shared:
            for private in (self.folder.parent, self.folder, folder):
                private.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        return folder


def check_run_id(run_id: object) -> str:
    """``run_id`` if it can name a checkpoint file (letters, digits, '-', '_'; at most 64), else raise."""
    if isinstance(run_id, str) and _RUN_ID.fullmatch(run_id):
        return run_id
    raise UnsafePathError(f"a run id is 1 to 64 letters, digits, '-' or '_', got {_shown(run_id)}")


def check_collection_key(key: object) -> str:
    """``key`` if it is a collection key (16 lowercase hexadecimal digits), else raise."""
    if isinstance(key, str) and _COLLECTION_KEY.fullmatch(key):
        return key
    raise UnsafePathError(f"a collection key is 16 hexadecimal digits, got {_shown(key)}")


def confined(path: Path, folder: Path) -> Path:
    """``path`` resolved (symbolic links followed) if it lies inside ``folder``, else raise."""
    resolved, inside = path.resolve(), folder.resolve()
    if resolved == inside or not resolved.is_relative_to(inside):
        raise UnsafePathError(f"{path.name!r} would lead outside the workspace; it was not read")
    return resolved


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
