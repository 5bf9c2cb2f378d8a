"""The site's icon: /favicon.svg, which every page's <head> links, and /favicon.ico,
which browsers and crawlers ask for at the root whatever the page says. Both are files
under web/static, kept a day by the browser."""

from __future__ import annotations

from flask import Flask, Response, current_app, send_from_directory

# The icon rarely changes; a day keeps it from being asked again on every page.
ICON_MAX_AGE = 86400
ICONS = {"favicon.ico": "image/vnd.microsoft.icon", "favicon.svg": "image/svg+xml"}


def _icon(name: str) -> Response:
    return send_from_directory(
        str(current_app.static_folder), name, mimetype=ICONS[name], max_age=ICON_MAX_AGE
    )


def favicon_ico() -> Response:
    return _icon("favicon.ico")


def favicon_svg() -> Response:
    return _icon("favicon.svg")


def init_app(app: Flask) -> None:
    app.add_url_rule("/favicon.ico", "favicon_ico", favicon_ico)
    app.add_url_rule("/favicon.svg", "favicon_svg", favicon_svg)
