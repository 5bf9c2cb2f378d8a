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

Beside its words, each Japanese word (one written with kana or kanji) is indexed by its
reading (readings.py: `reading_form`, in katakana, as a key), marked by READING_MARK: the
long units, then INNER_BREAK and the words inside them (_inner): 大阪の串カツ reads
オサカ クシカツ, then カツ; particles and auxiliaries are not read (UNREAD,
UNREAD_IN_INDEX). A term in kana or romaji is found by the readings (text.make_term),
below what was written (embedded/scoring.py).
"""

from __future__ import annotations

import functools
import operator
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from sudachipy.sudachipy import Dictionary, Morpheme, MorphemeList, SplitMode, Tokenizer

from models.search import mapped_pages
from models.search.readings import KANA, KANJI, katakana, reading_key

WORD_MARK = "\ue000"
STREAM_BREAK = "\ue001"
READING_MARK = "\ue002"
# The mark of the reading key of a word written in kana alone (KANA_MARK): the index holds
# it apart from the readings of words with kanji, which is what a term in kana looks for
# (it finds the kana as written), so that its lookup stays as short as the kanji that
# read so; a romaji term looks for both.
KANA_MARK = "\ue004"
# Before the readings of the words inside longer ones (_inner), which rank below a word.
INNER_BREAK = "\ue003"
# Parts of speech that are no word: punctuation and other symbols, white space.
NOT_WORDS = ("補助記号", "空白")
# Words not indexed by their reading: particles (の, は, を), a third of the words of
# speech, which a reader looks for as written. The query's side leaves them out alike.
UNREAD = ("助詞",)
# The analyser refuses input over 49,149 bytes; longer text is read in pieces cut at
# white space or punctuation where possible (a description can be long).
MAX_CHARS = 8_000
ASCII_LETTER = re.compile(r"[a-z]")
# What the full-text index's ascii tokenizer cuts tokens at: ASCII that is not a letter or
# a digit. A word's form never holds one (a form like "t-shirt" becomes "tshirt").
TOKEN_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")
# Dictionary words a thread keeps looked up, in each of its caches (_entries', and
# index_words' _Known: about 500 bytes a word, measured); past that a cache starts again.
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
    # With readings only: the words inside longer ones (_inner), in order.
    inner: tuple[Word, ...] = ()

    def runs(self) -> tuple[tuple[Word, ...], ...]:
        return (self.long,) if self.short is None else (self.long, self.short)


# The file Dictionary(dict="core") maps: sudachidict-core's.
DICTIONARY_FILE = "/sudachidict_core/resources/system.dic"


@functools.cache
def _dictionary() -> Dictionary:
    dictionary = Dictionary(dict="core")
    # Loading reads about 75 MB of the mapped file, most of which analysing does not read
    # again: handed back, a searching process keeps about 110 MB, not 165 (mapped_pages.py).
    mapped_pages.release(DICTIONARY_FILE)
    return dictionary


@functools.cache
def _skipped_pos() -> frozenset[int]:
    """The part-of-speech ids of NOT_WORDS."""
    return _pos_ids(NOT_WORDS)


@functools.cache
def _unread_pos() -> frozenset[int]:
    """The part-of-speech ids of UNREAD."""
    return _pos_ids(UNREAD)


@functools.cache
def _unindexed_pos() -> frozenset[int]:
    """The part-of-speech ids of UNREAD_IN_INDEX."""
    return _pos_ids(UNREAD_IN_INDEX)


def _pos_ids(names: tuple[str, ...]) -> frozenset[int]:
    dictionary = _dictionary()
    found = set()
    pos_id = 0
    while True:
        try:
            pos = dictionary.pos_of(pos_id)
        except (IndexError, ValueError):
            break
        if pos is None:
            break
        if pos[0] in names:
            found.add(pos_id)
        pos_id += 1
    return frozenset(found)


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


def reading_of(surface: str, reading: str) -> str:
    """A word's reading key (readings.reading_key) when it is written in kana or kanji and
    the dictionary reads it in kana, else "" (Latin words, digits, unknown kanji)."""
    if not (KANA.search(surface) or KANJI.search(surface)):
        return ""
    read = katakana(reading)
    return reading_key(read) if KANA.fullmatch(read) else ""


# A dictionary word as the analyser gives it, looked up once per thread by its id: its
# form, its marked token, its short units (form, token, start and end within the word,
# marked reading) when it splits, else None, its marked reading ("" when it has none),
# the readings of the words inside it (_inner) and its reading as the index holds it
# (_indexed). _SKIP for a word that is no word (NOT_WORDS) or has no form.
_Part = tuple[str, str, int, int, str]
_Inner = tuple[tuple[str, int, int], ...]  # marked reading, start and end in the word
_Entry = tuple[str, str, tuple[_Part, ...] | None, str, _Inner, str]
_SKIP: _Entry = ("", "", None, "", (), "")
# Words the index leaves unread though a query reads them: auxiliaries (です, ます, た),
# as common as particles in speech; a query's are read, as the analyser takes some kana
# for one (なら of ならこうえん, which is 奈良).
UNREAD_IN_INDEX = ("助動詞",)


def _marked(reading: str) -> str:
    return READING_MARK + reading if reading else ""


def _read(morpheme: Morpheme) -> str:
    """A word's marked reading, "" for one without a reading or not read (UNREAD)."""
    if morpheme.part_of_speech_id() in _unread_pos():
        return ""
    return _marked(reading_of(morpheme.surface(), morpheme.reading_form()))


