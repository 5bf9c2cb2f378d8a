"""Benchmark of the embedded search engine: build time and query latency.

Builds indexes of 200k and 1M synthetic subtitle segments (70 % Japanese, 30 %
English, 200 channels, 50 segments a video) in a temporary folder, then times
queries of five classes and prints p50 and p95 per class. Targets: p95 at most
50 ms at 200k segments and 100 ms at 1M.

    .venv/bin/python bench/search.py [--sizes 200000,1000000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.search.base import Document, SearchQuery
from models.search.embedded import EmbeddedEngine

JA_WORDS = [
    "大阪",
    "東京",
    "京都",
    "広告",
    "料理",
    "旅行",
    "天気",
    "電車",
    "新幹線",
    "写真",
    "音楽",
    "映画",
    "野球",
    "サッカー",
    "会社",
    "仕事",
    "経済",
    "市場",
    "技術",
    "開発",
    "研究",
    "大学",
    "学校",
    "先生",
    "学生",
    "病院",
    "医者",
    "家族",
    "子供",
    "友達",
    "季節",
    "春",
    "夏",
    "秋",
    "冬",
    "朝ご飯",
    "昼ご飯",
    "晩ご飯",
    "ラーメン",
    "寿司",
    "天ぷら",
    "うどん",
    "そば",
    "カレー",
    "焼肉",
    "餃子",
    "たこ焼き",
    "お好み焼き",
    "抹茶",
    "温泉",
    "神社",
    "お寺",
    "公園",
    "海",
    "山",
    "川",
    "空港",
    "駅前",
    "商店街",
    "コンビニ",
    "スーパー",
    "値段",
    "割引",
    "予約",
    "注文",
    "配送",
    "宣伝",
    "視聴者",
    "登録者",
    "チャンネル",
    "動画",
    "配信",
    "編集",
    "撮影",
    "カメラ",
    "マイク",
    "照明",
    "台本",
    "企画",
    "打ち合わせ",
    "売上",
    "利益",
    "投資",
    "株価",
    "金利",
    "為替",
    "物価",
    "給料",
    "税金",
    "保険",
    "年金",
    "選挙",
    "政治",
    "法律",
    "裁判",
    "事件",
    "事故",
    "災害",
    "地震",
    "台風",
    "大雨",
    "気温",
    "湿度",
    "健康",
    "運動",
    "散歩",
    "睡眠",
    "食事",
    "野菜",
    "果物",
    "お菓子",
    "コーヒー",
    "紅茶",
    "日本酒",
    "ビール",
    "ワイン",
    "人工知能",
    "半導体",
    "スマートフォン",
    "パソコン",
    "ソフトウェア",
    "データ",
    "安全",
    "品質",
    "改善",
]
JA_GLUE = [
    "は",
    "が",
    "を",
    "に",
    "で",
    "と",
    "の",
    "も",
    "から",
    "まで",
    "です",
    "ます",
    "でした",
    "ました",
    "ね",
    "よ",
]
EN_WORDS = [
    "network",
    "work",
    "cooking",
    "recipe",
    "kitchen",
    "garlic",
    "onion",
    "butter",
    "pan",
    "oven",
    "bread",
    "dough",
    "flour",
    "sugar",
    "coffee",
    "keyboard",
    "laptop",
    "server",
    "cloud",
    "database",
    "query",
    "index",
    "search",
    "engine",
    "python",
    "code",
    "test",
    "deploy",
    "build",
    "release",
    "market",
    "price",
    "growth",
    "revenue",
    "startup",
    "founder",
    "team",
    "meeting",
    "product",
    "design",
    "users",
    "feedback",
    "video",
    "channel",
    "camera",
    "light",
    "sound",
    "music",
    "travel",
    "city",
    "train",
    "flight",
    "hotel",
    "beach",
    "mountain",
    "river",
    "weather",
    "morning",
    "evening",
    "dinner",
    "lunch",
    "breakfast",
    "quick",
    "brown",
    "fox",
    "lazy",
    "dog",
    "jumps",
    "over",
    "simple",
    "better",
    "faster",
    "stronger",
    "today",
    "tomorrow",
    "yesterday",
    "really",
    "great",
]
EN_GLUE = [
    "the",
    "a",
    "and",
    "of",
    "to",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "as",
    "this",
    "was",
]


def japanese_sentence(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(4, 8)):
        parts.append(rng.choice(JA_WORDS) + rng.choice(JA_GLUE))
    return "".join(parts) + "。"


def english_sentence(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(8, 14)):
        words.append(rng.choice(EN_WORDS) if rng.random() < 0.6 else rng.choice(EN_GLUE))
    return " ".join(words).capitalize() + "."


def build(engine: EmbeddedEngine, segments: int, rng: random.Random, channels: list[str]) -> float:
    per_video = 50
    started = time.perf_counter()
    for n in range(segments // per_video):
        video_id = f"v{n:010d}"
        channel = channels[n % len(channels)]
        japanese = rng.random() < 0.7
        common = {
            "video_id": video_id,
            "channel_id": channel,
            "video_title": f"video {n}",
            "channel_title": channel,
            "published_at": f"20{20 + n % 6}-{1 + n % 12:02d}-{1 + n % 28:02d}T00:00:00.000Z",
            "view_count": rng.randint(0, 1_000_000),
            "subscriber_count": 1000,
        }
        sentence = japanese_sentence if japanese else english_sentence
        docs = [
            Document(
                id=f"{video_id}-s{i:04d}",
                kind="subtitle",
                text=sentence(rng),
                start=i * 15.0,
                end=i * 15.0 + 15.0,
                **common,
            )
            for i in range(per_video)
        ]
        engine.replace_video_documents(video_id, docs)
    return time.perf_counter() - started


def query_classes(rng: random.Random, channels: list[str], count: int) -> dict[str, list]:
    two = [w for w in JA_WORDS if len(w) == 2]
    longer = [w for w in JA_WORDS if len(w) >= 3]
    return {
        "ja-2-chars": [SearchQuery(q=rng.choice(two)) for _ in range(count)],
        "ja-3+-chars": [SearchQuery(q=rng.choice(longer)) for _ in range(count)],
        "en-word": [SearchQuery(q=rng.choice(EN_WORDS)) for _ in range(count)],
        "en-phrase": [
            SearchQuery(q=f'"{rng.choice(EN_GLUE)} {rng.choice(EN_WORDS)}"') for _ in range(count)
        ],
        "5-channel-filter": [
            SearchQuery(q=rng.choice(two + EN_WORDS), channels=tuple(rng.sample(channels, 5)))
            for _ in range(count)
        ],
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def run(size: int, queries: int, folder: Path) -> list[tuple[str, float, float, int]]:
    rng = random.Random(size)
    channels = [f"UC{n:022d}" for n in range(200)]
    engine = EmbeddedEngine(str(folder / f"search-{size}.db"))
    engine.apply_settings()
    seconds = build(engine, size, rng, channels)
    print(
        f"\n{size:,} segments: built in {seconds:.1f} s "
        f"({size / seconds:,.0f} segments/s), {engine.document_count():,} documents"
    )
    rows = []
    for name, batch in query_classes(rng, channels, queries).items():
        timings, hits = [], 0
        for query in batch:
            started = time.perf_counter()
            result = engine.search(query)
            timings.append((time.perf_counter() - started) * 1000)
            hits += result.total_hits
        rows.append(
            (name, statistics.median(timings), percentile(timings, 0.95), hits // len(batch))
        )
    print(f"{'class':<18} {'p50 ms':>8} {'p95 ms':>8} {'avg hits':>10}")
    for name, p50, p95, hits in rows:
        print(f"{name:<18} {p50:8.1f} {p95:8.1f} {hits:10,}")
    engine.close()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    targets = {200_000: 50.0, 1_000_000: 100.0}
    with tempfile.TemporaryDirectory(prefix="subsearch-bench-") as folder:
        for size in (int(s) for s in args.sizes.split(",")):
            rows = run(size, args.queries, Path(folder))
            target = targets.get(size)
            if target:
                worst = max(p95 for _, _, p95, _ in rows)
                verdict = "meets" if worst <= target else "MISSES"
                print(f"worst p95 {worst:.1f} ms {verdict} the {target:.0f} ms target")


if __name__ == "__main__":
    main()
