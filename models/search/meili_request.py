"""A read query (query.py, SearchQuery.read) as the requests the Meilisearch engine sends: the
`q` of each branch, the filter expressions, the body of a search, of each query of a
multi-search and of the per-video queries of a grouped page; and the merge of several
branches' answers into one list, as a federation merges them.

The query language is sent as Meilisearch 1.13 reads `q`, never as typed:
- each branch's q holds the excluded terms first, as the negative operator (`-word` for one
  Latin word, `-"..."` otherwise: a `-` excludes the one word after it, and Meilisearch may
  cut Japanese into several), then the required terms: a term typed in quotes as a phrase,
  a bare one as its words (their normalised forms when those differ);
  `matchingStrategy: "all"` makes every word count, as on the embedded engine;
- Meilisearch matches the last word of q as a prefix, and no other: a prefix term (`word*`)
  goes last; without one, a Latin last word is quoted (a phrase of one word is matched
  whole). A Japanese last word stays a prefix: both engines find Japanese inside words;
- filters are filter expressions ANDed to the channel and kind clauses of every query sent,
  on fields every document of a video carries (meili_fields.QUERY_FILTERS; null, so
  matching no filter, when unknown);
- OR: q has none. Each combination of one alternative per group is a branch with its own
  q (plan_query), asked as one query of a multi-search;
- a branch of several prefix terms: one q holds one prefix only, so its q keeps the last
  and the others are checked on its hits (QueryPlan.holds);
- readings (issue 46): a term with readings (Term.readings: kana, romaji, kanji with kana)
  is, beside itself as written, one alternative per reading sequence, as if ORed: its
  reading keys (a phrase when several) and its anchors' forms as plain words, in a branch
  that also searches the reading fields (meili_fields.READING_FIELDS), weighted far below
  the branches as written (READING_WEIGHT, ROMAJI_WEIGHT). The branches as written come
  first, and are what they were without readings. An excluded term is excluded by its
  readings too (not one with anchors: a q cannot exclude two conditions together), so
  then every branch searches the reading fields. Readings never make a query more than
  MAX_BRANCHES branches: its terms keep their first reading only, else none.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from models.search.analysis import WORD_MARK
from models.search.base import INDEX_NAME, MOMENTS_PER_VIDEO, SearchQuery
from models.search.bounds import MAX_BRANCHES
from models.search.highlight import matches
from models.search.meili_fields import (
    POST_TAG,
    PRE_TAG,
    READING_FIELDS,
    SEARCHABLE_ATTRIBUTES,
    WORD_FIELDS,
    equals,
    quote,
    unix_seconds,
)
from models.search.meili_meaning import Meaning
from models.search.query import Filters, Query
from models.search.text import ASCII_WORD, CJK_RUN, Term, unify_long_vowels

# The API's search targets -> the field each searches, and the kind of document holding it.
TARGET_FIELDS = {"subtitle": "text", "title": "title", "description": "description"}
TARGET_KINDS = {"subtitle": "subtitle", "title": "video", "description": "video"}
SORT_RULES = {
    "relevance": [],
    "newest": ["publishedAtTs:desc"],
    "oldest": ["publishedAtTs:asc"],
    "views": ["viewCount:desc"],
}
HIGHLIGHTED_FIELDS = ("text", "title", "description")
CROP_LENGTH = 40  # words of a description shown around its match
# Subtitle hits asked for each video of a grouped page: overlapping segments find the same
# words twice and fold into one moment, so a few more than the moments shown.
MOMENT_CANDIDATES = 2 * MOMENTS_PER_VIDEO
# Every moment of a video (match_queries): its matching subtitle documents read at most,
# the index's maxTotalHits (more than any video holds), and of those found by meaning its
# nearest this many, as the embedded engine asks the 100 nearest of the whole index.
EVERY_MATCH = 100_000
MEANING_MATCHES = 100
# What a match query reads of each document: its id and times, and what a hit is built of.
MATCH_FIELDS = ["id", "videoId", "channelId", "kind", "start", "end"]

# The weight of a branch by reading in a federation, which merges hits by ranking score
# times weight: a ranking score is at most 1 and a match as written scores far above
# 1e-3, so every match as written ranks before every match by reading (embedded/scoring.py
# ranks them so), and a kana reading before a romaji one (osaka, ramen: an English word
# as written first, then what reads so).
READING_WEIGHT = 1e-3
ROMAJI_WEIGHT = 1e-6

# The kinds of field a branch searches: as written, their words (meili_fields.WORD_FIELDS)
# and their readings (READING_FIELDS).
SURFACE, WORDS, READINGS = "surface", "words", "readings"
WRITTEN: frozenset[str] = frozenset({SURFACE, WORDS})

Branch = tuple[Term, ...]


@dataclass(frozen=True)
class Choice:
    """One alternative of a group in a branch: a term as written (`reading` None) or by
    its reading sequence number `reading` (Term.readings)."""

    term: Term
    reading: int | None = None


@dataclass(frozen=True)
class QueryPlan:
    """A query as sent to Meilisearch: the parsed query, the `q` of each branch, and for
    each branch the prefix terms its q leaves out, checked here on its hits (a q holds
    one prefix: its last word); the kinds of field each branch searches and its weight
    (below 1 for a branch by reading)."""

    read: Query
    qs: tuple[str, ...]
    checked: tuple[Branch, ...]
    searched: tuple[frozenset[str], ...] = ()
    tiers: tuple[float, ...] = ()

    @property
    def federated(self) -> bool:
        return len(self.qs) > 1

    @property
    def scanned(self) -> bool:
        return any(self.checked)

    @property
    def by_reading(self) -> bool:
        """Whether some branch finds by reading: Meilisearch then marks the reading
        fields' keys, not the words of the text that read so, so highlights are ours."""
        return any(tier < 1.0 for tier in self.tiers)

    def kinds(self, branch: int) -> frozenset[str]:
        return self.searched[branch] if self.searched else WRITTEN

    def tier(self, branch: int) -> float:
        return self.tiers[branch] if self.tiers else 1.0

    def holds(self, branch: int, hit: Mapping[str, Any], fields: list[str]) -> bool:
        """Whether a hit of `branch` holds a word starting with each prefix its q left
        out, in one of the `fields` searched. A hit no word matched, found by meaning
        alone, is kept as meaning finds it: no word of the query has to be in it."""
        if not hit.get("_matchesPosition"):
            return True
        texts = [str(hit.get(field) or "") for field in fields]
        return all(any(matches(text, [term]) for text in texts) for term in self.checked[branch])


