"""A stand-in for a Meilisearch server (1.13 API): records every request exactly as the client
sent it and keeps documents in memory, with just enough search to drive an engine end to end.

Tasks run the moment they are enqueued; `GET /tasks/{uid}` then reports them (as "enqueued"
for the first `pending_polls` polls, so waiting is exercised). `fail_next_task()` makes the
next task fail instead of running.

Searching reads `q` as Meilisearch does (parse_q): bare words, quoted phrases, `-word`
(the one word after the minus) and `-"phrase"` excluded, the last word a prefix when
nothing follows it; `matchingStrategy` `last` (the default: all words, then fewer from the
end) or `all`. Matching is deliberately simple: case-insensitive, a Latin word whole (a
prefix: the words it starts), Japanese anywhere inside a run of kana and kanji (Meilisearch
cuts those into words; the fake does not), a phrase's words one after the other, in any
field searched on (the word and reading fields too: a reading field's katakana keys are
words like any); a document holding an excluded word or phrase is
left out. Every match of a required word is highlighted in the fields asked (a prefix's
letters only), and positions are given for every field (as for displayed fields).
Documents come in the order stored, the ranking score given by that order; `distinct`
keeps the first of each value. Filters are parsed as Meilisearch's grammar has them
(comparisons, IN, EXISTS, NOT, AND, OR, parentheses; parse_filter), on attributes declared
filterable only. `/multi-search` answers each query in turn, or with `federation` merges
them as Meilisearch 1.13 does (federated()).

Search by meaning knows `userProvided` embedders only, as Meilisearch 1.13 treats them:
- the setting `embedders` declares them (PATCH merges, null removes); declaring one, or
  changing its dimensions, takes the vectors its documents carry and fails the task with
  `invalid_vector_dimensions` when one has other dimensions. A removed embedder's vectors
  stay in its documents (Meilisearch writes them back there), found again by the next
  embedder declared under that name;
- `_vectors.<name>` in a document is its vector (an array, an array of arrays, or
  `{embeddings, regenerate}`; null or [] is none); vectors are never returned, by search or
  fetch (the fake knows no `retrieveVectors`);
- a search chooses as Meilisearch's does: no `q` and no `vector` is a placeholder search;
  `hybrid.semanticRatio` 0 a keyword search (no embedder looked up), 1 a search by meaning
  alone (no word matched or highlighted); in between, with `q`, both, fused. A `vector`
  without `hybrid` is `missing_search_hybrid`, an embedder not declared
  `invalid_search_embedder`, a vector of other dimensions `invalid_vector_dimensions`, and no
  vector for a search by meaning alone `vector_embedding_error` (a userProvided embedder
  embeds nothing; in a hybrid search that falls back to the keyword results, as there).
- The meaning side ranks every document the filter lets through by similarity, Meilisearch's
  (1 + cosine) / 2, those without a vector last. Fusion approximates Meilisearch's: both
  rankings are merged by score weighted by the ratio (meaning: similarity x ratio; keywords:
  every match scores 1, x (1 - ratio)), a document keeping its first place, so with 0.5 every
  keyword match comes before what meaning alone found. `sort` then orders all of them, as it
  does a keyword search here. By meaning alone a hit's `_rankingScore` is its similarity
  (`rankingScoreThreshold` leaves out those below it), and so is its score in a federation,
  times its query's `federationOptions.weight`.

A missing index is as on the real server: searching it, fetching or deleting its documents
answers (or fails the task with) `index_not_found`, while adding or updating documents or
settings creates it, without any of our settings (the first document's `id` as its key).
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
from dataclasses import dataclass
from urllib.parse import parse_qsl

import numpy as np
from werkzeug.wrappers import Request, Response

NOW = "2026-01-01T00:00:00.000000Z"
DEFAULT_SEARCHABLE = ["title", "text", "description"]
SEARCH_PARAMS = {
    "q",
    "filter",
    "attributesToSearchOn",
    "sort",
    "page",
    "hitsPerPage",
    "offset",
    "limit",
    "attributesToHighlight",
    "highlightPreTag",
    "highlightPostTag",
    "attributesToCrop",
    "cropLength",
    "cropMarker",
    "showMatchesPosition",
    "showRankingScore",
    "distinct",
    "hybrid",
    "vector",
    "matchingStrategy",
    "rankingScoreThreshold",
    "attributesToRetrieve",
}
FEDERATION_PARAMS = {"offset", "limit", "facetsByIndex", "mergeFacets"}
SETTINGS = {
    "searchableAttributes",
    "filterableAttributes",
    "sortableAttributes",
    "localizedAttributes",
    "displayedAttributes",
    "rankingRules",
    "pagination",
    "embedders",
    "faceting",
}
FETCH_PARAMS = {"filter", "fields", "limit", "offset"}
ID = re.compile(r"[A-Za-z0-9_-]{1,511}")
# What GET /settings says of a setting never set (as Meilisearch does, for those read here).
SETTING_DEFAULTS = {
    "searchableAttributes": ["*"],
    "filterableAttributes": [],
    "sortableAttributes": [],
    "displayedAttributes": ["*"],
    "localizedAttributes": None,
    "pagination": {"maxTotalHits": 1000},
    "embedders": {},
    "faceting": {"maxValuesPerFacet": 100, "sortFacetValuesBy": {"*": "alpha"}},
}
EMBEDDER_FIELDS = {"source", "dimensions", "distribution", "binaryQuantized"}
VECTORS = "_vectors"


class ApiError(Exception):
    def __init__(self, status, code, message, kind="invalid_request"):
        super().__init__(message)
        self.status, self.code, self.message, self.kind = status, code, message, kind

    def body(self):
        return error_body(self.code, self.message, self.kind)


def error_body(code, message, kind="invalid_request"):
    return {
        "message": message,
        "code": code,
        "type": kind,
        "link": f"https://docs.meilisearch.com/errors#{code}",
    }


class FakeMeilisearch:
    def __init__(self, api_key="admin-key", master_key="master-key"):
        self.api_key = api_key
        self.master_key = master_key
        self.requests: list[dict] = []
        self.indexes: dict[str, dict] = {}
        self.tasks: dict[int, dict] = {}
        self.pending_polls = 0
        self.keys = [
            {"name": "Default Search API Key", "key": "search-key", "actions": ["search"]},
            {"name": "Default Admin API Key", "key": "admin-key", "actions": ["*"]},
        ]
        self._failures: list[dict] = []
        self._polls: dict[int, int] = {}
        self._lock = threading.Lock()

    # -- set-up and inspection for tests ----------------------------------------------

    def add_index(self, uid="subtitles", primary_key="id", settings=None):
        self.indexes[uid] = {
            "uid": uid,
            "primaryKey": primary_key,
            "settings": dict(settings or {}),
            "documents": {},
        }
        return self.indexes[uid]

    def seed(self, *documents, uid="subtitles"):
        for document in documents:
            self.indexes[uid]["documents"][str(document["id"])] = dict(document)

    def documents(self, uid="subtitles"):
        return self.indexes[uid]["documents"]

    def fail_next_task(self, message, code="internal", kind="internal"):
        self._failures.append(error_body(code, message, kind))

    def calls(self):
        """(method, path with query string, JSON body) of every request but task polls."""
        return [
            (
                r["method"],
                r["path"] + (f"?{r['query_string']}" if r["query_string"] else ""),
                r["json"],
            )
            for r in self.requests
            if not (r["method"] == "GET" and r["path"].startswith("/tasks/"))
        ]

    def polled(self):
        """Task uids the client asked about, in order (repeats removed)."""
        seen = []
        for r in self.requests:
            if r["method"] == "GET" and r["path"].startswith("/tasks/"):
                uid = int(r["path"].rsplit("/", 1)[1])
                if uid not in seen:
                    seen.append(uid)
        return seen

    def last(self, method, path):
        return [r for r in self.requests if r["method"] == method and r["path"] == path][-1]

    # -- WSGI --------------------------------------------------------------------------

    def __call__(self, environ, start_response):
        request = Request(environ)
        raw = request.get_data(as_text=True)
        record = {
            "method": request.method,
            "path": request.path,
            "query_string": request.query_string.decode(),
            "query": dict(parse_qsl(request.query_string.decode())),
            "json": None,
            "headers": dict(request.headers),
        }
        with self._lock:
            self.requests.append(record)
            try:
                if raw:
                    try:
                        record["json"] = json.loads(raw)
                    except ValueError as error:
                        raise ApiError(400, "malformed_payload", str(error)) from error
                status, payload = self.route(request.method, request.path, record)
            except ApiError as error:
                status, payload = error.status, error.body()
        response = Response(json.dumps(payload), status=status, mimetype="application/json")
        return response(environ, start_response)

    def route(self, method, path, req):
        if path == "/health" and method == "GET":
            return 200, {"status": "available"}
        self.authorize(path, req["headers"])
        parts = path.strip("/").split("/")
        body = req["json"]
        if parts[0] == "keys" and method == "GET" and len(parts) == 1:
            return 200, self.list_keys(req["query"])
        if parts[0] == "tasks" and method == "GET" and len(parts) == 2:
            return 200, self.poll(int(parts[1]))
        if parts == ["multi-search"] and method == "POST":
            return 200, self.multi_search(body or {})
        if parts == ["indexes"] and method == "POST":
            return 202, self.enqueue(body.get("uid"), "indexCreation", self.create_index, body)
        if parts[0] != "indexes" or len(parts) < 2:
            raise ApiError(404, "not_found", f"no route {method} {path}")
        uid, rest = parts[1], parts[2:]
        if rest == [] and method == "GET":
            return 200, self.index_info(self.existing(uid))
        if rest == [] and method == "PATCH":
            return 202, self.enqueue(uid, "indexUpdate", self.update_index, body)
        if rest == ["settings", "searchable-attributes"] and method == "GET":
            # Every field until the settings name some, as on the real server.
            return 200, self.existing(uid)["settings"].get("searchableAttributes", ["*"])
        if rest == ["settings"] and method == "GET":
            return 200, {**SETTING_DEFAULTS, **self.existing(uid)["settings"]}
        if rest == ["settings"] and method == "PATCH":
            unknown = set(body) - SETTINGS
            if unknown:
                raise ApiError(400, "bad_request", f"Unknown field `{sorted(unknown)[0]}`")
            return 202, self.enqueue(uid, "settingsUpdate", self.update_settings, body)
        if rest == ["settings", "embedders"] and method == "PATCH":
            body = {"embedders": body}
            return 202, self.enqueue(uid, "settingsUpdate", self.update_settings, body)
        if rest == ["documents"] and method == "POST":
            return 202, self.enqueue(uid, "documentAdditionOrUpdate", self.add_documents, body)
        if rest == ["documents"] and method == "PUT":
            return 202, self.enqueue(uid, "documentAdditionOrUpdate", self.update_documents, body)
        if rest == ["documents"] and method == "DELETE":
            return 202, self.enqueue(uid, "documentDeletion", self.delete_all_documents, body)
        if rest == ["documents", "delete"] and method == "POST":
            parse_filter(body.get("filter"), "invalid_document_filter")  # syntax: at once
            return 202, self.enqueue(uid, "documentDeletion", self.delete_documents, body)
        if rest == ["documents", "fetch"] and method == "POST":
            return 200, self.fetch(self.existing(uid), body or {})
        if rest == ["search"] and method == "POST":
            return 200, self.search(self.existing(uid), body or {})
        raise ApiError(404, "not_found", f"no route {method} {path}")

    def authorize(self, path, headers):
        auth = headers.get("Authorization")
        if not auth:
            raise ApiError(
                401,
                "missing_authorization_header",
                "The Authorization header is missing.",
                "auth",
            )
        allowed = {self.master_key} if path.startswith("/keys") else {self.master_key, self.api_key}
        if auth.removeprefix("Bearer ") not in allowed:
            raise ApiError(403, "invalid_api_key", "The provided API key is invalid.", "auth")

    # -- tasks -------------------------------------------------------------------------

    def enqueue(self, index_uid, kind, work, body):
        uid = len(self.tasks)
        task = {
            "uid": uid,
            "batchUid": uid,
            "indexUid": index_uid,
            "status": "succeeded",
            "type": kind,
            "canceledBy": None,
            "details": {},
            "error": None,
            "duration": "PT0.001S",
            "enqueuedAt": NOW,
            "startedAt": NOW,
            "finishedAt": NOW,
        }
        if self._failures:
            task["status"], task["error"] = "failed", self._failures.pop(0)
        else:
            try:
                task["details"] = work(index_uid, body) or {}
            except ApiError as error:
                task["status"], task["error"] = "failed", error.body()
        self.tasks[uid] = task
        return {
            "taskUid": uid,
            "indexUid": index_uid,
            "status": "enqueued",
            "type": kind,
            "enqueuedAt": NOW,
        }

    def poll(self, uid):
        if uid not in self.tasks:
            raise ApiError(404, "task_not_found", f"Task `{uid}` not found.")
        self._polls[uid] = self._polls.get(uid, 0) + 1
        if self._polls[uid] <= self.pending_polls:
            return {**self.tasks[uid], "status": "enqueued", "startedAt": None, "finishedAt": None}
        return self.tasks[uid]

    # -- indexes and settings --------------------------------------------------------------

    def existing(self, uid):
        if uid not in self.indexes:
            raise ApiError(404, "index_not_found", f"Index `{uid}` not found.")
        return self.indexes[uid]

    @staticmethod
    def index_info(index):
        return {
            "uid": index["uid"],
            "primaryKey": index["primaryKey"],
            "createdAt": NOW,
            "updatedAt": NOW,
        }

    def create_index(self, uid, body):
        if uid in self.indexes:
            raise ApiError(409, "index_already_exists", f"Index `{uid}` already exists.")
        self.add_index(uid, body.get("primaryKey"))

    def update_index(self, uid, body):
        index = self.existing(uid)
        if index["documents"] and index["primaryKey"] != body.get("primaryKey"):
            raise ApiError(400, "index_primary_key_already_exists", "Index already has a key.")
        index["primaryKey"] = body.get("primaryKey")

    def update_settings(self, uid, body):
        index = self.indexes.get(uid) or self.add_index(uid, None)
        changes = dict(body)
        if "embedders" in changes:
            # Checked against the documents before any setting changes: a task is whole.
            changes["embedders"] = self.declared(index, changes["embedders"] or {})
        index["settings"].update(changes)

    def declared(self, index, changes):
        """The embedders once `changes` apply. Each one declared anew, or given other
        dimensions, takes the vectors its documents hold, which must have its dimensions."""
        embedders = dict(index["settings"].get("embedders") or {})
        for name, setting in changes.items():
            if setting is None:
                embedders.pop(name, None)  # its vectors stay in the documents
                continue
            unknown = set(setting) - EMBEDDER_FIELDS
            if unknown:
                raise ApiError(
                    400, "invalid_settings_embedders", f"Unknown field `{sorted(unknown)[0]}`."
                )
            old = embedders.get(name) or {}
            new = {**old, **{k: v for k, v in setting.items() if v is not None}}
            if new.get("source") != "userProvided":
                raise ApiError(
                    400, "invalid_settings_embedders", "The fake knows userProvided only."
                )
            dims = new.get("dimensions")
            if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
                raise ApiError(
                    400, "invalid_settings_embedders", "A userProvided embedder needs `dimensions`."
                )
            if old.get("dimensions") != dims:
                for document in index["documents"].values():
                    _vectors_of(document, name, dims)
            embedders[name] = new
        return embedders

    # -- documents ---------------------------------------------------------------------

    def _checked(self, uid, documents):
        index = self.indexes.get(uid) or self.add_index(uid, "id")
        key = index["primaryKey"] or "id"
        index["primaryKey"] = key
        embedders = index["settings"].get("embedders") or {}
        for document in documents:
            if key not in document:
                raise ApiError(400, "missing_document_id", f"Document doesn't have `{key}`.")
            if not ID.fullmatch(str(document[key])):
                raise ApiError(400, "invalid_document_id", f"Bad id `{document[key]}`.")
            if VECTORS in document and not isinstance(document[VECTORS], dict | None):
                raise ApiError(400, "invalid_vectors_type", "`_vectors` must be an object.")
            for name, embedder in embedders.items():
                _vectors_of(document, name, embedder["dimensions"])
        return index, key

    def add_documents(self, uid, documents):
        index, key = self._checked(uid, documents)
        for document in documents:
            index["documents"][str(document[key])] = dict(document)
        return {"receivedDocuments": len(documents), "indexedDocuments": len(documents)}

    def update_documents(self, uid, documents):
        index, key = self._checked(uid, documents)
        for document in documents:
            # Like Meilisearch: merged into the stored document, or created as is.
            index["documents"].setdefault(str(document[key]), {}).update(document)
        return {"receivedDocuments": len(documents), "indexedDocuments": len(documents)}

    def delete_all_documents(self, uid, _body):
        index = self.existing(uid)
        deleted = len(index["documents"])
        index["documents"].clear()
        return {"deletedDocuments": deleted}

    def delete_documents(self, uid, body):
        index = self.existing(uid)
        match = self.compiled_filter(index, body.get("filter"), "invalid_document_filter")
        doomed = [k for k, doc in index["documents"].items() if match(doc)]
        for k in doomed:
            del index["documents"][k]
        return {"providedIds": 0, "deletedDocuments": len(doomed), "originalFilter": body["filter"]}

    def fetch(self, index, body):
        unknown = set(body) - FETCH_PARAMS
        if unknown:
            raise ApiError(400, "bad_request", f"Unknown field `{sorted(unknown)[0]}`")
        match = self.compiled_filter(index, body.get("filter"), "invalid_document_filter")
        found = [doc for doc in index["documents"].values() if match(doc)]
        offset, limit = body.get("offset", 0), body.get("limit", 20)
        fields = body.get("fields")
        page = [
            {k: v for k, v in doc.items() if (fields is None or k in fields) and k != VECTORS}
            for doc in found[offset : offset + limit]
        ]
        return {"results": page, "offset": offset, "limit": limit, "total": len(found)}

    def compiled_filter(self, index, text, code):
        """The filter as a predicate on documents. As Meilisearch: an attribute not
        declared filterable is refused, whatever the document holds."""
        tree = parse_filter(text, code)
        filterable = index["settings"].get("filterableAttributes") or []
        for field in _filter_fields(tree):
            if field not in filterable:
                raise ApiError(
                    400,
                    code,
                    f"Attribute `{field}` is not filterable. Available filterable attributes"
                    f" are: `{', '.join(sorted(filterable))}`.",
                )
        return lambda doc: _holds(doc, tree)

    # -- search ------------------------------------------------------------------------

    def search(self, index, body):
        unknown = set(body) - SEARCH_PARAMS
        if unknown:
            raise ApiError(400, "bad_request", f"Unknown field `{sorted(unknown)[0]}`")
        found, semantic_ids, words, similarity = self.ranked(index, body)
        if "page" in body or "hitsPerPage" in body:
            page, per_page = body.get("page", 1), body.get("hitsPerPage", 20)
            chosen = found[(page - 1) * per_page : page * per_page]
            totals = {
                "hitsPerPage": per_page,
                "page": page,
                "totalPages": math.ceil(len(found) / per_page) if per_page else 0,
                "totalHits": len(found),
            }
        else:
            offset, limit = body.get("offset", 0), body.get("limit", 20)
            chosen = found[offset : offset + limit]
            totals = {"offset": offset, "limit": limit, "estimatedTotalHits": len(found)}
        hits = [self.format_hit(doc, words, body) for doc in chosen]
        semantic_hits = sum(doc["id"] in semantic_ids for doc in chosen)
        if body.get("showRankingScore"):
            first = found.index(chosen[0]) if chosen else 0
            for n, (hit, doc) in enumerate(zip(hits, chosen, strict=True)):
                hit["_rankingScore"] = similarity.get(doc["id"], _score(first + n, len(found)))
        answer = {"hits": hits, "query": body.get("q") or "", "processingTimeMs": 0, **totals}
        if body.get("hybrid") is not None:
            answer["semanticHitCount"] = semantic_hits
        return answer

    def ranked(self, index, body):
        """(every document the search finds, in order, `distinct` applied; the ids of
        those meaning alone brought; the query's words, None for a search by meaning
        alone; by meaning alone, each document's similarity, its ranking score there)."""
        kind, ratio, meaning = self.search_kind(index, body)
        settings = index["settings"]
        searchable = settings.get("searchableAttributes") or DEFAULT_SEARCHABLE
        on = body.get("attributesToSearchOn") or searchable
        for field in on:
            if field not in searchable:
                raise ApiError(
                    400, "invalid_search_attributes_to_search_on", f"`{field}` not searchable."
                )
        strategy = body.get("matchingStrategy", "last")
        if strategy not in ("last", "all"):
            raise ApiError(
                400, "invalid_search_matching_strategy", "The fake knows `last` and `all`."
            )
        # A search by meaning alone matches (and so highlights) no word.
        words = None if kind == "semantic" else parse_q(body.get("q") or "")
        match = self.compiled_filter(index, body.get("filter"), "invalid_search_filter")
        allowed = [doc for doc in index["documents"].values() if match(doc)]
        found = allowed if words is None else _matching(allowed, words, on, strategy)
        semantic_ids, similarity = set(), {}
        threshold = body.get("rankingScoreThreshold")
        if threshold is not None and (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not 0.0 <= threshold <= 1.0
        ):
            raise ApiError(
                400, "invalid_search_ranking_score_threshold", f"Bad threshold `{threshold}`."
            )
        if kind != "keyword":
            ranked = _by_similarity(allowed, *meaning)
            if kind == "hybrid":
                if threshold is not None:
                    raise ApiError(
                        400,
                        "bad_request",
                        "The fake applies `rankingScoreThreshold` to a search by meaning"
                        " alone, where a document's score is its similarity.",
                    )
                merged = _fused(found, ranked, ratio)
            else:
                # By meaning alone a document's ranking score is its similarity: the
                # threshold leaves out those below it.
                similarity = {
                    doc["id"]: round(near, 6)
                    for doc, near in ranked
                    if threshold is None or near >= threshold
                }
                merged = [(doc, "semantic") for doc, _ in ranked if doc["id"] in similarity]
            found = [doc for doc, _ in merged]
            semantic_ids = {doc["id"] for doc, side in merged if side == "semantic"}
        for rule in reversed(body.get("sort") or []):
            field, _, direction = rule.partition(":")
            sortable = settings.get("sortableAttributes") or []
            if field not in sortable or direction not in ("asc", "desc"):
                raise ApiError(400, "invalid_search_sort", f"Cannot sort on `{rule}`.")
            found.sort(key=functools.cmp_to_key(_comparer(field, direction == "desc")))
        distinct = body.get("distinct")
        if distinct is not None:
            filterable = settings.get("filterableAttributes") or []
            if distinct not in filterable:
                raise ApiError(
                    400, "invalid_search_distinct", f"Attribute `{distinct}` is not filterable."
                )
            # The best document of each value.
            best = {}
            for doc in found:
                best.setdefault(doc.get(distinct), doc)
            found = list(best.values())
        return found, semantic_ids, words, similarity

    def search_kind(self, index, body):
        """("keyword" | "semantic" | "hybrid", the semantic ratio, (embedder, vector)) as
        Meilisearch 1.13 chooses them (routes/indexes/search.rs, search_kind)."""
        q, hybrid, vector = body.get("q"), body.get("hybrid"), body.get("vector")
        if hybrid is not None:
            if not isinstance(hybrid, dict) or set(hybrid) - {"embedder", "semanticRatio"}:
                raise ApiError(400, "invalid_search_hybrid_query", f"Bad `hybrid`: {hybrid}.")
            if not isinstance(hybrid.get("embedder"), str):
                raise ApiError(400, "invalid_search_embedder", "`hybrid.embedder` is missing.")
            ratio = hybrid.get("semanticRatio", 0.5)
            if not isinstance(ratio, int | float) or not 0.0 <= ratio <= 1.0:
                raise ApiError(400, "invalid_search_semantic_ratio", f"Bad ratio `{ratio}`.")
        if vector is not None and not (
            isinstance(vector, list) and all(isinstance(x, int | float) for x in vector)
        ):
            raise ApiError(400, "invalid_search_vector", "`vector` must be an array of numbers.")
        if vector is None and not (q or "").strip():
            return "keyword", 0.0, None  # a placeholder search
        if hybrid is None:
            if vector is not None:
                raise ApiError(400, "missing_search_hybrid", "`vector` needs `hybrid`.")
            return "keyword", 0.0, None
        if ratio == 0.0:
            return "keyword", 0.0, None
        name = hybrid["embedder"]
        embedder = (index["settings"].get("embedders") or {}).get(name)
        if embedder is None:
            raise ApiError(
                400, "invalid_search_embedder", f"Cannot find embedder with name `{name}`."
            )
        if vector is not None and len(vector) != embedder["dimensions"]:
            raise ApiError(
                400,
                "invalid_vector_dimensions",
                f"Invalid vector dimensions: expected: `{embedder['dimensions']}`,"
                f" found: `{len(vector)}`.",
            )
        if vector is None:
            if ratio == 1.0 or q is None:
                raise ApiError(
                    400,
                    "vector_embedding_error",
                    "Error while generating embeddings: a userProvided embedder embeds nothing.",
                )
            return "keyword", 0.0, None  # the embedding fails, quietly: keywords answer
        if ratio == 1.0 or q is None:
            return "semantic", 1.0, (name, vector)
        return "hybrid", ratio, (name, vector)

    def multi_search(self, body):
        """Each query answered as /search would, in order; with `federation`, merged."""
        if body.get("federation") is not None:
            return self.federated(body.get("queries") or [], body["federation"])
        results = []
        for query in body.get("queries") or []:
            query = dict(query)
            uid = query.pop("indexUid", None)
            if uid is None:
                raise ApiError(400, "missing_index_uid", "Missing field `indexUid`.")
            results.append({"indexUid": uid, **self.search(self.existing(uid), query)})
        return {"results": results}

    def federated(self, queries, federation):
        """A federated search as Meilisearch 1.13 answers it (search/federated.rs): every
        query's documents merged into one list by the sort asked, then weighted ranking
        score (ties: the earlier query), each document once, where it ranks best;
        `federation.offset`/`limit` page that list; `estimatedTotalHits` counts the
        documents of every query (the union of their candidates); `facetsByIndex` counts
        each facet's values over those documents, in alphabetical order, at most
        `faceting.maxValuesPerFacet` of them. A query may not page itself."""
        unknown = set(federation) - FEDERATION_PARAMS
        if unknown:
            raise ApiError(400, "bad_request", f"Unknown field `federation.{sorted(unknown)[0]}`")
        ranked, candidates, semantic, meant = [], {}, False, set()
        for n, query in enumerate(queries):
            query = dict(query)
            uid = query.pop("indexUid", None)
            weight = (query.pop("federationOptions", None) or {}).get("weight", 1.0)
            paging = [name for name in ("offset", "limit", "page", "hitsPerPage") if name in query]
            if paging:
                raise ApiError(
                    400,
                    "invalid_multi_search_query_pagination",
                    f"Inside `.queries[{n}]`: Using pagination options is not allowed in"
                    f" federated queries.\n - Hint: remove `{paging[0]}` from query #{n} or"
                    " remove `federation` from the request",
                )
            if uid not in self.indexes:
                raise ApiError(
                    400, "index_not_found", f"Inside `.queries[{n}]`: Index `{uid}` not found."
                )
            unknown = set(query) - SEARCH_PARAMS
            if unknown:
                raise ApiError(400, "bad_request", f"Unknown field `{sorted(unknown)[0]}`")
            found, by_meaning, words, similarity = self.ranked(self.indexes[uid], query)
            semantic = semantic or query.get("hybrid") is not None
            meant |= {(uid, doc_id) for doc_id in by_meaning}
            for position, doc in enumerate(found):
                score = similarity.get(doc["id"], _score(position, len(found))) * weight
                ranked.append((n, uid, doc, score, words, query))
                candidates.setdefault(uid, {})[doc["id"]] = doc
        ranked.sort(key=lambda item: (-item[3], item[0]))
        for rule in reversed(_federated_sort(queries)):
            field, _, direction = rule.partition(":")
            by_field = _comparer(field, direction == "desc")
            ranked.sort(key=functools.cmp_to_key(lambda a, b, by=by_field: by(a[2], b[2])))
        merged, seen = [], set()
        for n, uid, doc, score, words, query in ranked:
            if (uid, doc["id"]) not in seen:
                seen.add((uid, doc["id"]))
                merged.append((n, uid, doc, score, words, query))
        offset, limit = federation.get("offset", 0), federation.get("limit", 20)
        hits = []
        for n, uid, doc, score, words, query in merged[offset : offset + limit]:
            hit = self.format_hit(doc, words, query)
            if query.get("showRankingScore"):
                hit["_rankingScore"] = round(score, 6)
            hit["_federation"] = {
                "indexUid": uid,
                "queriesPosition": n,
                "weightedRankingScore": round(score, 6),
            }
            hits.append(hit)
        answer = {
            "hits": hits,
            "processingTimeMs": 0,
            "limit": limit,
            "offset": offset,
            "estimatedTotalHits": sum(len(docs) for docs in candidates.values()),
        }
        if semantic:
            page = merged[offset : offset + limit]
            answer["semanticHitCount"] = sum((uid, doc["id"]) in meant for _, uid, doc, *_ in page)
        facets = self.facets_by_index(federation.get("facetsByIndex") or {}, candidates)
        if facets:
            answer["facetsByIndex"] = facets
        return answer

    def facets_by_index(self, asked, candidates):
        """{index: {"distribution", "stats"}} of the facets asked of each index."""
        answer = {}
        for uid, fields in asked.items():
            index = self.indexes.get(uid)
            if index is None:
                raise ApiError(400, "index_not_found", f"Index `{uid}` not found.")
            settings = index["settings"]
            filterable = settings.get("filterableAttributes") or []
            most = (settings.get("faceting") or SETTING_DEFAULTS["faceting"])["maxValuesPerFacet"]
            distribution = {}
            for field in fields or []:
                if field not in filterable:
                    raise ApiError(
                        400,
                        "invalid_multi_search_facets",
                        f"Inside `.federation.facetsByIndex.{uid}`: Invalid facet distribution:"
                        f" Attribute `{field}` is not filterable.",
                    )
                counts = {}
                for doc in candidates.get(uid, {}).values():
                    if doc.get(field) is not None:
                        value = str(doc[field])
                        counts[value] = counts.get(value, 0) + 1
                distribution[field] = dict(sorted(counts.items())[:most])
            answer[uid] = {"distribution": distribution, "stats": {}}
        return answer

    @staticmethod
    def format_hit(doc, words, body):
        """A hit as returned: the document without vectors, and as asked its highlighted
        and cropped fields (every word of the query found, marked; the excluded ones
        never) and its matches' positions."""
        hit = {field: value for field, value in doc.items() if field != VECTORS}
        retrieved = body.get("attributesToRetrieve")
        if retrieved is not None and "*" not in retrieved:
            hit = {field: value for field, value in hit.items() if field in retrieved}
        highlighted = body.get("attributesToHighlight") or []
        cropped = body.get("attributesToCrop") or []
        if highlighted or cropped:
            pre, post = body.get("highlightPreTag", "<em>"), body.get("highlightPostTag", "</em>")
            formatted = {}
            for field, value in hit.items():
                if not isinstance(value, str):
                    # Meilisearch gives numbers in _formatted as strings.
                    formatted[field] = value if value is None else str(value)
                    continue
                if field in cropped:
                    value = _crop(
                        value,
                        _spans(value, words),
                        body.get("cropLength", 10),
                        body.get("cropMarker", "…"),
                    )
                if field in highlighted:
                    value = _marked(value, _spans(value, words), pre, post)
                formatted[field] = value
            hit["_formatted"] = formatted
        if body.get("showMatchesPosition"):
            positions = {}
            for field, value in hit.items():
                spans = _spans(value, words) if isinstance(value, str) else []
                if spans:
                    # Meilisearch counts bytes
                    positions[field] = [
                        {
                            "start": len(value[:start].encode()),
                            "length": len(value[start:end].encode()),
                        }
                        for start, end in spans
                    ]
            hit["_matchesPosition"] = positions
        return hit

    def list_keys(self, query):
        offset, limit = int(query.get("offset", 0)), int(query.get("limit", 20))
        results = [
            {
                "name": key["name"],
                "description": f"Use it for {key['actions'][0]}",
                "key": key["key"],
                "uid": f"00000000-0000-0000-0000-00000000000{n}",
                "actions": key["actions"],
                "indexes": ["*"],
                "expiresAt": None,
                "createdAt": NOW,
                "updatedAt": NOW,
            }
            for n, key in enumerate(self.keys)
        ]
        return {
            "results": results[offset : offset + limit],
            "offset": offset,
            "limit": limit,
            "total": len(results),
        }


# -- filters ---------------------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(!=|>=|<=|[\[\],=<>()])|([A-Za-z0-9_.-]+))')
_COMPARISONS = {
    "=": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    ">": lambda x, y: x > y,
    ">=": lambda x, y: x >= y,
    "<": lambda x, y: x < y,
    "<=": lambda x, y: x <= y,
}


def _tokens(text, code):
    tokens, at = [], 0
    while at < len(text.rstrip()):
        found = _TOKEN.match(text, at)
        if not found:
            raise ApiError(400, code, f"Was expecting a value at `{text[at:]}`.")
        quoted, symbol, word = found.groups()
        if quoted is not None:
            tokens.append(("value", re.sub(r"\\(.)", r"\1", quoted)))
        elif symbol is not None:
            tokens.append(("symbol", symbol))
        else:
            tokens.append(("word", word))
        at = found.end()
    return tokens


def parse_filter(text, code):
    """A filter string as a tree: ("or" | "and", [trees]), ("not", tree) or ("is", field,
    operator, values). Reads what Meilisearch's grammar does but `TO`, `IS NULL`, `IS
    EMPTY` and geo: `f = v`, `f != v`, `f > v` (and >=, <, <=), `f IN [v, ...]`, `f NOT
    IN [...]`, `f EXISTS`, `f NOT EXISTS`, `NOT`, `AND` before `OR`, parentheses."""
    if text is None:
        return ("and", [])
    if not isinstance(text, str):
        raise ApiError(400, code, "The fake only takes a filter string.")
    reader = _FilterReader(_tokens(text, code), text, code)
    tree = reader.alternatives()
    if reader.at != len(reader.tokens):
        reader.fail()
    return tree


class _FilterReader:
    def __init__(self, tokens, text, code):
        self.tokens, self.text, self.code, self.at = tokens, text, code, 0

    def fail(self):
        raise ApiError(400, self.code, f"Unexpected token in filter `{self.text}`.")

    def peek(self):
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self, kind=None, value=None):
        if self.at >= len(self.tokens):
            raise ApiError(400, self.code, f"Filter ends early: `{self.text}`.")
        token = self.tokens[self.at]
        if (kind and token[0] != kind) or (value and token[1] != value):
            self.fail()
        self.at += 1
        return token[1]

    def value(self):
        if self.at >= len(self.tokens) or self.tokens[self.at][0] not in ("value", "word"):
            raise ApiError(400, self.code, f"Was expecting a value in `{self.text}`.")
        return self.take()

    def alternatives(self):
        found = [self.conjunction()]
        while self.peek() == "OR":
            self.take()
            found.append(self.conjunction())
        return found[0] if len(found) == 1 else ("or", found)

    def conjunction(self):
        found = [self.negation()]
        while self.peek() == "AND":
            self.take()
            found.append(self.negation())
        return found[0] if len(found) == 1 else ("and", found)

    def negation(self):
        if self.peek() == "NOT":
            self.take()
            return ("not", self.negation())
        if self.peek() == "(":
            self.take()
            inside = self.alternatives()
            self.take("symbol", ")")
            return inside
        return self.condition()

    def condition(self):
        field = self.take("word")
        word = self.take()
        if word in _COMPARISONS:
            return ("is", field, word, [self.value()])
        if word == "IN":
            return ("is", field, "IN", self.listed())
        if word == "EXISTS":
            return ("is", field, "EXISTS", [])
        if word == "NOT":
            after = self.take("word")
            if after == "IN":
                return ("not", ("is", field, "IN", self.listed()))
            if after == "EXISTS":
                return ("not", ("is", field, "EXISTS", []))
        self.fail()
        return None

    def listed(self):
        self.take("symbol", "[")
        values = [self.value()]
        while self.peek() == ",":
            self.take()
            values.append(self.value())
        self.take("symbol", "]")
        return values


