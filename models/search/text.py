"""Text rules every engine shares: normalisation, the CJK-bigram / Latin-word tokenizer,
query terms, and how caption texts join.

Japanese has no spaces, so CJK runs are indexed as overlapping character bigrams
(大阪の広告 → 大阪 阪の の広 広告): any two-character word is found through the index,
and a longer one as a phrase of its bigrams. Latin text is indexed as whole words, so
"work" does not match "network". Beside the pairs, text that is not plain ASCII is
indexed as words (analysis.py: 東京都 is the word 東京都, not 京都), and a query's term
is found by its pairs or by its words: words rank first (embedded/scoring.py), the pairs
keep what the dictionary does not know (new words, parts of words) findable, lower.
The embedded engine's token columns are in embedded/columns.py, its FTS5 expressions in
embedded/fts.py.

The index, the scan columns and the query all pass through normalize(), so every
normalisation rule holds on both sides; normalized_with_map keeps, beside the same
normalised text, where each character comes from, so that highlights (highlight.py)
map matches back to the characters of the stored text, whatever form they are written in.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models.search.analysis import (
    KANA_MARK,
    READING_MARK,
    WORD_MARK,
    analyse,
    reading_sequences,
    spoken,
    word_sequences,
)
from models.search.readings import (
    KANA,
    KANJI,
    MIN_READING,
    MIN_ROMAJI_READING,
    hiragana,
    is_kana,
    other_scripts,
    reading_key,
    romaji_kana,
    unmacroned,
    voiced,
    voiced_variants,
)

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana (with ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff"  # hangul
    "\u3005\u3006\u3007\u30fc\uff66-\uff9f"  # 々 〆 〇 ー, half-width katakana
)
CJK_RUN = re.compile(f"[{_CJK}]+")
TOKEN_RUN = re.compile(f"([{_CJK}]+)|([^\\W{_CJK}]+)")
# A letter or digit of a Latin word (TOKEN_RUN's second group): one next to a Latin
# term's ends means it sits inside a longer word.
WORD_CHAR = re.compile(f"[^\\W{_CJK}]")
# Between these (CJK text and its full-width punctuation) captions join without a space.
NO_SPACE = re.compile(f"[{_CJK}\u3000-\u303f\uff00-\uffef]")
# Kana that a long vowel can follow: hiragana, katakana, ー, the iteration marks and
# the small katakana of the phonetic extensions (no ・ or ゠, which are punctuation).
_KANA = "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
# What stands for ー in captions, after NFKC: ｰ has become ー, － "-", ～ "~", ‑ ‐; the
# dashes, minus and wave dash stay themselves. Between Latin letters or digits a hyphen
# is left alone: only a mark right after kana (or after such a mark) is a long vowel.
_LONG_VOWEL_MARKS = "-~\u2010\u2011\u2013\u2014\u2015\u2212\u301c\uff5e"
LONG_VOWEL_MARK = re.compile(f"[{_LONG_VOWEL_MARKS}]")
LONG_VOWEL_VARIANTS = re.compile(f"(?<=[{_KANA}])[{_LONG_VOWEL_MARKS}]+")


def normalize(text: str) -> str:
    """The form both the index and the query are compared in: NFKC (full-width Latin
    and digits to half-width, half-width katakana to full-width, voiced marks composed),
    case folding, and long-vowel mark variants after kana as ー."""
    return _long_vowels(_fold(text))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


# The same marks before NFKC: full-width hyphen-minus and half-width ｰ as well.
RAW_LONG_VOWEL_VARIANTS = re.compile(f"(?<=[{_KANA}])[{_LONG_VOWEL_MARKS}\uff0d\uff70]+")


def unify_long_vowels(text: str) -> str:
    """Only the long-vowel rule, on text not normalised (length kept): for an engine
    that folds width and case itself, as Meilisearch does, on documents and queries."""
    return RAW_LONG_VOWEL_VARIANTS.sub(lambda found: "ー" * len(found.group()), text)


def _long_vowels(folded: str) -> str:
    if not LONG_VOWEL_MARK.search(folded):
        return folded  # most text: a quick look instead of the slower look-behind scan
    # One ー per mark, so the text keeps its length and highlight offsets hold.
    return LONG_VOWEL_VARIANTS.sub(lambda found: "ー" * len(found.group()), folded)


# Where a character of normalised text comes from: [start, end) of the original.
Origin = tuple[int, int]
# Characters that NFKC and case folding leave one for one, and that never join the
# character before them (no combining mark, no second half of a composition): ASCII,
# kana and ideographs. Text made of them maps back character by character.
_STABLE = "\x00-\x7f\u3001-\u3029\u3041-\u3096\u30a1-\u30fa\u30fc\u3400-\u4dbf\u4e00-\u9fff"
UNSTABLE_RUN = re.compile(f"[^{_STABLE}]+")


def normalized_with_map(text: str) -> tuple[str, list[Origin]]:
    """normalize(text) and, for each of its characters, the span of `text` it comes from.

    NFKC can change the length ("㍿" → "株式会社", "ｶﾞ" → "ガ"), so every character
    of the result maps back to the smallest piece of `text` that normalises on its own.
    The long-vowel rule keeps the length, so it runs on the joined result, where it sees
    the kana before each mark as normalize does.
    """
    out: list[str] = []
    where: list[Origin] = []
    done = 0
    for run in UNSTABLE_RUN.finditer(text):
        start = max(run.start() - 1, done)  # the character before may compose with the run
        out.append(text[done:start].casefold())
        where.extend((index, index + 1) for index in range(done, start))
        folded, folded_where = _fold_clusters(text[start : run.end()], start)
        out.append(folded)
        where.extend(folded_where)
        done = run.end()
    out.append(text[done:].casefold())
    where.extend((index, index + 1) for index in range(done, len(text)))
    return _long_vowels("".join(out)), where


def _fold_clusters(text: str, offset: int) -> tuple[str, list[Origin]]:
    """Cut into clusters (a character joins the one before when the pair normalises
    differently from its parts, like ｶ and ﾞ); each cluster's characters map to all of it."""
    out: list[str] = []
    where: list[Origin] = []
    start = 0
    for end in range(1, len(text) + 1):
        if end == len(text) or not _joins(text[start:end], text[end]):
            piece = _fold(text[start:end])
            out.append(piece)
            where.extend([(offset + start, offset + end)] * len(piece))
            start = end
    return "".join(out), where


