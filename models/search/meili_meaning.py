"""Search by meaning on Meilisearch as a branch of its own (docs/search.md, Across
languages): the query's vector asked alone (`semanticRatio` 1), where a document's
ranking score is its similarity, so the model's floor can be sent as
`rankingScoreThreshold` and cuts nothing but what meaning found.

Meilisearch's own hybrid search fuses both sides inside one query, where a threshold would
cut keyword matches too. So a hybrid search here is a federation of the keyword branches,
weighted 1 − sr, and this branch, weighted sr: the federation merges them by weighted
ranking score, each document once, as the hybrid search would, and pages and counts them.

Before it, one small search finds the nearest videos (`probe`): when even the nearest is
not a sure answer (MeaningFloor.sure), the branch is limited to the few nearest videos by a
filter, as the embedded engine lists them (MeaningFloor.kept).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from models.search.meaning_floor import MeaningFloor, meili_score
from models.search.meili_fields import EMBEDDER, quote


@dataclass(frozen=True)
class Meaning:
    """The search by meaning of one query: its vector and weight, the least ranking score
    a document found by it has (None: no floor is known for the model), and the videos it
    may bring (None: any)."""

    vector: list[float]
    sr: float
    threshold: float | None = None
    videos: tuple[str, ...] | None = None

    @property
    def alone(self) -> bool:
        """Whether meaning alone ranks (sr 1): no keyword branch is asked."""
        return self.sr >= 1.0

    @property
    def finds_nothing(self) -> bool:
        """Whether the branch is not asked: no video is near enough, or meaning has no
        weight (sr 0, a keyword search)."""
        return self.videos == () or self.sr <= 0.0

    @property
    def mixed(self) -> bool:
        """Whether keywords and meaning both rank: a federation of both branches."""
        return not self.alone and not self.finds_nothing

    def body(self, keyword_body: Mapping[str, Any]) -> dict[str, Any]:
        """A keyword body (search_params, branch_queries) made this branch: the same
        filters, sort and shown fields, searched by the vector alone."""
        body = {**keyword_body, "hybrid": {"embedder": EMBEDDER, "semanticRatio": 1.0}}
        body["vector"] = self.vector
        if self.threshold is not None:
            body["rankingScoreThreshold"] = self.threshold
        if self.videos is not None:
            allowed = f"videoId IN [{', '.join(quote(v) for v in self.videos)}]"
            body["filter"] = " AND ".join(c for c in (keyword_body.get("filter"), allowed) if c)
        return body


def probe(
    keyword_body: Mapping[str, Any], vector: list[float], floor: MeaningFloor | None
) -> dict[str, Any]:
    """The search for the `floor.unsure` nearest videos (their best document each), at the
    floor of an unsure answer or above, under the query's filters. It is asked first
    whatever the floor: a server without the embedder refuses it, and the search is then
    one by keywords."""
    body = {
        key: value
        for key, value in keyword_body.items()
        if key in ("indexUid", "q", "filter", "attributesToSearchOn")
    }
    body.update(
        {
            "hybrid": {"embedder": EMBEDDER, "semanticRatio": 1.0},
            "vector": vector,
            "distinct": "videoId",
            "showRankingScore": True,
            "offset": 0,
            "limit": max(1, floor.unsure) if floor is not None else 1,
        }
    )
    if floor is not None:
        body["rankingScoreThreshold"] = round(meili_score(floor.near), 6)
    return body


def meaning_of(
    vector: list[float], sr: float, floor: MeaningFloor | None, nearest: Sequence[Mapping[str, Any]]
) -> Meaning:
    """The branch, from what the probe found (`nearest`, best first): every document at
    `floor.least` when the nearest is a sure answer; else only the nearest videos' documents,
    at `floor.near`. No floor (a model none was measured for): every document."""
    if floor is None:
        return Meaning(vector, sr)
    best = float(nearest[0].get("_rankingScore", 0.0)) if nearest else 0.0
    if not floor.unsure or best >= meili_score(floor.sure):
        return Meaning(vector, sr, round(meili_score(floor.least), 6))
    videos = tuple(dict.fromkeys(str(hit["videoId"]) for hit in nearest))[: floor.unsure]
    return Meaning(vector, sr, round(meili_score(floor.near), 6), videos)
