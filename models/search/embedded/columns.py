"""A field's text as the embedded index's token columns (layout.py): its character pairs
and Latin words (text.tokens), and apart its Japanese words and their readings
(analysis.index_words).

Meilisearch is sent the text as written and its word forms instead (meili.py), and
splits the text into tokens itself.
"""

from __future__ import annotations

from models.search.analysis import index_words
from models.search.text import joined_tokens, normalize, tokens


def index_text(text: str | None) -> tuple[str, str, str]:
    """A field's token columns: its pairs and Latin words, and (for text that is not
    plain ASCII) its word tokens and reading tokens (analysis.index_words)."""
    if not text:
        return "", "", ""
    if text.isascii():
        return " ".join(tokens(text)), "", ""
    normalized = normalize(text)
    return joined_tokens(normalized), *index_words(normalized)