def _entry(morpheme: Morpheme) -> _Entry:
    if morpheme.part_of_speech_id() in _skipped_pos():
        return _SKIP
    surface = morpheme.surface()
    form = form_of(surface, morpheme.normalized_form())
    if not form:
        return _SKIP
    reading = _read(morpheme)
    parts = morpheme.split(SplitMode.A) if len(surface) > 2 else ()
    indexed = _indexed(morpheme, surface, reading)
    with_kanji = indexed[:1] == READING_MARK
    if len(parts) < 2:
        inner = _inner(surface, None) if with_kanji else ()
        return form, WORD_MARK + form, None, reading, inner, indexed
    begin = morpheme.begin()
    found = []
    for part in parts:
        part_form = form_of(part.surface(), part.normalized_form())
        if part_form:
            found.append(
                (
                    part_form,
                    WORD_MARK + part_form,
                    part.begin() - begin,
                    part.end() - begin,
                    _read(part),
                )
            )
    split = tuple(found)
    inner = _inner(surface, split) if with_kanji else ()
    return form, WORD_MARK + form, split, reading, inner, indexed


def _indexed(morpheme: Morpheme, surface: str, reading: str) -> str:
    """A word's reading as the index holds it: READING_MARK and its key for a word with
    kanji, KANA_MARK and its key for one in kana alone, "" for one not read
    (UNREAD_IN_INDEX, or without a reading)."""
    if not reading or morpheme.part_of_speech_id() in _unindexed_pos():
        return ""
    return reading if KANJI.search(surface) else KANA_MARK + reading[len(READING_MARK) :]


# A word of at least INNER_FROM characters with kanji is read by the words inside it too:
# 新大阪駅 holds 大阪 (オサカ), which its own units (新大阪, 駅, read after the long units
# as words of their own) do not read. They stand
# after its units, in a run of their own after INNER_BREAK, so that a term in kana finds
# what its kanji would (大阪 is found inside 新大阪 by its characters), ranked below a
# word read whole as a pair match ranks below a word (embedded/scoring.py).
INNER_FROM = 3


def _inner(surface: str, parts: tuple[_Part, ...] | None) -> _Inner:
    """The readings of the words inside a word: its short units when it splits, and the
    dictionary words (two characters or more) inside it, with where they stand in it;
    from this thread's cache."""
    if len(surface) < INNER_FROM or not KANJI.search(surface):
        return ()
    cache: dict[str, _Inner] = _local.__dict__.setdefault("inner", {})
    found = cache.get(surface)
    if found is None:
        if len(cache) > CACHED_WORDS:
            cache.clear()
        found = cache[surface] = _inner_words(surface, parts)
    return found


def _inner_words(surface: str, parts: tuple[_Part, ...] | None) -> _Inner:
    tokenizer: Tokenizer | None = getattr(_local, "inner_tokenizer", None)
    if tokenizer is None:
        tokenizer = _local.inner_tokenizer = _dictionary().tokenizer(mode=SplitMode.A)
    own = {(0, len(surface)), *((part[2], part[3]) for part in parts or ())}
    found: dict[tuple[int, int], str] = {}
    if len(surface) < INNER_FROM or not KANJI.search(surface):
        return ()
    for offset in range(1, len(surface) - 1):
        for morpheme in tokenizer.tokenize(surface[offset:]):
            start, end = offset + morpheme.begin(), offset + morpheme.end()
            if end - start < 2 or morpheme.is_oov() or (start, end) in own:
                continue
            inside = morpheme.surface()
            reading = reading_of(inside, morpheme.reading_form())
            if (
                reading
                and KANJI.search(inside)
                and morpheme.part_of_speech_id() not in (_unindexed_pos())
            ):
                found.setdefault((start, end), _marked(reading))
    return tuple((reading, start, end) for (start, end), reading in sorted(found.items()))


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


