"""Segments: subtitle cues cleaned of rolling auto-caption repeats and merged 1-3 at a
time (about 15 seconds), so a phrase spoken across two cues lands in one document."""

from __future__ import annotations

from models.platform.base import Cue
from models.search.base import Segment
from models.search.text import ends_sentence, join_texts

MAX_CUES = 3
MAX_SECONDS = 15.0
# A segment may end early at a sentence end once it holds this much speech.
SENTENCE_SECONDS = 6.0


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
    cues = sorted((c for c in cues if c.text and c.text.strip()), key=lambda c: c.start)
    if auto:
        cues = clean_rolling_repeats(cues)
    segments: list[Segment] = []
    current: list[Cue] = []

    def flush() -> None:
        if current:
            segments.append(
                Segment(
                    start=current[0].start,
                    end=max(c.end for c in current),
                    text=join_texts([c.text.replace("\n", " ") for c in current]),
                )
            )
            current.clear()

    for cue in cues:
        if current:
            span = cue.end - current[0].start
            said = current[-1].end - current[0].start
            if ends_sentence(current[-1].text) and said >= SENTENCE_SECONDS:
                flush()
            elif len(current) == MAX_CUES or span > MAX_SECONDS:
                last = current[-1]
                # Mid-sentence: close the segment one cue early when that keeps the
                # dangling cue together with its continuation, so a phrase spoken
                # across the two is still found.
                if (
                    len(current) >= 2
                    and not ends_sentence(last.text)
                    and cue.end - last.start <= MAX_SECONDS
                ):
                    current.pop()
                    flush()
                    current.append(last)
                else:
                    flush()
        current.append(cue)
    flush()
    return segments