def _joins(cluster: str, char: str) -> bool:
    """Whether `char` normalises together with the cluster before it."""
    if unicodedata.combining(char):
        return True  # a combining mark, even one that does not compose, stays with its base
    if unicodedata.is_normalized("NFKC", cluster + char):
        return False
    alone = unicodedata.normalize("NFKC", char)
    if alone and unicodedata.combining(alone[0]):
        return True  # like ﾞ, which becomes a combining mark
    together = unicodedata.normalize("NFKC", cluster + char)
    return together != unicodedata.normalize("NFKC", cluster) + alone


# Words of ASCII text, which normalize() only lowercases: no CJK, no long-vowel marks.
ASCII_WORD = re.compile(r"\w+", re.ASCII)


def tokens(text: str) -> list[str]:
    """Index tokens of `text`: bigrams of CJK runs (a lone character as itself), and
    Latin/digit words."""
    if text.isascii():
        return ASCII_WORD.findall(text.lower())
    return _run_tokens(normalize(text))


def joined_tokens(normalized: str) -> str:
    """ " ".join(tokens(normalized)) for text already through normalize() (the index's
    columns.py), made without a list of tokens, and without normalising the text a
    second time where that changes nothing: text that NFKC leaves as it is, as case
    folding and the long-vowel rule leave their own output. Folding can undo NFKC (ß
    before a combining accent becomes ss and the accent, which NFKC joins to the second
    s), so such text is normalised again, as tokens() does."""
    if normalized.isascii():
        return " ".join(ASCII_WORD.findall(normalized.lower()))
    if not unicodedata.is_normalized("NFKC", normalized):
        normalized = normalize(normalized)
    # A run's pairs in a row are its first character, each inner one twice around a
    # space, and its last: 大阪の広告 is 大 + 阪 阪 + の の + 広 広 + 告.
    return " ".join(
        cjk[0] + cjk[1:-1].translate(_DOUBLED) + cjk[-1] if len(cjk) > 2 else cjk or word
        for cjk, word in TOKEN_RUN.findall(normalized)
    )


