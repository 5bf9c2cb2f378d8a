"""Benchmark of cutting a search page's moments back into their cues (models/subtitles.py
moment_snippets): what the search page adds to the engine's answer.

Each result's stored track is decompressed and read as JSON, and only its moments' cues
(with the few before them that automatic captions are cleaned against) are turned into
the transcript's cues. Prints the milliseconds a page takes for pages of 20 and 100
videos of 10-minute and 1-hour automatic captions, three moments each, against the whole
transcripts built as the video page builds them.

    .venv/bin/python bench/moment_snippets.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.platform.base import Cue, Subtitles  # noqa: E402
from models.search.base import Hit  # noqa: E402
from models.search.highlight import highlight  # noqa: E402
from models.search.query import parse_query  # noqa: E402
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(27)
    for minutes in (10, 60):
        cue_count = int(minutes * 60 / SECONDS_PER_CUE)
        blob = track(cue_count, rng)
        cues = transcript_cues(Subtitles("auto", "ja", unpack(blob)))
        hits = moments(cues)
        row = SimpleNamespace(type="auto", language="ja", cues=blob)
        for videos in (20, 100):
            print(f"{videos} videos of {minutes} min ({cue_count} cues, {len(blob) // 1024} KB)")

            per_page("moments' cues only (the page)", windows, args.rounds, row, hits, videos)
            per_page("whole transcripts (for scale)", whole, args.rounds, row, hits, videos)


if __name__ == "__main__":
    main()