def analyse(normalized: str, readings: bool = False) -> Words:
    """The words of `normalized` (text through text.normalize()); with `readings`, each
    word's form is its reading key instead ("" for a word without one)."""
    long: list[Word] = []
    short: list[Word] = []
    inner: list[Word] = []
    split = False
    tokenizer = _tokenizer()
    for offset, piece in _pieces(normalized):
        for morpheme, (form, _, parts, reading, within, _) in _entries(tokenizer.tokenize(piece)):
            start = offset + morpheme.begin()
            word = Word(reading[1:] if readings else form, start, offset + morpheme.end())
            long.append(word)
            if parts is None:
                short.append(word)
            else:
                split = True
                short.extend(
                    Word(part_reading[1:] if readings else part, start + first, start + last)
                    for part, _, first, last, part_reading in parts
                )
            if readings:
                inner.extend(
                    Word(found[1:], start + first, start + last) for found, first, last in within
                )
    return Words(long=tuple(long), short=tuple(short) if split else None, inner=tuple(inner))


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


def find_readings(normalized: str, wanted: list[tuple[tuple[str, ...], ...]]) -> list[list[Span]]:
    """find_words for reading keys (a term's reading sequences, unmarked): where the
    text's words read as the term (串カツ for くしかつ)."""
    if not wanted:
        return []
    found = analyse(normalized, readings=True)
    runs = (*found.runs(), found.inner)
    return [_sequences_in(runs, sequences) for sequences in wanted]


def _find_single_words(normalized: str, wanted: list[set[str]]) -> list[list[Span]]:
    found: list[set[Span]] = [set() for _ in wanted]
    tokenizer = _tokenizer()
    for offset, piece in _pieces(normalized):
        for morpheme, (form, _, parts, _, _, _) in _entries(tokenizer.tokenize(piece)):
            start = offset + morpheme.begin()
            for forms, spans in zip(wanted, found, strict=True):
                if form in forms:
                    spans.add((start, offset + morpheme.end()))
                for part, _, first, last, _ in parts or ():
                    if part in forms:
                        spans.add((start + first, start + last))
    return [sorted(spans) for spans in found]


def _sequences_in(
    runs: tuple[tuple[Word, ...], ...], sequences: tuple[tuple[str, ...], ...]
) -> list[Span]:
    found = set()
    for run in runs:
        forms = [word.form for word in run if word.form]
        run = tuple(word for word in run if word.form)
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


def reading_sequences(normalized: str) -> tuple[tuple[str, ...], ...]:
    """The reading keys of the words of a query's term, as long units and (when
    different) short units; words without a reading (particles, Latin) left out, as the
    index leaves them out."""
    runs = []
    for run in analyse(normalized, readings=True).runs():
        keys = tuple(word.form for word in run if word.form)
        if keys and keys not in runs:
            runs.append(keys)
    return tuple(runs)


def index_words(normalized: str) -> tuple[str, str]:
    """The word tokens of a column and its reading tokens: each the long units, then
    STREAM_BREAK and the short units when they differ, each followed by a space; "" for
    text without words (or readings). The index's fast path: no Word objects, no
    offsets, the text analysed once for both, and each column read for all the text's
    words at once from this thread's _Known words, in C.

    Every token, the last one too, is followed by a space: a scan finds a word by
    instr(column, mark + form + " ") without building a padded copy of each row."""
    known: _Known | None = getattr(_local, "known", None)
    if known is None or len(known.words) > CACHED_WORDS:
        known = _local.known = _Known()
    tokenizer = _tokenizer()
    if len(normalized) <= MAX_CHARS:
        morphemes: MorphemeList | list[Morpheme] = tokenizer.tokenize(normalized)
    else:
        morphemes = [m for _, piece in _pieces(normalized) for m in tokenizer.tokenize(piece)]
    keys = list(map(_WORD_ID, morphemes))
    learnt: list[int] = []
    try:
        # _NOTHING first: an itemgetter of one key would give a value, not a tuple
        get = operator.itemgetter(_NOTHING, *keys)
        try:
            words = "".join(get(known.words))
        except KeyError:
            keys, learnt = known.learn(morphemes, keys)
            get = operator.itemgetter(_NOTHING, *keys)
            words = "".join(get(known.words))
        if not words:
            return "", ""
        if not known.splitting.isdisjoint(keys):
            words += STREAM_BREAK + " " + "".join(get(known.short))
        readings = "".join(get(known.readings))
        if readings:
            if not known.read_apart.isdisjoint(keys):
                readings += STREAM_BREAK + " " + "".join(get(known.short_readings))
            if not known.read_inside.isdisjoint(keys):
                readings += INNER_BREAK + " " + "".join(get(known.inner))
        return words, readings
    finally:
        known.forget(learnt)


_WORD_ID = Morpheme.word_id
# The key of no word (word ids are not negative); a text's words unknown to the
# dictionary are held under the keys below it while it is read (_Known.learn).
_NOTHING = -1


