"""A moment's snippet cue by cue: the search documents join two or three cues into one
text (segments.py), which reads as one run-on sentence (大阪グルメ散歩です今日は…).
Given the video's cues, the snippet is cut back into its cues, each with its own time
and the engine's marks, so the page can set them apart and open the cue that matched."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from models.search.base import Hit, Segment
from models.search.text import join_texts, unify_long_vowels

# A window holds at most three cues (segments.MAX_CUES); merged moments may show one more.
MAX_CUES = 4
MARK = re.compile(r"<mark>(.*?)</mark>", re.S)


@dataclass(frozen=True)
class CueText:
    start: float
    html: str  # HTML-escaped, <mark> around matches
    matched: bool


@dataclass(frozen=True)
class Snippet:
    start: float  # the first cue holding a match (else the first cue): where to open
    cues: list[CueText]


def marked_spans(highlight: str) -> tuple[str, list[tuple[int, int]]]:
    """An engine's highlight (escaped text, <mark> around matches) as its plain text and
    the [start, end) spans of the marks in it."""
    text, spans, cursor = [], [], 0
    for found in MARK.finditer(highlight):
        text.append(html.unescape(highlight[cursor : found.start()]))
        begin = sum(map(len, text))
        text.append(html.unescape(found.group(1)))
        spans.append((begin, sum(map(len, text))))
        cursor = found.end()
    text.append(html.unescape(highlight[cursor:]))
    return "".join(text), spans


def cue_offsets(texts: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """join_texts(texts) and where each text lies in it."""
    joined = ""
    where = []
    for text in texts:
        grown = join_texts([joined, text]) if joined else text.strip()
        where.append((len(grown) - len(text.strip()), len(grown)))
        joined = grown
    return joined, where


def _marked(text: str, spans: list[tuple[int, int]], offset: int) -> str:
    """text (which starts at `offset` of the joined text) escaped, marks clipped to it."""
    out, cursor = [], 0
    for start, end in spans:
        start, end = max(start - offset, 0), min(end - offset, len(text))
        if start >= end or start < cursor:
            continue
        out.append(html.escape(text[cursor:start]))
        out.append("<mark>" + html.escape(text[start:end]) + "</mark>")
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def cue_snippet(hit: Hit, cues: list[Segment]) -> Snippet:
    """The hit's text cut into the cues it was made of (the run of consecutive cues in
    the hit's time range whose joined text is the hit's); the hit as one piece when no
    run gives its text (cues changed since the index was written, or none kept)."""
    text, spans = marked_spans(hit.highlight)
    wanted = unify_long_vowels(text)  # as the Meilisearch documents hold it (same length)
    start, end = hit.start or 0.0, hit.end if hit.end is not None else float("inf")
    for first, cue in enumerate(cues):
        if cue.start < start - 0.01 or cue.start > end:
            continue
        for count in range(1, MAX_CUES + 1):
            run = cues[first : first + count]
            joined, where = cue_offsets([c.text for c in run])
            if len(joined) > len(wanted):
                break
            if unify_long_vowels(joined) == wanted:
                return _cut(run, where, joined, spans)
    return Snippet(hit.start or 0.0, [CueText(hit.start or 0.0, hit.highlight, bool(spans))])


def _cut(
    run: list[Segment], where: list[tuple[int, int]], joined: str, spans: list[tuple[int, int]]
) -> Snippet:
    parts = []
    for cue, (begin, end) in zip(run, where, strict=True):
        matched = any(s < end and begin < e for s, e in spans)
        parts.append(CueText(cue.start, _marked(joined[begin:end], spans, begin), matched))
    opened = next((part.start for part in parts if part.matched), parts[0].start)
    return Snippet(opened, parts)
