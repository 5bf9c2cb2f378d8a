"""A video's transcript as a file to keep: SubRip, WebVTT or plain text, and the file's
name from the video's title (docs/api.md, Subtitles as files). The cues are the reader's
transcript (models/subtitles.py, video_transcript): what the page and the JSON form show.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, get_args

from models.search.base import Segment

FileFormat = Literal["srt", "vtt", "txt"]
FILE_FORMATS: tuple[FileFormat, ...] = get_args(FileFormat)

# The media types as players and browsers know them; every file is UTF-8.
MEDIA_TYPES: dict[FileFormat, str] = {
    "srt": "application/x-subrip",
    "vtt": "text/vtt",
    "txt": "text/plain",
}

# A cue whose end is not after its start (the platform sends some) lasts until the next
# cue starts, and at most this long, so a player shows it at all.
LONGEST_OPEN_CUE = 5.0
# In the text file, a silence this long (seconds) between two cues starts a paragraph.
PARAGRAPH_PAUSE = 3.0
# A title is cut to this many characters for a file name: 80 Japanese characters are 240
# bytes in UTF-8, within the 255 bytes every common file system allows.
LONGEST_NAME = 80

_LINE_BREAK = re.compile(r"\r\n|\r|\n|\u2028|\u2029")
# Control characters have no place in a subtitle line (tab becomes a space).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# What no common file system or download dialog takes in a name, and runs of spaces.
_NOT_IN_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]+')
_SPACES = re.compile(r"\s+")
_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL"} | {
    f"{d}{n}" for d in ("COM", "LPT") for n in range(1, 10)
}


@dataclass(frozen=True)
class FileCue:
    """A cue as a file holds it: milliseconds, and its text as lines (none blank)."""

    start_ms: int
    end_ms: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class TranscriptFile:
    name: str  # from the title, as the reader's system shows it: 大阪の旅.srt
    ascii_name: str  # for a client that reads no RFC 5987 name: the title, or the video id
    media_type: str
    text: str


def transcript_file(
    fmt: FileFormat, video_id: str, title: str, segments: Iterable[Segment]
) -> TranscriptFile:
    """The transcript of video `video_id` as a file in `fmt`."""
    name, ascii_name = file_names(title, video_id, fmt)
    return TranscriptFile(name, ascii_name, MEDIA_TYPES[fmt], WRITERS[fmt](file_cues(segments)))


def file_cues(segments: Iterable[Segment]) -> list[FileCue]:
    """The segments as cues a file can hold: in order of their start (stable for equal
    starts), blank ones left out, each line of text trimmed and none blank (a blank line
    would end an SRT or WebVTT cue), no start before 0, every end after its start.
    Overlapping cues stay as they are: both formats allow them."""
    kept = [(s, _lines(s.text)) for s in segments]
    ordered = sorted(
        ((max(0.0, _finite(s.start)), _finite(s.end), lines) for s, lines in kept if lines),
        key=lambda cue: cue[0],
    )
    cues = []
    for index, (start, end, lines) in enumerate(ordered):
        if not end > start:
            later = (other for other, _end, _lines in ordered[index + 1 :] if other > start)
            end = min(next(later, math.inf), start + LONGEST_OPEN_CUE)
        start_ms = round(start * 1000)
        cues.append(FileCue(start_ms, max(round(end * 1000), start_ms + 1), lines))
    return cues


def _finite(value: float) -> float:
    return value if math.isfinite(value) else 0.0


def _lines(text: str) -> tuple[str, ...]:
    lines = (_CONTROL.sub("", line.replace("\t", " ")).strip() for line in _LINE_BREAK.split(text))
    return tuple(line for line in lines if line)


def timestamp(ms: int, separator: str) -> str:
    """HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (WebVTT); past 99 hours the hours grow."""
    seconds, millis = divmod(ms, 1000)
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def srt(cues: list[FileCue]) -> str:
    """SubRip: numbered cues from 1, `start --> end`, the text, a blank line between.
    SubRip has no escapes: the text is as said (a player may read <i> as italics)."""
    blocks = [
        f"{number}\n{timestamp(cue.start_ms, ',')} --> {timestamp(cue.end_ms, ',')}\n"
        + "\n".join(cue.lines)
        + "\n"
        for number, cue in enumerate(cues, start=1)
    ]
    return "\n".join(blocks)


def webvtt(cues: list[FileCue]) -> str:
    """WebVTT: the WEBVTT line, then each cue's timings and its text with &, < and >
    escaped, so no text is read as a tag or as a timing's `-->`."""
    blocks = [
        f"{timestamp(cue.start_ms, '.')} --> {timestamp(cue.end_ms, '.')}\n"
        + "\n".join(_vtt_escape(line) for line in cue.lines)
        + "\n"
        for cue in cues
    ]
    return "\n".join(["WEBVTT\n", *blocks])


def _vtt_escape(line: str) -> str:
    return line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def plain_text(cues: list[FileCue]) -> str:
    """The words only: one cue a line (its own lines joined by a space, as the page shows
    it), and a blank line where the speech pauses PARAGRAPH_PAUSE seconds or more."""
    out: list[str] = []
    said_until: int | None = None
    for cue in cues:
        if said_until is not None and cue.start_ms - said_until >= PARAGRAPH_PAUSE * 1000:
            out.append("")
        out.append(" ".join(cue.lines))
        said_until = cue.end_ms if said_until is None else max(said_until, cue.end_ms)
    return "".join(f"{line}\n" for line in out)


WRITERS: dict[FileFormat, Callable[[list[FileCue]], str]] = {
    "srt": srt,
    "vtt": webvtt,
    "txt": plain_text,
}


def file_names(title: str, video_id: str, fmt: FileFormat) -> tuple[str, str]:
    """The file's name from the video's title (`大阪の旅.srt`), and the same in ASCII for
    clients that read only a plain `filename=`: the title where ASCII can spell it (Café
    as Cafe, full-width letters as letters), else the video id (`abc123.srt`)."""
    stem = _clean(title)
    if not stem or stem.upper() in _WINDOWS_DEVICES:
        stem = video_id
    spelled = unicodedata.normalize("NFKD", stem)
    ascii_stem = video_id
    if all(ch.isascii() or unicodedata.combining(ch) for ch in spelled):
        ascii_stem = _clean(spelled.encode("ascii", "ignore").decode("ascii")) or video_id
    return f"{stem}.{fmt}", f"{ascii_stem}.{fmt}"


def _clean(name: str) -> str:
    """A title as a file name's stem: no character a file system refuses, spaces single,
    no dot or space at either end (a leading dot hides a file), cut to LONGEST_NAME."""
    stem = _SPACES.sub(" ", _NOT_IN_NAMES.sub(" ", name)).strip(" .")
    return stem[:LONGEST_NAME].rstrip(" .")