class _Known:
    """The words a thread has looked up, by word id: each one's share of each column of
    index_words, a dict a column, so that a column is read for all the words of a text
    in one call (itemgetter), and the words whose share goes beyond their word token
    and reading, in sets, so that a text without any skips those columns. Each share is
    its tokens, each followed by a space ("" for none). A word that is no word (_SKIP)
    has empty shares."""

    def __init__(self) -> None:
        # its word token
        self.words: dict[int, str] = {_NOTHING: ""}
        # its short units' tokens, its word token when it does not split
        self.short: dict[int, str] = {_NOTHING: ""}
        # its reading token
        self.readings: dict[int, str] = {_NOTHING: ""}
        # the readings of its short units read apart from it (words with kanji)
        self.short_readings: dict[int, str] = {_NOTHING: ""}
        # the readings of the words inside it (_inner)
        self.inner: dict[int, str] = {_NOTHING: ""}
        self.splitting: set[int] = set()
        self.read_apart: set[int] = set()
        self.read_inside: set[int] = set()

    def learn(
        self, morphemes: MorphemeList | list[Morpheme], keys: list[int]
    ) -> tuple[list[int], list[int]]:
        """Look up the words of `morphemes` (their word ids: `keys`) not known yet. A
        word unknown to the dictionary has its part of speech's id, so it is never kept:
        it is held under a key of its own, below _NOTHING, while its text is read. The
        keys of the text's words, and those to forget once it is read."""
        found: list[int] = []
        held: list[int] = []
        for morpheme, key in zip(morphemes, keys, strict=True):
            if morpheme.is_oov():
                key = _NOTHING - 1 - len(held)
                held.append(key)
                self._add(key, _entry(morpheme))
            elif key not in self.words:
                self._add(key, _entry(morpheme))
            found.append(key)
        return found, held

    def forget(self, keys: list[int]) -> None:
        for key in keys:
            for shares in (self.words, self.short, self.readings, self.short_readings):
                del shares[key]
            del self.inner[key]
            self.splitting.discard(key)
            self.read_apart.discard(key)
            self.read_inside.discard(key)

    def _add(self, key: int, entry: _Entry) -> None:
        splits = False
        if entry is _SKIP:
            word = short = reading = short_readings = inner = ""
        else:
            _form, token, parts, _reading, within, indexed = entry
            word = short = token + " "
            reading = indexed + " " if indexed else ""
            inner = "".join(found[0] + " " for found in within) if indexed else ""
            short_readings = ""
            if parts is not None:
                splits = True
                short = "".join(part[1] + " " for part in parts)
                if indexed[:1] == READING_MARK:
                    # its short units with kanji: words read whole, after the long ones
                    short_readings = "".join(
                        part[4] + " " for part in parts if part[4] and part[4] != indexed
                    )
        # a key held before (an unknown word's) may have been in a set it is not now in
        for found, held in (
            (splits, self.splitting),
            (bool(short_readings), self.read_apart),
            (bool(inner), self.read_inside),
        ):
            if found:
                held.add(key)
            else:
                held.discard(key)
        self.words[key] = word
        self.short[key] = short
        self.readings[key] = reading
        self.short_readings[key] = short_readings
        self.inner[key] = inner


def spoken(text: str) -> str:
    """How the analyser reads `text`, in katakana (its words' `reading_form` in a row)."""
    return "".join(morpheme.reading_form() for morpheme in _tokenizer().tokenize(text))


# Nouns that name nothing on their own: numbers, pronouns, counters (第1回's 回), and
# nouns that lean on the word before them (こと, もの).
_NOT_NAMING = ("数詞", "代名詞", "助数詞", "助数詞可能", "非自立可能")


def nouns(text: str) -> list[str]:
    """The nouns of `text` as written, for offering words to search (models/home.py):
    the analyser's long units that are nouns and name something (not _NOT_NAMING), nouns
    in kana or kanji that stand together joined into one (横浜 中華街 → 横浜中華街), each
    once, in order. A Japanese title is a run without spaces: this is where its words
    are found."""
    found: list[str] = []
    joined = ""
    last_end = -1
    for morpheme in _tokenizer().tokenize(text):
        pos = morpheme.part_of_speech()
        surface = morpheme.surface()
        naming = pos[0] == "名詞" and not ({pos[1], pos[2]} & set(_NOT_NAMING))
        japanese = bool(KANJI.search(surface) or KANA.search(surface))
        if naming and japanese and joined and morpheme.begin() == last_end:
            joined += surface
        else:
            found.append(joined)
            joined = surface if naming else ""
        last_end = morpheme.end() if naming and japanese else -1
    found.append(joined)
    return list(dict.fromkeys(word for word in found if word))
