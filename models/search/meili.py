"""The `meilisearch` engine: the index `subtitles` on a Meilisearch server (1.13 in production),
through the official `meilisearch` client.

Documents are stored with camelCase fields (`videoId`, `publishedAtTs`, ...). Every write is a
Meilisearch task: we wait for it and turn a task that did not succeed into SearchError, so no
caller believes a write happened when it did not. A server that does not answer is
SearchUnavailable; anything the server refuses is SearchError.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import meilisearch
import requests
from meilisearch.errors import (
    MeilisearchApiError,
    MeilisearchCommunicationError,
    MeilisearchTimeoutError,
)
from meilisearch.index import Index
from meilisearch.models.task import TaskInfo

from models.search.base import (
    INDEX_NAME,
    MOMENTS_PER_VIDEO,
    TOTAL_VIDEOS_CAP,
    Document,
    Hit,
    SearchError,
    SearchQuery,
    SearchResults,
    SearchUnavailable,
    Segment,
    VideoHit,
    VideoResults,
)
from models.search.moments import merge_overlapping
from models.search.segments import transcript
from models.search.text import unify_long_vowels

log = logging.getLogger(__name__)

PRIMARY_KEY = "id"
SEARCHABLE_ATTRIBUTES = ["title", "text", "description"]
SETTINGS = {
    "searchableAttributes": SEARCHABLE_ATTRIBUTES,
    "filterableAttributes": ["videoId", "channelId", "kind"],
    "sortableAttributes": ["publishedAtTs", "viewCount", "start"],
    "localizedAttributes": [
        {"attributePatterns": ["text", "title", "description"], "locales": ["jpn"]}
    ],
    "displayedAttributes": ["*"],
    # totalHits is exact only up to maxTotalHits (1000 by default); the API promises
    # exact totals and pages.
    "pagination": {"maxTotalHits": 100_000},
}

# Document attribute -> index field. The last five exist only on one kind of document and are
# left out when empty.
FIELDS = {
    "video_id": "videoId",
    "channel_id": "channelId",
    "kind": "kind",
    "video_title": "videoTitle",
    "channel_title": "channelTitle",
    "published_at": "publishedAt",
    "thumbnail_url": "thumbnailUrl",
    "view_count": "viewCount",
    "subscriber_count": "subscriberCount",
    "text": "text",
    "start": "start",
    "end": "end",
    "title": "title",
    "description": "description",
}
OPTIONAL_FIELDS = {"text", "start", "end", "title", "description"}
HIGHLIGHTED_FIELDS = ("text", "title", "description")
# What a channel refresh may change on its documents (the same rule as the embedded engine).
CHANNEL_FIELDS = {"subscriber_count", "channel_title"}
# What a change on the platform may update on a video's documents: `video_title` on each,
# `title` on its video document only (subtitle documents are not found by the title).
VIDEO_FIELDS = {"video_title", "title"}

TARGET_FIELDS = {"subtitle": "text", "title": "title", "description": "description"}
TARGET_KINDS = {"subtitle": "subtitle", "title": "video", "description": "video"}
SORT_RULES = {
    "relevance": [],
    "newest": ["publishedAtTs:desc"],
    "oldest": ["publishedAtTs:asc"],
    "views": ["viewCount:desc"],
}

# Meilisearch puts these around matches. Control characters never reach the index (documents
# are cleaned of them), so after html.escape they can only be our markers; a tag like "<mark>"
# could not be told apart from the same characters in a subtitle.
PRE_TAG = "\u0002"
POST_TAG = "\u0003"
CROP_LENGTH = 40  # words of a description shown around its match

EMBEDDER = "default"
# Errors meaning "no semantic search here", after which a keyword search can still answer: no
# embedder of that name, the vector store switched off (servers before 1.13), or the embedder
# failing on the query (Meilisearch reports that only when semanticRatio is 1.0).
SEMANTIC_UNAVAILABLE = {"invalid_search_embedder", "feature_not_enabled", "vector_embedding_error"}

PAGE_SIZE = 1000  # documents per fetch page and per partial-update batch
# Subtitle hits asked for each video of a grouped page: overlapping segments find the same
# words twice and fold into one moment, so a few more than the moments shown.
MOMENT_CANDIDATES = 2 * MOMENTS_PER_VIDEO


class MeilisearchEngine:
    name = "meilisearch"

    def __init__(
        self,
        host: str,
        api_key: str | None,
        master_key: str | None = None,
        *,
        timeout: int = 10,
        task_timeout_ms: int = 30_000,
    ):
        # The client joins paths with "/", so a trailing slash would double it.
        self._host = host.rstrip("/")
        self._master_key = master_key
        self._timeout = timeout
        self._task_timeout_ms = task_timeout_ms
        self._client = meilisearch.Client(self._host, api_key, timeout=timeout)

    def _index(self) -> Index:
        # A fresh Index per operation: the client's request helper edits its shared header dict
        # on every call, and one engine serves several threads.
        return self._client.index(INDEX_NAME)

    # -- writes ---------------------------------------------------------------------

    def apply_settings(self) -> None:
        with _engine_errors("applying the index settings"):
            index = self._index()
            try:
                primary_key = index.fetch_info().primary_key
            except MeilisearchApiError as error:
                if error.code != "index_not_found":
                    raise
                task = self._client.create_index(INDEX_NAME, {"primaryKey": PRIMARY_KEY})
                # Another process may create it between our look and our create; that is fine.
                self._wait(index, task, "creating the index", ignore={"index_already_exists"})
            else:
                if primary_key is None:  # created by hand, before any document
                    self._wait(index, index.update(primary_key=PRIMARY_KEY), "setting the key")
                elif primary_key != PRIMARY_KEY:
                    raise SearchError(
                        f"index {INDEX_NAME} has primary key {primary_key!r}, not {PRIMARY_KEY!r}"
                    )
            self._wait(index, index.update_settings(dict(SETTINGS)), "updating the settings")

    def replace_video_documents(self, video_id: str, documents: list[Document]) -> None:
        with _engine_errors(f"replacing the documents of video {video_id}"):
            index = self._index()
            deleted = index.delete_documents(filter=_equals("videoId", video_id))
            self._wait(index, deleted, "deleting the old documents")
            if documents:
                added = index.add_documents([index_document(d) for d in documents])
                self._wait(index, added, "adding the new documents")

    def delete_video_documents(self, video_id: str) -> None:
        with _engine_errors(f"deleting the documents of video {video_id}"):
            index = self._index()
            deleted = index.delete_documents(filter=_equals("videoId", video_id))
            self._wait(index, deleted, "deleting the documents")

    def update_channel_documents(self, channel_id: str, values: Mapping[str, object]) -> int:
        unknown = set(values) - CHANNEL_FIELDS
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by channel")
        fields = {FIELDS[name]: value for name, value in values.items()}
        if not fields:
            return 0
        with _engine_errors(f"updating the documents of channel {channel_id}"):
            index = self._index()
            listed = self._fetch_all(index, _equals("channelId", channel_id), ["id"])
            return self._update_partially(index, [{"id": doc["id"], **fields} for doc in listed])

    def update_video_documents(self, video_id: str, values: Mapping[str, object]) -> int:
        unknown = set(values) - VIDEO_FIELDS
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by video")
        if not values:
            return 0
        # As index_document stores them: only the searchable title is cleaned.
        shown = {FIELDS[name]: value for name, value in values.items() if name != "title"}
        with _engine_errors(f"updating the documents of video {video_id}"):
            index = self._index()
            listed = self._fetch_all(index, _equals("videoId", video_id), ["id", "kind"])
            return self._update_partially(
                index,
                [
                    {"id": doc["id"], **shown}
                    | (
                        {"title": _clean(values["title"])}
                        if "title" in values and doc.get("kind") == "video"
                        else {}
                    )
                    for doc in listed
                ],
            )

    def _update_partially(self, index: Index, updates: list[dict[str, Any]]) -> int:
        """Send partial updates (each holding the document's id) in batches; how many."""
        for first in range(0, len(updates), PAGE_SIZE):
            batch = updates[first : first + PAGE_SIZE]
            self._wait(index, index.update_documents(batch), "updating the documents")
        if updates:
            # A partial update creates any document deleted since we listed it (1.13 has no
            # skipCreation), as a stub holding only these fields. Every real document has a
            # channelId, so removing those without one removes exactly the stubs.
            stubs = index.delete_documents(filter="channelId NOT EXISTS")
            self._wait(index, stubs, "removing stub documents")
        return len(updates)

    def _wait(
        self,
        index: Index,
        task: TaskInfo,
        what: str,
        *,
        ignore: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        uid = task.task_uid
        try:
            done = index.wait_for_task(uid, timeout_in_ms=self._task_timeout_ms)
        except MeilisearchTimeoutError as error:
            raise SearchError(
                f"{what}: task {uid} not finished after {self._task_timeout_ms} ms"
            ) from error
        if done.status == "succeeded":
            return
        failure = done.error or {}
        if failure.get("code") in ignore:
            return
        raise SearchError(
            f"{what}: task {uid} {done.status}: {failure.get('message') or 'no error given'}"
            f" ({failure.get('code')})"
        )

    # -- reads ----------------------------------------------------------------------

    def _fetch_all(self, index: Index, filter_: str, fields: list[str]) -> Iterator[dict[str, Any]]:
        offset = 0
        while True:
            page = index.get_documents(
                {"filter": filter_, "fields": fields, "limit": PAGE_SIZE, "offset": offset}
            )
            yield from (dict(doc) for doc in page.results)
            offset += len(page.results)
            if not page.results or offset >= page.total:
                return

    def search(self, query: SearchQuery) -> SearchResults:
        params = search_params(query)
        with _engine_errors("searching"):
            response, semantic_applied = self._search(query, params)
        targets = query.targets or tuple(TARGET_FIELDS)
        hits = [hit for raw in response["hits"] if (hit := build_hit(raw, targets))]
        return SearchResults(
            total_hits=response.get("totalHits", 0), hits=hits, semantic_applied=semantic_applied
        )

    def _search(self, query: SearchQuery, params: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """The search answer, and whether it was hybrid (a keyword search when the server
        has no semantic search)."""
        index = self._index()
        if query.semantic:
            try:
                return index.search(
                    unify_long_vowels(query.q), {**params, "hybrid": hybrid(query)}
                ), True
            except MeilisearchApiError as error:
                if error.code not in SEMANTIC_UNAVAILABLE:
                    raise
                log.warning("semantic search unavailable, keyword search instead: %s", error)
        return index.search(unify_long_vowels(query.q), params), False

    def search_videos(self, query: SearchQuery) -> VideoResults:
        """One search with `distinct` on videoId gives the page of videos (its best
        document each) and their exact count; one multi-search then asks, for each of
        them, its best subtitle segments and its video document."""
        targets = query.targets or tuple(TARGET_FIELDS)
        params = {**search_params(query), "distinct": "videoId", "showRankingScore": True}
        with _engine_errors("searching"):
            response, semantic_applied = self._search(query, params)
            best = [raw for raw in response["hits"] if raw.get("kind") in TARGET_KINDS.values()]
            queries = video_queries(query, [raw["videoId"] for raw in best], semantic_applied)
            found = self._client.multi_search(queries)["results"] if queries else []
        videos = []
        for n, raw in enumerate(best):
            subtitles, meta = found[2 * n]["hits"], found[2 * n + 1]["hits"]
            videos.append(build_video(raw, subtitles, meta[0] if meta else None, targets))
        total = response.get("totalHits", 0)
        return VideoResults(
            total_videos=min(total, TOTAL_VIDEOS_CAP),
            more_than_cap=total > TOTAL_VIDEOS_CAP,
            videos=videos,
            semantic_applied=semantic_applied,
        )

    def video_segments(self, video_id: str) -> list[Segment]:
        filter_ = f"{_equals('videoId', video_id)} AND {_equals('kind', 'subtitle')}"
        with _engine_errors(f"reading the subtitles of video {video_id}"):
            docs = list(self._fetch_all(self._index(), filter_, ["start", "end", "text"]))
        segments = [Segment(start=d["start"], end=d["end"], text=d.get("text", "")) for d in docs]
        return transcript(sorted(segments, key=lambda s: (s.start, s.end)))

    def health(self) -> dict[str, Any]:
        # /health is public; sending no key also proves the check does not depend on one.
        try:
            response = requests.get(f"{self._host}/health", timeout=self._timeout)
        except requests.RequestException as error:
            raise SearchUnavailable(
                f"Meilisearch at {self._host} did not answer: {error}"
            ) from error
        try:
            body = response.json() if response.ok else None
        except ValueError:
            body = None
        if not isinstance(body, dict):
            # Typically the tunnel in front answering for a server that is down.
            raise SearchUnavailable(
                f"Meilisearch at {self._host} answered /health with HTTP {response.status_code}"
            )
        return body

    def keys(self) -> list[dict[str, str | None]]:
        if not self._master_key:
            raise SearchError("SEARCH_MASTER_KEY is not set")
        with _engine_errors("listing the API keys"):
            client = meilisearch.Client(self._host, self._master_key, timeout=self._timeout)
            # An instance holds a handful of keys; one page of 1000 is all of them.
            found = client.get_keys({"limit": 1000})
        return [{"name": key.name, "key": key.key} for key in found.results]


# -- request and response shapes ----------------------------------------------------------


def index_document(document: Document) -> dict[str, Any]:
    """A Document as stored in the index."""
    stored: dict[str, Any] = {"id": document.id}
    for attribute, field in FIELDS.items():
        value = getattr(document, attribute)
        if value is None and attribute in OPTIONAL_FIELDS:
            continue
        stored[field] = _clean(value) if field in HIGHLIGHTED_FIELDS else value
    stored["publishedAtTs"] = _unix_seconds(document.published_at)
    return stored


def search_params(query: SearchQuery) -> dict[str, Any]:
    """The search body, without `q` (the client adds it) and without `hybrid`."""
    targets = query.targets or tuple(TARGET_FIELDS)  # no target means everywhere
    unknown = set(targets) - set(TARGET_FIELDS)
    if unknown or query.sort not in SORT_RULES:
        raise ValueError(f"unknown search target or sort: {sorted(unknown) or query.sort}")
    clauses = []
    if query.channels:
        clauses.append(f"channelId IN [{', '.join(_quote(c) for c in query.channels)}]")
    kinds = {TARGET_KINDS[t] for t in targets}
    if len(kinds) == 1:
        # attributesToSearchOn only limits keyword matching; the semantic half of a hybrid
        # search would still bring the other kind of document.
        clauses.append(_equals("kind", kinds.pop()))
    wanted = {TARGET_FIELDS[t] for t in targets}
    params: dict[str, Any] = {
        "attributesToSearchOn": [f for f in SEARCHABLE_ATTRIBUTES if f in wanted],
        "page": query.page,
        "hitsPerPage": query.per_page,  # page-based, so totalHits is exact
        "attributesToHighlight": list(HIGHLIGHTED_FIELDS),
        "highlightPreTag": PRE_TAG,
        "highlightPostTag": POST_TAG,
        "attributesToCrop": ["description"],
        "cropLength": CROP_LENGTH,
        "showMatchesPosition": True,
    }
    if clauses:
        params["filter"] = " AND ".join(clauses)
    if SORT_RULES[query.sort]:
        params["sort"] = SORT_RULES[query.sort]
    return params


def hybrid(query: SearchQuery) -> dict[str, Any]:
    return {"embedder": EMBEDDER, "semanticRatio": query.sr}


def video_queries(query: SearchQuery, video_ids: list[str], semantic: bool) -> list[dict[str, Any]]:
    """For each video, in order: its best subtitle hits, then its video document (each
    query limited to that video; `kind` alone when the targets leave the other out)."""
    base = search_params(query)
    for paging in ("page", "hitsPerPage"):
        base.pop(paging)
    base.pop("filter", None)  # rebuilt per video below
    base["showRankingScore"] = True
    if semantic:
        base["hybrid"] = hybrid(query)
    targets = query.targets or tuple(TARGET_FIELDS)
    queries = []
    for video_id in video_ids:
        for kind, limit in (("subtitle", MOMENT_CANDIDATES), ("video", 1)):
            wanted = kind in {TARGET_KINDS[t] for t in targets}
            queries.append(
                {
                    **base,
                    "indexUid": INDEX_NAME,
                    "q": unify_long_vowels(query.q),
                    "filter": f"{_equals('videoId', video_id)} AND {_equals('kind', kind)}",
                    "limit": limit if wanted else 0,
                }
            )
    return queries


def build_video(
    best: Mapping[str, Any],
    subtitles: list[Mapping[str, Any]],
    meta: Mapping[str, Any] | None,
    targets: tuple[str, ...],
) -> VideoHit:
    """One video of a grouped answer from its best document, its best subtitle hits and
    its video document when that matched."""
    hits = [hit for raw in subtitles if (hit := build_hit(raw, targets))]
    moments = merge_overlapping(hits, limit=MOMENTS_PER_VIDEO)
    matched = ["subtitle"] if moments else []
    if meta is not None:
        positions = meta.get("_matchesPosition") or {}
        matched.extend(t for t in ("title", "description") if t in targets and t in positions)
    return VideoHit(
        video_id=best["videoId"],
        video_title=best.get("videoTitle", ""),
        channel_id=best["channelId"],
        channel_title=best.get("channelTitle", ""),
        published_at=best.get("publishedAt", ""),
        thumbnail_url=best.get("thumbnailUrl"),
        score=float(best.get("_rankingScore", 0.0)),
        moments=moments,
        matched_in=tuple(matched),
    )


def build_hit(raw: Mapping[str, Any], targets: tuple[str, ...]) -> Hit | None:
    """One search hit, or None for a document that is not one of ours."""
    kind = raw.get("kind")
    if kind == "subtitle":
        matched_in, field = "subtitle", "text"
    elif kind == "video":
        matches = raw.get("_matchesPosition") or {}
        title_matched = "title" in targets and "title" in matches
        if title_matched or "description" not in targets:
            matched_in = field = "title"
        else:
            matched_in = field = "description"
    else:
        return None
    formatted = (raw.get("_formatted") or {}).get(field)
    if not isinstance(formatted, str):
        formatted = raw.get(field) or ""
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
        # What the highlight shows, without marks: the whole field, or for a description the
        # cropped part around the match (as the embedded engine does).
        text=formatted.replace(PRE_TAG, "").replace(POST_TAG, ""),
        highlight=highlight(formatted),
    )


def highlight(formatted: str) -> str:
    """Meilisearch's formatted text as HTML: escaped, with <mark> around matches."""
    return html.escape(formatted).replace(PRE_TAG, "<mark>").replace(POST_TAG, "</mark>")


# -- helpers --------------------------------------------------------------------------------


def _quote(value: str) -> str:
    """A filter string literal. Inside double quotes Meilisearch reads \\" as a quote and \\\\
    as a backslash, so an id holding either cannot end the literal early."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _equals(field: str, value: str) -> str:
    return f"{field} = {_quote(value)}"


def _clean(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    # Meilisearch folds width and case itself; long-vowel marks it does not, so the
    # documents (and queries) carry ー for each variant after kana (README, Search).
    return unify_long_vowels(text.replace(PRE_TAG, "").replace(POST_TAG, ""))


def _unix_seconds(iso: str) -> int:
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # our timestamps are UTC
    return int(moment.timestamp())


@contextmanager
def _engine_errors(what: str) -> Iterator[None]:
    try:
        yield
    except MeilisearchApiError as error:
        if error.code is None and error.status_code >= 500:
            # Not Meilisearch's own error body: the tunnel in front of a server that is down.
            raise SearchUnavailable(f"{what}: HTTP {error.status_code}") from error
        raise SearchError(f"{what}: {error.message} ({error.code})") from error
    except (MeilisearchCommunicationError, MeilisearchTimeoutError) as error:
        raise SearchUnavailable(f"{what}: Meilisearch did not answer: {error.message}") from error
    except requests.RequestException as error:
        raise SearchUnavailable(f"{what}: {error}") from error
