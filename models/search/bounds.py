"""How large a search may be (docs/search.md, What a search may cost): the shapes that
cost an engine the most are refused before they reach it, the rest is held to the time
budget.

A lone CJK character has no bigram in the index and is looked for by a scan of the
indexed text (embedded/scan.py), so a query holds few of them; a deep page is read past
every earlier match, so a page reaches at most as far as the exact count of videos.
"""

from __future__ import annotations

import math

from models.search.base import TOTAL_VIDEOS_CAP
from models.search.query import Query

MAX_QUERY_LENGTH = 200
# Terms (words, CJK runs, quoted phrases, each side of an OR, excluded words) of one
# query.
MAX_TERMS = 10
# Of them, one-character CJK terms (each one a scan of the indexed text).
MAX_SCAN_TERMS = 2
# Ways to choose one side of each OR (a OR b, c OR d: 4): the Meilisearch engine sends a
# search for each (meili.py).
MAX_BRANCHES = 16
# The last result a page may reach: page x perPage.
MAX_DEPTH = TOTAL_VIDEOS_CAP

TOO_MANY_TERMS = f"at most {MAX_TERMS} words"
TOO_MANY_SCAN_TERMS = f"at most {MAX_SCAN_TERMS} single-character CJK words"
TOO_DEEP = f"page x perPage must be at most {MAX_DEPTH}"
TOO_MANY_BRANCHES = f"at most {MAX_BRANCHES} combinations of OR"


def query_problem(read: Query) -> str | None:
    """Why the query `read` is refused, in the API's words; None when it may be searched."""
    terms = [*read.terms, *read.excluded]
    if len(terms) > MAX_TERMS:
        return TOO_MANY_TERMS
    if sum(term.needs_scan for term in terms) > MAX_SCAN_TERMS:
        return TOO_MANY_SCAN_TERMS
    if math.prod(len(group) for group in read.groups) > MAX_BRANCHES:
        return TOO_MANY_BRANCHES
    return None


def depth_problem(page: int, per_page: int) -> str | None:
    """Why a page is refused; None when it is within MAX_DEPTH results."""
    if page * per_page > MAX_DEPTH:
        return TOO_DEEP
    return None