def _filter_fields(tree):
    if tree[0] == "is":
        return [tree[1]]
    if tree[0] == "not":
        return _filter_fields(tree[1])
    return [field for branch in tree[1] for field in _filter_fields(branch)]


def _holds(doc, tree):
    kind = tree[0]
    if kind == "and":
        return all(_holds(doc, branch) for branch in tree[1])
    if kind == "or":
        return any(_holds(doc, branch) for branch in tree[1])
    if kind == "not":
        return not _holds(doc, tree[1])  # a document without the field too, as there
    _, field, op, values = tree
    if op == "EXISTS":
        return field in doc
    value = doc.get(field)
    if op == "!=":
        # As Meilisearch: NOT (f = v), so a document without the field holds it too.
        return value is None or str(value) != values[0]
    if value is None:
        return False
    if op == "IN":
        return str(value) in values
    if op == "=":
        return str(value) == values[0]
    # Comparisons are of numbers: a string value or bound matches none.
    try:
        bound = float(values[0])
    except ValueError:
        return False
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return _COMPARISONS[op](value, bound)


def _comparer(field, descending):
    def compare(a, b):
        x, y = a.get(field), b.get(field)
        if x is None or y is None:  # documents without the value come last either way
            return (x is None) - (y is None)
        result = (x > y) - (x < y)
        return -result if descending else result

    return compare


