"""An alert's private Atom feed (docs/alerts.md, The feed): its newest news, read by a
feed reader without signing in, at the address only its member was given (renewable);
404 once the alert is deleted or the address renewed."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit
from xml.etree import ElementTree as ET

from flask import Response, abort

from models.alerts import News, channels_of, feed_of, feed_url
from models.errors import NotFound
from models.settings import get_settings
from models.tables import Alert
from web.api.schemas.catalog import watch_url
from web.pages.blueprint import bp
from web.translation import gettext as _

ATOM = "http://www.w3.org/2005/Atom"
MEDIA_TYPE = "application/atom+xml; charset=utf-8"


def _tag(alert: Alert, *more: str) -> str:
    """A permanent id (RFC 4151 tag URI) of the feed or one of its entries."""
    host = urlsplit(get_settings().public_base_url).hostname or "localhost"
    return f"tag:{host},2026:alert/{'/'.join([alert.id, *more])}"


def _search_url(alert: Alert) -> str:
    asked = {"q": alert.query}
    if alert.semantic:
        asked.update(semantic="1", sr=str(alert.sr))
    if channels_of(alert):
        asked["channels"] = ",".join(channels_of(alert))
    return f"{get_settings().public_base_url}/search?{urlencode(asked)}"


def _child(parent: ET.Element, name: str, text: str | None = None, **attributes: str) -> None:
    element = ET.SubElement(parent, f"{{{ATOM}}}{name}", attributes)
    if text is not None:
        element.text = text


def atom_feed(alert: Alert, news: list[News]) -> bytes:
    """The feed as Atom 1.0 (RFC 4287): newest entries first."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _child(feed, "id", _tag(alert))
    _child(feed, "title", _("Alert: %(query)s", query=alert.query))
    _child(feed, "updated", news[0].found_at if news else alert.created_at)
    _child(feed, "link", rel="self", type="application/atom+xml", href=feed_url(alert.feed_token))
    _child(feed, "link", rel="alternate", type="text/html", href=_search_url(alert))
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _child(author, "name", "subsearch")
    for item in news:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        _child(entry, "id", _tag(alert, item.video_id))
        _child(entry, "title", item.title or item.video_id)
        _child(entry, "updated", item.found_at)
        _child(entry, "link", rel="alternate", href=watch_url(item.video_id, item.start))
        _child(entry, "summary", item.highlight, type="html")
    document: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return document


@bp.get("/alerts/feed/<token>.atom")
def alert_feed(token: str) -> Response:
    try:
        alert, news = feed_of(token)
    except NotFound:
        abort(404)
    response = Response(atom_feed(alert, news), mimetype="application/atom+xml")
    response.headers["Content-Type"] = MEDIA_TYPE
    # The address is the key: kept out of shared caches, search engines and referrers.
    response.headers["Cache-Control"] = "private, max-age=300"
    response.headers["X-Robots-Tag"] = "noindex"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
