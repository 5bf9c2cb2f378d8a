"""How well an engine ranks the relevance set: nDCG@10, precision@3 and moments found,
by query class.

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

Used by tests/relevance/test_relevance.py (floors) and bench/relevance.py (the table).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.platform.base import Cue
from models.search import video_documents
from models.search.base import Document, SearchEngine, SearchQuery, VideoHit
from models.search.segments import build_segments
from models.tables import Channel, Video

HERE = Path(__file__).resolve().parent
PLATFORM = HERE / "platform"
JUDGEMENTS = HERE / "judgements.json"
CLASSES = (
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
DEPTH = 10
# A moment's window starts where its first cue starts, or a little later when rolling
# captions were cleaned (the cue starts where the one before it ended).
MOMENT_SLACK = 0.5


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


def index_corpus(engine: SearchEngine) -> int:
    """Write the corpus into a laid-out engine; how many videos."""
    documents = corpus_documents()
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


def score_query(engine: SearchEngine, judged: Judged) -> Scored:
    answer = engine.search_videos(SearchQuery(q=judged.q, per_page=DEPTH))
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


def score_all(engine: SearchEngine) -> list[Scored]:
    return [score_query(engine, judged) for judged in judgements()]


def by_class(scored: list[Scored]) -> dict[str, dict[str, Any]]:
    """The figures of each class, and of all queries under "all"."""
    groups: dict[str, list[Scored]] = {kind: [] for kind in CLASSES}
    for item in scored:
        groups.setdefault(item.judged.kind, []).append(item)
    groups["all"] = list(scored)
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
