"""The home page people start from, and the favourite channels every page's toggles
read."""

from __future__ import annotations

from flask import g, render_template

from models import library
from models.home import home
from web.i18n import locale_code
from web.pages.blueprint import bp
from web.visitor import viewer


@bp.get("/")
def index() -> str:
    return render_template("index.html", home=home(locale_code()))


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