def plan_query(read: Query) -> QueryPlan:
    """The plan of a query read (SearchQuery.read): the branches as written first, in the
    order of the groups' combinations, then those by reading (at most MAX_BRANCHES)."""
    choices = _choices(read.groups)
    branches = sorted(
        itertools.product(*choices), key=lambda branch: any(c.reading is not None for c in branch)
    )
    checked = tuple(tuple(c.term for c in branch if c.term.prefix)[:-1] for branch in branches)
    qs = tuple(branch_q(branch, read.excluded) for branch in branches)
    excluded_by_reading = any(_excluded_readings(term) for term in read.excluded)
    searched = tuple(_searched(branch, excluded_by_reading) for branch in branches)
    tiers = tuple(_tier(branch) for branch in branches)
    return QueryPlan(read=read, qs=qs, checked=checked, searched=searched, tiers=tiers)


def _choices(groups: Sequence[Sequence[Term]]) -> list[list[Choice]]:
    """Each group's alternatives: its terms as written, then by each of their readings;
    by their first reading only when all of them would make more than MAX_BRANCHES
    branches, and as written only when even that would."""
    for most in (None, 1, 0):
        choices = [
            [
                alternative
                for term in group
                for alternative in (
                    Choice(term),
                    *(Choice(term, n) for n in range(len(term.readings))[:most]),
                )
            ]
            for group in groups
        ]
        if math.prod(len(group) for group in choices) <= MAX_BRANCHES:
            break
    return choices


def _searched(branch: Sequence[Choice], excluded_by_reading: bool) -> frozenset[str]:
    """The kinds of field a branch searches: a branch as written its fields and their
    words; one by reading the reading fields, with the words (anchors) and, when a term
    of it is as written, the fields as written. An excluded term's readings are excluded
    where the branch searches (Meilisearch's negative operator looks there only), so then
    every branch searches the reading fields too."""
    written = [c for c in branch if c.reading is None]
    if len(written) == len(branch):
        return WRITTEN | {READINGS} if excluded_by_reading else WRITTEN
    return frozenset({READINGS, WORDS, *([SURFACE] if written else [])})


def _tier(branch: Sequence[Choice]) -> float:
    """A branch's weight: 1 as written; by reading, the lowest of its readings' tiers."""
    tiers = [
        ROMAJI_WEIGHT if c.term.romaji else READING_WEIGHT for c in branch if c.reading is not None
    ]
    return min(tiers, default=1.0)


