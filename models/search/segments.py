"""Segments: subtitle cues cleaned of rolling auto-caption repeats, then cut into
overlapping windows of 2-3 cues (about 15 seconds) that each share their last cue with
the next, so a phrase spoken across any two adjacent cues lands in one document."""

from __future__ import annotations

from models.platform.base import Cue
from models.search.base import Segment
from models.search.text import join_texts

MAX_CUES = 3
# A window takes a third cue only while it spans at most this; two cues always go
# together, however long.
MAX_SECONDS = 15.0


def clean_rolling_repeats(cues: list[Cue]) -> list[Cue]:
    """Drop what auto captions repeat: each rolling cue shows the previous line again
    above the new words ("今日は\\n大阪に", then "大阪に\\n来ています"), or grows the
    previous text ("今日は" then "今日は大阪に"). Keep only the new words."""
    cleaned: list[Cue] = []
    previous_lines: list[str] = []
    previous_text = ""
    for cue in cues:
        lines = [line.strip() for line in cue.text.split("\n") if line.strip()]
        while lines and lines[0] in previous_lines:
            lines.pop(0)
        text = join_texts(lines)
        if previous_text and text.startswith(previous_text) and text != previous_text:
            text = text[len(previous_text) :].strip()
        elif text == previous_text:
            text = ""
        if text:
            start = max(cue.start, cleaned[-1].end) if cleaned else cue.start
            cleaned.append(Cue(start=start, end=max(cue.end, start), text=text))
            previous_text = join_texts([line.strip() for line in cue.text.split("\n")])
        elif cleaned:
            cleaned[-1] = Cue(cleaned[-1].start, max(cleaned[-1].end, cue.end), cleaned[-1].text)
        previous_lines = [line.strip() for line in cue.text.split("\n") if line.strip()]
    return cleaned


def build_segments(cues: list[Cue], *, auto: bool) -> list[Segment]:
    """Overlapping windows over the cues: each window holds 2 or 3 cues (3 while they
    span at most MAX_SECONDS) and starts at the last cue of the one before, so every
    pair of adjacent cues lies inside one window and no phrase is lost at a boundary
    (docs/search.md, Documents). A single cue makes a single window."""
    cues = sorted((c for c in cues if c.text and c.text.strip()), key=lambda c: c.start)
    if auto:
        cues = clean_rolling_repeats(cues)
    segments: list[Segment] = []
    first = 0
    while first < len(cues):
        last = _window_end(cues, first)
        window = cues[first : last + 1]
        segments.append(
            Segment(
                start=window[0].start,
                end=max(c.end for c in window),
                text=join_texts([c.text.replace("\n", " ") for c in window]),
            )
        )
        if last == len(cues) - 1:
            break
        first = last  # the next window starts with this one's last cue
    return segments


def _window_end(cues: list[Cue], first: int) -> int:
    """The index of a window's last cue: the next cue always (a pair is never split),
    a third one while the window spans at most MAX_SECONDS."""
    last = min(first + 1, len(cues) - 1)
    while last + 1 < len(cues) and last + 1 - first < MAX_CUES:
        if cues[last + 1].end - cues[first].start > MAX_SECONDS:
            break
        last += 1
    return last


def transcript(segments: list[Segment]) -> list[Segment]:
    """The segments of a video read as one text, without the cue each window repeats
    from the one before: where a segment overlaps the previous one in time, the longest
    text that ends the previous one and starts this one (at a word boundary) is cut from
    it. Segments cut before overlapping windows existed pass through unchanged."""
    out: list[Segment] = []
    for previous, segment in zip([None, *segments], segments, strict=False):
        if previous is None or segment.start >= previous.end:
            out.append(segment)
            continue
        shared = _shared_length(previous.text, segment.text)
        if shared == 0:
            out.append(segment)
            continue
        start = min(max(segment.start, previous.end), segment.end)
        out.append(Segment(start=start, end=segment.end, text=segment.text[shared:].strip()))
    return out


def _shared_length(before: str, after: str) -> int:
    """The length of the longest text that ends `before` and starts `after`, leaving
    some of `after`, and not cutting a Latin word; 0 when there is none."""
    for length in range(min(len(before), len(after) - 1), 0, -1):
        if before.endswith(after[:length]) and not (
            _inside_word(after, length) or _inside_word(before, len(before) - length)
        ):
            return length
    return 0


def _inside_word(text: str, at: int) -> bool:
    """Whether position `at` falls between two letters or digits of a Latin word."""
    if at <= 0 or at >= len(text):
        return False
    left, right = text[at - 1], text[at]
    return left.isascii() and left.isalnum() and right.isascii() and right.isalnum()
