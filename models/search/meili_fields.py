"""The fields of the Meilisearch index `subtitles` that its engine (meili.py), the requests
it sends (meili_request.py) and the answers it reads (meili_answer.py) all name, and how a
value is written in one of its filter expressions."""

from __future__ import annotations

from datetime import UTC, datetime

SURFACE_FIELDS = ["title", "text", "description"]
# Searchable field -> the field holding the normalised forms of its words (word_forms).
WORD_FIELDS = {"title": "titleWords", "text": "textWords", "description": "descriptionWords"}
# Searchable field -> the field holding the reading keys of its words (word_readings): a
# term in kana or romaji finds the kanji that read so (issue 46).
READING_FIELDS = {
    "title": "titleReading",
    "text": "textReading",
    "description": "descriptionReading",
}
# The fields as written come first: the ranking rule `attribute` then puts a match of what
# was said before a match through a spelling variant only, and that before a match by
# reading (only the queries of a branch by reading search the reading fields).
SEARCHABLE_ATTRIBUTES = [
    *SURFACE_FIELDS,
    *(WORD_FIELDS[field] for field in SURFACE_FIELDS),
    *(READING_FIELDS[field] for field in SURFACE_FIELDS),
]
# What the query language's filters read (meili_request.filter_clauses), on every document.
QUERY_FILTERS = [
    "publishedAtTs",
    "durationSeconds",
    "subtitleType",
    "subtitleLanguage",
    "viewCount",
]

# Meilisearch puts these around matches. Control characters never reach the index (documents
# are cleaned of them), so after html.escape they can only be our markers; a tag like "<mark>"
# could not be told apart from the same characters in a subtitle.
PRE_TAG = "\u0002"
POST_TAG = "\u0003"

# The index's embedder, of our vectors (userProvided): documents carry theirs under this
# name, and a search by meaning names it.
EMBEDDER = "default"


def quote(value: str) -> str:
    """A filter string literal. Inside double quotes Meilisearch reads \\" as a quote and \\\\
    as a backslash, so an id holding either cannot end the literal early."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def equals(field: str, value: str) -> str:
    return f"{field} = {quote(value)}"


def unix_seconds(iso: str) -> int:
    """An ISO timestamp as `publishedAtTs` holds it: filters compare numbers, not dates."""
    moment = datetime.fromisoformat(iso)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # our timestamps are UTC
    return int(moment.timestamp())
