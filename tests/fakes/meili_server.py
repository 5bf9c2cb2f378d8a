"""A stand-in for a Meilisearch server (1.13 API): records every request exactly as the client
sent it and keeps documents in memory, with just enough search to drive an engine end to end.

Tasks run the moment they are enqueued; `GET /tasks/{uid}` then reports them (as "enqueued"
for the first `pending_polls` polls, so waiting is exercised). `fail_next_task()` makes the
next task fail instead of running. Searching is deliberately naive: a case-insensitive
substring match of the whole `q` in any field searched on (the word fields too), the first
match highlighted in the fields asked, matches positions given for every field (as for
displayed fields), documents in the order stored (`distinct` keeps the first of each value);
`/multi-search` answers each query in turn.

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
  does a keyword search here.

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
from urllib.parse import parse_qsl

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
}
SETTINGS = {
    "searchableAttributes",
    "filterableAttributes",
    "sortableAttributes",
    "localizedAttributes",
    "displayedAttributes",
    "rankingRules",
    "pagination",
    "embedders",
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
        clauses = parse_filter(text, code)
        filterable = index["settings"].get("filterableAttributes")
        for field, _op, _values in clauses:
            if filterable is not None and field not in filterable:
                raise ApiError(400, code, f"Attribute `{field}` is not filterable.")
        return lambda doc: all(_holds(doc, clause) for clause in clauses)

    # -- search ------------------------------------------------------------------------

    def search(self, index, body):
        unknown = set(body) - SEARCH_PARAMS
        if unknown:
            raise ApiError(400, "bad_request", f"Unknown field `{sorted(unknown)[0]}`")
        kind, ratio, meaning = self.search_kind(index, body)
        settings = index["settings"]
        searchable = settings.get("searchableAttributes") or DEFAULT_SEARCHABLE
        on = body.get("attributesToSearchOn") or searchable
        for field in on:
            if field not in searchable:
                raise ApiError(
                    400, "invalid_search_attributes_to_search_on", f"`{field}` not searchable."
                )
        # A quoted query is a phrase: matched as the text between the quotes. A search by
        # meaning alone matches (and so highlights) no word.
        q = "" if kind == "semantic" else (body.get("q") or "").lower().strip().strip('"')
        match = self.compiled_filter(index, body.get("filter"), "invalid_search_filter")
        allowed = [doc for doc in index["documents"].values() if match(doc)]
        found = [
            doc for doc in allowed if not q or any(q in str(doc.get(f, "")).lower() for f in on)
        ]
        semantic_ids = set()
        if kind != "keyword":
            ranked = _by_similarity(allowed, *meaning)
            if kind == "hybrid":
                merged = _fused(found, ranked, ratio)
            else:
                merged = [(doc, "semantic") for doc, _ in ranked]
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
            # The best document of each value, and totals that count values.
            best = {}
            for doc in found:
                best.setdefault(doc.get(distinct), doc)
            found = list(best.values())
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
        hits = [self.format_hit(doc, q, body) for doc in chosen]
        semantic_hits = sum(doc["id"] in semantic_ids for doc in chosen)
        if body.get("showRankingScore"):
            # Meilisearch scores in [0, 1]; here the order found gives the score.
            first = found.index(chosen[0]) if chosen else 0
            for n, hit in enumerate(hits):
                hit["_rankingScore"] = round(1 - (first + n) / (len(found) + 1), 6)
        answer = {"hits": hits, "query": body.get("q") or "", "processingTimeMs": 0, **totals}
        if body.get("hybrid") is not None:
            answer["semanticHitCount"] = semantic_hits
        return answer

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
        """Each query answered as /search would, in order (no federation here)."""
        if body.get("federation") is not None:
            raise ApiError(400, "bad_request", "The fake does not federate.")
        results = []
        for query in body.get("queries") or []:
            query = dict(query)
            uid = query.pop("indexUid", None)
            if uid is None:
                raise ApiError(400, "missing_index_uid", "Missing field `indexUid`.")
            results.append({"indexUid": uid, **self.search(self.existing(uid), query)})
        return {"results": results}

    @staticmethod
    def format_hit(doc, q, body):
        hit = {field: value for field, value in doc.items() if field != VECTORS}
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
                    value = _crop(value, q, body.get("cropLength", 10), body.get("cropMarker", "…"))
                if field in highlighted and q:
                    at = value.lower().find(q)
                    if at >= 0:
                        end = at + len(q)
                        value = value[:at] + pre + value[at:end] + post + value[end:]
                formatted[field] = value
            hit["_formatted"] = formatted
        if body.get("showMatchesPosition"):
            positions = {}
            for field, value in hit.items():
                at = value.lower().find(q) if isinstance(value, str) and q else -1
                if at >= 0:
                    start = len(value[:at].encode())  # Meilisearch counts bytes
                    positions[field] = [{"start": start, "length": len(q.encode())}]
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

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(!=|[\[\],=])|([A-Za-z0-9_.-]+))')


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
    """A filter as a list of (field, op, values) clauses joined by AND. Supports
    `f = v`, `f != v`, `f IN [v, ...]`, `f EXISTS`, `f NOT EXISTS`."""
    if text is None:
        return []
    if not isinstance(text, str):
        raise ApiError(400, code, "The fake only takes a filter string.")
    tokens = _tokens(text, code)
    clauses, at = [], 0

    def take(kind=None, value=None):
        nonlocal at
        if at >= len(tokens):
            raise ApiError(400, code, f"Filter ends early: `{text}`.")
        token = tokens[at]
        if (kind and token[0] != kind) or (value and token[1] != value):
            raise ApiError(400, code, f"Unexpected `{token[1]}` in `{text}`.")
        at += 1
        return token[1]

    def value():
        token = tokens[at] if at < len(tokens) else ("end", "")
        if token[0] not in ("value", "word"):
            raise ApiError(400, code, f"Was expecting a value in `{text}`.")
        return take()

    while True:
        field = take("word")
        word = take()
        if word in ("=", "!="):
            clauses.append((field, word, [value()]))
        elif word == "IN":
            take("symbol", "[")
            values = [value()]
            while at < len(tokens) and tokens[at][1] == ",":
                take()
                values.append(value())
            take("symbol", "]")
            clauses.append((field, "IN", values))
        elif word == "EXISTS":
            clauses.append((field, "EXISTS", []))
        elif word == "NOT":
            take("word", "EXISTS")
            clauses.append((field, "NOT EXISTS", []))
        else:
            raise ApiError(400, code, f"Unexpected `{word}` in `{text}`.")
        if at == len(tokens):
            return clauses
        take("word", "AND")


def _holds(doc, clause):
    field, op, values = clause
    if op == "EXISTS":
        return field in doc
    if op == "NOT EXISTS":
        return field not in doc
    equal = field in doc and doc[field] is not None and str(doc[field]) in values
    # As Meilisearch: != holds for a document without the field too.
    return not equal if op == "!=" else equal


def _comparer(field, descending):
    def compare(a, b):
        x, y = a.get(field), b.get(field)
        if x is None or y is None:  # documents without the value come last either way
            return (x is None) - (y is None)
        result = (x > y) - (x < y)
        return -result if descending else result

    return compare


def _crop(value, q, length, marker):
    words = value.split(" ")
    if len(words) <= length:
        return value
    at = next((n for n, word in enumerate(words) if q and q in word.lower()), 0)
    first = max(0, min(at - length // 2, len(words) - length))
    kept = " ".join(words[first : first + length])
    return (marker if first else "") + kept + (marker if first + length < len(words) else "")


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
    """Meilisearch's similarity of two vectors: (1 + cosine) / 2, so 1 is the same direction."""
    dot = sum(a * b for a, b in zip(left, right, strict=True))
    norms = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return (1 + dot / norms) / 2 if norms else 0.0


def _by_similarity(documents, name, vector):
    """[(document, similarity)] of every document, most similar to `vector` first (a
    document with several vectors by its best), those without a vector last, at 0, in the
    order stored."""
    scored = []
    for n, doc in enumerate(documents):
        vectors = _vectors_of(doc, name, len(vector))
        best = max((_similarity(v, vector) for v in vectors), default=None)
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