# -- words -----------------------------------------------------------------------------------

# Japanese has no spaces: a run of kana and kanji is one token here, and a word of the query
# matches anywhere inside one (as Meilisearch, which cuts such runs into words, finds most).
_CJK = "\u3005-\u3007\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
_WORD = re.compile(f"[{_CJK}]+|[^\\W_{_CJK}]+")
_CJK_RUN = re.compile(f"[{_CJK}]+")


@dataclass(frozen=True)
class Words:
    """A `q` as Meilisearch reads it (milli's parse_query.rs): the terms every document
    must hold (a word, or a quoted phrase), and those none may (`-word` excludes the
    word right after the minus only; `-"a phrase"` the phrase). The last word of q is a
    prefix when nothing, not even a space, follows it."""

    positives: list[tuple[str, ...]]  # each a word (one token) or a phrase's tokens
    negatives: list[tuple[str, ...]]
    phrases: frozenset[int]  # positions in `positives` of the phrases
    prefix: bool  # the last of `positives` is a prefix


def parse_q(q):
    positives, negatives, phrases, prefix = [], [], set(), False
    at = 0
    while at < len(q):
        if q[at].isspace():
            at += 1
            continue
        negative = q[at] == "-" and at + 1 < len(q) and not q[at + 1].isspace()
        at += negative
        if q[at] == '"':
            end = q.find('"', at + 1)
            tokens = tuple(_WORD.findall(q[at + 1 : len(q) if end < 0 else end].lower()))
            at = len(q) if end < 0 else end + 1
            if tokens and negative:
                negatives.append(tokens)
            elif tokens:
                phrases.add(len(positives))
                positives.append(tokens)
            continue
        end = at
        while end < len(q) and not q[end].isspace() and q[end] != '"':
            end += 1
        tokens = list(_WORD.finditer(q[at:end].lower()))
        for n, token in enumerate(tokens):
            if negative and n == 0:
                negatives.append((token.group(),))
            else:
                positives.append((token.group(),))
                prefix = end == len(q) and at + token.end() == end and n == len(tokens) - 1
        at = end
    if positives and len(positives) - 1 in phrases:
        prefix = False
    return Words(positives, negatives, frozenset(phrases), prefix)


