"""Addresses of this site as people reach it (PUBLIC_BASE_URL), built from the routes
with url_for: the domain never spells a route, it is handed these."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from flask import request, url_for

from models.search import DEFAULT_SEMANTIC_RATIO, TARGETS, SearchQuery
from models.settings import get_settings
from models.tables import SearchHistory

DEFAULT_PER_PAGE = SearchQuery(q="").per_page


def public_url(endpoint: str, **values: Any) -> str:
    return get_settings().public_base_url + url_for(endpoint, **values)


def beacon_urls(reservation_id: str, token: str) -> tuple[str, str]:
    """The click and impression addresses of one served ad in one render. Building a
    route is the costliest step of serving ads (two for each of four ads an answer), so
    each reservation's pair is built once and the render's view token added to it."""
    click, impression = _beacon_addresses(
        get_settings().public_base_url, request.script_root, reservation_id
    )
    query = urlencode({"v": token})
    return f"{click}?{query}", f"{impression}?{query}"


@lru_cache(maxsize=4096)
def _beacon_addresses(base: str, script_root: str, reservation_id: str) -> tuple[str, str]:
    """A reservation's beacon addresses, for the public base and the script root they
    are built under (both in the key: either changes them)."""
    return (
        base + url_for("api.ad_click", reservation_id=reservation_id),
        base + url_for("api.ad_impression", reservation_id=reservation_id),
    )


class SiteAdPages:
    """The advertiser's pages of a reservation (models.ads.reservations.AdPages)."""

    def reservation(self, reservation_id: str) -> str:
        return public_url("pages.own_ad", reservation_id=reservation_id)

    def paid(self, reservation_id: str) -> str:
        return public_url("pages.own_ad", reservation_id=reservation_id, paid=1)

    def cancelled(self, reservation_id: str) -> str:
        return public_url("pages.new_ad", cancelled=reservation_id)


AD_PAGES = SiteAdPages()


def search_url(query: SearchQuery, page: int | None = None) -> str:
    """The search page holding every condition of `query`, under the API's parameter
    names and formats (GET /api/search: comma-separated `channels` and `target`), so the
    address restores the whole search; defaults are left out. `page` overrides the
    query's page (1 is left out)."""
    params: dict[str, str | int | float] = {"q": query.q}
    if query.channels:
        params["channels"] = ",".join(sorted(set(query.channels)))
    if query.targets and set(query.targets) != set(TARGETS):
        params["target"] = ",".join(sorted(set(query.targets)))
    if query.sort != "relevance":
        params["sort"] = query.sort
    if query.semantic:
        params["semantic"] = 1
    if query.sr != DEFAULT_SEMANTIC_RATIO:
        params["sr"] = query.sr
    if query.per_page != DEFAULT_PER_PAGE:
        params["perPage"] = query.per_page
    page = query.page if page is None else page
    if page > 1:
        params["page"] = page
    return url_for("pages.search") + "?" + urlencode(params, safe=",")


def history_query(entry: SearchHistory) -> SearchQuery:
    """The search a search_histories row recorded (models.library.record_search)."""
    return SearchQuery(
        q=entry.query,
        channels=tuple(c for c in entry.channels.split(",") if c),
        targets=tuple(t for t in entry.target.split(",") if t) or TARGETS,
        sort=entry.sort,
        semantic=bool(entry.semantic),
        sr=entry.sr,
    )


def history_search_url(entry: SearchHistory) -> str:
    """The search page restoring everything a history entry recorded: the one place
    that builds a history link (the account page; the API may answer it too)."""
    return search_url(history_query(entry))