def branch_q(branch: Sequence[Term | Choice], excluded: tuple[Term, ...]) -> str:
    """The `q` of one branch: the excluded terms first, then the required ones in the
    order typed and a prefix term last (Meilisearch matches the last word of q as a prefix,
    and only it); with no prefix term, a Latin last word is quoted, as a phrase of one
    word is matched whole. A branch of several prefix terms keeps its last one; the
    others are checked on its hits (QueryPlan.holds). A term by reading is its reading
    keys and its anchors (_reading_q)."""
    chosen = [c if isinstance(c, Choice) else Choice(c) for c in branch]
    parts = [part for term in excluded for part in _excluded_q(term)]
    required = [
        _required_q(c.term) if c.reading is None else _reading_q(c.term, c.reading)
        for c in chosen
        if not c.term.prefix
    ]
    prefixes = [c.term for c in chosen if c.term.prefix]
    if prefixes:
        required.append(prefixes[-1].text)
    elif required and not required[-1].endswith('"'):
        *before, last = required[-1].split(" ")
        if not CJK_RUN.search(last):
            # Japanese is found inside longer words on both engines, so only a Latin last
            # word needs to be matched whole.
            required[-1] = " ".join([*before, f'"{last}"'])
    return unify_long_vowels(" ".join(parts + required))


def _required_q(term: Term) -> str:
    """A required term as q holds it: a phrase as typed; a bare term as its words, and
    a Japanese one whose words' normalised forms are not how it was typed as those forms
    (シュミレーション as シミュレーション), which the documents' word fields hold whatever
    their spelling."""
    # Whether it is a phrase is how it was typed (Term.phrase), not its text: a bare
    # `1,200` and a typed `"1 200"` are both the text `1 200`, but the bare one is two
    # words that punctuation cut apart (sent as words), while a typed `"cup noodles"`
    # asks for its words in a row (sent as a phrase).
    if term.phrase:
        return f'"{term.text}"'
    return " ".join(_forms(term) or [term.text])


def _reading_q(term: Term, reading: int) -> str:
    """A term by its reading sequence number `reading` as q holds it: its anchors' forms
    as words (the words written in kanji alone a match by reading holds as well), then its
    reading keys, which only the reading fields hold (katakana keys), as a phrase when
    several."""
    keys = " ".join(term.reading_keys[reading])
    read = f'"{keys}"' if len(term.reading_keys[reading]) > 1 else keys
    return " ".join([*(anchor[len(WORD_MARK) :] for anchor in term.anchors), read])


def _excluded_q(term: Term) -> list[str]:
    """An excluded term as Meilisearch's negative operator: `-word` for one Latin word,
    else `-"..."` (its `-` excludes one word only, and Meilisearch may cut Japanese into
    several); and its words' normalised forms too when they differ, as a required term
    is found by them; and its readings (_excluded_readings)."""
    texts = [term.text]
    forms = _forms(term)
    if forms:
        texts.append(" ".join(forms))
    texts.extend(_excluded_readings(term))
    return [
        f"-{text}" if ASCII_WORD.fullmatch(text) else f'-"{text}"'
        for text in dict.fromkeys(texts)  # a katakana term may be its own reading
    ]


def _excluded_readings(term: Term) -> list[str]:
    """The reading sequences an excluded term excludes, each as its keys: none for a
    term with anchors, whose match by reading must hold its anchors too (q cannot
    exclude two words together only), and so is excluded as written only."""
    if term.anchors:
        return []
    return [" ".join(keys) for keys in term.reading_keys]


def _forms(term: Term) -> list[str]:
    """The normalised forms of a one-part Japanese term's words when they are not how it
    was typed; [] otherwise."""
    if not term.words or " " in term.text:
        return []
    forms = list(term.forms[0])
    return [] if "".join(forms) == term.text else forms


def filter_clauses(filters: Filters) -> list[str]:
    """The query's filters as Meilisearch filter expressions. A document without the
    field (a video without subtitles, its views hidden) matches none of them."""
    clauses = []
    if filters.published_from is not None:
        clauses.append(f"publishedAtTs >= {unix_seconds(filters.published_from)}")
    if filters.published_until is not None:
        clauses.append(f"publishedAtTs < {unix_seconds(filters.published_until)}")
    bounds = (
        ("durationSeconds", filters.min_duration, filters.max_duration),
        ("viewCount", filters.min_views, filters.max_views),
    )
    for field, low, high in bounds:
        if low is not None:
            clauses.append(f"{field} >= {low}")
        if high is not None:
            clauses.append(f"{field} <= {high}")
    if filters.subtitle_type is not None:
        clauses.append(equals("subtitleType", filters.subtitle_type))
    if filters.language is not None:
        clauses.append(equals("subtitleLanguage", filters.language))
    return clauses


