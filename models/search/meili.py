"""The `meilisearch` engine: the index `subtitles` on a Meilisearch server (1.13 in production),
through the official `meilisearch` client.

Documents are stored with camelCase fields (`videoId`, `publishedAtTs`, ...). Every write is a
Meilisearch task: we wait for it and turn a task that did not succeed into SearchError, so no
caller believes a write happened when it did not. A server that does not answer is
SearchUnavailable; anything the server refuses is SearchError, and a missing index IndexNotReady.

Writers hold `writing()` (a lock shared by every process, handed in) and it refuses to start
on a missing index: Meilisearch creates one without our settings on a first document add.

Meilisearch cuts Japanese into words itself, but spelling variants (シュミレーション and
シミュレーション, 藝術 and 芸術) stay apart there. So each document also carries the
dictionary's normalised forms of its searchable fields' words (`textWords`, `titleWords`,
`descriptionWords`, from analysis.py), searchable after the fields as written, and a query
term whose forms differ from how it was typed is sent as its forms (meili_request).

Japanese is also found by reading (issue 46): おおさか or osaka finds 大阪. Each document
carries the reading keys of its searchable fields' words (`titleReading`, `textReading`,
`descriptionReading`: katakana keys, readings.py, as the embedded index holds them),
searchable after the word fields. A query term with readings (kana, romaji, kanji with
kana) is, beside itself as written, an alternative for each reading sequence, as if ORed:
each its own branch, whose q holds the reading keys (a phrase when several) and the
term's anchors as words, and which searches the reading fields too. Its federation weight
is READING_WEIGHT (1e-3), ROMAJI_WEIGHT (1e-6) for romaji, so every match as written ranks
before every match by reading, as on the embedded engine; the highlights of such a query
are ours (highlight.py marks the kanji that read so, where Meilisearch would mark the
reading field). An excluded term is excluded by its readings too, on every branch. A
query whose readings would make more than MAX_BRANCHES branches keeps each term's first
reading only, else none (meili_request.plan_query).

A search sends the query language (query.py) as the requests meili_request.py builds (the
`q` of each branch, its filters) and answers with the hits meili_answer.py builds. What a
search costs is decided here:
- a query of one branch (no OR) is one search, paged by number: its total is exact;
- OR: q has none. Each combination of one alternative per group is a branch with its own
  q, and a query of several branches is one federated multi-search (one query per branch,
  Meilisearch merging their hits by ranking score, each document once). The cost grows
  with the product of the groups' sizes, so the API refuses more than MAX_BRANCHES (16)
  branches before a query reaches the engine (bounds.py). Hits: the federation's page and
  its `estimatedTotalHits`, the documents of every branch (the union of their
  candidates): exact, as a search's totalHits. Results by video: each branch asks
  distinct videos, but the federation keeps documents, not videos, apart, so a video may
  come once per branch; the merged list is read from its start far enough for the page
  (at most page x perPage x branches entries) and cut here to each video's best entry,
  and the videos are counted by the facet `videoId` over every branch's candidates: exact
  up to TOTAL_VIDEOS_CAP, as a one-branch search's. Each video's moments and video
  document are asked once per branch and merged by ranking score (meili_request.per_video);
- a branch of several prefix terms: one q holds one prefix only, so its q keeps the last
  and the others are checked here on its hits (a Latin word starting so in a field
  searched). That needs every hit in hand: such a query reads at most SCAN_DEPTH documents
  per branch (one multi-search, merged here), and its pages and counts are exact when
  fewer match, else they cover the first SCAN_DEPTH of each branch (correct hits, fewer).

Search by meaning uses our vectors (embedder.py), not Meilisearch's: the index declares a
`userProvided` embedder named `default` with the model's dimensions, each document carries
its vector in `_vectors.default` (null until it is embedded) and the name of the model that
made it in `vectorModel`. A semantic query embeds the query's words here (no operators,
filters or excluded words) and asks that vector as a branch of its own, by meaning alone,
floored by the model's MeaningFloor: alone at `sr` 1, else federated with the keyword
branches, each side weighted (meili_meaning; docs/search.md, Search by meaning).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import meilisearch
import numpy as np
import numpy.typing as npt
import requests
from meilisearch.errors import (
    MeilisearchApiError,
    MeilisearchCommunicationError,
    MeilisearchTimeoutError,
)
from meilisearch.index import Index
from meilisearch.models.task import TaskInfo

from models.search.analysis import KANA_MARK, READING_MARK, WORD_MARK, index_words
from models.search.base import (
    DEFAULT_TIME_BUDGET_MS,
    INDEX_NAME,
    MOMENTS_PER_VIDEO,
    TOTAL_VIDEOS_CAP,
    Document,
    Hit,
    IndexedVideo,
    IndexNotReady,
    SearchBusy,
    SearchError,
    SearchQuery,
    SearchResults,
    SearchUnavailable,
    Segment,
    VideoMoments,
    VideoResults,
)
from models.search.embedder import Embedder, NoEmbedder, Questions, vector_by
from models.search.meaning_floor import measured_floor
from models.search.meili_answer import build_hit, build_video, scan_page
from models.search.meili_fields import (
    EMBEDDER,
    POST_TAG,
    PRE_TAG,
    QUERY_FILTERS,
    READING_FIELDS,
    SEARCHABLE_ATTRIBUTES,
    WORD_FIELDS,
    equals,
    quote,
    unix_seconds,
)
from models.search.meili_meaning import Meaning, meaning_of, probe
from models.search.meili_moments import Matches, per_branch, shown_from, video_matches
from models.search.meili_request import (
    SORT_RULES,
    TARGET_FIELDS,
    TARGET_KINDS,
    QueryPlan,
    branch_queries,
    branch_weights,
    facet_values,
    first_of_each_video,
    match_queries,
    merge_ranked,
    per_video,
    plan_query,
    search_params,
    shown_query,
    video_queries,
)
from models.search.moments import VideoMoment, group_spans, moment_hit, rank_moments
from models.search.query import Query
from models.search.segments import transcript
from models.search.text import Term, normalize, unify_long_vowels

log = logging.getLogger(__name__)

PRIMARY_KEY = "id"
# The field naming the model a document's vector was made by. Meilisearch's userProvided
# embedder records its dimensions only, so this is how a change to a model of the same
# dimensions is seen: apply_settings asks whether documents of another model remain.
VECTOR_MODEL = "vectorModel"
FILTERABLE_ATTRIBUTES = ["videoId", "channelId", "kind", VECTOR_MODEL, *QUERY_FILTERS]
SETTINGS = {
    "searchableAttributes": SEARCHABLE_ATTRIBUTES,
    "filterableAttributes": FILTERABLE_ATTRIBUTES,
    "sortableAttributes": ["publishedAtTs", "viewCount", "start"],
    "localizedAttributes": [{"attributePatterns": SEARCHABLE_ATTRIBUTES, "locales": ["jpn"]}],
    # The word fields stay displayed: Meilisearch reports `_matchesPosition` for displayed
    # fields only, and a title found through its words alone must still count as a title
    # match. No reader sees them: hits are built from the named fields, and they are not
    # highlighted (meili_request.HIGHLIGHTED_FIELDS).
    "displayedAttributes": ["*"],
    # totalHits is exact only up to maxTotalHits (1000 by default); the API promises
    # exact totals and pages.
    "pagination": {"maxTotalHits": 100_000},
    # A search of several branches (OR) counts its videos by the facet of `videoId`
    # (search_videos): one value more than the cap says there are more.
    "faceting": {"maxValuesPerFacet": TOTAL_VIDEOS_CAP + 1},
}

# Document attribute -> index field. The last six exist only on one kind of document and are
# left out when empty; the others are null when empty, which no filter matches.
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
    "duration_seconds": "durationSeconds",
    "subtitle_type": "subtitleType",
    "subtitle_language": "subtitleLanguage",
    "text": "text",
    "start": "start",
    "end": "end",
    "title": "title",
    "description": "description",
    "fingerprint": "fingerprint",
}
OPTIONAL_FIELDS = {"text", "start", "end", "title", "description", "fingerprint"}
# What a channel refresh may change on its documents (the same rule as the embedded engine).
CHANNEL_FIELDS = {"subscriber_count", "channel_title"}
# What a change on the platform may update on a video's documents: `video_title` on each,
# `title` on its video document only (subtitle documents are not found by the title).
VIDEO_FIELDS = {"video_title", "title"}

USER_PROVIDED = "userProvided"
# Errors meaning "no semantic search here", after which a keyword search can still answer: no
# embedder of that name (an index not set up since the model was configured), one of other
# dimensions (set up for another model), the vector store switched off (servers before 1.13),
# or the embedder failing on the query.
SEMANTIC_UNAVAILABLE = {
    "invalid_search_embedder",
    "invalid_vector_dimensions",
    "feature_not_enabled",
    "vector_embedding_error",
}
# Decimals of each vector component sent. A unit vector's components are at most 1, so 8
# decimals keep each within 5e-9, about as fine as float32 holds it, in half the characters
# of float64's 17 digits (every document carries a vector, and a grouped search sends the
# query's with each of its queries).
VECTOR_DECIMALS = 8

PAGE_SIZE = 1000  # documents per fetch page and per partial-update batch
# Documents read per branch of a query whose prefix terms are checked here (_scanned).
SCAN_DEPTH = 2 * TOTAL_VIDEOS_CAP
# Videos per delete task of replace_videos: keeps each filter string a few tens of KB.
DELETE_CHUNK = 500
# What inventory() reads of each document.
INVENTORY_FIELDS = [
    "id",
    "videoId",
    "kind",
    "videoTitle",
    "channelTitle",
    "title",
    "subscriberCount",
    "fingerprint",
]
NOT_READY = (
    "the search index `subtitles` does not exist on Meilisearch:"
    " run `subsearch db upgrade`, then `subsearch search reindex`"
)


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
        time_budget_ms: int = DEFAULT_TIME_BUDGET_MS,
        lock: Callable[[], AbstractContextManager[object]] | None = None,
        embedder: Embedder | None = None,
        questions: Questions | None = None,
    ):
        self.embedder: Embedder = embedder if embedder is not None else NoEmbedder()
        self.questions = questions or Questions()
        # The client joins paths with "/", so a trailing slash would double it.
        self._host = host.rstrip("/")
        self._api_key = api_key
        self._master_key = master_key
        self.time_budget_ms = time_budget_ms
        self._timeout = timeout
        self._task_timeout_ms = task_timeout_ms
        self._client = meilisearch.Client(self._host, api_key, timeout=timeout)
        # Without a lock handed in, one that holds off this process's threads only: enough
        # for tests and a single process; deployments hand in one every process shares.
        local_lock = threading.RLock()
        self._lock = lock if lock is not None else lambda: local_lock
        self._local = threading.local()  # this thread's depth of writing() blocks

    def _index(self) -> Index:
        # A fresh Index per operation: the client's request helper edits its shared header dict
        # on every call, and one engine serves several threads.
        return self._client.index(INDEX_NAME)

    # -- the write lock -----------------------------------------------------------------

    @contextmanager
    def _held(self) -> Iterator[bool]:
        """The write lock for the block; True in the outermost block of this thread. Inner
        blocks only count: the lock handed in (redis-py's) is not re-entrant."""
        depth: int = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield False
            finally:
                self._local.depth = depth
            return
        with ExitStack() as stack:
            try:
                stack.enter_context(self._lock())
            except Exception as error:  # the lock's own failure: redis-py's LockError, no Redis
                raise SearchUnavailable(f"the index's write lock: {error}") from error
            self._local.depth = 1
            try:
                yield True
            finally:
                self._local.depth = 0

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the write lock for the block, once the index is found to exist. The write
        methods do not take it themselves: the caller reads the database inside it."""
        with self._held() as outermost:
            if outermost:
                with _engine_errors("looking up the index"):
                    self._index().fetch_info()
            yield

    # -- writes ---------------------------------------------------------------------

    def apply_settings(self) -> bool:
        """Create the index if missing, then apply the settings; True when this call created
        it or laid it out anew, so its documents lack what ours carry and `subsearch db
        upgrade` writes every video again: an index laid out for other searchable fields (as
        before the word fields) or without the query language's filters (their fields are
        missing from its documents), an embedder declared, removed or changed, or documents
        holding vectors of another model. Under the write lock, so no writer adds documents
        in between, and of several processes setting up at once only the first finds the
        old layout."""
        with self._held(), _engine_errors("applying the index settings"):
            index = self._index()
            created = self._create_if_missing(index)
            # An upgrade is told by the settings, not by `search verify`: a video's
            # fingerprint says what the database gives, not which fields its documents carry.
            current: dict[str, Any] = {} if created else index.get_settings()
            anew = (
                created
                or current.get("searchableAttributes") != SEARCHABLE_ATTRIBUTES
                # Documents written before the query language's filters lack their fields.
                or not set(QUERY_FILTERS) <= set(current.get("filterableAttributes") or [])
            )
            wanted = self._embedder_settings()
            declared = _declared_embedder(current)
            if declared is not None and declared != wanted:
                self._remove_embedder(index, emptied=wanted is not None)
                declared, anew = None, True
            settings: dict[str, Any] = dict(SETTINGS)
            if wanted is not None:
                settings["embedders"] = {EMBEDDER: wanted}
                anew = anew or declared is None
            if not self._wait(
                index,
                index.update_settings(settings),
                "updating the settings",
                ignore={"invalid_vector_dimensions"} if wanted is not None else set(),
            ):
                # Documents still hold the vectors an embedder of other dimensions left
                # in them when it was removed (Meilisearch writes a userProvided
                # embedder's vectors back into its documents), which the new one refuses.
                log.warning("documents hold vectors of other dimensions: emptying the index")
                self._empty(index)
                self._wait(index, index.update_settings(settings), "updating the settings")
                anew = True
            if wanted is not None and not anew:
                anew = self._holds_another_model(index)
        return anew

    def _embedder_settings(self) -> dict[str, Any] | None:
        """The embedder the index should declare (None: none, no model is loaded)."""
        if not self.embedder.loaded:
            return None
        return {"source": USER_PROVIDED, "dimensions": self.embedder.dims}

    def _remove_embedder(self, index: Index, *, emptied: bool) -> None:
        """Remove the declared embedder; when another takes its place (`emptied`), remove
        the documents first. Meilisearch writes a removed userProvided embedder's vectors
        back into its documents, where a new embedder of other dimensions would find them
        and fail, and one of the same dimensions would take them as its own; and it cannot
        drop vectors without rewriting each document. The caller writes every video again
        (apply_settings says the index was laid out anew), as after it was created."""
        if emptied:
            log.warning(
                "the embedder changes to %s (%d dimensions): emptying the index, which"
                " `subsearch db upgrade` writes again from the stored subtitles",
                self.embedder.model,
                self.embedder.dims,
            )
            self._empty(index)
        self._wait(index, index.update_embedders({EMBEDDER: None}), "removing the embedder")

    def _empty(self, index: Index) -> None:
        self._wait(index, index.delete_all_documents(), "removing every document")

    def _holds_another_model(self, index: Index) -> bool:
        """Whether some document holds a vector of another model than ours (of the same
        dimensions: the embedder's say nothing of the model)."""
        other = f"{VECTOR_MODEL} EXISTS AND {VECTOR_MODEL} != {quote(self.embedder.model)}"
        found = index.get_documents({"filter": other, "fields": ["id"], "limit": 1})
        return bool(found.results)

    def _create_if_missing(self, index: Index) -> bool:
        """Create the index with our primary key unless it exists; True when this call
        created it."""
        try:
            primary_key = index.fetch_info().primary_key
        except MeilisearchApiError as error:
            if error.code != "index_not_found":
                raise
            task = self._client.create_index(INDEX_NAME, {"primaryKey": PRIMARY_KEY})
            # Another process may create it between our look and our create; that is fine.
            return self._wait(index, task, "creating the index", ignore={"index_already_exists"})
        if primary_key is None:  # created by hand, before any document
            self._wait(index, index.update(primary_key=PRIMARY_KEY), "setting the key")
        elif primary_key != PRIMARY_KEY:
            raise SearchError(
                f"index {INDEX_NAME} has primary key {primary_key!r}, not {PRIMARY_KEY!r}"
            )
        return False

    def replace_video_documents(self, video_id: str, documents: list[Document]) -> None:
        self.replace_videos({video_id: documents})

    def replace_videos(self, replaced: Mapping[str, list[Document]]) -> None:
        """Delete the videos' documents (one task per DELETE_CHUNK videos), then add all the
        new ones in one task. Nothing is added unless every delete succeeded, and a delete on
        a missing index fails rather than creating it."""
        if not replaced:
            return
        ids = list(replaced)
        what = f"replacing the documents of video {ids[0]}" + (
            f" and {len(ids) - 1} more" if len(ids) > 1 else ""
        )
        with _engine_errors(what):
            index = self._index()
            for first in range(0, len(ids), DELETE_CHUNK):
                listed = ", ".join(quote(v) for v in ids[first : first + DELETE_CHUNK])
                deleted = index.delete_documents(filter=f"videoId IN [{listed}]")
                self._wait(index, deleted, "deleting the old documents")
            model = self.embedder.model if self.embedder.loaded else None
            documents = [index_document(d, model) for docs in replaced.values() for d in docs]
            if documents:
                self._wait(index, index.add_documents(documents), "adding the new documents")

    def delete_video_documents(self, video_id: str) -> None:
        with _engine_errors(f"deleting the documents of video {video_id}"):
            index = self._index()
            deleted = index.delete_documents(filter=equals("videoId", video_id))
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
            listed = self._fetch_all(index, equals("channelId", channel_id), ["id"])
            return self._update_partially(index, [{"id": doc["id"], **fields} for doc in listed])

    def update_video_documents(self, video_id: str, values: Mapping[str, object]) -> int:
        unknown = set(values) - VIDEO_FIELDS
        if unknown:
            raise SearchError(f"cannot update {', '.join(sorted(unknown))} by video")
        if not values:
            return 0
        # As index_document stores them: only the searchable title is cleaned, and its
        # words go with it.
        shown = {FIELDS[name]: value for name, value in values.items() if name != "title"}
        searchable = _searchable("title", values["title"]) if "title" in values else {}
        with _engine_errors(f"updating the documents of video {video_id}"):
            index = self._index()
            listed = self._fetch_all(index, equals("videoId", video_id), ["id", "kind"])
            return self._update_partially(
                index,
                [
                    {"id": doc["id"], **shown} | (searchable if doc.get("kind") == "video" else {})
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
    ) -> bool:
        """Wait for the task; True when it succeeded, False when it failed with an error
        in `ignore`."""
        uid = task.task_uid
        try:
            done = index.wait_for_task(uid, timeout_in_ms=self._task_timeout_ms)
        except MeilisearchTimeoutError as error:
            raise SearchError(
                f"{what}: task {uid} not finished after {self._task_timeout_ms} ms"
            ) from error
        if done.status == "succeeded":
            return True
        failure = done.error or {}
        if failure.get("code") in ignore:
            return False
        if failure.get("code") == "index_not_found":
            raise IndexNotReady(f"{what}: {NOT_READY}")
        raise SearchError(
            f"{what}: task {uid} {done.status}: {failure.get('message') or 'no error given'}"
            f" ({failure.get('code')})"
        )

    # -- reads ----------------------------------------------------------------------

    def _fetch_all(
        self, index: Index, filter_: str | None, fields: list[str]
    ) -> Iterator[dict[str, Any]]:
        offset = 0
        while True:
            asked: dict[str, Any] = {"fields": fields, "limit": PAGE_SIZE, "offset": offset}
            if filter_ is not None:
                asked = {"filter": filter_, **asked}
            page = index.get_documents(asked)
            yield from (dict(doc) for doc in page.results)
            offset += len(page.results)
            if not page.results or offset >= page.total:
                return

    def inventory(self) -> Iterator[IndexedVideo]:
        """Every video the index holds, read page by page and folded into one tally per
        video as it goes (an index may hold a million segments). A video's documents are
        spread over the pages, so the whole index is read before the first is given; a
        missing index raises here rather than on the first next(). Read inside writing()
        for a view no writer changes half-way."""
        tallies: dict[str, _Tally] = {}
        with _engine_errors("listing the indexed videos"):
            for doc in self._fetch_all(self._index(), None, INVENTORY_FIELDS):
                video_id = doc.get("videoId")
                if video_id is None:
                    continue  # a stub a partial update left, not a video's document
                tally = tallies.get(video_id)
                if tally is None:
                    tallies[video_id] = _Tally.first(doc)
                else:
                    tally.add(doc)
        return (tally.video(video_id) for video_id, tally in tallies.items())

    def search(self, query: SearchQuery) -> SearchResults:
        """One page of hits. A query of one branch is one search, paged by number (its
        total exact); several (OR) are one federated multi-search; several prefix terms in
        a branch are read and checked here (_scanned)."""
        plan = plan_query(query.read)
        targets = query.targets or tuple(TARGET_FIELDS)
        deadline = time.monotonic() + self.time_budget_ms / 1000
        vector = self._query_vector(query, plan.read, deadline)
        with _engine_errors("searching"), self._budget(deadline) as client:
            meaning = self._meaning(client(), query, plan, vector)
            if plan.scanned:
                found = self._scanned(client(), query, plan, meaning)
                first = (query.page - 1) * query.per_page
                raws, total = found[first : first + query.per_page], len(found)
            elif _federates(plan, meaning):
                response = self._federated(client(), query, plan, meaning)
                raws, total = response["hits"], response.get("estimatedTotalHits", 0)
            else:
                response = self._search(client(), query, plan, meaning)
                raws, total = response["hits"], response.get("totalHits", 0)
        semantic_applied = meaning is not None
        own = not plan.read.simple or plan.by_reading
        terms = plan.read.terms
        hits = [hit for raw in raws if (hit := build_hit(raw, targets, terms, own=own))]
        return SearchResults(total_hits=total, hits=hits, semantic_applied=semantic_applied)

    @contextmanager
    def _budget(self, deadline: float) -> Iterator[Callable[[], meilisearch.Client]]:
        """The search's time budget (to `deadline`, monotonic) over all its calls: each
        call gets a client whose timeout is what is left of it, and a call that runs out
        of it is SearchBusy (the server did answer before: it is slow for this search,
        not gone)."""

        def client() -> meilisearch.Client:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SearchBusy(f"searching: past its {self.time_budget_ms} ms")
            # The client hands its timeout to requests as is, which takes fractions of a
            # second; its annotation says whole seconds only.
            return meilisearch.Client(self._host, self._api_key, timeout=left)  # type: ignore[arg-type]

        try:
            yield client
        except (MeilisearchTimeoutError, requests.Timeout) as error:
            raise SearchBusy(f"searching: past its {self.time_budget_ms} ms: {error}") from error

    def _query_vector(self, query: SearchQuery, read: Query, deadline: float) -> list[float] | None:
        """The vector of the query's words (no operators, filters or excluded words) when
        it asks for meaning and the model is loaded (None: a keyword search), within the
        search's budget: the model's time counts against it (SearchBusy past it, or when
        the process's model already has its fill of questions)."""
        if not (query.semantic and self.embedder.loaded and read.text.strip()):
            return None
        return json_vector(vector_by(self.questions.submit(self.embedder, read.text), deadline))

    def _meaning(
        self,
        client: meilisearch.Client,
        query: SearchQuery,
        plan: QueryPlan,
        vector: list[float] | None,
    ) -> Meaning | None:
        """The search's branch by meaning (meili_meaning), from a first small search for
        the nearest videos; None for a search by keywords: no vector, or a server without
        the embedder for it (logged: the keyword search answers instead)."""
        if vector is None:
            return None
        if query.sr <= 0.0:
            return Meaning(vector, 0.0)  # meaning has no weight: nothing to ask it
        floor = measured_floor(self.embedder.model)
        body = probe(branch_queries(query, plan)[0], vector, floor)
        try:
            nearest = client.multi_search([body])["results"][0]["hits"]
        except MeilisearchApiError as error:
            if error.code not in SEMANTIC_UNAVAILABLE:
                raise
            log.warning("semantic search unavailable, keyword search instead: %s", error)
            return None
        return meaning_of(vector, query.sr, floor, nearest)

    def _search(
        self,
        client: meilisearch.Client,
        query: SearchQuery,
        plan: QueryPlan,
        meaning: Meaning | None,
        extra: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The answer of a query of one branch, paged by number: by keywords, or by
        meaning alone."""
        params = {**search_params(query, plan.read, plan.kinds(0)), **(extra or {})}
        if meaning is not None and meaning.alone:
            if meaning.finds_nothing:
                return {"hits": [], "totalHits": 0}
            params = meaning.body(params)
        return client.index(INDEX_NAME).search(plan.qs[0], params)

    def _bodies(
        self, query: SearchQuery, plan: QueryPlan, meaning: Meaning | None, **extra: Any
    ) -> list[dict[str, Any]]:
        """The queries of a multi-search: each keyword branch (none when meaning alone
        ranks), then the branch by meaning (none when it finds nothing), in the order of
        branch_weights."""
        queries = [{**body, **extra} for body in branch_queries(query, plan)]
        bodies = [] if meaning is not None and meaning.alone else queries
        if meaning is not None and not meaning.finds_nothing:
            bodies = [*bodies, meaning.body(queries[0])]
        return bodies

    def _federation(
        self, query: SearchQuery, plan: QueryPlan, meaning: Meaning | None, **extra: Any
    ) -> list[dict[str, Any]]:
        """The queries of a federation: _bodies, each with its weight for the federation
        to merge by when keywords and meaning both rank, or some branch finds by reading."""
        bodies = self._bodies(query, plan, meaning, **extra)
        if not plan.by_reading and (meaning is None or not meaning.mixed):
            return bodies
        weights = branch_weights(plan, meaning)
        if meaning is not None and meaning.finds_nothing:
            weights = weights[:-1]  # no branch by meaning is asked
        return [
            {**body, "federationOptions": {"weight": weight}}
            for body, weight in zip(bodies, weights, strict=True)
        ]

    def _federated(
        self,
        client: meilisearch.Client,
        query: SearchQuery,
        plan: QueryPlan,
        meaning: Meaning | None,
    ) -> dict[str, Any]:
        """The page of hits of a query of several branches (or of keywords and meaning):
        one federated multi-search, its hits merged by weighted ranking score and each
        document once (Meilisearch does both)."""
        bodies = self._federation(query, plan, meaning)
        if not bodies:
            return {"hits": [], "estimatedTotalHits": 0}
        federation = {"offset": (query.page - 1) * query.per_page, "limit": query.per_page}
        return client.multi_search(bodies, federation=federation)

    def _scanned(
        self,
        client: meilisearch.Client,
        query: SearchQuery,
        plan: QueryPlan,
        meaning: Meaning | None,
    ) -> list[dict[str, Any]]:
        """Every document of a query with several prefix terms in a branch, best first, as
        far as SCAN_DEPTH documents per branch: each branch's q holds one of its prefixes,
        and its hits are checked here for the others (plan.holds); the branches' hits (and
        meaning's, which match no word) are merged by the sort asked, then weighted
        ranking score, each document once."""
        extra = {"offset": 0, "limit": SCAN_DEPTH, "showRankingScore": True}
        bodies = self._bodies(query, plan, meaning, **extra)
        keyword_branches = 0 if meaning is not None and meaning.alone else len(plan.qs)
        answers = client.multi_search(bodies)["results"] if bodies else []
        targets = query.targets or tuple(TARGET_FIELDS)
        fields = [TARGET_FIELDS[target] for target in targets]
        held = [
            [
                hit
                for hit in result["hits"]
                if branch >= keyword_branches or plan.holds(branch, hit, fields)
            ]
            for branch, result in enumerate(answers)
        ]
        return merge_ranked(held, SORT_RULES[query.sort], branch_weights(plan, meaning))

    def search_videos(self, query: SearchQuery) -> VideoResults:
        """The page of videos (its best document each) and their count, then one
        multi-search asking, for each of them, its best subtitle segments and its video
        document, and every subtitle segment it matches by id and times (each branch of the
        query asked apart, merged here): its moments, counted and ranked
        (meili_moments.py)."""
        plan = plan_query(query.read)
        targets = query.targets or tuple(TARGET_FIELDS)
        own = not plan.read.simple or plan.by_reading
        deadline = time.monotonic() + self.time_budget_ms / 1000
        vector = self._query_vector(query, plan.read, deadline)
        with _engine_errors("searching"), self._budget(deadline) as client:
            meaning = self._meaning(client(), query, plan, vector)
            weights = branch_weights(plan, meaning)
            queries: list[dict[str, Any]] = []
            metas: list[dict[str, Any] | None] = []
            if plan.scanned:
                scanned = self._scanned(client(), query, plan, meaning)
                best, metas, total = scan_page(scanned, query)
            else:
                if _federates(plan, meaning):
                    best, total = self._federated_videos(client, query, plan, meaning)
                else:
                    extra = {"distinct": "videoId", "showRankingScore": True}
                    response = self._search(client(), query, plan, meaning, extra)
                    best, total = response["hits"], response.get("totalHits", 0)
                best = [raw for raw in best if raw.get("kind") in TARGET_KINDS.values()]
                queries = video_queries(query, plan, [raw["videoId"] for raw in best], meaning)
            ids = [raw["videoId"] for raw in best]
            every = match_queries(query, plan, ids, meaning, text=own)
            results = client().multi_search([*queries, *every])["results"] if ids else []
            answered, matched = results[: len(queries)], results[len(queries) :]
            checked = self._checked_branches(plan, meaning)
            matches = video_matches(matched, len(ids), weights, plan, checked)
            groups = [group_spans(match.spans) for match in matches]
            shown = [
                rank_moments(moments, match.ranking, MOMENTS_PER_VIDEO)
                for moments, match in zip(groups, matches, strict=True)
            ]
            asked = per_branch(answered, len(ids), len(weights)) if answered else None
            docs = self._shown_docs(client, query, plan, meaning, ids, matches, shown, asked, own)
        if not plan.scanned:
            metas = [meta for _, meta in per_video(answered, len(ids), weights)]
        videos = []
        for raw, meta, made, moments in zip(best, metas, groups, shown, strict=True):
            hits = _moment_hits(moments, docs, targets, plan.read.terms, own)
            counted = len(made) if hits else 0
            videos.append(build_video(raw, hits, counted, meta, targets, plan.read.terms, own=own))
        return VideoResults(
            total_videos=min(total, TOTAL_VIDEOS_CAP),
            more_than_cap=total > TOTAL_VIDEOS_CAP,
            videos=videos,
            semantic_applied=meaning is not None,
        )

    def video_moments(self, query: SearchQuery, video_id: str) -> VideoMoments:
        """Every moment of one video, a page of them: its matching subtitle documents
        asked whole (one multi-search), the page's highlighted where the highlights are
        Meilisearch's (a second one)."""
        plan = plan_query(query.read)
        targets = query.targets or tuple(TARGET_FIELDS)
        own = not plan.read.simple or plan.by_reading
        deadline = time.monotonic() + self.time_budget_ms / 1000
        vector = self._query_vector(query, plan.read, deadline)
        with (
            _engine_errors(f"listing the moments of video {video_id}"),
            self._budget(deadline) as client,
        ):
            meaning = self._meaning(client(), query, plan, vector)
            weights = branch_weights(plan, meaning)
            every = match_queries(query, plan, [video_id], meaning, text=own)
            results = client().multi_search(every)["results"]
            checked = self._checked_branches(plan, meaning)
            [matches] = video_matches(results, 1, weights, plan, checked)
            listed = rank_moments(group_spans(matches.spans), matches.ranking)
            first = (query.page - 1) * query.per_page
            page = listed[first : first + query.per_page]
            docs = self._shown_docs(
                client, query, plan, meaning, [video_id], [matches], [page], None, own
            )
        return VideoMoments(
            total_moments=len(listed),
            moments=_moment_hits(page, docs, targets, plan.read.terms, own),
            semantic_applied=meaning is not None,
        )

    @staticmethod
    def _checked_branches(plan: QueryPlan, meaning: Meaning | None) -> int:
        """How many of the branches asked are keyword ones whose hits are checked for
        the prefixes their q left out (a query of several prefix terms)."""
        if not plan.scanned or (meaning is not None and meaning.alone):
            return 0
        return len(plan.qs)

    def _shown_docs(
        self,
        client: Callable[[], meilisearch.Client],
        query: SearchQuery,
        plan: QueryPlan,
        meaning: Meaning | None,
        ids: list[str],
        matches: list[Matches],
        shown: list[list[VideoMoment]],
        asked: list[list[list[dict[str, Any]]]] | None,
        own: bool,
    ) -> dict[str, Mapping[str, Any]]:
        """The documents showing each video's moments, by id: as the match queries read
        them where the highlights are ours; else highlighted, from `asked` (each video's
        best documents of each branch, as video_queries asked them) or asked at their
        place, all in one multi-search."""
        docs: dict[str, Mapping[str, Any]] = {}
        if own:
            for match in matches:
                docs.update((str(doc["id"]), doc) for doc in match.docs)
            return docs
        wanted: list[dict[str, Any]] = []
        for n, (video_id, match, moments) in enumerate(zip(ids, matches, shown, strict=True)):
            found, missing = shown_from(moments, match, asked[n] if asked else ())
            docs.update(found)
            wanted.extend(
                shown_query(query, plan, video_id, meaning, branch, at) for branch, at in missing
            )
        if wanted:
            # A document found elsewhere than its place (the index changed meanwhile) is
            # not the one asked for: its moment is left out.
            for answer in client().multi_search(wanted)["results"]:
                docs.update((str(hit["id"]), hit) for hit in answer.get("hits") or [])
        return docs

    def _federated_videos(
        self,
        client: Callable[[], meilisearch.Client],
        query: SearchQuery,
        plan: QueryPlan,
        meaning: Meaning | None,
    ) -> tuple[list[dict[str, Any]], int]:
        """The page of videos of a query of several branches, or of keywords and meaning
        (their best document each), and how many videos match.

        Each branch asks distinct videos, but the federation keeps each document once, not
        each video: a video comes once per branch at most. So the merged list is read from
        its start, far enough to hold the page's videos (page x perPage x branches entries
        at most, asked for twice as many videos as the page needs first), and cut here to
        each video's first entry. The count is the `videoId` facet over every branch's
        candidates, exact up to TOTAL_VIDEOS_CAP (faceting.maxValuesPerFacet)."""
        needed = query.page * query.per_page
        queries = self._federation(query, plan, meaning, distinct="videoId", showRankingScore=True)
        if not queries:
            return [], 0
        most = needed * len(queries)
        limit = min(2 * needed, most)
        while True:
            federation = {"offset": 0, "limit": limit, "facetsByIndex": {INDEX_NAME: ["videoId"]}}
            response = client().multi_search(queries, federation=federation)
            best = first_of_each_video(response["hits"])
            if len(best) >= needed or len(response["hits"]) < limit or limit >= most:
                break
            limit = min(2 * limit, most)
        counted = facet_values(response, "videoId")
        total = len(best) if counted is None else max(counted, len(best))
        first = (query.page - 1) * query.per_page
        return best[first : first + query.per_page], total

    def video_segments(self, video_id: str) -> list[Segment]:
        filter_ = f"{equals('videoId', video_id)} AND {equals('kind', 'subtitle')}"
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


def _moment_hits(
    moments: list[VideoMoment],
    docs: Mapping[str, Mapping[str, Any]],
    targets: tuple[str, ...],
    terms: list[Term],
    own: bool,
) -> list[Hit]:
    """The moments as hits, each the document showing it (by id in `docs`) over the
    moment's range; a moment whose document is missing (gone meanwhile) is left out."""
    hits = []
    for moment in moments:
        doc = docs.get(str(moment.shown[0]))
        hit = build_hit(doc, targets, terms, own=own) if doc is not None else None
        if hit is not None:
            hits.append(moment_hit(moment, hit))
    return hits


# -- documents as stored ------------------------------------------------------------------


def index_document(document: Document, model: str | None = None) -> dict[str, Any]:
    """A Document as stored in the index; with the model of the embedder the index
    declares (`model`), its vector for it, or null until it is embedded."""
    stored: dict[str, Any] = {"id": document.id}
    for attribute, field in FIELDS.items():
        value = getattr(document, attribute)
        if value is None and attribute in OPTIONAL_FIELDS:
            continue
        if field in WORD_FIELDS:
            stored.update(_searchable(field, value))
        else:
            stored[field] = value
    stored["publishedAtTs"] = unix_seconds(document.published_at)
    if model is not None:
        vector = None if document.vector is None else json_vector(document.vector)
        stored["_vectors"] = {EMBEDDER: vector}
        if vector is not None:
            stored[VECTOR_MODEL] = model
    return stored


def json_vector(vector: npt.NDArray[np.float32]) -> list[float]:
    """A vector as sent to Meilisearch, each component to VECTOR_DECIMALS decimals."""
    rounded: list[float] = np.round(np.asarray(vector, dtype=np.float64), VECTOR_DECIMALS).tolist()
    return rounded


def _searchable(field: str, value: Any) -> dict[str, Any]:
    """A searchable field as stored, cleaned, with the fields of its words and of their
    readings."""
    cleaned = _clean(value)
    forms, readings = words_and_readings(cleaned or "")
    return {field: cleaned, WORD_FIELDS[field]: forms, READING_FIELDS[field]: readings}


def word_forms(text: str) -> str:
    """The normalised forms of the words of `text`, space-separated: the long units, then
    the short units when some long unit splits (東京国際空港 東京 国際 空港), so a query's
    word meets a document's whatever its spelling and whichever unit it is."""
    return words_and_readings(text)[0]


def word_readings(text: str) -> str:
    """The reading keys of the words of `text` (readings.reading_key), space-separated as
    word_forms has the forms, words without a reading (Latin, digits, particles,
    auxiliaries) left out: 大阪の串カツ reads オサカ クシカツ (and カツ, a word inside 串カツ),
    so a term in kana or romaji meets the kanji that read so."""
    return words_and_readings(text)[1]


def words_and_readings(text: str) -> tuple[str, str]:
    """word_forms and word_readings of `text`, from one pass of the analyser (the
    embedded index's columns, analysis.index_words, without their marks)."""
    forms, readings = index_words(normalize(text))
    return _unmarked(forms), _unmarked(readings)


def _unmarked(column: str) -> str:
    """A column of analysis.index_words as space-separated words: each word or reading
    token without its mark, the breaks between its runs (long units, short units, ...)
    left out."""
    return " ".join(token[1:] for token in column.split(" ") if token[:1] in _MARKS)


_MARKS = (WORD_MARK, READING_MARK, KANA_MARK)


# Fields every document of a video carries alike, IndexedVideo attribute -> index field.
SHARED_FIELDS = {
    "video_title": "videoTitle",
    "channel_title": "channelTitle",
    "subscriber_count": "subscriberCount",
}
_DISAGREE = object()  # a shared field the video's documents hold different values of


@dataclass(slots=True)
class _Tally:
    """What inventory() keeps of one video while it pages: a count and a few fields."""

    documents: int
    shared: dict[str, object]
    title: str | None = None
    fingerprint: str | None = None

    @classmethod
    def first(cls, doc: Mapping[str, Any]) -> _Tally:
        tally = cls(0, {name: doc.get(field) for name, field in SHARED_FIELDS.items()})
        tally.add(doc)
        return tally

    def add(self, doc: Mapping[str, Any]) -> None:
        self.documents += 1
        for name, field in SHARED_FIELDS.items():
            if self.shared[name] is not _DISAGREE and doc.get(field) != self.shared[name]:
                self.shared[name] = _DISAGREE  # a partial update that stopped half-way
        if doc.get("kind") == "video":
            self.title, self.fingerprint = doc.get("title"), doc.get("fingerprint")

    def video(self, video_id: str) -> IndexedVideo:
        shared = {k: None if v is _DISAGREE else v for k, v in self.shared.items()}
        disagree = any(v is _DISAGREE for v in self.shared.values())
        return IndexedVideo(
            video_id=video_id,
            # Documents that disagree are stale whatever the database says (-1 matches no
            # count), even where it has no value either.
            documents=-1 if disagree else self.documents,
            video_title=_str_or_none(shared["video_title"]),
            channel_title=_str_or_none(shared["channel_title"]),
            title=self.title,
            subscriber_count=_int_or_none(shared["subscriber_count"]),
            fingerprint=self.fingerprint,
        )


# -- helpers --------------------------------------------------------------------------------


def _federates(plan: QueryPlan, meaning: Meaning | None) -> bool:
    """Whether a search asks several queries merged by a federation: several keyword
    branches (OR, readings) unless meaning alone ranks (no keyword branch is asked), or
    keywords and meaning both."""
    if meaning is not None and meaning.alone:
        return False
    return plan.federated or (meaning is not None and meaning.mixed)


def _declared_embedder(settings: Mapping[str, Any]) -> dict[str, Any] | None:
    """The index's embedder `default` as apply_settings compares it with ours: its source
    and dimensions (what else an operator tuned, such as `distribution`, is kept), or None
    when there is none."""
    embedder = (settings.get("embedders") or {}).get(EMBEDDER)
    if embedder is None:
        return None
    if isinstance(embedder, Mapping):
        return {"source": embedder.get("source"), "dimensions": embedder.get("dimensions")}
    # The client gives each embedder as a model of its source's fields.
    return {
        "source": getattr(embedder, "source", None),
        "dimensions": getattr(embedder, "dimensions", None),
    }


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _clean(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    # Meilisearch folds width and case itself; long-vowel marks it does not, so the
    # documents (and queries) carry ー for each variant after kana (docs/search.md, Engines).
    return unify_long_vowels(text.replace(PRE_TAG, "").replace(POST_TAG, ""))


@contextmanager
def _engine_errors(what: str) -> Iterator[None]:
    try:
        yield
    except MeilisearchApiError as error:
        if error.code == "index_not_found":
            raise IndexNotReady(f"{what}: {NOT_READY}") from error
        if error.code is None and error.status_code >= 500:
            # Not Meilisearch's own error body: the tunnel in front of a server that is down.
            raise SearchUnavailable(f"{what}: HTTP {error.status_code}") from error
        raise SearchError(f"{what}: {error.message} ({error.code})") from error
    except (MeilisearchCommunicationError, MeilisearchTimeoutError) as error:
        raise SearchUnavailable(f"{what}: Meilisearch did not answer: {error.message}") from error
    except requests.RequestException as error:
        raise SearchUnavailable(f"{what}: {error}") from error
