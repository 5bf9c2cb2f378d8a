"""How similar a document must be to count as found by meaning, by model (both engines).

Measured on the relevance set and the sample's judged questions (bench/meaning.py;
docs/search.md, Search by meaning across languages): with e5-small's vectors centred by
language (centres.py) a passage that answers a question has a cosine of 0.3 to 0.7
with it, in either language, while unrelated ones mostly stay below 0.3. A question the
library does not answer still finds a few documents just above that; but its best is
weak (below `sure`), so then only the `unsure` nearest videos are listed by meaning: a
reader is shown the few nearest, not the library. Those few need only reach `near`, below
`least`: e5-small rates some questions across languages low even against their answer
("why do the deer in Nara bow to people" against 奈良公園の鹿はなぜお辞儀をするのか, 0.28),
and then the answer is among the three nearest but under the floor; the cap, not the
floor, keeps an unanswered question's list short.

A model this table does not know (a sentence-transformers folder) keeps the floor e5's
own vectors were measured at before centring, with no cap.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from models.search.embedder import CENTRED_PREFIX

T = TypeVar("T")


@dataclass(frozen=True)
class MeaningFloor:
    least: float  # the least cosine a document found by meaning has
    sure: float  # a best match this close is an answer: the floor alone limits the list
    unsure: int  # videos listed by meaning when the best match is less sure than that
    near: float  # the least cosine of those few videos' documents

    def kept(
        self, found: Sequence[T], score: Callable[[T], float], video: Callable[[T], Hashable]
    ) -> list[T]:
        """What of `found` (nearest first, each with its cosine `score` and its `video`)
        counts as found by meaning: every document at `least` or above when the nearest
        is `sure`; else the documents of the `unsure` nearest videos at `near` or above."""
        if not found or score(found[0]) >= self.sure:
            return [item for item in found if score(item) >= self.least]
        near = [item for item in found if score(item) >= self.near]
        chosen = set(list(dict.fromkeys(video(item) for item in near))[: self.unsure])
        return [item for item in near if video(item) in chosen]


CENTRED = MeaningFloor(least=0.30, sure=0.54, unsure=3, near=0.25)
UNCENTRED = MeaningFloor(least=0.80, sure=0.0, unsure=0, near=0.80)


def floor_for(model: str) -> MeaningFloor:
    return measured_floor(model) or UNCENTRED


def measured_floor(model: str) -> MeaningFloor | None:
    """The floor measured for this model (e5-small centred by language, whatever the
    centring's label); None for a model none was measured for (the Meilisearch engine
    then sends no threshold, as before there was one)."""
    return CENTRED if model.startswith(CENTRED_PREFIX) else None


def meili_score(cosine: float) -> float:
    """Meilisearch's ranking score of a document found by meaning at this cosine: its
    similarity, (1 + cosine) / 2."""
    return (1.0 + cosine) / 2.0
