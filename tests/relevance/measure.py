"""How well an engine ranks the relevance set: nDCG@10, precision@3 and moments found,
by query class, asked with keywords alone, by meaning and keywords together (the
hybrid the search page asks with its switch on) or by meaning alone.

The corpus is indexed the way the service indexes a fetched video (the stored cues cut
by `build_segments`, one video document with title and description), then each query
of `judgements.json` is asked as the search page asks it: results grouped by video,
relevance order, ten videos a page.

- **nDCG@10**: the gain of a video of grade g is 2^g - 1, discounted by log2 of its
  place + 1, divided by the best the judgements allow; a query no video is judged for
  does not occur (every query has at least one).
- **P@3**: of the first three videos, the share judged relevant (any grade); a query
  with fewer than three relevant videos cannot reach 1, the same for every engine.
- **moments**: of the relevant videos in the first ten, the share whose first moment
  holds a cue judged a moment for the query (a video judged only by its title or
  description has no moment to find and is left out).

To search by meaning the documents carry vectors, as the service's index does once a
video is embedded: the passages are embedded here from the texts the service embeds
(`passage_text`). `measuring_embedder` keeps the vectors of the passages and of the
queries in files, so only the first measure after a change of corpus, queries or model
pays the embedding (about 20 s for the corpus and 5 s for the queries on two idle
cores).

Used by tests/relevance/test_relevance.py (floors) and bench/relevance.py (the table).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from models.platform.base import Cue
from models.search import video_documents
from models.search.base import Document, SearchEngine, SearchQuery, VideoHit
from models.search.embedder import Embedder, Vectors
from models.search.segments import build_segments
from models.tables import Channel, Video
from models.vectors import passage_text

HERE = Path(__file__).resolve().parent
PLATFORM = HERE / "platform"
JUDGEMENTS = HERE / "judgements.json"
# The classes of issue 28 ask for words a video says; the two of issue 29 for what it is
# about, in other words or in the other language.
EXACT_WORDS = (
    "two_char_word",
    "compound",
    "variant",
    "katakana",
    "name_number",
    "english",
    "phrase",
    "multi_word",
    "one_char",
)
BY_MEANING = ("paraphrase", "cross_language")
# Questions no video of the corpus answers (issue 45): measured by how many videos a
# search by meaning still lists, not by nDCG.
NO_ANSWER = "no_answer"
CLASSES = EXACT_WORDS + BY_MEANING
# Pooled rows of the table beside the classes: "exact_words" is the set as issue 28
# measured it (bench/relevance_before.json calls it "all").
GROUPS = {"exact_words": EXACT_WORDS, "by_meaning": BY_MEANING, "all": CLASSES}
DEPTH = 10
# A moment's window starts where its first cue starts, or a little later when rolling
# captions were cleaned (the cue starts where the one before it ended).
MOMENT_SLACK = 0.5


@dataclass(frozen=True)
class Mode:
    """One way of asking every query: the search page's switch and strength."""

    name: str
    semantic: bool
    sr: float


KEYWORD = Mode("keyword", semantic=False, sr=0.0)
HYBRID = Mode("hybrid", semantic=True, sr=0.5)  # the page's default strength
MEANING = Mode("meaning", semantic=True, sr=1.0)
MODES = (KEYWORD, HYBRID, MEANING)
VECTOR_CACHE = Path(tempfile.gettempdir()) / "subsearch-relevance-vectors"


class MeaningNotApplied(RuntimeError):
    """An engine answered a search by meaning with keywords alone (no model, or no
    vectors): its figures would pass for the hybrid's."""


@dataclass(frozen=True)
class Judged:
    id: str
    q: str
    kind: str
    grades: dict[str, int]
    moments: dict[str, tuple[float, ...]]


@dataclass(frozen=True)
class Scored:
    """One query's figures."""

    judged: Judged
    ranked: tuple[str, ...]
    ndcg: float
    precision: float
    moments_found: int
    moments_judged: int


