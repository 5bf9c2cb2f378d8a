"""HTML pages for people, one module per area on one blueprint: the home page, search,
a video, the account, and the advertiser's pages (the administrators' pages are in
web/admin)."""

from __future__ import annotations

from flask import Flask

from web.pages import (
    account,
    advertise,
    alert_feed,
    alert_unsubscribe,
    home,
    own_ads,
    search,
    video,
)
from web.pages.blueprint import bp

# Pages on the blueprint, in modules of their own: their routes are on bp once imported.
ROUTE_MODULES = (home, search, video, account, own_ads, alert_feed, alert_unsubscribe)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    advertise.init_app(app)
