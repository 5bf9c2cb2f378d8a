"""Security headers on every answer, and pages whose scripts all come from files: the
Content-Security-Policy allows no inline script, so no page may carry one."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

from models import ingest
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.credits import unlock_video
from tests.factories import make_admin, make_reservation, make_user, production_app, sign_in
from tests.fakes.platform_files import manual

CH = "UCheadersheadersheaders1"
LOCKED, OPEN = "hdrVideo001", "hdrVideo002"
JP = {"Edge-IPCountry": "JP"}


@pytest.fixture
def site_content(platform_files):
    """Videos with subtitles, and live ads in every slot the pages show."""
    platform_files.channel(CH, [LOCKED, OPEN])
    for video_id in (LOCKED, OPEN):
        platform_files.video(video_id, CH, manual("見出しの字幕です。", "次の行です。"))
    ingest.import_channel(CH)
    for video_id in (LOCKED, OPEN):
        ingest.fetch_subtitles(video_id)
    month = month_of(utcnow())
    for slot in (
        "search-result-midroll",
        "search-result-bottom",
        "video-detail-below-player",
        "video-detail-below-subtitle",
    ):
        reservation = make_reservation(
            slot=slot, position=1, start_month=month, end_month=month, payment_intent_id="pi"
        )
        approve(reservation.id)
    clear_process_cache()


def every_page(app, client):
    """(name, response) for each page a visitor, a member and an administrator can open."""
    yield "home", client.get("/")
    yield "search", client.get("/search?q=字幕", headers=JP)
    yield "search without hits", client.get("/search?q=ありえない言葉", headers=JP)
    yield "video, signed out", client.get(f"/videos/{LOCKED}", headers=JP)
    yield "login", client.get("/login?next=/account")
    yield "not found", client.get("/no-such-page")

    member = make_user()
    sign_in(client, member)
    unlock_video(member.id, OPEN)
    yield "video, locked", client.get(f"/videos/{LOCKED}", headers=JP)
    yield "video, open", client.get(f"/videos/{OPEN}?t=3", headers=JP)
    yield "account", client.get("/account")
    yield "logout", client.get("/logout")
    yield "own ads", client.get("/ads")
    yield "purchase form", client.get("/ads/new")
    own = make_reservation(member, status="active")
    yield "ad detail", client.get(f"/ads/{own.id}")
    checkout = client.post("/api/billing/checkout", json={"plan": "plus"}).get_json()
    yield "local checkout", client.get(urlsplit(checkout["checkoutUrl"]).path)
    yield "form expired", client.post("/logout")  # no token: the CSRF error page

    admin = app.test_client()
    sign_in(admin, make_admin())
    yield "admin", admin.get("/admin/")
    yield "admin ads", admin.get("/admin/ads")
    yield "admin report", admin.get("/admin/ads/report")
    yield "admin revenue", admin.get("/admin/revenue")
    yield "api docs", admin.get("/api/docs")


class InlineCode(HTMLParser):
    """Collects what a script-src 'self' / style-src 'self' policy would refuse."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if name == "style":
                self.found.append(f"<{tag} style=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.found.append(f"<{tag} {name}=javascript:...>")
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.found.append("<script> without src")
        if tag == "style":
            self.found.append("<style> element")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    parser.close()
    return parser.found


def policy(response) -> dict[str, list[str]]:
    directives = {}
    for part in response.headers["Content-Security-Policy"].split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def assert_security_headers(response, label):
    csp = policy(response)
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"], label
    assert "unsafe-eval" not in response.headers["Content-Security-Policy"], label
    assert csp["default-src"] == ["'self'"], label
    assert csp["script-src"] == ["'self'"], label
    assert csp["style-src"] == ["'self'"], label
    assert csp["object-src"] == ["'none'"], label
    assert csp["frame-ancestors"] == ["'none'"], label
    assert csp["base-uri"] == ["'self'"], label
    assert csp["form-action"][0] == "'self'", label
    assert {"'self'", "data:", "https://i.ytimg.com"} <= set(csp["img-src"]), label
    assert csp["frame-src"] == ["https://www.youtube-nocookie.com"], label
    assert response.headers["X-Frame-Options"] == "DENY", label
    assert response.headers["X-Content-Type-Options"] == "nosniff", label
    assert response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin", label
    assert "Strict-Transport-Security" not in response.headers, label  # production only


def test_every_page_has_the_headers_and_no_inline_script(app, client, site_content):
    seen = []
    for label, response in every_page(app, client):
        seen.append(label)
        expected = {"not found": 404, "form expired": 400}.get(label, 200)
        assert response.status_code == expected, (label, response.status_code)
        assert response.mimetype == "text/html", label
        assert_security_headers(response, label)
        assert inline_code(response.get_data(as_text=True)) == [], label
    assert len(seen) == 20


def test_the_pages_that_run_scripts_load_them_from_static_files(app, client, site_content):
    pages = dict(every_page(app, client))
    expected = {
        "login": "login.js",
        "video, locked": "video.js",
        "account": "account.js",
        "purchase form": "ad-order.js",
        "admin ads": "admin-ads.js",
        "own ads": "checkout.js",
        "search": "ads.js",
    }
    for label, script in expected.items():
        assert f'src="/static/{script}"' in pages[label].get_data(as_text=True), label


def test_only_a_signed_in_page_carries_the_csrf_token(client):
    # Signed out there is nothing to protect, and no session cookie is started for it.
    assert 'name="csrf-token"' not in client.get("/").get_data(as_text=True)
    assert client.get_cookie("subsearch_session") is None
    sign_in(client, make_user())
    assert '<meta name="csrf-token" content="' in client.get("/").get_data(as_text=True)


def test_api_answers_and_static_files_get_the_headers_too(client):
    for response in (client.get("/api/ads/slots"), client.get("/api/me")):
        assert response.mimetype == "application/json"
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "Content-Security-Policy" in response.headers
    static = client.get("/static/site.css")
    assert static.headers["X-Content-Type-Options"] == "nosniff"
    static.close()


def test_the_public_base_url_is_named_where_its_absolute_urls_are_used(client, settings):
    csp = policy(client.get("/"))
    public = urlsplit(settings.public_base_url)
    origin = f"{public.scheme}://{public.netloc}"
    for directive in ("img-src", "connect-src", "form-action"):
        assert origin in csp[directive], directive


def test_production_sends_hsts_behind_the_tls_proxy_without_redirecting():
    app = production_app()
    client = app.test_client()
    # TLS ends at the proxy: plain HTTP arrives here and is answered, not redirected.
    plain = client.get("/")
    assert plain.status_code == 200
    proxied = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert proxied.status_code == 200
    assert "max-age=" in proxied.headers["Strict-Transport-Security"]
    assert app.config["SESSION_COOKIE_SECURE"] is True
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"
    assert "https://subsearch.example" in policy(proxied)["img-src"]


def test_development_cookies_stay_as_configured(app, client):
    # Talisman must not turn on Secure outside production: the cookie would never come back
    # over plain HTTP.
    response = client.post("/auth/dev-login", json={"email": "cookie@example.com"})
    cookie = response.headers["Set-Cookie"]
    assert "Secure" not in cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert app.config["SESSION_COOKIE_SECURE"] is False
