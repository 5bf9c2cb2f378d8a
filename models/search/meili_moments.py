"""Every moment of a video on the Meilisearch engine (the rule: models/search/moments.py).

A video's matching subtitle documents are asked whole, each branch of the query apart
(meili_request.match_queries): ids, times and ranking scores, no highlight. They are
merged here as a federation merges (weighted ranking score, ties to the earlier branch,
each document once at its best place), and where each was found is kept. Meilisearch
ranks every one of them, so the moments a grouped answer shows are the first of the
list the moments call gives.

A moment is shown by its best document, highlighted as a search highlights it: by our own
matching where the highlights are ours (the match queries then read the text), else as
Meilisearch marks it in the branch it was found in, from the few best a grouped answer
asks of each video already (meili_request.video_queries) or asked at its place
(meili_request.shown_query).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from models.search.meili_request import QueryPlan
from models.search.moments import Span, VideoMoment

# Where a document was found: its branch (the order of branch_weights) and its place in
# that branch's answer.
Place = tuple[int, int]


@dataclass(frozen=True)
class Matches:
    """One video's matching subtitle documents, best first, and where each was found."""

    docs: list[dict[str, Any]]
    found_at: dict[str, Place]

    @property
    def spans(self) -> list[Span]:
        return [(str(doc["id"]), float(doc["start"]), float(doc["end"])) for doc in self.docs]

    @property
    def ranking(self) -> list[int | str]:
        return [str(doc["id"]) for doc in self.docs]


def video_matches(
    results: Sequence[Mapping[str, Any]],
    videos: int,
    weights: Sequence[float],
    plan: QueryPlan,
    checked: int = 0,
) -> list[Matches]:
    """The answers of match_queries (for `videos` videos, one a branch each) as each
    video's Matches. The first `checked` branches' documents are held to the prefixes
    their q left out (QueryPlan.holds: a query of several prefix terms)."""
    branches = len(weights)
    found = []
    for n in range(videos):
        ranked = []
        for branch, result in enumerate(results[n * branches : (n + 1) * branches]):
            for at, hit in enumerate(result.get("hits") or []):
                if hit.get("start") is None or hit.get("end") is None:
                    continue
                if branch < checked and not plan.holds(branch, hit, ["text"]):
                    continue
                score = float(hit.get("_rankingScore", 0.0)) * weights[branch]
                ranked.append((-score, branch, at, hit))
        ranked.sort(key=lambda item: item[:3])
        docs: list[dict[str, Any]] = []
        found_at: dict[str, Place] = {}
        for _, branch, at, hit in ranked:
            if str(hit["id"]) not in found_at:
                found_at[str(hit["id"])] = (branch, at)
                docs.append(hit)
        found.append(Matches(docs, found_at))
    return found


def shown_from(
    moments: Sequence[VideoMoment],
    matches: Matches,
    asked: Sequence[Sequence[Mapping[str, Any]]] = (),
) -> tuple[dict[str, Mapping[str, Any]], list[Place]]:
    """The documents showing `moments` found highlighted in `asked` (for each branch,
    its best documents as video_queries asked them, in order), by id, and the places of
    those still to ask (shown_query)."""
    found: dict[str, Mapping[str, Any]] = {}
    missing: list[Place] = []
    for moment in moments:
        ref = str(moment.shown[0])
        branch, at = matches.found_at[ref]
        hits = asked[branch] if branch < len(asked) else ()
        if at < len(hits) and str(hits[at].get("id")) == ref:
            found[ref] = hits[at]
        else:
            missing.append((branch, at))
    return found, missing


def per_branch(
    results: Sequence[Mapping[str, Any]], videos: int, branches: int
) -> list[list[list[dict[str, Any]]]]:
    """The answers of video_queries as each video's best subtitle documents of each
    branch, in order (its video document's answers follow them: left out)."""
    return [
        [list(result.get("hits") or []) for result in results[2 * n * branches :][:branches]]
        for n in range(videos)
    ]
