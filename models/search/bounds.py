"""How large a search may be (README, Search and ingestion): the shapes that cost an
engine the most are refused before they reach it, the rest is held to the time budget.

A lone CJK character has no bigram in the index and is looked for by a scan of the
indexed text (embedded/scan.py), so a query holds few of them; a deep page is read past
every earlier match, so a page reaches at most as far as the exact count of videos.
"""

from __future__ import annotations

from models.search.base import TOTAL_VIDEOS_CAP
from models.search.text import parse_query

MAX_QUERY_LENGTH = 200
# Terms (words, CJK runs, quoted phrases) of one query.
MAX_TERMS = 10
# Of them, one-character CJK terms (each one a scan of the indexed text).
MAX_SCAN_TERMS = 2
# The last result a page may reach: page x perPage.
MAX_DEPTH = TOTAL_VIDEOS_CAP

TOO_MANY_TERMS = f"at most {MAX_TERMS} words"
TOO_MANY_SCAN_TERMS = f"at most {MAX_SCAN_TERMS} single-character CJK words"
TOO_DEEP = f"page x perPage must be at most {MAX_DEPTH}"


def query_problem(q: str) -> str | None:
    """Why the query `q` is refused, in the API's words; None when it may be searched."""
    terms = parse_query(q)
    if len(terms) > MAX_TERMS:
        return TOO_MANY_TERMS
    if sum(term.needs_scan for term in terms) > MAX_SCAN_TERMS:
        return TOO_MANY_SCAN_TERMS
    return None


def depth_problem(page: int, per_page: int) -> str | None:
    """Why a page is refused; None when it is within MAX_DEPTH results."""
    if page * per_page > MAX_DEPTH:
        return TOO_DEEP
    return None
