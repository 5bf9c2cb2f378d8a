"""Benchmark of matching new videos against the alerts (issue 49; docs/alerts.md, What
matching costs).

Makes a throwaway SQLite database and embedded index in a temporary folder, saves A
alerts (keyword searches of one or two words from a vocabulary of which the videos say
about a third, some with an excluded word, a filter or a channel), then indexes V new
videos (C cues each, each video on a topic of its own: ten words of the vocabulary) the
way ingestion does, and times `alert_matching.match` on them as the `match_alerts` actor
runs it. It prints the time, the cost per alert-video pair, where it goes (reading the
videos' subtitles once, the cheap test per pair, the engine's `video_moments` for the
pairs that pass), and the engine's cost per pair without the cheap test, measured on a
sample, for comparison.

    .venv/bin/python bench/alert_matching.py [--alerts 1000] [--videos 100] [--cues 200]
        [--unsaid 0.99]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models import alert_matching, indexing, migrations, outbox
from models.alerts import search_of
from models.db import db, init_db, write_transaction
from models.platform.base import Cue
from models.search import get_engine
from models.settings import load_settings, use_settings
from models.subtitles import pack
from models.tables import Alert, Channel, SubtitleTrack, User, Video
from web import wiring  # the composition root: how the engine is built

CHANNELS = ["UCbenchalertsbenchalert1", "UCbenchalertsbenchalert2"]
# What the videos say: Japanese words (some in kana, which alerts may write in kanji or
# romaji) and English ones.
SAID_JA = [
    "大阪",
    "たこ焼き",
    "東京都",
    "京都",
    "新幹線",
    "ラーメン",
    "会議",
    "設定",
    "天気",
    "野球",
    "サッカー",
    "選挙",
    "地震",
    "台風",
    "料理",
    "旅行",
    "温泉",
    "桜",
    "紅葉",
    "富士山",
    "電車",
    "飛行機",
    "映画",
    "音楽",
    "ゲーム",
    "将棋",
    "囲碁",
    "相撲",
    "寿司",
    "天ぷら",
    "うどん",
    "そば",
    "カレー",
    "餃子",
    "お茶",
    "コーヒー",
    "猫",
    "犬",
    "自転車",
    "図書館",
]
SAID_EN = [
    "router",
    "office",
    "network",
    "meeting",
    "travel",
    "video",
    "camera",
    "guitar",
    "piano",
    "coffee",
    "football",
    "election",
    "weather",
    "keyboard",
    "server",
    "cloud",
    "python",
    "startup",
    "budget",
    "market",
]
# What alerts also ask for that no video says.
UNSAID = [
    "量子",
    "半導体",
    "宇宙",
    "火星",
    "化石",
    "恐竜",
    "錬金術",
    "蒸気機関",
    "灯台",
    "潜水艦",
    "氷河",
    "砂漠",
    "火山",
    "珊瑚",
    "盆栽",
    "折り紙",
    "書道",
    "茶道",
    "能楽",
    "歌舞伎",
    "忍者",
    "侍",
    "城郭",
    "古墳",
    "土偶",
    "埴輪",
    "quantum",
    "semiconductor",
    "telescope",
    "dinosaur",
    "volcano",
    "glacier",
    "submarine",
    "lighthouse",
    "origami",
    "bonsai",
    "calligraphy",
    "samurai",
    "castle",
    "pyramid",
    "meteor",
]
SAID = SAID_JA + SAID_EN
VOCABULARY = SAID + UNSAID
TOPIC_WORDS = 10
T = TypeVar("T")


def cue_text(rng: random.Random, topic: list[str]) -> str:
    words = [rng.choice(topic) for _ in range(3)]
    if all(word.isascii() for word in words):
        return "we talked about " + " and ".join(words)
    return "今日は" + "と".join(words) + "の話をしました。"


def alert_query(rng: random.Random, unsaid: float | None) -> tuple[str, list[str]]:
    """A member's search: one or two words, sometimes an excluded word or a filter, and
    sometimes one channel."""
    count = 1 if rng.random() < 0.6 else 2
    if unsaid is None:
        words = rng.sample(VOCABULARY, count)
    else:  # this share of the alerts asks for a word no video says
        words = rng.sample(UNSAID if rng.random() < unsaid else SAID, count)
    if rng.random() < 0.1:
        words.append("-" + rng.choice(VOCABULARY))
    if rng.random() < 0.1:
        words.append(rng.choice(["duration:long", "lang:ja", "type:manual", "after:2025-01-01"]))
    channels = [rng.choice(CHANNELS)] if rng.random() < 0.1 else []
    return " ".join(words), channels


def save_alerts(count: int, rng: random.Random, unsaid: float | None) -> None:
    members = [str(uuid.uuid4()) for _ in range(-(-count // 100))]
    with write_transaction():
        User.insert_many(
            [
                {"id": m, "name": f"bench {n}", "email": f"b{n}@example.jp"}
                for n, m in enumerate(members)
            ]
        ).execute()
        rows = []
        for n in range(count):
            query, channels = alert_query(rng, unsaid)
            rows.append(
                {
                    "id": str(uuid.uuid4()),
                    "user": members[n // 100],
                    "query": query,
                    "semantic": False,
                    "sr": 0.5,
                    "channels": json.dumps(channels),
                    "frequency": "instant" if n % 2 else "daily",
                    "feed_token": uuid.uuid4().hex,
                    "unsubscribe_token": uuid.uuid4().hex,
                    "created_at": "2026-01-01T00:00:00.000Z",
                }
            )
        for first in range(0, len(rows), 200):
            Alert.insert_many(rows[first : first + 200]).execute()


def store_videos(count: int, cues: int, rng: random.Random) -> list[str]:
    ids = [f"alertbench{n:04d}" for n in range(count)]
    with write_transaction():
        for channel in CHANNELS:
            Channel.insert(id=channel, title="ベンチ", subtitle_status="completed").execute()
        for n, video_id in enumerate(ids):
            topic = rng.sample(SAID, TOPIC_WORDS)
            Video.insert(
                id=video_id,
                channel=CHANNELS[n % 2],
                title=f"動画 {video_id}",
                description="説明文です",
                duration_seconds=cues * 4,
                published_at="2026-01-01T00:00:00.000Z",
                subtitle_status="completed",
                subtitle_type="manual",
            ).execute()
            SubtitleTrack.insert(
                video=video_id,
                language="ja",
                type="manual",
                cues=pack([Cue(i * 4.0, i * 4.0 + 4.0, cue_text(rng, topic)) for i in range(cues)]),
                cue_count=cues,
                fetched_at="2026-01-01T00:00:00.000Z",
            ).execute()
    return ids


def timed(work: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--alerts", type=int, default=1000)
    parser.add_argument("--videos", type=int, default=100)
    parser.add_argument("--cues", type=int, default=200, help="cues a video (4 s each)")
    parser.add_argument("--sample", type=int, default=20, help="alerts asked without the test")
    parser.add_argument(
        "--unsaid",
        type=float,
        default=None,
        help="share of alerts asking for words no video says (default: words drawn from"
        " the whole vocabulary, about 6 %% of pairs news: a pessimistic load)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="subsearch-bench-") as folder:
        os.environ.update(
            {
                "APP_ENV": "test",
                "DATABASE_URL": f"sqlite:///{folder}/bench.db",
                "SEARCH_EMBEDDED_PATH": f"{folder}/search.db",
                "SEARCH_BACKEND": "embedded",
                "SEARCH_EMBEDDER": "none",  # keyword alerts: the model plays no part
            }
        )
        use_settings(load_settings(read_dotenv=False))
        wiring.install()
        init_db(os.environ["DATABASE_URL"])
        migrations.upgrade()
        get_engine().apply_settings()
        sent: list[tuple[str, tuple[object, ...]]] = []
        outbox.use_sender(lambda actor, args_, options: sent.append((actor, args_)))
        rng = random.Random(49)
        with db.connection_context():
            save_alerts(args.alerts, rng, args.unsaid)
            ids = store_videos(args.videos, args.cues, rng)
            _, indexing_seconds = timed(lambda: indexing.write_videos(ids))
            handed = [a[0] for actor, a in sent if actor == alert_matching.MATCH_ACTOR]
            handed_videos = sum(len(batch) for batch in handed if isinstance(batch, list))
            print(
                f"{args.videos} new videos of {args.cues} cues indexed in"
                f" {indexing_seconds:.1f} s; handed to matching: {handed_videos}"
                f" video(s) in {len(handed)} message(s)"
            )
            texts, text_seconds = timed(lambda: alert_matching.video_texts(ids))
            alerts = list(Alert.select())
            searches = [(search, search.read) for search in map(search_of, alerts)]
            videos = list(Video.select().where(Video.id.in_(ids)))

            def cheap() -> tuple[int, int]:
                index = alert_matching.AlertIndex(searches)
                proposed = index.proposed([(video, texts[video.id]) for video in videos])
                passing = sum(
                    texts[video.id].may_say(read)
                    for (_, read), candidates in zip(searches, proposed, strict=True)
                    for video in candidates
                )
                return sum(map(len, proposed)), passing

            (proposed, passing), cheap_seconds = timed(cheap)
            done, seconds = timed(lambda: alert_matching.match(ids))
            pairs = args.alerts * args.videos
            engine_seconds = seconds - cheap_seconds - text_seconds
            print(
                f"matching {args.alerts:,} alerts x {args.videos} videos = {pairs:,} pairs:"
                f" {seconds:.2f} s, {seconds / pairs * 1e6:.1f} us a pair"
            )
            print(
                f"  proposed by the alerts' rarest terms: {proposed:,} pairs"
                f" ({proposed / pairs:.1%}); after dates and channels {done.pairs:,}; asked of"
                f" the engine: {done.asked:,}; news: {done.new:,}"
            )
            print(
                f"  reading the videos' subtitles (segments, pairs), alone: {text_seconds:.2f} s"
                f" ({text_seconds / args.videos * 1000:.1f} ms a video, once)"
            )
            print(
                f"  the index of alerts and the cheap test (words and readings of the videos"
                f" included), alone: {cheap_seconds:.2f} s; {passing:,} pairs pass"
            )
            print(
                f"  the rest (engine's video_moments for the {done.asked:,} pairs asked, writing"
                f" the news): about {engine_seconds:.2f} s,"
                f" {engine_seconds / max(done.asked, 1) * 1000:.2f} ms a pair asked"
            )
            engine = get_engine()
            sample = alerts[: args.sample]

            def ask_all() -> int:
                return sum(
                    bool(engine.video_moments(search_of(alert), video_id).moments)
                    for alert in sample
                    for video_id in ids
                )

            said, ask_seconds = timed(ask_all)
            asked_pairs = len(sample) * len(ids)
            per_ask = ask_seconds / asked_pairs
            print(
                f"  the engine alone, every pair of {len(sample)} alerts ({asked_pairs:,} pairs,"
                f" {said} say it): {per_ask * 1e6:.0f} us a pair; without the cheap test"
                f" the {pairs:,} pairs would take about {per_ask * pairs:.0f} s"
            )
            rerun, rerun_seconds = timed(lambda: alert_matching.match(ids))
            print(
                f"  a second run (the same videos indexed again): {rerun_seconds:.2f} s,"
                f" {rerun.asked:,} asked, {rerun.new} news"
            )


if __name__ == "__main__":
    main()
