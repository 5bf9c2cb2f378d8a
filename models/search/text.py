"""Text for search: normalisation, the CJK-bigram / Latin-word tokenizer, query terms,
and highlighting with <mark> on HTML-escaped text.

Japanese has no spaces, so CJK runs are indexed as overlapping character bigrams
(大阪の広告 → 大阪 阪の の広 広告): any two-character word is found through the index,
and a longer one as a phrase of its bigrams. Latin text is indexed as whole words, so
"work" does not match "network". Beside the pairs, text that is not plain ASCII is
indexed as words (analysis.py: 東京都 is the word 東京都, not 京都), and a query's term
is found by its pairs or by its words: words rank first (scoring.py), the pairs keep
what the dictionary does not know (new words, parts of words) findable, lower.

The index, the scan columns and the query all pass through normalize(), so every
normalisation rule holds on both sides; highlights map matches back to the characters
of the stored text, whatever form they are written in.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from models.search.analysis import (
    STREAM_BREAK,
    WORD_MARK,
    find_words,
    index_words,
    word_sequences,
)

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana (with ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff"  # hangul
    "\u3005\u3006\u3007\u30fc\uff66-\uff9f"  # 々 〆 〇 ー, half-width katakana
)
CJK_RUN = re.compile(f"[{_CJK}]+")
TOKEN_RUN = re.compile(f"([{_CJK}]+)|([^\\W{_CJK}]+)")
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


# Words of ASCII text, which normalize() only lowercases: no CJK, no long-vowel marks.
ASCII_WORD = re.compile(r"\w+", re.ASCII)


def tokens(text: str) -> list[str]:
    """Index tokens of `text`: bigrams of CJK runs (a lone character as itself), and
    Latin/digit words."""
    if text.isascii():
        return ASCII_WORD.findall(text.lower())
    out: list[str] = []
    for cjk, word in TOKEN_RUN.findall(normalize(text)):
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(map(str.__add__, cjk[:-1], cjk[1:]))
        elif word:
            out.append(word)
    return out


def index_text(text: str | None) -> tuple[str, str]:
    """A field's token columns: its pairs and Latin words, and (for text that is not
    plain ASCII) its word tokens (analysis.index_words)."""
    if not text:
        return "", ""
    if text.isascii():
        return " ".join(tokens(text)), ""
    normalized = normalize(text)
    return " ".join(tokens(normalized)), index_words(normalized)


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

    @property
    def needs_scan(self) -> bool:
        # A single CJK character has no bigram; the index cannot find it inside a run.
        return len(self.text) == 1 and bool(CJK_RUN.fullmatch(self.text))

    @property
    def forms(self) -> tuple[tuple[str, ...], ...]:
        """The word forms of `words`, unmarked."""
        return tuple(tuple(token[len(WORD_MARK) :] for token in run) for run in self.words)


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
    return Term(text=" ".join(_surface_parts(normalized)), tokens=tuple(parts), words=words)


def _surface_parts(normalized: str) -> list[str]:
    return [cjk or word for cjk, word in TOKEN_RUN.findall(normalized)]


def _phrase(tokens: tuple[str, ...]) -> str:
    return '"' + " ".join(tokens) + '"'


def _within(columns: tuple[str, ...], expression: str) -> str:
    return "{" + " ".join(columns) + "} : (" + expression + ")"


def term_match(term: Term, columns: tuple[str, ...], word_columns: tuple[str, ...]) -> str:
    """A term as FTS5 finds it: the phrase of its pairs in `columns`, or of its words (long
    or short units) in `word_columns`."""
    pairs = _within(columns, _phrase(term.tokens))
    if not term.words or not word_columns:
        return pairs
    words = _within(word_columns, " OR ".join(_phrase(run) for run in term.words))
    return f"({pairs} OR {words})"


def fts_match(
    terms: list[Term], columns: tuple[str, ...], word_columns: tuple[str, ...] = ()
) -> str:
    """An FTS5 MATCH expression: every term as a phrase of its tokens within `columns`, or
    of its words within `word_columns` (the same fields' word columns)."""
    return " AND ".join(term_match(term, columns, word_columns) for term in terms)


def fts_pairs_match(terms: list[Term], columns: tuple[str, ...]) -> str | None:
    """The documents holding every term by its pairs alone (fewer than fts_match finds,
    and quicker to find for a common word); None when no term has words, as then it is
    fts_match."""
    if not any(term.words for term in terms):
        return None
    return _within(columns, " AND ".join(_phrase(term.tokens) for term in terms))


def fts_words_match(
    terms: list[Term], columns: tuple[str, ...], word_columns: tuple[str, ...]
) -> str | None:
    """The documents holding every term as words (a plain ASCII term's tokens in
    `columns` are words); None when no term has words, as then it is fts_match."""
    if not any(term.words for term in terms):
        return None
    found = []
    for term in terms:
        if term.words:
            found.append(_within(word_columns, " OR ".join(_phrase(run) for run in term.words)))
        else:
            found.append(_within(columns, _phrase(term.tokens)))
    return " AND ".join(found)


# Where a character of normalised text comes from: [start, end) of the original.
Origin = tuple[int, int]
# Characters that NFKC and case folding leave one for one, and that never join the
# character before them (no combining mark, no second half of a composition): ASCII,
# kana and ideographs. Text made of them maps back character by character.
_STABLE = "\x00-\x7f\u3001-\u3029\u3041-\u3096\u30a1-\u30fa\u30fc\u3400-\u4dbf\u4e00-\u9fff"
UNSTABLE_RUN = re.compile(f"[^{_STABLE}]+")


def _normalized_with_map(text: str) -> tuple[str, list[Origin]]:
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


# A letter or digit of a Latin word: one next to a Latin term's ends means it sits inside
# a longer word.
WORD_CHAR = re.compile(f"[^\\W{_CJK}]")


@functools.lru_cache(maxsize=1024)
def _text_pattern(text: str, prefix: bool = False) -> tuple[re.Pattern[str], tuple[int, ...]]:
    """The pattern of a term's normalised text, a group per part, and the groups of its
    Latin parts, which match only as whole words (checked after the match: look-arounds
    with the CJK class cost milliseconds to compile, for every new term). A prefix's
    last part takes in the rest of its word."""
    parts = text.split(" ")
    escaped = [re.escape(part) for part in parts]
    if prefix:
        escaped[-1] += f"[^\\W{_CJK}]*"
    pattern = re.compile(r"[\s\W]*".join(f"({part})" for part in escaped))
    latin = tuple(n for n, part in enumerate(parts, 1) if not CJK_RUN.fullmatch(part))
    return pattern, latin


def _term_matches(normalized: str, term: Term) -> Iterator[tuple[int, int]]:
    """[start, end) of each match of `term` in `normalized`, left to right, not overlapping."""
    pattern, latin = _text_pattern(term.text, term.prefix)
    position = 0
    while found := pattern.search(normalized, position):
        if all(_whole_word(normalized, found.start(g), found.end(g)) for g in latin):
            yield found.start(), found.end()
            position = max(found.end(), found.start() + 1)
        else:
            position = found.start() + 1


def _whole_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] has no word character right before or after it."""
    before = start > 0 and WORD_CHAR.match(text, start - 1) is not None
    return not before and WORD_CHAR.match(text, end) is None


def match_spans(text: str, terms: list[Term], indexed: str | None = None) -> list[tuple[int, int]]:
    """Spans of `text` (original indices) where any term occurs: a term that has words
    where the text holds them as words (京都 in 京都に, not in 東京都; シミュレーション in
    シュミレーション), its characters elsewhere; Latin terms only as whole words.

    `indexed`: the text's token column in the index, when the caller read it; it tells
    when the characters are the words without analysing the text again (_chars_suffice)."""
    normalized, where = _normalized_with_map(text)
    worded = [
        term for term in terms if term.words and not _chars_suffice(term, normalized, indexed)
    ]
    words = dict(zip(worded, find_words(normalized, [t.forms for t in worded]), strict=True))
    spans = []
    for term in terms:
        for start, end in words.get(term) or _term_matches(normalized, term):
            if end > start:
                spans.append((where[start][0], where[end - 1][1]))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _chars_suffice(term: Term, normalized: str, indexed: str | None) -> bool:
    """Whether the term's characters in `normalized` are where its words are, as read
    from the text's token column: the column holds none of its words (the characters
    are all there is), or the term is one word written as its form and the column's long
    units hold it as many times as its characters occur."""
    if indexed is None:
        return False
    padded = " " + indexed.replace(" ", "  ") + " "
    needles = [" " + "  ".join(run) + " " for run in term.words]
    if not any(needle in padded for needle in needles):
        return True
    first = term.words[0]
    if len(first) != 1 or first[0][len(WORD_MARK) :] != term.text:
        return False
    long = padded.split(STREAM_BREAK, 1)[0]
    return long.count(needles[0]) == sum(1 for _ in _term_matches(normalized, term))


def matches(text: str, terms: list[Term]) -> bool:
    """Whether any term occurs in `text`, as match_spans finds it (its characters, or its
    words: the text is analysed only when no characters match, for a variant spelling)."""
    normalized = normalize(text)
    if any(next(_term_matches(normalized, term), None) for term in terms):
        return True
    worded = [term for term in terms if term.words]
    if not worded:
        return False
    return any(find_words(normalized, [term.forms for term in worded]))


def highlight(text: str, terms: list[Term], indexed: str | None = None) -> str:
    """`text` HTML-escaped, with <mark> around every match (`indexed`: match_spans)."""
    out, cursor = [], 0
    for start, end in match_spans(text, terms, indexed):
        out.append(html.escape(text[cursor:start]))
        out.append("<mark>" + html.escape(text[start:end]) + "</mark>")
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def crop(text: str, terms: list[Term], width: int = 80, indexed: str | None = None) -> str:
    """A window of about `width` characters around the first match (whole text if short;
    `indexed`: match_spans)."""
    if len(text) <= width:
        return text
    spans = match_spans(text, terms, indexed)
    center = spans[0][0] if spans else 0
    start = max(0, center - width // 3)
    end = min(len(text), start + width)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


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