def searched_on(query: SearchQuery, kinds: frozenset[str] = WRITTEN) -> list[str]:
    """The fields a query of the kinds of field `kinds` searches (attributesToSearchOn):
    those of the targets asked, in the order of the settings."""
    targets = query.targets or tuple(TARGET_FIELDS)  # no target means everywhere
    surfaces = {TARGET_FIELDS[t] for t in targets if t in TARGET_FIELDS}
    wanted = set(surfaces) if SURFACE in kinds else set()
    if WORDS in kinds:
        wanted |= {WORD_FIELDS[field] for field in surfaces}
    if READINGS in kinds:
        wanted |= {READING_FIELDS[field] for field in surfaces}
    return [f for f in SEARCHABLE_ATTRIBUTES if f in wanted]


def search_params(
    query: SearchQuery, read: Query, searched: frozenset[str] = WRITTEN
) -> dict[str, Any]:
    """The search body, without `q` (the client adds it) and without what makes it one by
    meaning (semantic_params); searching the fields of the kinds `searched` (searched_on)."""
    targets = query.targets or tuple(TARGET_FIELDS)  # no target means everywhere
    unknown = set(targets) - set(TARGET_FIELDS)
    if unknown or query.sort not in SORT_RULES:
        raise ValueError(f"unknown search target or sort: {sorted(unknown) or query.sort}")
    clauses = []
    if query.channels:
        clauses.append(f"channelId IN [{', '.join(quote(c) for c in query.channels)}]")
    kinds = {TARGET_KINDS[t] for t in targets}
    if len(kinds) == 1:
        # attributesToSearchOn only limits keyword matching; the semantic half of a hybrid
        # search would still bring the other kind of document.
        clauses.append(equals("kind", kinds.pop()))
    clauses.extend(filter_clauses(read.filters))
    params: dict[str, Any] = {
        "attributesToSearchOn": searched_on(query, searched),
        "page": query.page,
        "hitsPerPage": query.per_page,  # page-based, so totalHits is exact
        "attributesToHighlight": list(HIGHLIGHTED_FIELDS),
        "highlightPreTag": PRE_TAG,
        "highlightPostTag": POST_TAG,
        "attributesToCrop": ["description"],
        "cropLength": CROP_LENGTH,
        "showMatchesPosition": True,
        # Every word must match, as on the embedded engine (Meilisearch's default drops
        # words from the end until something matches).
        "matchingStrategy": "all",
    }
    if clauses:
        params["filter"] = " AND ".join(clauses)
    if SORT_RULES[query.sort]:
        params["sort"] = SORT_RULES[query.sort]
    return params


def branch_queries(query: SearchQuery, plan: QueryPlan) -> list[dict[str, Any]]:
    """One query of a multi-search per branch: the search body with the branch's q, not
    paged (a federation pages its merged hits; a query of it may not)."""
    base = search_params(query, plan.read)
    for paging in ("page", "hitsPerPage"):
        base.pop(paging)
    return [
        {"indexUid": INDEX_NAME, "q": q, **base, **_searching(query, plan, n)}
        for n, q in enumerate(plan.qs)
    ]


def _searching(query: SearchQuery, plan: QueryPlan, branch: int) -> dict[str, Any]:
    """What a branch's query changes of the search body: the fields it searches, when
    they are not those of a branch as written."""
    kinds = plan.kinds(branch)
    return {} if kinds == WRITTEN else {"attributesToSearchOn": searched_on(query, kinds)}


