"""Where a query's terms occur in stored text, for every engine and the pages: the spans
they cover, the text HTML-escaped with <mark> around them, a crop around the first, and
whether they occur at all.

Matching runs on the normalised text (text.normalize) and maps each span back to the
characters of the stored text (text.normalized_with_map), whatever form they are written
in. A term with words (analysis.py) is marked where the text holds those words, so 京都
is marked in 京都に and not in 東京都; Latin terms only as whole words. A term with
readings is marked where the text's words read as it, too (串カツ for くしかつ).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterator
from typing import NamedTuple

from models.search.analysis import STREAM_BREAK, WORD_MARK, find_readings, find_words
from models.search.text import (
    CJK_RUN,
    UNSTABLE_RUN,
    WORD_CHAR,
    Origin,
    Term,
    normalize,
    normalized_with_map,
    padded_column,
    padded_run,
)


@functools.lru_cache(maxsize=1024)
def _text_pattern(text: str, prefix: bool = False) -> tuple[re.Pattern[str], tuple[int, ...]]:
    """The pattern of a term's normalised text, a group per part, and the groups of its
    Latin parts, which match only as whole words (checked after the match: look-arounds
    with the CJK class cost milliseconds to compile, for every new term). A prefix's
    last part takes in the rest of its word."""
    parts = text.split(" ")
    escaped = [re.escape(part) for part in parts]
    if prefix:
        escaped[-1] += WORD_CHAR.pattern + "*"
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


class Indexed(NamedTuple):
    """A text's token columns in the index, when the caller read them: its words and its
    readings (analysis.index_words)."""

    words: str
    readings: str


class _Lookups(NamedTuple):
    """What match_spans looks for of one term, worked out once for all the texts a page
    highlights: the runs of its words and of its readings as they stand in a padded token
    column (_padded), whether it is one word written as its form, its words' forms and
    readings' keys for the analyser, and its other spellings as characters."""

    term: Term
    word_needles: tuple[str, ...]
    one_form: bool
    forms: tuple[tuple[str, ...], ...]
    reading_needles: tuple[str, ...]
    reading_keys: tuple[tuple[str, ...], ...]
    spelt: tuple[str, ...]


# Each term's lookups by the term itself (its identity: terms are made once and kept,
# text.make_term), so that a caller highlighting text by text works them out once too.
_KEPT: dict[int, tuple[Term, _Lookups]] = {}
KEPT_TERMS = 4096


def _lookups_of(term: Term) -> _Lookups:
    kept = _KEPT.get(id(term))
    if kept is not None and kept[0] is term:
        return kept[1]
    if len(_KEPT) >= KEPT_TERMS:
        _KEPT.clear()
    found = _lookups(term)
    _KEPT[id(term)] = (term, found)  # the term kept with them: its id is not reused
    return found


def _lookups(term: Term) -> _Lookups:
    first = term.words[0] if term.words else ()
    return _Lookups(
        term=term,
        word_needles=tuple(padded_run(run) for run in term.words),
        one_form=len(first) == 1 and first[0][len(WORD_MARK) :] == term.text,
        forms=term.forms,
        reading_needles=tuple(padded_run(run) for run in term.reading_tokens),
        reading_keys=term.reading_keys,
        spelt=tuple("".join(_spelt(spelt)) for spelt in term.spellings),
    )


class Marker:
    """Where a search's terms are in the texts of its page: match_spans and highlight for
    one list of terms, what they look for worked out once (a page highlights dozens of
    texts for the same terms)."""

    def __init__(self, terms: list[Term]) -> None:
        self.terms = terms
        self.lookups = [_lookups_of(term) for term in terms]

    def highlight(self, text: str, indexed: Indexed | None = None) -> str:
        """`text` HTML-escaped, with <mark> around every match (`indexed`: match_spans)."""
        spans = self.match_spans(text, indexed)
        if not spans:
            return html.escape(text)
        out, cursor = [], 0
        for start, end in spans:
            out.append(html.escape(text[cursor:start]))
            out.append("<mark>" + html.escape(text[start:end]) + "</mark>")
            cursor = end
        out.append(html.escape(text[cursor:]))
        return "".join(out)

    def match_spans(self, text: str, indexed: Indexed | None = None) -> list[tuple[int, int]]:
        """match_spans (below) for this search's terms."""
        normalized, where = _normalized(text)
        # Each term's matches as characters: the spans of a term without words found as
        # words, and what tells whether its characters are its words (_chars_suffice).
        written = [list(_term_matches(normalized, lookup.term)) for lookup in self.lookups]
        words_column = padded_column(indexed.words) if indexed is not None else None
        worded = [
            lookup
            for lookup, chars in zip(self.lookups, written, strict=True)
            if lookup.term.words and not _chars_suffice(lookup, chars, words_column)
        ]
        words = dict(
            zip(
                [lookup.term for lookup in worded],
                find_words(normalized, [lookup.forms for lookup in worded]),
                strict=True,
            )
        )
        readings_column = padded_column(indexed.readings) if indexed is not None else None
        read = [
            lookup
            for lookup in self.lookups
            if lookup.term.readings and _may_read(lookup, normalized, readings_column)
        ]
        readings = find_readings(normalized, [lookup.reading_keys for lookup in read])
        spans = []
        found = [
            words.get(lookup.term) or chars
            for lookup, chars in zip(self.lookups, written, strict=True)
        ]
        for run in [*found, *readings]:
            for start, end in run:
                if end <= start:
                    continue
                if where is None:
                    spans.append((start, end))
                else:
                    spans.append((where[start][0], where[end - 1][1]))
        spans.sort()
        merged: list[tuple[int, int]] = []
        for start, end in spans:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged


def _normalized(text: str) -> tuple[str, list[Origin] | None]:
    """normalize(text) and where each of its characters comes from
    (text.normalized_with_map); None for text that maps back one for one (nothing
    text.UNSTABLE_RUN finds: most subtitles), whose map need not be built."""
    if UNSTABLE_RUN.search(text) is None:
        return normalize(text), None
    return normalized_with_map(text)


def match_spans(
    text: str, terms: list[Term], indexed: Indexed | None = None
) -> list[tuple[int, int]]:
    """Spans of `text` (original indices) where any term occurs: a term that has words
    where the text holds them as words (京都 in 京都に, not in 東京都; シミュレーション in
    シュミレーション), its characters elsewhere; Latin terms only as whole words.

    `indexed`: the text's token columns in the index, when the caller read them; they tell
    when the characters are the words without analysing the text again (_chars_suffice),
    and whether the text reads as a term at all (_may_read)."""
    return Marker(terms).match_spans(text, indexed)


def _may_read(lookup: _Lookups, normalized: str, padded: str | None) -> bool:
    """Whether the text may hold a word that reads as the term, so that it is worth
    analysing: its reading column (`padded`: _padded) holds one of the term's readings;
    without the column, it is not plain ASCII (English text never reads as a Japanese
    word)."""
    if padded is None:
        return not normalized.isascii()
    if any(needle in padded for needle in lookup.reading_needles):
        return True
    return any(spelt in normalized for spelt in lookup.spelt)


def _spelt(pairs: tuple[str, ...]) -> list[str]:
    """The characters a spelling's pairs (text.tokens) stand for."""
    return [pairs[0], *(pair[-1] for pair in pairs[1:])]


def _chars_suffice(lookup: _Lookups, chars: list[tuple[int, int]], padded: str | None) -> bool:
    """Whether the term's characters (`chars`, its matches in the text) are where its words
    are, as read from the text's token column (`padded`: _padded): the column holds none of
    its words (the characters are all there is), or the term is one word written as its
    form and the column's long units hold it as many times as its characters occur."""
    if padded is None:
        return False
    needles = lookup.word_needles
    if not any(needle in padded for needle in needles):
        return True
    if not lookup.one_form:
        return False
    long = padded.split(STREAM_BREAK, 1)[0]
    return long.count(needles[0]) == len(chars)


def matches(text: str, terms: list[Term]) -> bool:
    """Whether any term occurs in `text`, as match_spans finds it (its characters, or its
    words: the text is analysed only when no characters match, for a variant spelling)."""
    normalized = normalize(text)
    if any(next(_term_matches(normalized, term), None) for term in terms):
        return True
    worded = [term for term in terms if term.words]
    if worded and any(find_words(normalized, [term.forms for term in worded])):
        return True
    read = [term for term in terms if term.readings]
    return any(find_readings(normalized, [term.reading_keys for term in read]))


def highlight(text: str, terms: list[Term], indexed: Indexed | None = None) -> str:
    """`text` HTML-escaped, with <mark> around every match (`indexed`: match_spans)."""
    return Marker(terms).highlight(text, indexed)


def crop(text: str, terms: list[Term], width: int = 80, indexed: Indexed | None = None) -> str:
    """A window of about `width` characters around the first match (whole text if short;
    `indexed`: match_spans)."""
    if len(text) <= width:
        return text
    spans = match_spans(text, terms, indexed)
    center = spans[0][0] if spans else 0
    start = max(0, center - width // 3)
    end = min(len(text), start + width)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
