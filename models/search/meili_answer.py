"""Meilisearch's hits as the engine's answers: a Hit per document, a VideoHit per video of a
grouped page (its moments: meili_moments.py), and their highlights.

Highlights mark every required term: Meilisearch's marks when the query is simple, else our
own (highlight.py), as theirs cover one branch only (one side of an OR) and a prefix's letters,
not its word; ours too where Meilisearch marked nothing (a document found through the words
of a spelling variant, or by meaning alone).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from models.search.base import Hit, SearchQuery, VideoHit
from models.search.highlight import crop, matches
from models.search.highlight import highlight as highlight_terms
from models.search.meili_fields import POST_TAG, PRE_TAG, READING_FIELDS, WORD_FIELDS
from models.search.text import Term


def build_hit(
    raw: Mapping[str, Any], targets: tuple[str, ...], terms: list[Term], *, own: bool = False
) -> Hit | None:
    """One search hit, or None for a document that is not one of ours. `terms` (every
    term a match may hold) mark a hit that Meilisearch did not: one found through its
    words only, or by meaning; and every hit when `own`: Meilisearch marks the words of
    one branch only (one side of an OR) and a prefix's letters, not its word."""
    kind = raw.get("kind")
    if kind == "subtitle":
        matched_in, field = "subtitle", "text"
    elif kind == "video":
        positions = _positions(raw, terms, own=own)
        matched_in = field = _video_field(positions, targets)
    else:
        return None
    formatted = (raw.get("_formatted") or {}).get(field)
    if not isinstance(formatted, str):
        formatted = raw.get(field) or ""
    if PRE_TAG in formatted and not own:
        # What the highlight shows, without marks: the whole field, or for a description
        # the cropped part around the match (as the embedded engine does).
        shown, marked = formatted.replace(PRE_TAG, "").replace(POST_TAG, ""), highlight(formatted)
    else:
        # Meilisearch marked nothing: found through the words of a spelling variant, or by
        # meaning alone, where no word of the query may be there to mark.
        shown, marked = own_highlight(raw.get(field) or "", field, terms)
    return Hit(
        video_id=raw["videoId"],
        video_title=raw.get("videoTitle", ""),
        channel_id=raw["channelId"],
        channel_title=raw.get("channelTitle", ""),
        published_at=raw.get("publishedAt", ""),
        thumbnail_url=raw.get("thumbnailUrl"),
        matched_in=matched_in,
        start=raw.get("start") if kind == "subtitle" else None,
        end=raw.get("end") if kind == "subtitle" else None,
        text=shown,
        highlight=marked,
    )


def build_video(
    best: Mapping[str, Any],
    moments: list[Hit],
    total_moments: int,
    meta: Mapping[str, Any] | None,
    targets: tuple[str, ...],
    terms: list[Term],
    *,
    own: bool = False,
) -> VideoHit:
    """One video of a grouped answer from its best document, the moments it shows and
    how many it has (meili_moments.py), and its video document when that matched
    (`own`: build_hit)."""
    matched = ["subtitle"] if moments else []
    if meta is not None:
        positions = _positions(meta, terms, own=own)
        matched.extend(
            t for t in ("title", "description") if t in targets and _matched(positions, t)
        )
        if not matched:
            # Found by the meaning of its title and description, no word of the query in
            # them: shown as its title, as a flat search shows it.
            matched.append(_video_field(positions, targets))
    return VideoHit(
        video_id=best["videoId"],
        video_title=best.get("videoTitle", ""),
        channel_id=best["channelId"],
        channel_title=best.get("channelTitle", ""),
        published_at=best.get("publishedAt", ""),
        thumbnail_url=best.get("thumbnailUrl"),
        score=_score(best),
        moments=moments,
        matched_in=tuple(matched),
        total_moments=total_moments,
    )


def scan_page(
    found: list[dict[str, Any]], query: SearchQuery
) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None], int]:
    """The page of videos of a scanned search (every document it found, best first):
    each video's best document and its video document among those found (None when it
    is not), and how many videos there are."""
    by_video: dict[str, list[dict[str, Any]]] = {}
    for hit in found:
        by_video.setdefault(hit["videoId"], []).append(hit)
    first = (query.page - 1) * query.per_page
    page = list(by_video.values())[first : first + query.per_page]
    metas = [next((hit for hit in hits if hit.get("kind") == "video"), None) for hits in page]
    return [hits[0] for hits in page], metas, len(by_video)


def own_highlight(text: str, field: str, terms: list[Term]) -> tuple[str, str]:
    """The text shown and its highlight by our own matching, for a hit Meilisearch marked
    nothing in (found through the words of a spelling variant, or by meaning alone) or
    marked in part: a description cropped around its first match, as the embedded engine
    does."""
    shown = crop(text, terms) if field == "description" else text
    return shown, highlight_terms(shown, terms)


def highlight(formatted: str) -> str:
    """Meilisearch's formatted text as HTML: escaped, with <mark> around matches."""
    return html.escape(formatted).replace(PRE_TAG, "<mark>").replace(POST_TAG, "</mark>")


def _score(best: Mapping[str, Any]) -> float:
    """A video's score: its best document's ranking score, weighted as a federation merged
    it when it did (a match by reading, READING_WEIGHT, scores below one as written)."""
    federation = best.get("_federation")
    if isinstance(federation, Mapping) and "weightedRankingScore" in federation:
        return float(federation["weightedRankingScore"])
    return float(best.get("_rankingScore", 0.0))


def _positions(raw: Mapping[str, Any], terms: list[Term], *, own: bool) -> Mapping[str, Any]:
    """A video document's `_matchesPosition`; with `own`, the title and description our
    own matching finds the terms in as well (Meilisearch reports the matches of one
    branch of an OR)."""
    positions: Mapping[str, Any] = raw.get("_matchesPosition") or {}
    if not own:
        return positions
    found = dict(positions)
    for field in ("title", "description"):
        if field not in found and matches(str(raw.get(field) or ""), terms):
            found[field] = [{"start": 0, "length": 0}]  # matched; where is not read
    return found


def _video_field(positions: Mapping[str, Any], targets: tuple[str, ...]) -> str:
    """Which field of a video document a hit shows: the title when it matched or the
    description is not searched, else the description when it matched; a document found by
    meaning alone (its title and description together) shows its title unless only the
    description is searched."""
    if "title" in targets and _matched(positions, "title"):
        return "title"
    if "description" not in targets:
        return "title"
    if _matched(positions, "description") or "title" not in targets:
        return "description"
    return "title"


def _matched(positions: Mapping[str, Any], field: str) -> bool:
    """Whether a hit's `_matchesPosition` has a match in `field`, as written, through
    its words or by their readings."""
    return any(name in positions for name in (field, WORD_FIELDS[field], READING_FIELDS[field]))