def _matching(documents, words, fields, strategy):
    """The documents that hold the words in `fields`, as `matchingStrategy` asks: `all`
    of them, or (`last`) all, then all but the last, and so on down to the first; none
    holding an excluded one."""
    kept = [
        doc
        for doc in documents
        if not any(_holds_term(doc, fields, (term,)) for term in words.negatives)
    ]
    if not words.positives:
        return kept  # a placeholder search
    terms = [_located(words, n) for n in range(len(words.positives))]
    held = [(doc, [_holds_term(doc, fields, term) for term in terms]) for doc in kept]
    fewest = 1 if strategy == "last" else len(terms)
    found, seen = [], set()
    for count in range(len(terms), fewest - 1, -1):
        for doc, holds in held:
            if all(holds[:count]) and doc["id"] not in seen:
                seen.add(doc["id"])
                found.append(doc)
    return found


def _holds_term(doc, fields, term):
    """Whether a field of `doc` holds a term: (tokens, prefix?)."""
    return any(_term_spans(str(doc.get(field) or ""), *term) for field in fields)


def _located(words, n):
    """(tokens, prefix?) of the n-th positive term."""
    last = n == len(words.positives) - 1
    return words.positives[n], last and words.prefix


def _term_spans(value, tokens, prefix=False):
    """[start, end) of each match of a term in `value`: a Latin word whole (a prefix: the
    words it starts, its letters marked), a Japanese one anywhere inside a run; a
    phrase's tokens one after the other."""
    found = list(_WORD.finditer(value.lower()))
    spans = []
    for first in range(len(found) - len(tokens) + 1):
        window = found[first : first + len(tokens)]
        matched = []
        for n, (token, at) in enumerate(zip(tokens, window, strict=True)):
            text = at.group()
            if _CJK_RUN.fullmatch(token):
                # Inside a run: anywhere alone; else the first ends it, the last starts it.
                if len(tokens) == 1:
                    spot = text.find(token)
                elif n == 0:
                    spot = len(text) - len(token) if text.endswith(token) else -1
                elif n == len(tokens) - 1:
                    spot = 0 if text.startswith(token) else -1
                else:
                    spot = 0 if text == token else -1
                if spot < 0:
                    break
                matched.append((at.start() + spot, at.start() + spot + len(token)))
            elif text == token or (prefix and text.startswith(token)):
                matched.append((at.start(), at.start() + len(token)))
            else:
                break
        else:
            spans.append((matched[0][0], matched[-1][1]))
    return spans