def video_queries(
    query: SearchQuery,
    plan: QueryPlan,
    video_ids: list[str],
    meaning: Meaning | None,
) -> list[dict[str, Any]]:
    """For each video, in order: its best subtitle hits, then its video document, each
    asked once per branch (per_video merges them): the keyword branches (none when
    meaning alone ranks), then the branch by meaning when there is one (asked for nothing
    of a video it may not bring); each query limited to that video and the query's
    filters (`kind` alone when the targets leave the other out)."""
    base = search_params(query, plan.read)
    for unused in ("page", "hitsPerPage", "filter"):
        base.pop(unused, None)  # the filter is rebuilt per video below
    base["showRankingScore"] = True
    qs = [] if meaning is not None and meaning.alone else plan.qs
    targets = query.targets or tuple(TARGET_FIELDS)
    narrowed = filter_clauses(plan.read.filters)
    queries: list[dict[str, Any]] = []
    for video_id in video_ids:
        for kind, limit in (("subtitle", MOMENT_CANDIDATES), ("video", 1)):
            wanted = kind in {TARGET_KINDS[t] for t in targets}
            clauses = [equals("videoId", video_id), equals("kind", kind), *narrowed]
            asked = {
                **base,
                "indexUid": INDEX_NAME,
                "filter": " AND ".join(clauses),
                "limit": limit if wanted else 0,
            }
            bodies = [{**asked, "q": q, **_searching(query, plan, n)} for n, q in enumerate(qs)]
            if meaning is not None:
                # Its place is kept (per_video reads by place): asked for nothing, by keywords,
                # where meaning brings nothing of this video.
                meant = not meaning.finds_nothing and (
                    meaning.videos is None or video_id in meaning.videos
                )
                by_meaning = {**asked, "q": plan.qs[0], **_searching(query, plan, 0)}
                bodies.append(meaning.body(by_meaning) if meant else {**by_meaning, "limit": 0})
            queries.extend(bodies)
    return queries


def match_queries(
    query: SearchQuery,
    plan: QueryPlan,
    video_ids: list[str],
    meaning: Meaning | None,
    *,
    text: bool,
) -> list[dict[str, Any]]:
    """For each video, in order: every subtitle document of it that matches (its moments,
    models/search/moments.py), best first, asked once per branch as video_queries asks
    (the keyword branches, then the branch by meaning, which brings its MEANING_MATCHES
    nearest), each reading the documents' ids and times alone, unhighlighted (`text`:
    their text too, where the highlights are ours or a prefix is checked here)."""
    fields = [*MATCH_FIELDS, "text"] if text else MATCH_FIELDS
    read: dict[str, Any] = {"attributesToRetrieve": fields}
    if plan.scanned:
        read["showMatchesPosition"] = True  # QueryPlan.holds reads it
    queries = []
    for video_id in video_ids:
        bodies = _match_bodies(query, plan, video_id, meaning)
        for branch, body in enumerate(bodies):
            by_meaning = meaning is not None and branch == len(bodies) - 1  # the last
            most = MEANING_MATCHES if by_meaning else EVERY_MATCH
            queries.append({**body, **read, "limit": min(body.get("limit", most), most)})
    return queries


# How a match query asks the one document it shows (shown_query): highlighted as a search
# asks (search_params), with the positions its marks are built from.
_HIGHLIGHTED = {
    "attributesToHighlight": ["text"],
    "highlightPreTag": PRE_TAG,
    "highlightPostTag": POST_TAG,
    "showMatchesPosition": True,
}


def shown_query(
    query: SearchQuery,
    plan: QueryPlan,
    video_id: str,
    meaning: Meaning | None,
    branch: int,
    at: int,
) -> dict[str, Any]:
    """The document at place `at` of a video's match query of `branch` (match_queries),
    whole and highlighted, as a grouped answer shows a moment by it: the same query, so
    the same order."""
    body = _match_bodies(query, plan, video_id, meaning)[branch]
    return {**body, **_HIGHLIGHTED, "offset": at, "limit": 1}


def _match_bodies(
    query: SearchQuery, plan: QueryPlan, video_id: str, meaning: Meaning | None
) -> list[dict[str, Any]]:
    """The bodies of a video's match queries, one a branch in the order of
    branch_weights (the branch by meaning last, asked for nothing when it brings nothing
    of this video), without what they read; the subtitle documents of the query's
    channels and filters alone, by relevance. Searching no subtitles: asked for nothing."""
    clauses = [equals("videoId", video_id), equals("kind", "subtitle")]
    if query.channels:
        clauses.append(f"channelId IN [{', '.join(quote(c) for c in query.channels)}]")
    clauses.extend(filter_clauses(plan.read.filters))
    asked: dict[str, Any] = {
        "indexUid": INDEX_NAME,
        "filter": " AND ".join(clauses),
        "showRankingScore": True,
        "matchingStrategy": "all",
        "attributesToSearchOn": searched_on(query),
    }
    if "subtitle" not in (query.targets or tuple(TARGET_FIELDS)):
        asked["limit"] = 0
    qs = [] if meaning is not None and meaning.alone else plan.qs
    bodies = [{**asked, "q": q, **_searching(query, plan, n)} for n, q in enumerate(qs)]
    if meaning is not None:
        meant = not meaning.finds_nothing and (meaning.videos is None or video_id in meaning.videos)
        by_meaning = {**asked, "q": plan.qs[0], **_searching(query, plan, 0)}
        bodies.append(meaning.body(by_meaning) if meant else {**by_meaning, "limit": 0})
    return bodies


