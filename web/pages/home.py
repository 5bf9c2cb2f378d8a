"""The home page people start from, and the favourite channels every page's toggles
read."""

from __future__ import annotations

from flask import g, render_template

from models import library
from models.home import home
from models.search import SearchQuery
from web.i18n import locale_code
from web.pages.blueprint import bp
from web.pages.search import search_form
from web.visitor import viewer, viewer_id


@bp.get("/")
def index() -> str:
    """Where a search starts: the same form as the search page (the help, search by
    meaning, the filters), example searches and the indexed channels."""
    form = search_form(viewer_id(), SearchQuery(q=""))
    return render_template("index.html", home=home(locale_code()), **form)


@bp.app_template_global()
def favourite_channel_ids() -> frozenset[str]:
    """The signed-in member's favourite channels, read once a request, for the favourite
    toggles (templates/_favourite.html); empty when signed out."""
    user = viewer()
    if user is None:
        return frozenset()
    if "favourite_channel_ids" not in g:
        g.favourite_channel_ids = frozenset(library.favorite_channel_ids(user.id))
    ids: frozenset[str] = g.favourite_channel_ids
    return ids
