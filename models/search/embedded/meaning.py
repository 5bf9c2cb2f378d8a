"""Search by meaning on the embedded engine: the vector side of a search, and how its
ranking is fused with the keywords' (hits.py and videos.py call it).

Hybrid ranking is a weighted reciprocal rank fusion: an item's score is
(1 - sr) / (K + its keyword rank) + sr / (K + its meaning rank), over the items each
side found. So `sr` 0 is the keyword ranking alone and 1 the meaning ranking alone (an
item with no weight on its side is not listed), and in between an item both sides rank
well comes first. Ranks, not raw scores, are fused: bm25 and cosine similarity are on
scales that do not compare.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Hashable, Iterable, Sequence
from concurrent.futures import Future
from operator import itemgetter
from typing import TypeVar

from models.search.embedded.filters import VideoFilter
from models.search.embedded.layout import VIDEO_SHIFT
from models.search.embedded.vectors import SEGMENTS, VIDEOS, NearestIndex, Vector
from models.search.embedder import vector_by
from models.search.meaning_floor import MeaningFloor, floor_for

K = TypeVar("K", bound=Hashable)
# Reciprocal rank fusion's constant (the usual 60): how much the first ranks outweigh
# the next ones.
RRF_K = 60
# Documents asked of the nearest-neighbour index per search (more when a page lies
# deeper). How similar one must be to count is the model's floor (meaning_floor.py).
NEIGHBOURS = 100


class Meaning:
    """A search's vector side: the process's nearest-neighbour index, the query's vector
    and the semantic ratio. The vector may still be on its way (`Future`): the engine
    embeds the query on another thread while the keyword side reads the index (both
    leave the GIL: the model's C code and SQLite), and the vector side waits for it."""

    def __init__(
        self,
        nearest: NearestIndex,
        vector: Vector | Future[Vector],
        model: str,
        sr: float,
        deadline: float = math.inf,
    ) -> None:
        self.nearest = nearest
        self._vector = vector
        self.model = model
        self.sr = sr
        self.deadline = deadline  # the search's (monotonic): SearchBusy past it

    @property
    def vector(self) -> Vector:
        if isinstance(self._vector, Future):
            self._vector = vector_by(self._vector, self.deadline)
        return self._vector

    @property
    def keywords_count(self) -> bool:
        return self.sr < 1.0

    @property
    def meaning_counts(self) -> bool:
        return self.sr > 0.0

    def neighbours(
        self,
        conn: sqlite3.Connection,
        targets: tuple[str, ...],
        channels: tuple[str, ...],
        count: int = NEIGHBOURS,
        passing: VideoFilter | None = None,
    ) -> list[tuple[int, float]]:
        """The documents nearest the query among `targets` (subtitle segments, video
        documents for title and description) of videos `passing` the filters, as (rowid,
        similarity), nearest first."""
        kinds = kinds_for(targets)
        if not kinds or not self.meaning_counts:
            return []
        found = self.nearest.nearest(conn, self.vector, self.model, count, kinds, channels, passing)
        return above_floor(found, floor_for(self.model))


def above_floor(found: list[tuple[int, float]], floor: MeaningFloor) -> list[tuple[int, float]]:
    """The documents (nearest first) the floor keeps (MeaningFloor.kept)."""
    return floor.kept(found, score=itemgetter(1), video=lambda item: item[0] >> VIDEO_SHIFT)


def kinds_for(targets: Iterable[str]) -> tuple[str, ...]:
    wanted = set(targets)
    kinds = []
    if "subtitle" in wanted:
        kinds.append(SEGMENTS)
    if wanted & {"title", "description"}:
        kinds.append(VIDEOS)
    return tuple(kinds)


def fuse(keyword: Sequence[K], meant: Sequence[K], sr: float) -> list[tuple[K, float]]:
    """The items of both rankings by their weighted reciprocal rank fusion, best first
    (ties: the keyword ranking's order, then the meaning ranking's); an item whose only
    side has no weight is left out."""
    scores: dict[K, float] = {}
    order: dict[K, tuple[int, int]] = {}
    for side, (ranking, weight) in enumerate(((keyword, 1.0 - sr), (meant, sr))):
        if weight <= 0:
            continue
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (RRF_K + rank + 1)
            order.setdefault(item, (side, rank))
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))


def by_video(found: Iterable[tuple[int, float]]) -> dict[int, dict[int, float]]:
    """Nearest documents grouped by video key, each video's best first (found is)."""
    videos: dict[int, dict[int, float]] = {}
    for rowid, sim in found:
        videos.setdefault(rowid >> VIDEO_SHIFT, {})[rowid] = sim
    return videos


def best_similarity(documents: dict[int, float]) -> float:
    return max(documents.values(), default=0.0)


def top(sims: dict[int, float], count: int) -> list[int]:
    ranked = sorted(sims.items(), key=lambda item: -item[1])
    return [rowid for rowid, _ in ranked[:count]]
