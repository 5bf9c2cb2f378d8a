"""Loaded by the worker processes of the poison flow test (never in production): a
passage that holds POISON_MARKER aborts the process inside the embedder, as text that
overflows the model's C code did; and a dead worker is one silent for 5 s instead of
20 s, so each death's message comes back within seconds (the guard counts deaths the
same at any timeout)."""

from __future__ import annotations

import os
from collections.abc import Sequence

from models.search.embedder import E5SmallEmbedder, Vectors
from workers.broker import get_broker

HEARTBEAT_TIMEOUT_MS = 5_000

get_broker().heartbeat_timeout = HEARTBEAT_TIMEOUT_MS  # type: ignore[attr-defined]

_marker = os.environ["POISON_MARKER"]
_passages = E5SmallEmbedder.passages


def _aborting_passages(self: E5SmallEmbedder, texts: Sequence[str]) -> Vectors:
    if any(_marker in text for text in texts):
        os.abort()
    return _passages(self, texts)


E5SmallEmbedder.passages = _aborting_passages  # type: ignore[method-assign]
