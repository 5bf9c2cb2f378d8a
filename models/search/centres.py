"""Vectors centred by language: multilingual-e5-small's cosines depend on the languages
of the two texts as much as on what they say (docs/search.md, Search by meaning across
languages).

A Japanese question is nearer every Japanese passage than any English one, whatever
either says, and the other way round: each language's vectors lean one common way. So a
vector is taken from its language's mean (of passages, or of questions: e5's `query: `
prefix leans its own way), STRENGTH of it, and made unit length again. What is left is
mostly what the text says beyond being Japanese or English, and a cosine of that means
about the same across languages. All of the mean (1.0) ranks answers across languages
best, but lifts chance likenesses too (a ramen broth for a question on flour batter
grilled on a plate); three quarters keeps most of the gain and none of those
(bench/meaning.py measures both).

The means ship in `e5_small_centres.npy`, made by bench/meaning_centres.py from the
bundled sample and the relevance corpus (1,234 passages of subtitles, titles and
descriptions), each text embedded as a passage and as a question. A text is Japanese when
it holds kana or kanji, else it takes the other mean (made of English): told apart by
script, in microseconds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
CENTRES = Path(__file__).with_name("e5_small_centres.npy")
# The rows of the file, in order.
ROWS = (("passage", "ja"), ("passage", "en"), ("query", "ja"), ("query", "en"))
STRENGTH = 0.75
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")


def language_of(text: str) -> str:
    """ "ja" for a text with kana or kanji in it, else "en"."""
    return "ja" if JAPANESE.search(text) else "en"


@cache
def label() -> str:
    """What names the centring in the model's name: a digest of the means and STRENGTH,
    so centring otherwise is another model (its vectors are made anew, never mixed)."""
    digest = hashlib.blake2b(CENTRES.read_bytes(), digest_size=4)
    digest.update(repr(STRENGTH).encode())
    return digest.hexdigest()


@cache
def _means() -> dict[tuple[str, str], Vectors]:
    table = np.load(CENTRES).astype(np.float32)
    return {row: table[n] for n, row in enumerate(ROWS)}


def centred(vectors: Vectors, texts: Sequence[str], side: str) -> Vectors:
    """Each row of `vectors` (the model's, of `texts`, as `side` "passage" or "query")
    less STRENGTH of its language's mean, unit length again."""
    means = _means()
    lean = np.vstack([means[(side, language_of(text))] for text in texts])
    shifted = vectors - STRENGTH * lean
    norms = np.linalg.norm(shifted, axis=-1, keepdims=True)
    out: Vectors = np.divide(shifted, norms, out=np.zeros_like(shifted), where=norms > 0).astype(
        np.float32
    )
    return out
