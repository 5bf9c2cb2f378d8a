"""Readings: how a Japanese word sounds, as a key both the index and the query compare.

A word's reading is the analyser's `reading_form` (analysis.py), in katakana. Kana are
written several ways for one sound, and romaji more loosely still, so a reading is kept as
its key (`reading_key`):
- hiragana as katakana (おおさか and オオサカ meet);
- long vowels folded: ー dropped, a vowel after a kana of the same vowel dropped, and ウ
  after an o-sound (オオサカ, オーサカ, おうさか → オサカ; トウキョウ → トキョ), as Hepburn
  romaji written without macrons has them (osaka, tokyo);
- ヅ as ズ, ヂ as ジ, ヲ as オ (romaji writes them so: zu, ji, o).

The folding costs a little: おばさん and おばあさん share a key. Rendaku (漬け read ツケ
alone, ヅケ in 二度づけ) is left to the query's side (voiced_variants).

Romaji: a Latin word that cuts whole into syllables of Hepburn or kunrei-shiki
(`ROMAJI`, with the doubled consonant, syllabic n or m and macrons) is converted by jaconv,
syllable by syllable. jaconv is maintained, pure Python and ships no data; it converts any
letters (work → をっっ, konnichiwa → こんいちわ), so the cutting and the check are ours.
"""

from __future__ import annotations

import re

import jaconv

_HIRAGANA_TO_KATAKANA = str.maketrans(
    {chr(code): chr(code + 0x60) for code in range(0x3041, 0x3097)} | {"ゝ": "ヽ", "ゞ": "ヾ"}
)
_SPELLINGS = str.maketrans({"ヅ": "ズ", "ヂ": "ジ", "ヲ": "オ", "ヮ": "ワ", "ヵ": "カ", "ヶ": "ケ"})
# The vowel each katakana ends in (small ャュョ and ァィゥェォ included); ッ and ン none.
_VOWELS = {
    "ア": "アカガサザタダナハバパマヤャラワァ",
    "イ": "イキギシジチヂニヒビピミリィ",
    "ウ": "ウクグスズツヅヌフブプムユュルゥヴ",
    "エ": "エケゲセゼテデネヘベペメレェ",
    "オ": "オコゴソゾトドノホボポモヨョロヲォ",
}
_VOWEL_OF = {kana: vowel for vowel, row in _VOWELS.items() for kana in row}
# Kana only: hiragana, katakana and the long-vowel mark (what a reading may be typed in).
KANA = re.compile(r"[\u3041-\u3096\u309d\u309e\u30a1-\u30fa\u30fc\u30fd\u30fe]+")
KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005]")
# The fewest characters a reading key of a query's term holds: one kana (の, か) would be
# found in most of the library.
MIN_READING = 2
# The fewest a romaji term's key holds: English words of two syllables (made, take, name)
# cut into romaji too, and their readings are particles and common words.
MIN_ROMAJI_READING = 3

# A syllable of romaji: a doubled consonant (kk, tch), then a consonant or two and a vowel;
# or a syllabic n (n, n', or m before b, p, m).
_CONSONANT = "(?:ky|gy|sh|sy|zy|j|ch|ty|cy|dy|ts|ny|hy|by|py|my|ry|f|v|k|g|s|z|t|d|n|h|b|p|m|y|r|w)"
ROMAJI = re.compile(
    rf"(?:([bcdfghjkmprstvz])(?=\1)|t(?=ch))?{_CONSONANT}?[aiueo]|n'|n(?![aiueoy])|m(?=[bpm])"
)
_LATIN = re.compile(r"[a-z']+")
_MACRONS = str.maketrans("āīūēōâîûêô", "aiueoaiueo")
_VOICED = dict(
    zip(
        "カキクケコサシスセソタチツテトハヒフヘホ",
        "ガギグゲゴザジズゼゾダジズデドバビブベボ",
        strict=True,
    )
)
_UNVOICED = {voiced: plain for plain, voiced in _VOICED.items() if plain not in "チツ"}
# As kana are written (not as keys): チ and ツ voice to ヂ and ヅ.
_SPELT_VOICED = {**_VOICED, "チ": "ヂ", "ツ": "ヅ"}
_SPELT_UNVOICED = {voiced: plain for plain, voiced in _SPELT_VOICED.items()}


_KATAKANA_TO_HIRAGANA = str.maketrans(
    {chr(code + 0x60): chr(code) for code in range(0x3041, 0x3097)} | {"ヽ": "ゝ", "ヾ": "ゞ"}
)


def katakana(text: str) -> str:
    return text.translate(_HIRAGANA_TO_KATAKANA)


def hiragana(text: str) -> str:
    return text.translate(_KATAKANA_TO_HIRAGANA)


def other_scripts(kana: str) -> tuple[str, ...]:
    """The other ways kana are written: a term in hiragana in katakana, and the other way
    round (both, for one that mixes them)."""
    return tuple(dict.fromkeys(f for f in (katakana(kana), hiragana(kana)) if f != kana))


def voiced(kana: str) -> str:
    """`kana` with its first kana voiced (つけ → づけ), or unvoiced when it is voiced."""
    first = katakana(kana[:1])
    other = _SPELT_VOICED.get(first) or _SPELT_UNVOICED.get(first)
    if other is None:
        return kana
    return (other if kana[:1] == first else hiragana(other)) + kana[1:]


def reading_key(kana: str) -> str:
    """The key a reading (hiragana or katakana) is compared by (the module's rules)."""
    out: list[str] = []
    for char in katakana(kana).translate(_SPELLINGS):
        if char == "ー":
            continue
        if out and char in "アイウエオ":
            before = _VOWEL_OF.get(out[-1])
            if before == char or (before == "オ" and char == "ウ"):
                continue
        out.append(char)
    return "".join(out)


def is_kana(text: str) -> bool:
    """Whether `text` (normalised) is kana alone, spaces between its parts allowed."""
    parts = text.split()
    return bool(parts) and all(KANA.fullmatch(part) for part in parts)


def unmacroned(text: str) -> str:
    """`text` with the long vowels of romaji (ō, â) written plain."""
    return text.translate(_MACRONS)


def romaji_kana(word: str) -> str | None:
    """The hiragana of a Latin word that is romaji (lower case), else None."""
    plain = unmacroned(word)
    if not _LATIN.fullmatch(plain):
        return None
    syllables = []
    position = 0
    while position < len(plain):
        found = ROMAJI.match(plain, position)
        if found is None or found.end() == position:
            return None
        syllable = found.group()
        if syllable in ("n'", "n") or syllable == "m":
            syllables.append("ん")
        else:
            syllables.append(jaconv.alphabet2kana(syllable))
        position = found.end()
    kana = "".join(syllables)
    return kana if KANA.fullmatch(kana) else None


def voiced_variants(sequence: tuple[str, ...], limit: int) -> list[tuple[str, ...]]:
    """`sequence` (reading keys of words in a row) and, up to `limit` in all, its
    variants with the first kana of a later word voiced or unvoiced (rendaku: 漬け is ツケ
    alone, ヅケ in 二度づけ)."""
    found = [sequence]
    for place in range(1, len(sequence)):
        word = sequence[place]
        other = _VOICED.get(word[:1]) or _UNVOICED.get(word[:1])
        if other is None:
            continue
        for known in list(found):
            if len(found) >= limit:
                return found
            changed = (*known[:place], other + known[place][1:], *known[place + 1 :])
            found.append(changed)
    return found
