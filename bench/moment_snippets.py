"""Benchmarks of a search page's moments.

Cues (models/subtitles.py moment_snippets): what the search page adds to the engine's
answer by cutting each result's moments back into their cues. Each result's stored track
is decompressed and read as JSON, and only its moments' cues (with the few before them
that automatic captions are cleaned against) are turned into the transcript's cues.
Prints the milliseconds a page takes for pages of 20 and 100 videos of 10-minute and
1-hour automatic captions, three moments each, against the whole transcripts built as
the video page builds them.

Every moment (issue 47; docs/search.md, Every moment): on the embedded engine, an index
of twenty hour-long videos (1,200 cues each) saying a very common word (です) in nine
cues of ten, and a hundred ten-minute videos that do not. Prints p50 and p95 of the
grouped search's page (20 videos) whole and of its moment work (every video's moments
read by their times, counted, ranked and the three shown highlighted), of totalMoments
counted for one video and for the page, and of the moments call's pages (perPage 20),
each beside its target.

    .venv/bin/python bench/moment_snippets.py [--rounds 10] [--part cues|moments]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.platform.base import Cue, Subtitles  # noqa: E402
from models.search import video_documents  # noqa: E402
from models.search.base import Hit, SearchQuery  # noqa: E402
from models.search.embedded import EmbeddedEngine  # noqa: E402
from models.search.embedded.layout import VIDEO_SHIFT, document_rows  # noqa: E402
from models.search.embedded.videos import VideoFinder  # noqa: E402
from models.search.highlight import highlight  # noqa: E402
from models.search.moments import group_spans  # noqa: E402
from models.search.query import parse_query  # noqa: E402
from models.search.segments import build_segments  # noqa: E402
from models.search.snippets import cue_snippet  # noqa: E402
from models.search.text import join_texts  # noqa: E402
from models.subtitles import StoredCues, pack, transcript_cues, unpack  # noqa: E402

WORDS = ("今日は", "大阪", "の", "天満", "に", "来て", "います", "それでは", "美味しい", "です")
SECONDS_PER_CUE = 2.5


def track(cue_count: int, rng: random.Random) -> bytes:
    """Automatic captions as they roll: each cue shows the line before it again."""
    lines = ["".join(rng.choice(WORDS) for _ in range(6)) for _ in range(cue_count)]
    texts = [lines[0]] + [f"{a}\n{b}" for a, b in itertools.pairwise(lines)]
    return pack(
        [Cue(i * SECONDS_PER_CUE, (i + 1) * SECONDS_PER_CUE, text) for i, text in enumerate(texts)]
    )


def moments(cues, count: int = 3) -> list[Hit]:
    """Hits as the index gives them: windows of three cues, the first word marked."""
    hits = []
    for k in range(count):
        run = cues[(k + 1) * len(cues) // (count + 1) :][:3]
        text = join_texts([c.text for c in run])
        hits.append(
            Hit("v", "t", "c", "c", "2026-01-01T00:00:00.000Z", None, "subtitle",
                run[0].start, run[-1].end, text, highlight(text, parse_query(text[:2])))
        )  # fmt: skip
    return hits


def windows(row: SimpleNamespace, hits: list[Hit], videos: int) -> None:
    """What the search page does: of each track, only the moments' cues."""
    for _ in range(videos):
        stored = StoredCues(row)
        for hit in hits:
            cue_snippet(hit, stored.around(hit.start, hit.end))


def whole(row: SimpleNamespace, hits: list[Hit], videos: int) -> None:
    """For scale: each video's whole transcript, as the video page builds it."""
    for _ in range(videos):
        every = transcript_cues(Subtitles(row.type, row.language, unpack(row.cues)))
        for hit in hits:
            cue_snippet(hit, every)


def per_page(label: str, page, rounds: int, *args) -> float:
    began = time.perf_counter()
    for _ in range(rounds):
        page(*args)
    ms = (time.perf_counter() - began) / rounds * 1000
    print(f"  {label:<34} {ms:8.1f} ms per page")
    return ms


# -- every moment ------------------------------------------------------------------------

COMMON = "です"
OTHER_WORDS = ("今日は", "大阪", "の", "天満", "に", "来て", "それでは", "美味しい", "ね")
LONG_VIDEOS, SHORT_VIDEOS = 20, 100
HOUR_CUES, SHORT_CUES = 1200, 200  # 3-second cues: an hour, ten minutes
TARGET_MS = 100.0  # a page of the moments call, and one video's count


def cues_of(count: int, rng: random.Random, common: float) -> list[Cue]:
    """`count` 3-second cues, the common word in a share `common` of them."""
    said = []
    for i in range(count):
        words = "".join(rng.choice(OTHER_WORDS) for _ in range(4))
        said.append(
            Cue(i * 3.0, i * 3.0 + 3.0, words + (COMMON if rng.random() < common else "。"))
        )
    return said