def _spans(value, words):
    """Every match of the query's positive terms in `value` (none for a search by
    meaning alone: `words` None), joined where they touch."""
    if words is None:
        return []
    spans = []
    for n in range(len(words.positives)):
        spans.extend(_term_spans(value, *_located(words, n)))
    joined = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def _marked(value, spans, pre, post):
    out, cursor = [], 0
    for start, end in spans:
        out.extend((value[cursor:start], pre, value[start:end], post))
        cursor = end
    out.append(value[cursor:])
    return "".join(out)


def _crop(value, spans, length, marker):
    """`length` words of `value` around its first match (words are cut at spaces)."""
    words = value.split(" ")
    if len(words) <= length:
        return value
    at = 0
    if spans:
        at = value[: spans[0][0]].count(" ")
    first = max(0, min(at - length // 2, len(words) - length))
    kept = " ".join(words[first : first + length])
    return (marker if first else "") + kept + (marker if first + length < len(words) else "")


def _score(position, count):
    """Meilisearch scores in [0, 1]; here the place in the order found gives the score."""
    return round(1 - position / (count + 1), 6)


def _federated_sort(queries):
    """The sort a federation merges by: the one its queries share (none when they
    differ: their ranking scores then)."""
    sorts = {tuple(query.get("sort") or []) for query in queries}
    return list(sorts.pop()) if len(sorts) == 1 else []


# -- vectors ---------------------------------------------------------------------------------


def _vectors_of(document, name, dims):
    """The document's vectors for embedder `name` (each `dims` long, else the task fails as
    Meilisearch's does); [] for none."""
    value = (document.get(VECTORS) or {}).get(name)
    if isinstance(value, dict):
        if "regenerate" not in value:
            raise ApiError(400, "invalid_vectors_type", f"`_vectors.{name}.regenerate` missing.")
        value = value.get("embeddings")
    if value is None or value == []:
        return []
    if not isinstance(value, list):
        raise ApiError(400, "invalid_vectors_type", f"Bad `_vectors.{name}`.")
    vectors = value if isinstance(value[0], list) else [value]
    for vector in vectors:
        if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector):
            raise ApiError(400, "invalid_vectors_type", f"Bad `_vectors.{name}`.")
        if len(vector) != dims:
            raise ApiError(
                400,
                "invalid_vector_dimensions",
                f"Invalid vector dimensions: expected: `{dims}`, found: `{len(vector)}`.",
            )
    return vectors


def _similarity(left, right):
    """Meilisearch's similarity of two vectors: (1 + cosine) / 2, so 1 is the same direction
    (numpy: a library of a few hundred documents of 384 dimensions is compared per search)."""
    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)
    norms = float(np.linalg.norm(left) * np.linalg.norm(right))
    return (1 + float(left @ right) / norms) / 2 if norms else 0.0


