"""Text for search: normalisation, the CJK-bigram / Latin-word tokenizer, query terms,
and highlighting with <mark> on HTML-escaped text.

Japanese has no spaces, so CJK runs are indexed as overlapping character bigrams
(大阪の広告 → 大阪 阪の の広 広告): any two-character word is found through the index,
and a longer one as a phrase of its bigrams. Latin text is indexed as whole words, so
"work" does not match "network".
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

_CJK = (
    "\u3040-\u30ff"  # hiragana, katakana (with ー)
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff"  # hangul
    "\u3005\u3006\u3007\u30fc\uff66-\uff9f"  # 々 〆 〇 ー, half-width katakana
)
CJK_RUN = re.compile(f"[{_CJK}]+")
TOKEN_RUN = re.compile(f"([{_CJK}]+)|([^\\W{_CJK}]+)")
SENTENCE_END = re.compile(r"[.!?。！？…]\s*$")
# Between these (CJK text and its full-width punctuation) captions join without a space.
NO_SPACE = re.compile(f"[{_CJK}\u3000-\u303f\uff00-\uffef]")


def normalize(text: str) -> str:
    """NFKC (full-width to half-width, composed kana) and case folding."""
    return unicodedata.normalize("NFKC", text).casefold()


def tokens(text: str) -> list[str]:
    """Index tokens of `text`: bigrams of CJK runs (a lone character as itself), and
    Latin/digit words."""
    out: list[str] = []
    for cjk, word in TOKEN_RUN.findall(normalize(text)):
        if cjk:
            if len(cjk) == 1:
                out.append(cjk)
            else:
                out.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
        elif word:
            out.append(word)
    return out


def index_text(text: str | None) -> str:
    return " ".join(tokens(text or ""))


@dataclass(frozen=True)
class Term:
    """One query term: a word, a CJK run, or a quoted phrase."""

    text: str  # normalised
    tokens: tuple[str, ...]

    @property
    def needs_scan(self) -> bool:
        # A single CJK character has no bigram; the index cannot find it inside a run.
        return len(self.text) == 1 and bool(CJK_RUN.fullmatch(self.text))


def parse_query(q: str) -> list[Term]:
    """Quoted parts are phrases; other whitespace-separated parts are terms (AND)."""
    terms = []
    for quoted, bare in re.findall(r'"([^"]*)"|(\S+)', q):
        raw = quoted or bare
        parts = tokens(raw)
        if parts:
            terms.append(Term(text=" ".join(_surface_parts(raw)), tokens=tuple(parts)))
    return terms


def _surface_parts(raw: str) -> list[str]:
    return [cjk or word for cjk, word in TOKEN_RUN.findall(normalize(raw))]


def fts_match(terms: list[Term], columns: tuple[str, ...]) -> str:
    """An FTS5 MATCH expression: every term as a phrase of its tokens, within `columns`."""
    phrases = " AND ".join('"' + " ".join(term.tokens) + '"' for term in terms)
    return "{" + " ".join(columns) + "} : (" + phrases + ")"


def _normalized_with_map(text: str) -> tuple[str, list[int]]:
    """The normalised text and, for each of its characters, the index in `text`."""
    out, where = [], []
    for index, char in enumerate(text):
        piece = normalize(char)
        out.append(piece)
        where.extend([index] * len(piece))
    return "".join(out), where


def _term_pattern(term: Term) -> re.Pattern[str]:
    parts = []
    for part in term.text.split(" "):
        escaped = re.escape(part)
        word_char = f"[^\\W{_CJK}]"
        parts.append(
            escaped if CJK_RUN.fullmatch(part) else f"(?<!{word_char}){escaped}(?!{word_char})"
        )
    return re.compile(r"[\s\W]*".join(parts))


def match_spans(text: str, terms: list[Term]) -> list[tuple[int, int]]:
    """Spans of `text` (original indices) where any term occurs; Latin terms only as
    whole words."""
    normalized, where = _normalized_with_map(text)
    spans = []
    for term in terms:
        for found in _term_pattern(term).finditer(normalized):
            if found.end() > found.start():
                spans.append((where[found.start()], where[found.end() - 1] + 1))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, terms: list[Term]) -> str:
    """`text` HTML-escaped, with <mark> around every match."""
    out, cursor = [], 0
    for start, end in match_spans(text, terms):
        out.append(html.escape(text[cursor:start]))
        out.append("<mark>" + html.escape(text[start:end]) + "</mark>")
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def crop(text: str, terms: list[Term], width: int = 80) -> str:
    """A window of about `width` characters around the first match (whole text if short)."""
    if len(text) <= width:
        return text
    spans = match_spans(text, terms)
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


def ends_sentence(text: str) -> bool:
    return bool(SENTENCE_END.search(text))
