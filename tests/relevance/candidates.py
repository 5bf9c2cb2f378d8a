"""List, for each query of the relevance set, every video whose text holds the query.

A candidate is a video whose title, description or subtitles contain the query's
characters (or one of the spellings in its "variants"), by plain substring after NFKC
and lower-casing: deliberately loose, so that the word-boundary traps (東京都 for 京都,
start for art) show up and get decided by a person. Each candidate is printed with the
grade the judgements give it; "--" means unlisted, that is judged not relevant (0).
Videos listed in the judgements that are not text candidates are printed too.

    python3 tests/relevance/candidates.py                 # every query
    python3 tests/relevance/candidates.py q001 京都        # some queries, by id or text
    python3 tests/relevance/candidates.py --unlisted      # only candidates left unlisted
    python3 tests/relevance/candidates.py --check         # validate the set, exit 1 on a fault

A no_answer query lists no relevant video: every candidate it has is a near miss to read.
A reading query (kana or romaji for a word the corpus writes in kanji, or another
okurigana) names in "reads" the spellings it reads as; they are searched like variants,
since the query's own characters are seldom in the text.

Standard library only.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLATFORM = HERE / "platform"
JUDGEMENTS = HERE / "judgements.json"
CLASSES = {
    "two_char_word": 15,
    "compound": 15,
    "variant": 15,
    "katakana": 15,
    "name_number": 15,
    "english": 15,
    "phrase": 15,
    "multi_word": 15,
    "one_char": 5,
    "paraphrase": 8,
    "cross_language": 40,
    "no_answer": 20,
    "reading": 28,
}
# The class that asks for what no video holds: its queries list no relevant video.
NO_ANSWER = "no_answer"
# The class that asks by reading (issue 46): each query names in "reads" the spellings it
# reads as (京都 for きょうと), which candidates() searches beside the query.
READING = "reading"
REQUIRED = ("channelId", "title", "description", "durationSeconds", "publishedAt", "subtitles")
VIDEO_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
CHANNEL_ID = re.compile(r"^UC[A-Za-z0-9_-]{22}$")


def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def load_videos() -> dict[str, dict]:
    videos = {}
    for path in sorted((PLATFORM / "videos").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        videos[data["id"]] = data
    return videos


def load_channels() -> dict[str, dict]:
    channels = {}
    for path in sorted((PLATFORM / "channels").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        channels[data["id"]] = data
    return channels


def terms(query: dict) -> list[str]:
    """The words a video must hold: the phrase without its quotes, each word of a
    multi-word query, or the query itself."""
    text = query["q"].strip()
    if query["class"] == "phrase":
        return [text.strip('"')]
    if query["class"] == "multi_word":
        return text.split()
    return [text]


def fields(video: dict) -> dict[str, str]:
    """Searchable text of a video, newline-free: a line break inside a cue (rolling auto
    captions) is tried both as nothing (Japanese) and as a space (English)."""
    cues = video["subtitles"]["cues"] if isinstance(video.get("subtitles"), dict) else []
    out = {"title": norm(video.get("title", "")), "description": norm(video.get("description", ""))}
    for cue in cues:
        t = norm(cue["text"])
        out[f"cue {cue['start']}"] = t.replace("\n", "") + "\u2502" + t.replace("\n", " ")
    # a phrase may also run over two cues
    last_lines = [norm(c["text"]).split("\n")[-1] for c in cues]
    out["whole transcript"] = "".join(last_lines) + "\u2502" + " ".join(last_lines)
    return out


def candidates(query: dict, videos: dict[str, dict]) -> dict[str, dict]:
    words = [norm(w) for w in terms(query)]
    alts = [norm(v) for v in [*query.get("variants", []), *query.get("reads", [])]]
    found = {}
    for vid, video in videos.items():
        where, matched = [], set()
        for name, text in fields(video).items():
            hit = [w for w in words + alts if w in text]
            if hit and name != "whole transcript":
                where.append(name)
            matched.update(hit)
        if matched:
            cue_hits = [w for w in where if w.startswith("cue ")]
            places = [w for w in where if not w.startswith("cue ")]
            if cue_hits:
                places.append(f"{len(cue_hits)} cue(s)")
            if not places:
                places.append("across two cues")
            every = all(w in matched or any(a in matched for a in alts) for w in words)
            found[vid] = {"where": places, "matched": sorted(matched), "all_words": every}
    return found


def context(video: dict, needles: list[str], width: int = 14) -> str:
    lines = [c["text"].replace("\n", "⏎") for c in video["subtitles"]["cues"]]
    blob = " / ".join([video.get("title", ""), *lines])
    low = norm(blob)
    for n in needles:
        i = low.find(n)
        if i >= 0:
            return "…" + blob[max(0, i - width) : i + len(n) + width] + "…"
    return ""


def report(queries: list[dict], videos: dict[str, dict], unlisted_only: bool) -> None:
    for query in queries:
        judged = {r["video"]: r["grade"] for r in query["relevant"]}
        found = candidates(query, videos)
        rows = []
        for vid, info in sorted(found.items(), key=lambda kv: (-judged.get(kv[0], 0), kv[0])):
            grade = judged.get(vid)
            if unlisted_only and grade is not None:
                continue
            mark = f"{grade:>2}" if grade is not None else "--"
            note = "" if info["all_words"] else "  (not every word)"
            where = ", ".join(info["where"])
            rows.append(f"  [{mark}] {vid}  {where}{note}  {context(videos[vid], info['matched'])}")
        for vid in judged:
            if vid not in found and not unlisted_only:
                rows.append(f"  [{judged[vid]:>2}] {vid}  (listed, not a text candidate)")
        if rows or not unlisted_only:
            print(f"{query['id']} {query['class']:<13} {query['q']}")
            print("\n".join(rows) if rows else "  (no candidate)")


def check(queries: list[dict], videos: dict[str, dict], channels: dict[str, dict]) -> list[str]:
    faults = []
    by_channel: dict[str, set[str]] = {}
    cues_total = 0
    for path in sorted((PLATFORM / "videos").glob("*.json")):
        if path.stem not in videos:
            faults.append(f"{path.name}: id does not match the file name")
    for vid, v in videos.items():
        if not VIDEO_ID.match(vid):
            faults.append(f"video id {vid!r} is not 11 characters of [A-Za-z0-9_-]")
        for key in REQUIRED:
            if key not in v:
                faults.append(f"{vid}: no {key}")
        subs = v.get("subtitles") or {}
        if subs.get("type") not in ("manual", "auto") or not subs.get("language"):
            faults.append(f"{vid}: subtitles need type manual|auto and a language")
        cues = subs.get("cues") or []
        cues_total += len(cues)
        if not 15 <= len(cues) <= 40:
            faults.append(f"{vid}: {len(cues)} cues (15-40 wanted)")
        for a, b in itertools.pairwise(cues):
            if b["start"] < a["start"]:
                faults.append(f"{vid}: cue at {b['start']} starts before the one at {a['start']}")
        if cues and cues[-1]["end"] > v.get("durationSeconds", 0):
            faults.append(f"{vid}: last cue ends after durationSeconds")
        by_channel.setdefault(v.get("channelId", ""), set()).add(vid)
    for cid, ch in channels.items():
        if not CHANNEL_ID.match(cid):
            faults.append(f"channel id {cid!r} is not UC + 22 characters")
        listed = ch.get("videoIds", [])
        if len(listed) != len(set(listed)) or set(listed) != by_channel.get(cid, set()):
            faults.append(f"channel {cid}: videoIds does not list exactly its videos")
    for cid in by_channel:
        if cid not in channels:
            faults.append(f"videos name channel {cid}, which has no file")
    if len(videos) < 60:
        faults.append(f"{len(videos)} videos (at least 60 wanted)")
    ids = [q.get("id") for q in queries]
    if len(ids) != len(set(ids)):
        faults.append("query ids repeat")
    counts = Counter(q.get("class") for q in queries)
    for q in queries:
        if q.get("class") not in CLASSES:
            faults.append(f"{q.get('id')}: unknown class {q.get('class')!r}")
        if q.get("class") == NO_ANSWER:
            if q.get("relevant") != []:
                faults.append(f"{q.get('id')}: no_answer wants an empty relevant list")
        elif not q.get("relevant"):
            faults.append(f"{q.get('id')}: no relevant video")
        reads = q.get("reads")
        if q.get("class") == READING and not reads:
            faults.append(f"{q.get('id')}: a reading query names the spellings it reads as")
        if reads is not None and (
            not isinstance(reads, list) or not all(isinstance(r, str) and r for r in reads)
        ):
            faults.append(f"{q.get('id')}: reads wants a list of spellings")
        seen = set()
        for r in q.get("relevant", []):
            vid = r.get("video")
            if vid not in videos:
                faults.append(f"{q['id']}: unknown video {vid}")
                continue
            if vid in seen:
                faults.append(f"{q['id']}: {vid} listed twice")
            seen.add(vid)
            if r.get("grade") not in (1, 2, 3):
                grade = r.get("grade")
                faults.append(f"{q['id']}: {vid} grade {grade!r} (1-3 wanted; 0 is unlisted)")
            starts = {c["start"] for c in videos[vid]["subtitles"]["cues"]}
            for m in r.get("moments", []):
                if m not in starts:
                    faults.append(f"{q['id']}: {vid} moment {m} is not the start of a cue")
    if len(queries) < 150:
        faults.append(f"{len(queries)} queries (at least 150 wanted)")
    for cls, least in CLASSES.items():
        if counts[cls] < least:
            faults.append(f"class {cls}: {counts[cls]} queries (at least {least} wanted)")
    per_class = ", ".join(f"{c} {counts[c]}" for c in CLASSES)
    print(f"{len(channels)} channels, {len(videos)} videos, {cues_total} cues, ", end="")
    print(f"{len(queries)} queries: {per_class}")
    return faults


def main(argv: list[str]) -> int:
    videos = load_videos()
    queries = json.loads(JUDGEMENTS.read_text(encoding="utf-8"))
    if "--check" in argv:
        faults = check(queries, videos, load_channels())
        for f in faults:
            print("FAULT:", f)
        print("ok" if not faults else f"{len(faults)} fault(s)")
        return 1 if faults else 0
    picks = [a for a in argv if not a.startswith("--")]
    if picks:
        queries = [q for q in queries if q["id"] in picks or q["q"] in picks]
    report(queries, videos, unlisted_only="--unlisted" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
