"""Japanese words, by a morphological analyser whose dictionary ships as a package:
SudachiPy with `sudachidict-core` (nothing is downloaded at run time).

Text is cut into words twice: long units (SplitMode.C, 東京国際空港) and short units
(SplitMode.A, 東京 国際 空港), each written in its normalised form (シュミレーション and
シミュレーション are both シミュレーション, 引越し is 引っ越し, 藝術 is 芸術, 1,200 is 1200).
A word written with Latin letters keeps its own spelling (lower case): the dictionary
would turn "running" into ランニング, and an English video is not found by a katakana word.

The analyser reads text already through `text.normalize()`, on the index's side and the
query's alike, so both meet in the same forms.

In the embedded index a word is a token of its own, marked by WORD_MARK so it never meets
a character pair or a Latin token of the same letters: after a column's pairs come its
long units, then (when they differ) STREAM_BREAK and its short units, so the words of a
phrase stand next to each other in one of the two runs.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from sudachipy.sudachipy import Dictionary, Morpheme, MorphemeList, SplitMode, Tokenizer

WORD_MARK = "\ue000"
STREAM_BREAK = "\ue001"
# Parts of speech that are no word: punctuation and other symbols, white space.
NOT_WORDS = ("補助記号", "空白")
# The analyser refuses input over 49,149 bytes; longer text is read in pieces cut at
# white space or punctuation where possible (a description can be long).
MAX_CHARS = 8_000
ASCII_LETTER = re.compile(r"[a-z]")
# What the full-text index's ascii tokenizer cuts tokens at: ASCII that is not a letter or
# a digit. A word's form never holds one (a form like "t-shirt" becomes "tshirt").
TOKEN_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
# Dictionary words a thread keeps looked up (a few MB); past that it starts again.
CACHED_WORDS = 50_000
BREAK_AT = re.compile(r"[\s。、．，.,!?！？]")


class Word(NamedTuple):
    """A word of the analysed text: its normalised form and where it stands."""

    form: str
    start: int
    end: int


@dataclass(frozen=True)
class Words:
    """The long units of a text, and its short units when any long one splits."""

    long: tuple[Word, ...]
    short: tuple[Word, ...] | None

    def runs(self) -> tuple[tuple[Word, ...], ...]:
        return (self.long,) if self.short is None else (self.long, self.short)


@functools.cache
def _dictionary() -> Dictionary:
    return Dictionary(dict="core")


@functools.cache
def _skipped_pos() -> frozenset[int]:
    """The part-of-speech ids of NOT_WORDS."""
    dictionary = _dictionary()
    skipped = set()
    pos_id = 0
    while True:
        try:
            pos = dictionary.pos_of(pos_id)
        except (IndexError, ValueError):
            break
        if pos is None:
            break
        if pos[0] in NOT_WORDS:
            skipped.add(pos_id)
        pos_id += 1
    return frozenset(skipped)


_local = threading.local()


def _tokenizer() -> Tokenizer:
    """This thread's tokenizer (one may not serve two threads at once)."""
    tokenizer: Tokenizer | None = getattr(_local, "tokenizer", None)
    if tokenizer is None:
        tokenizer = _dictionary().tokenizer(mode=SplitMode.C)
        _local.tokenizer = tokenizer
    return tokenizer


def form_of(surface: str, normalized: str) -> str:
    """A word's form as the index holds it: Latin spelling kept, the dictionary's
    normalised form otherwise, never holding a character the index would cut it at."""
    chosen = surface if ASCII_LETTER.search(surface) else normalized
    return TOKEN_SEPARATORS.sub("", chosen.lower())


# A dictionary word as the analyser gives it, looked up once per thread by its id: its
# form, its marked token, and its short units (form, token, start and end within the word)
# when it splits, else None. _SKIP for a word that is no word (NOT_WORDS) or has no form.
_Part = tuple[str, str, int, int]
_Entry = tuple[str, str, tuple[_Part, ...] | None]
_SKIP: _Entry = ("", "", None)


def _entry(morpheme: Morpheme) -> _Entry:
    if morpheme.part_of_speech_id() in _skipped_pos():
        return _SKIP
    surface = morpheme.surface()
    form = form_of(surface, morpheme.normalized_form())
    if not form:
        return _SKIP
    parts = morpheme.split(SplitMode.A) if len(surface) > 2 else ()
    if len(parts) < 2:
        return form, WORD_MARK + form, None
    begin = morpheme.begin()
    found = []
    for part in parts:
        part_form = form_of(part.surface(), part.normalized_form())
        if part_form:
            found.append(
                (part_form, WORD_MARK + part_form, part.begin() - begin, part.end() - begin)
            )
    return form, WORD_MARK + form, tuple(found)