def judgements() -> list[Judged]:
    found = []
    for query in json.loads(JUDGEMENTS.read_text(encoding="utf-8")):
        relevant = query["relevant"]
        found.append(
            Judged(
                id=query["id"],
                q=query["q"],
                kind=query["class"],
                grades={r["video"]: int(r["grade"]) for r in relevant},
                moments={r["video"]: tuple(r["moments"]) for r in relevant if r["moments"]},
            )
        )
    return found


def corpus_documents() -> dict[str, list[Document]]:
    """Every video of the set as the service indexes it, by video id."""
    channels = {}
    for path in sorted((PLATFORM / "channels").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        channels[data["id"]] = Channel(
            id=data["id"],
            title=data["title"],
            subscriber_count=data.get("subscriberCount"),
        )
    documents = {}
    for path in sorted((PLATFORM / "videos").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        video = Video(
            id=data["id"],
            channel=data["channelId"],
            title=data["title"],
            published_at=data["publishedAt"],
            thumbnail_url=data.get("thumbnailUrl"),
            view_count=data.get("viewCount"),
        )
        track = data["subtitles"]
        cues = [Cue(start=c["start"], end=c["end"], text=c["text"]) for c in track["cues"]]
        segments = build_segments(cues, auto=track["type"] == "auto")
        documents[video.id] = video_documents(
            video, channels[data["channelId"]], data.get("description") or "", segments
        )
    return documents


class CachedEmbedder:
    """An embedder whose vectors of the set's passages and queries are kept in files
    under the temporary folder, named by a digest of the model and the texts (each file
    written whole or not at all, so two measures at once never read half of one).

    The vectors are the wrapped embedder's own: only their making is skipped, which is
    not what this set measures (bench/search.py times it), and which on these two cores
    takes e5-small from 25 ms to half a second a query, as busy as they are: from 3 to
    60 times the hybrid search itself."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.model = embedder.model
        self.dims = embedder.dims
        self.loaded = embedder.loaded
        self._queries: dict[str, Vectors] = {}

    def passages(self, texts: Sequence[str]) -> Vectors:
        return self._cached("passage", list(texts), self.inner.passages)

    def learn_queries(self, texts: Sequence[str]) -> None:
        """Embed (or read back) these queries' vectors, for `query` to answer at once."""
        texts = list(dict.fromkeys(texts))
        vectors = self._cached("query", texts, self._embed_queries)
        self._queries.update(zip(texts, vectors, strict=True))

    def query(self, text: str) -> Vectors:
        held = self._queries.get(text)
        return held if held is not None else self.inner.query(text)

    def _embed_queries(self, texts: list[str]) -> Vectors:
        vectors = [self.inner.query(text) for text in texts]
        return np.vstack(vectors) if vectors else np.zeros((0, self.dims), dtype=np.float32)

    def _cached(
        self, kind: str, texts: list[str], embed: Callable[[list[str]], Vectors]
    ) -> Vectors:
        key = hashlib.blake2b(digest_size=16)
        key.update(f"{kind}:{self.model}:{self.dims}".encode())
        for text in texts:
            key.update(b"\0" + text.encode())
        path = VECTOR_CACHE / f"{kind}-{key.hexdigest()}.npy"
        if path.exists():
            held: Vectors = np.load(path)
            if held.shape == (len(texts), self.dims):
                return held
        vectors = embed(texts)
        VECTOR_CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.npy")
        np.save(partial, vectors)
        partial.replace(path)
        return vectors


def measuring_embedder(embedder: Embedder) -> CachedEmbedder:
    """`embedder` behind the cache, knowing every query of the set."""
    cached = CachedEmbedder(embedder)
    if cached.loaded:
        cached.learn_queries([judged.q for judged in judgements()])
    return cached


def with_vectors(
    documents: dict[str, list[Document]], embedder: Embedder
) -> dict[str, list[Document]]:
    """The documents with the vector of each one's passage (as the service embeds it)."""
    texts = [passage_text(doc) for docs in documents.values() for doc in docs]
    vectors = iter(embedder.passages(texts))
    return {
        video_id: [replace(doc, vector=next(vectors)) for doc in docs]
        for video_id, docs in documents.items()
    }


def index_corpus(engine: SearchEngine, embedder: Embedder | None = None) -> int:
    """Write the corpus into a laid-out engine, with vectors of `embedder` when one is
    given (the engine's own, to be searched by meaning); how many videos."""
    documents = corpus_documents()
    if embedder is not None and embedder.loaded:
        documents = with_vectors(documents, embedder)
    engine.replace_videos(documents)
    return len(documents)


def ndcg(ranked: Iterable[str], grades: dict[str, int], depth: int = DEPTH) -> float:
    gains = [2 ** grades.get(video, 0) - 1 for video in list(ranked)[:depth]]
    ideal = sorted((2**grade - 1 for grade in grades.values()), reverse=True)[:depth]
    best = _dcg(ideal)
    return _dcg(gains) / best if best else 0.0


def _dcg(gains: Iterable[int]) -> float:
    return sum(gain / math.log2(place + 2) for place, gain in enumerate(gains))


def precision(ranked: Iterable[str], grades: dict[str, int], depth: int = 3) -> float:
    return sum(1 for video in list(ranked)[:depth] if grades.get(video, 0) > 0) / depth


def first_moment_found(video: VideoHit, moments: tuple[float, ...]) -> bool:
    if not video.moments:
        return False
    first = video.moments[0]
    start, end = first.start or 0.0, first.end or 0.0
    return any(start - MOMENT_SLACK <= moment <= end for moment in moments)


def score_query(engine: SearchEngine, judged: Judged, mode: Mode = KEYWORD) -> Scored:
    answer = engine.search_videos(
        SearchQuery(q=judged.q, per_page=DEPTH, semantic=mode.semantic, sr=mode.sr)
    )
    if mode.semantic and not answer.semantic_applied:
        raise MeaningNotApplied(f"{engine.name} did not search {judged.q!r} by meaning")
    ranked = tuple(video.video_id for video in answer.videos)
    found = judged_moments = 0
    for video in answer.videos:
        moments = judged.moments.get(video.video_id)
        if moments:
            judged_moments += 1
            found += first_moment_found(video, moments)
    return Scored(
        judged=judged,
        ranked=ranked,
        ndcg=ndcg(ranked, judged.grades),
        precision=precision(ranked, judged.grades),
        moments_found=found,
        moments_judged=judged_moments,
    )


def score_all(engine: SearchEngine, mode: Mode = KEYWORD) -> list[Scored]:
    return [score_query(engine, judged, mode) for judged in judgements()]


def first_three(scored: list[Scored], kind: str) -> tuple[int, int]:
    """(queries of `kind` whose video judged 3 is among the first three, queries)."""
    items = [item for item in scored if item.judged.kind == kind]
    placed = sum(
        1 for item in items if any(item.judged.grades.get(video) == 3 for video in item.ranked[:3])
    )
    return placed, len(items)


def listed(scored: list[Scored], kind: str = NO_ANSWER) -> list[int]:
    """How many videos each query of `kind` listed (at most DEPTH: the first page)."""
    return [len(item.ranked) for item in scored if item.judged.kind == kind]


def by_class(scored: list[Scored]) -> dict[str, dict[str, Any]]:
    """The figures of each class, then of the pooled GROUPS (each over its queries, not
    an average of its classes)."""
    groups: dict[str, list[Scored]] = {kind: [] for kind in CLASSES}
    for item in scored:
        groups.setdefault(item.judged.kind, []).append(item)
    for name, kinds in GROUPS.items():
        groups[name] = [item for item in scored if item.judged.kind in kinds]
    table = {}
    for kind, items in groups.items():
        if not items:
            continue
        judged = sum(item.moments_judged for item in items)
        table[kind] = {
            "queries": len(items),
            "ndcg10": round(statistics.fmean(item.ndcg for item in items), 3),
            "p3": round(statistics.fmean(item.precision for item in items), 3),
            "moments": round(sum(item.moments_found for item in items) / judged, 3)
            if judged
            else None,
        }
    return table