def _by_similarity(documents, name, vector):
    """[(document, similarity)] of every document, most similar to `vector` first (a
    document with several vectors by its best), those without a vector last, at 0, in the
    order stored."""
    scored = []
    query = np.asarray(vector, dtype=np.float64)
    for n, doc in enumerate(documents):
        vectors = _vectors_of(doc, name, len(vector))
        best = max((_similarity(v, query) for v in vectors), default=None)
        scored.append((best is None, -(best or 0.0), n, doc))
    scored.sort(key=lambda item: item[:3])
    return [(doc, -negative) for _, negative, _, doc in scored]


def _fused(keyword, semantic, ratio):
    """Both rankings merged by score weighted by the ratio (a keyword match scores 1), each
    document at its first place: [(document, side it came from)]."""
    sides = [
        [(1 - ratio, doc, "keyword") for doc in keyword],
        [(similarity * ratio, doc, "semantic") for doc, similarity in semantic],
    ]
    merged, seen = [], set()
    at = [0, 0]
    while at[0] < len(sides[0]) or at[1] < len(sides[1]):
        # Meaning's next first when its weighted score is at least the keywords' (as the
        # server merges them), else the keywords' next.
        if at[1] < len(sides[1]) and (
            at[0] >= len(sides[0]) or sides[1][at[1]][0] >= sides[0][at[0]][0]
        ):
            side = 1
        else:
            side = 0
        _, doc, source = sides[side][at[side]]
        at[side] += 1
        if doc["id"] not in seen:
            seen.add(doc["id"])
            merged.append((doc, source))
    return merged
