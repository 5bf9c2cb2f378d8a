"""The relevance set (tests/relevance/) on the embedded engine, or on a real Meilisearch
(`--engine meilisearch`, at MEILI_TEST_URL): nDCG@10, precision@3 and the share of
relevant videos whose first moment is a judged one, by query class, beside the figures
recorded before Japanese words were indexed (bench/relevance_before.json, written with
`--record` on that engine and never since).

    .venv/bin/python bench/relevance.py [--engine embedded|meilisearch] [--queries]

`--queries` also lists each query whose nDCG@10 is below 1, with the videos it ranked.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.search.base import SearchEngine
from models.search.embedded import EmbeddedEngine
from models.search.meili import MeilisearchEngine
from tests.relevance import measure

BEFORE = Path(__file__).resolve().parent / "relevance_before.json"


def open_engine(kind: str, folder: Path) -> SearchEngine:
    engine = EmbeddedEngine(str(folder / "relevance.db")) if kind == "embedded" else meili_engine()
    engine.apply_settings()
    return engine


def meili_engine() -> SearchEngine:
    url = os.environ.get("MEILI_TEST_URL")
    if not url:
        raise SystemExit(
            "--engine meilisearch needs MEILI_TEST_URL (its `subtitles` index is replaced)"
        )
    key = os.environ.get("MEILI_TEST_KEY") or None
    return MeilisearchEngine(url, key, key)


def cell(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.3f}"


def print_table(now: dict[str, Any], before: dict[str, Any] | None) -> None:
    print(
        f"{'class':<14} {'queries':>7}   {'nDCG@10':>7} {'before':>7}   "
        f"{'P@3':>5} {'before':>6}   {'moments':>7} {'before':>6}"
    )
    for kind, figures in now.items():
        old = (before or {}).get(kind, {})
        print(
            f"{kind:<14} {figures['queries']:>7}   {cell(figures['ndcg10']):>7}"
            f" {cell(old.get('ndcg10')):>7}   {cell(figures['p3']):>5}"
            f" {cell(old.get('p3')):>6}   {cell(figures['moments']):>7}"
            f" {cell(old.get('moments')):>6}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--engine", choices=("embedded", "meilisearch"), default="embedded")
    parser.add_argument("--queries", action="store_true", help="list the imperfect queries")
    parser.add_argument("--record", action="store_true", help=f"write {BEFORE.name}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="subsearch-relevance-") as folder:
        engine = open_engine(args.engine, Path(folder))
        started = time.perf_counter()
        videos = measure.index_corpus(engine)
        built = time.perf_counter() - started
        started = time.perf_counter()
        scored = measure.score_all(engine)
        asked = time.perf_counter() - started
    table = measure.by_class(scored)
    print(
        f"{args.engine}: {videos} videos indexed in {built:.2f} s;"
        f" {len(scored)} queries in {asked:.2f} s"
    )
    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else None
    print_table(table, None if args.record else (before or {}).get(args.engine))
    if args.queries:
        for item in scored:
            if item.ndcg < 1:
                ranked = " ".join(
                    f"{video}:{item.judged.grades.get(video, 0)}" for video in item.ranked
                )
                print(f"{item.judged.id} {item.judged.q!r} {item.ndcg:.2f}  {ranked}")
    if args.record:
        recorded = json.loads(BEFORE.read_text()) if BEFORE.exists() else {}
        recorded[args.engine] = table
        BEFORE.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
        print(f"recorded in {BEFORE}")


if __name__ == "__main__":
    main()