def branch_weights(plan: QueryPlan, meaning: Meaning | None) -> list[float]:
    """The weight of each branch's ranking scores, in the order asked: the keyword
    branches' 1 − sr (1 without meaning; none when meaning alone ranks) times their tier
    (1 as written, READING_WEIGHT or ROMAJI_WEIGHT by reading), then meaning's sr."""
    tiers = [plan.tier(n) for n in range(len(plan.qs))]
    if meaning is None:
        return tiers
    keywords = [] if meaning.alone else [round(1.0 - meaning.sr, 6) * tier for tier in tiers]
    return [*keywords, meaning.sr]


# -- several branches' answers as one -----------------------------------------------------


def per_video(
    results: Sequence[Mapping[str, Any]], videos: int, weights: Sequence[float]
) -> list[tuple[list[dict[str, Any]], dict[str, Any] | None]]:
    """The answers of video_queries: for each video, its subtitle hits and its video
    document's hit (None when it did not match), each branch's merged (merge_ranked) by
    its weighted score (branch_weights)."""
    answers = []
    branches = len(weights)
    for n in range(videos):
        first = 2 * n * branches
        subtitles = merge_ranked(
            [r["hits"] for r in results[first : first + branches]], weights=weights
        )
        metas = merge_ranked(
            [r["hits"] for r in results[first + branches : first + 2 * branches]],
            weights=weights,
        )
        answers.append((subtitles[:MOMENT_CANDIDATES], metas[0] if metas else None))
    return answers


def merge_ranked(
    lists: Sequence[Sequence[Mapping[str, Any]]],
    sort: list[str] | None = None,
    weights: Sequence[float] | None = None,
) -> list[dict[str, Any]]:
    """Hits of several queries as one list, each document once: by the `sort` rules
    asked, then ranking score times its query's weight (1 unless given; ties: the earlier
    query first), as a federation merges them. A document found by several keeps its
    best place and every query's matches positions, so whichever side of an OR matched a
    field counts."""
    weight = list(weights) if weights is not None else [1.0] * len(lists)
    ranked = [(n, hit) for n, hits in enumerate(lists) for hit in hits]
    ranked.sort(key=lambda item: -float(item[1].get("_rankingScore", 0.0)) * weight[item[0]])
    for rule in reversed(sort or []):
        field, _, direction = rule.partition(":")
        ranked.sort(key=functools.cmp_to_key(_by_field(field, descending=direction == "desc")))
    merged: dict[str, dict[str, Any]] = {}
    for _, hit in ranked:
        kept = merged.get(hit["id"])
        if kept is None:
            merged[hit["id"]] = dict(hit)
            continue
        positions = {**(hit.get("_matchesPosition") or {})}
        positions.update(kept.get("_matchesPosition") or {})
        kept["_matchesPosition"] = positions
    return list(merged.values())


def _by_field(
    field: str, *, descending: bool
) -> Callable[[tuple[int, Mapping[str, Any]], tuple[int, Mapping[str, Any]]], int]:
    """A comparison of hits by `field`; hits without it last, as Meilisearch sorts."""

    def compare(left: tuple[int, Mapping[str, Any]], right: tuple[int, Mapping[str, Any]]) -> int:
        x, y = left[1].get(field), right[1].get(field)
        if x is None or y is None:
            return (x is None) - (y is None)
        result = int(x > y) - int(x < y)
        return -result if descending else result

    return compare


def first_of_each_video(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each video's first hit, in order."""
    seen: dict[str, dict[str, Any]] = {}
    for hit in hits:
        seen.setdefault(hit["videoId"], hit)
    return list(seen.values())


def facet_values(response: Mapping[str, Any], field: str) -> int | None:
    """How many values of `field` a federation's facets of our index counted (None when
    it gave none)."""
    facets = (response.get("facetsByIndex") or {}).get(INDEX_NAME) or {}
    distribution = (facets.get("distribution") or {}).get(field)
    return None if not isinstance(distribution, Mapping) else len(distribution)