def index_videos(engine: EmbeddedEngine, rng: random.Random) -> list[str]:
    """The long videos saying the word all through (their ids), and short ones that do
    not; each written as ingestion writes a video."""
    channel = SimpleNamespace(id="UC" + "b" * 22, title="ベンチ", subscriber_count=1000)
    long_ids = []
    for n in range(LONG_VIDEOS + SHORT_VIDEOS):
        long = n < LONG_VIDEOS
        video_id = f"{'long' if long else 'short'}{n:07d}"
        video = SimpleNamespace(
            id=video_id,
            title=f"動画 {n}",
            published_at=f"2026-01-{n % 28 + 1:02d}T00:00:00.000Z",
            thumbnail_url=None,
            view_count=n,
            duration_seconds=3600 if long else 600,
        )
        cues = cues_of(HOUR_CUES if long else SHORT_CUES, rng, 0.9 if long else 0.0)
        segments = build_segments(cues, auto=False)
        engine.replace_video_documents(video_id, video_documents(video, channel, "", segments))
        if long:
            long_ids.append(video_id)
    return long_ids


def p50_p95(call: Callable[[], object], rounds: int) -> tuple[float, float]:
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    ordered = sorted(timings)
    return statistics.median(timings), ordered[
        min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))
    ]


def line(label: str, figures: tuple[float, float], target: float | None = None) -> None:
    p50, p95 = figures
    said = f"  {label:<46} p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
    if target is not None:
        said += f"  (target {target:.0f} ms: {'meets' if p95 < target else 'MISSES'})"
    print(said)


def every_moment(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "search.db")
        engine = EmbeddedEngine(path, time_budget_ms=600_000)
        engine.apply_settings()
        started = time.perf_counter()
        long_ids = index_videos(engine, random.Random(47))
        built = time.perf_counter() - started
        query = SearchQuery(q=COMMON)
        page = engine.search_videos(query)
        shown = [video.video_id for video in page.videos]
        totals = [video.total_moments for video in page.videos]
        print(
            f"{LONG_VIDEOS} videos of an hour ({HOUR_CUES} cues, {COMMON} in 9 of 10) and"
            f" {SHORT_VIDEOS} of ten minutes, built in {built:.1f} s; the page holds"
            f" {sum(v in long_ids for v in shown)} of the hour-long ones,"
            f" {min(totals)}-{max(totals)} moments each"
        )
        # The grouped page's moment work, read as the engine reads it: its own connection
        # on the file, one read transaction a round.
        conn = sqlite3.connect(path)
        conn.row_factory = sqlite3.Row
        keys = [
            row[0]
            for video_id in shown
            for row in conn.execute("SELECT key FROM videos WHERE video_id = ?", (video_id,))
        ]

        def in_a_read(work: Callable[[VideoFinder], object]) -> Callable[[], object]:
            def read() -> object:
                conn.execute("BEGIN")
                try:
                    return work(VideoFinder(conn, query))
                finally:
                    conn.execute("ROLLBACK")

            return read

        def page_moments(finder: VideoFinder) -> None:
            listed = finder.moment_lists(keys)
            shown_rowids = [int(m.shown[0]) for key in keys for m in listed[key].moments]
            rows = document_rows(conn, [*(key << VIDEO_SHIFT for key in keys), *shown_rowids])
            for key in keys:
                finder.moment_hits(listed[key].moments, rows, None)

        def counted(chosen: list[int]) -> Callable[[VideoFinder], object]:
            return lambda finder: [
                len(group_spans(spans)) for spans in finder.segments.spans(chosen).values()
            ]

        print(f"the grouped search for {COMMON} (20 videos a page), {rounds} rounds:")
        line("the whole page", p50_p95(lambda: engine.search_videos(query), rounds))
        line(
            "its moment work (count, rank, 3 highlighted)", p50_p95(in_a_read(page_moments), rounds)
        )
        line("totalMoments of the page's 20 videos", p50_p95(in_a_read(counted(keys)), rounds))
        line("totalMoments of one video", p50_p95(in_a_read(counted(keys[:1])), rounds), TARGET_MS)
        total = totals[0]
        pages = -(-total // 20)
        print(f"the moments call for one video ({total} moments, {pages} pages of 20):")
        for number in sorted({1, 2, pages // 2, pages}):
            asked = SearchQuery(q=COMMON, page=number, per_page=20)
            figures = p50_p95(lambda asked=asked: engine.video_moments(asked, shown[0]), rounds)
            line(f"page {number}", figures, TARGET_MS)
        conn.close()
        engine.close()


def cue_cutting(rounds: int) -> None:
    rng = random.Random(27)
    for minutes in (10, 60):
        cue_count = int(minutes * 60 / SECONDS_PER_CUE)
        blob = track(cue_count, rng)
        cues = transcript_cues(Subtitles("auto", "ja", unpack(blob)))
        hits = moments(cues)
        row = SimpleNamespace(type="auto", language="ja", cues=blob)
        for videos in (20, 100):
            print(f"{videos} videos of {minutes} min ({cue_count} cues, {len(blob) // 1024} KB)")

            per_page("moments' cues only (the page)", windows, rounds, row, hits, videos)
            per_page("whole transcripts (for scale)", whole, rounds, row, hits, videos)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--part", choices=("cues", "moments"), help="one part alone")
    args = parser.parse_args()
    if args.part in (None, "cues"):
        cue_cutting(args.rounds)
    if args.part in (None, "moments"):
        every_moment(args.rounds)


if __name__ == "__main__":
    main()