def _entries(morphemes: MorphemeList) -> Iterator[tuple[Morpheme, _Entry]]:
    """Each morpheme that is a word, with its entry (from this thread's cache unless the
    dictionary does not know the word)."""
    cache: dict[int, _Entry] = _local.__dict__.setdefault("entries", {})
    if len(cache) > CACHED_WORDS:
        cache.clear()
    for morpheme in morphemes:
        if morpheme.is_oov():
            entry = _entry(morpheme)
        else:
            word_id = morpheme.word_id()
            found = cache.get(word_id)
            entry = cache[word_id] = _entry(morpheme) if found is None else found
        if entry is not _SKIP:
            yield morpheme, entry


def analyse(normalized: str) -> Words:
    """The words of `normalized` (text through text.normalize())."""
    long: list[Word] = []
    short: list[Word] = []
    split = False
    tokenizer = _tokenizer()
    for offset, piece in _pieces(normalized):
        for morpheme, (form, _token, parts) in _entries(tokenizer.tokenize(piece)):
            start = offset + morpheme.begin()
            word = Word(form, start, offset + morpheme.end())
            long.append(word)
            if parts is None:
                short.append(word)
            else:
                split = True
                short.extend(
                    Word(part, start + first, start + last) for part, _, first, last in parts
                )
    return Words(long=tuple(long), short=tuple(short) if split else None)


Span = tuple[int, int]


def find_words(normalized: str, wanted: list[tuple[tuple[str, ...], ...]]) -> list[list[Span]]:
    """For each term's word sequences in `wanted` (word_sequences' forms), the [start, end)
    of each place where a run of the text's words holds one of them, in order; the text
    is analysed once for all. Terms of one word each (most) are found in one pass over
    the morphemes, without building the runs."""
    if not wanted:
        return []
    if all(len(sequence) == 1 for sequences in wanted for sequence in sequences):
        return _find_single_words(normalized, [{seq[0] for seq in seqs} for seqs in wanted])
    runs = analyse(normalized).runs()
    return [_sequences_in(runs, sequences) for sequences in wanted]


def _find_single_words(normalized: str, wanted: list[set[str]]) -> list[list[Span]]:
    found: list[set[Span]] = [set() for _ in wanted]
    tokenizer = _tokenizer()
    for offset, piece in _pieces(normalized):
        for morpheme, (form, _token, parts) in _entries(tokenizer.tokenize(piece)):
            start = offset + morpheme.begin()
            for forms, spans in zip(wanted, found, strict=True):
                if form in forms:
                    spans.add((start, offset + morpheme.end()))
                for part, _, first, last in parts or ():
                    if part in forms:
                        spans.add((start + first, start + last))
    return [sorted(spans) for spans in found]


def _sequences_in(
    runs: tuple[tuple[Word, ...], ...], sequences: tuple[tuple[str, ...], ...]
) -> list[Span]:
    found = set()
    for run in runs:
        forms = [word.form for word in run]
        for sequence in sequences:
            size = len(sequence)
            for first in range(len(forms) - size + 1):
                if tuple(forms[first : first + size]) == sequence:
                    found.add((run[first].start, run[first + size - 1].end))
    return sorted(found)


def _pieces(text: str) -> list[tuple[int, str]]:
    """`text` in pieces the analyser accepts, each with its offset."""
    if len(text) <= MAX_CHARS:
        return [(0, text)]
    pieces = []
    start = 0
    while start < len(text):
        end = min(start + MAX_CHARS, len(text))
        if end < len(text):
            cut = max(
                (m.end() for m in BREAK_AT.finditer(text, start + MAX_CHARS // 2, end)), default=0
            )
            end = cut or end
        pieces.append((start, text[start:end]))
        start = end
    return pieces


def word_sequences(normalized: str) -> tuple[tuple[str, ...], ...]:
    """The forms of the words of a query's term, as long units and (when different)
    short units: either sequence found in a document is a word match."""
    found = analyse(normalized)
    runs = []
    for run in found.runs():
        forms = tuple(word.form for word in run)
        if forms and forms not in runs:
            runs.append(forms)
    return tuple(runs)


def index_words(normalized: str) -> str:
    """The word tokens of a column: the long units, then STREAM_BREAK and the short
    units when they differ, each followed by a space; "" for text without words. The
    index's fast path: no Word objects, no offsets."""
    long: list[str] = []
    short: list[str] = []
    split = False
    tokenizer = _tokenizer()
    for _offset, piece in _pieces(normalized):
        for _morpheme, (_form, token, parts) in _entries(tokenizer.tokenize(piece)):
            long.append(token)
            if parts is None:
                short.append(token)
            else:
                split = True
                short.extend(part[1] for part in parts)
    if not long:
        return ""
    if split:
        long.append(STREAM_BREAK)
        long.extend(short)
    # Every token, the last one too, is followed by a space: a scan finds a word by
    # instr(column, mark + form + " ") without building a padded copy of each row.
    return " ".join(long) + " "