class _Doubled(dict[int, str]):
    """A str.translate table writing each character twice around a space, filled as
    characters are met (at most the CJK characters, a few MB)."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        self[code] = doubled = f"{char} {char}"
        return doubled


_DOUBLED = _Doubled()


def _run_tokens(normalized: str) -> list[str]:
    out: list[str] = []
    for cjk, word in TOKEN_RUN.findall(normalized):
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(map(str.__add__, cjk, cjk[1:]))
        elif word:
            out.append(word)
    return out


@dataclass(frozen=True)
class Term:
    """One query term: a word, a CJK run, or a quoted phrase."""

    text: str  # normalised
    tokens: tuple[str, ...]
    # Its word tokens (marked, analysis.py), as long units and, when they differ, short
    # units; none for plain ASCII, whose tokens are words already.
    words: tuple[tuple[str, ...], ...] = ()
    # A Latin prefix (word*): its one token starts the words it matches.
    prefix: bool = False
    # Typed in quotes ("a phrase"), rather than a bare word that punctuation cuts in parts.
    phrase: bool = False
    # How it reads (marked reading keys of words in a row, analysis.py), for a term in kana,
    # in romaji, or in kanji with kana (二度漬け): found by reading too, ranked below what
    # was written (embedded/scoring.py). None for other terms.
    readings: tuple[tuple[str, ...], ...] = ()
    # Word tokens a match by reading must hold as well: a term's words written in kanji
    # alone, so that 二度漬け finds 二度づけ but 公園で never finds 講演で.
    anchors: tuple[str, ...] = ()
    # Its readings come from romaji (osaka): ranked below a match by a kana reading, and
    # looked for among the words in kana alone too (analysis.KANA_MARK).
    romaji: bool = False
    # Other spellings found as written, ranked as a match by reading: the other kana of a
    # term in kana (おおさか, オオサカ), a term's words with kana written in kana (二度づけ),
    # as their tokens (pairs).
    spellings: tuple[tuple[str, ...], ...] = ()

    @property
    def needs_scan(self) -> bool:
        # A single CJK character has no bigram; the index cannot find it inside a run.
        return len(self.text) == 1 and bool(CJK_RUN.fullmatch(self.text))

    @property
    def forms(self) -> tuple[tuple[str, ...], ...]:
        """The word forms of `words`, unmarked."""
        return tuple(tuple(token[len(WORD_MARK) :] for token in run) for run in self.words)

    @property
    def reading_tokens(self) -> tuple[tuple[str, ...], ...]:
        """The reading token sequences the embedded index is asked for: `readings`, and
        for romaji the same keys among the words in kana alone (analysis.KANA_MARK)."""
        if not self.romaji:
            return self.readings
        return self.readings + tuple(
            tuple(KANA_MARK + token[len(READING_MARK) :] for token in run) for run in self.readings
        )

    @property
    def reading_keys(self) -> tuple[tuple[str, ...], ...]:
        """The reading keys of `readings`, unmarked."""
        return tuple(tuple(token[len(READING_MARK) :] for token in run) for run in self.readings)


# Terms kept once read (a Term is immutable): searches repeat their words, and reading a
# term in kana or kanji with kana asks the analyser several times (words, readings,
# spellings), about 0.3 ms a term.
TERMS_KEPT = 4096


@functools.lru_cache(maxsize=TERMS_KEPT)
def make_term(raw: str) -> Term | None:
    """The term of a part of a query (a bare word or a phrase's inside); None when it
    holds nothing to search."""
    parts = tokens(raw)
    if not parts:
        return None
    normalized = normalize(raw)
    words: tuple[tuple[str, ...], ...] = ()
    if not normalized.isascii():
        words = tuple(tuple(WORD_MARK + form for form in run) for run in word_sequences(normalized))
    read = _readings(normalized)
    return Term(
        text=" ".join(_surface_parts(normalized)),
        tokens=tuple(parts),
        words=words,
        readings=tuple(tuple(READING_MARK + key for key in run) for run in read.readings),
        anchors=read.anchors,
        romaji=read.romaji,
        spellings=tuple(tuple(tokens(spelt)) for spelt in read.spellings),
    )


# The most reading sequences a term is looked for by (its spellings and rendaku variants).
MAX_READINGS = 8
KANJI_ONLY = re.compile(f"(?:{KANJI.pattern})+")


@dataclass(frozen=True)
class _Read:
    """What a term is found by beside what it is: Term's `readings` (unmarked keys),
    `anchors`, `romaji` and `spellings`."""

    readings: tuple[tuple[str, ...], ...] = ()
    anchors: tuple[str, ...] = ()
    romaji: bool = False
    spellings: tuple[str, ...] = ()


def _readings(normalized: str) -> _Read:
    """How a term is found by reading: for kana, romaji, or kanji written with kana beside
    words in kanji alone; nothing for the rest (a term in kanji alone never finds its
    homophones; one like たこ焼き meets its spellings through the dictionary's forms)."""
    if normalized.isascii() or unmacroned(normalized).isascii():
        parts = [romaji_kana(part) for part in normalized.split()]
        if not parts or any(part is None for part in parts):
            return _Read()
        kana = " ".join(part for part in parts if part)
        if len(reading_key(kana.replace(" ", ""))) < MIN_ROMAJI_READING:
            return _Read()
        return _Read(_kana_sequences(kana), romaji=True)
    if is_kana(normalized):
        if len(reading_key(normalized.replace(" ", ""))) < MIN_READING:
            return _Read()
        return _Read(_kana_sequences(normalized), spellings=other_scripts(normalized))
    if not (KANJI.search(normalized) and KANA.search(normalized)):
        return _Read()
    words = analyse(normalized).long
    anchors = tuple(
        dict.fromkeys(
            WORD_MARK + word.form
            for word in words
            if KANJI_ONLY.fullmatch(normalized[word.start : word.end])
        )
    )
    sequences = reading_sequences(normalized)
    if not anchors or not sequences:
        return _Read()
    return _Read(_variants(sequences), anchors, spellings=_okurigana(normalized))


def _okurigana(normalized: str) -> tuple[str, ...]:
    """A term in kanji with kana written with its words in kanji and kana in kana (二度漬け
    as 二度つけ and, rendaku, 二度づけ): how a caption may write it, found as written."""
    found = analyse(normalized)
    read = analyse(normalized, readings=True)
    choices: list[list[str]] = []
    for place, (word, reading) in enumerate(zip(found.long, read.long, strict=True)):
        surface = normalized[word.start : word.end]
        if KANJI_ONLY.fullmatch(surface) or not KANJI.search(surface) or not reading.form:
            choices.append([surface])
            continue
        spelt = hiragana(spoken(surface))
        choices.append([spelt, *([voiced(spelt)] if place else [])])
    spellings = ("".join(choice) for choice in itertools.product(*choices))
    return tuple(dict.fromkeys(s for s in spellings if s != normalized))[:MAX_READINGS]


def _kana_sequences(kana: str) -> tuple[tuple[str, ...], ...]:
    """A kana term's readings: each part whole (one word reads くしかつ), and the words
    the analyser cuts it into (奈良 公園 for ならこうえん) when none is a lone kana (kana
    cut into such pieces, おさ か, are guesses that would find far too much; a cut that
    drops a particle no longer spells the term)."""
    whole = tuple(reading_key(part) for part in kana.split())
    cut = [
        run
        for run in reading_sequences(kana)
        if all(len(key) > 1 for key in run) and "".join(run) == "".join(whole)
    ]
    return tuple(dict.fromkeys(run for run in (whole, *cut) if all(run)))[:MAX_READINGS]


def _variants(sequences: Iterable[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    found: dict[tuple[str, ...], None] = {}
    for sequence in sequences:
        if sequence and all(sequence):
            found.update(dict.fromkeys(voiced_variants(sequence, MAX_READINGS)))
    return tuple(found)[:MAX_READINGS]


def _surface_parts(normalized: str) -> list[str]:
    return [cjk or word for cjk, word in TOKEN_RUN.findall(normalized)]


def join_texts(parts: list[str]) -> str:
    """Join caption texts: no space between CJK ends, a space otherwise."""
    out = ""
    for part in parts:
        part = part.strip()
        if not part:
            continue
        if out and not (NO_SPACE.match(part[0]) or NO_SPACE.match(out[-1])):
            out += " "
        out += part
    return out


def padded_column(column: str) -> str:
    """A token column with every space doubled and the whole wrapped in spaces: each
    token stands between spaces of its own, so a plain substring search for a
    padded_run finds whole tokens only (the scorers and highlight read columns so)."""
    return " " + column.replace(" ", "  ") + " "


def padded_run(tokens: Sequence[str], prefix: bool = False) -> str:
    """Tokens as they stand in a padded column; a prefix's last token may go on."""
    return " " + "  ".join(tokens) + ("" if prefix else " ")
