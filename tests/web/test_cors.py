"""CORS for the public read API (web/cors.py, CORS_ORIGINS): a page of an allowed site
reads search, moments, channels, videos and the ad slots; another site reads nothing;
credentials are never allowed; a call with a member's cookie is answered as to a visitor
and gets no CORS headers; preflights are answered before any limit; calls that are not
public reads never get CORS headers; and a configuration that names no origin refuses
the start."""

from __future__ import annotations

from dataclasses import replace

import pytest

from models import ingest
from models.settings import ConfigError, load_settings
from models.tables import SearchHistory
from tests.factories import make_user, sign_in
from tests.fakes.platform_files import manual
from web.app import create_app
from web.cors import PUBLIC_READS, is_public_read

READER = "https://reader.example"
STRANGER = "https://stranger.example"
CHANNEL = "UCcorstestcorstestcorst1"
VIDEO = "corsVideo01"

# Each public read, as another site's page calls it.
READS = {
    "/api/search": "/api/search?q=大阪",
    "/api/videos/<video_id>": f"/api/videos/{VIDEO}",
    "/api/videos/<video_id>/moments": f"/api/videos/{VIDEO}/moments?q=大阪",
    "/api/channels/<channel_id>": f"/api/channels/{CHANNEL}",
    "/api/ads/slots": "/api/ads/slots",
}
# Calls that are not public reads: a member's own data, writes, the ads served on this
# site's pages, operations.
NOT_PUBLIC = [
    ("GET", "/api/me"),
    ("GET", "/api/search/history"),
    ("GET", "/api/favorites"),
    ("GET", f"/api/videos/{VIDEO}/subtitles"),
    ("GET", "/api/ads/serve?slot=search-result-bottom&country=JP"),
    ("GET", "/api/referrals"),
    ("GET", "/api/health"),
    ("POST", f"/api/videos/{VIDEO}/unlock"),
    ("GET", "/account"),
]


def app_with(settings, origins):
    app = create_app(replace(settings, cors_origins=origins))
    app.config.update(TESTING=True)
    return app


@pytest.fixture
def cors_client(settings):
    return app_with(settings, (READER, "http://localhost:5173")).test_client()


@pytest.fixture
def library(platform_files):
    platform_files.channel(CHANNEL, [VIDEO], title="CORS チャンネル")
    platform_files.video(VIDEO, CHANNEL, manual("大阪の話です。"), title="大阪の旅")
    ingest.import_channel(CHANNEL)
    ingest.fetch_subtitles(VIDEO)


def read(client, rule, **headers):
    assert any(r.rule == rule for r in client.application.url_map.iter_rules()), rule
    return client.get(READS[rule], headers=headers)


@pytest.mark.parametrize("rule", PUBLIC_READS)
def test_an_allowed_site_may_read_each_public_read(cors_client, library, rule):
    response = read(cors_client, rule, Origin=READER)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Access-Control-Allow-Origin"] == READER
    assert "Origin" in response.vary
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_every_public_read_is_tested():
    assert set(READS) == set(PUBLIC_READS)


@pytest.mark.parametrize("rule", PUBLIC_READS)
def test_another_site_is_not_allowed(cors_client, library, rule):
    response = read(cors_client, rule, Origin=STRANGER)
    # answered (a browser would refuse its page the answer), but no site is named
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Origin" in response.vary  # a cache must not hand the allowed answer to it


@pytest.mark.parametrize(
    "origin",
    ["https://reader.example.evil", "http://reader.example", "https://READER.example", "null"],
)
def test_only_an_exact_origin_is_allowed(cors_client, origin):
    response = cors_client.get("/api/ads/slots", headers={"Origin": origin})
    assert "Access-Control-Allow-Origin" not in response.headers


def test_errors_of_a_public_read_are_readable_too(cors_client):
    """A page of the allowed site can tell a missing video and a bad query apart."""
    missing = cors_client.get("/api/videos/noSuchVide0", headers={"Origin": READER})
    assert missing.status_code == 404
    assert missing.headers["Access-Control-Allow-Origin"] == READER
    bad = cors_client.get("/api/search?q=", headers={"Origin": READER})
    assert bad.status_code == 400
    assert bad.headers["Access-Control-Allow-Origin"] == READER


def test_a_preflight_is_answered_for_an_allowed_site(cors_client):
    response = cors_client.options(
        "/api/search?q=x",
        headers={
            "Origin": READER,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "accept-language",
        },
    )
    assert response.status_code == 204
    assert response.get_data() == b""
    assert response.headers["Access-Control-Allow-Origin"] == READER
    assert response.headers["Access-Control-Allow-Methods"] == "GET"
    assert response.headers["Access-Control-Allow-Headers"] == "Accept, Accept-Language"
    assert response.headers["Access-Control-Max-Age"] == "600"
    assert "Origin" in response.vary
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_a_preflight_of_another_site_allows_nothing(cors_client):
    response = cors_client.options(
        "/api/search", headers={"Origin": STRANGER, "Access-Control-Request-Method": "GET"}
    )
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Methods" not in response.headers


def test_preflights_are_not_counted_by_the_rate_limit(settings):
    # Given a search limit of one a minute
    app = create_app(replace(settings, cors_origins=(READER,), rate_limit_search="1/minute"))
    app.config.update(TESTING=True)
    client = app.test_client()
    preflight = {"Origin": READER, "Access-Control-Request-Method": "GET"}
    # When a page makes several preflights, then its search
    answers = [client.options("/api/search?q=x", headers=preflight).status_code for _ in range(5)]
    search = client.get("/api/search?q=x", headers={"Origin": READER})
    # Then every preflight was answered, none counted: the search is the first call
    assert answers == [204] * 5
    assert search.status_code == 200
    assert client.get("/api/search?q=x", headers={"Origin": READER}).status_code == 429


def test_a_call_with_a_member_cookie_is_answered_as_to_a_visitor(cors_client, library):
    # Given a member signed in in this browser
    member = make_user()
    sign_in(cors_client, member)
    # When a page of the allowed site calls the search with the member's cookie
    response = cors_client.get("/api/search?q=大阪", headers={"Origin": READER})
    # Then the search is a visitor's: nothing kept in the member's history, and the
    # answer is not handed to the other site
    assert response.status_code == 200
    assert SearchHistory.select().where(SearchHistory.user == member.id).count() == 0
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Access-Control-Allow-Credentials" not in response.headers
    # And the member's own pages' search is theirs, as before
    assert cors_client.get("/api/search?q=大阪").status_code == 200
    assert SearchHistory.select().where(SearchHistory.user == member.id).count() == 1
    assert cors_client.get("/api/me").status_code == 200  # still signed in


def test_a_call_from_another_site_with_cookies_is_a_visitor_s_without_cors_too(client, library):
    """Whatever CORS_ORIGINS says (here: nothing), another site's call with a member's
    cookie is answered as to a visitor."""
    member = make_user()
    sign_in(client, member)
    response = client.get("/api/search?q=大阪", headers={"Origin": STRANGER})
    assert response.status_code == 200
    assert SearchHistory.select().where(SearchHistory.user == member.id).count() == 0


def test_a_call_with_an_authorization_header_gets_no_cors_headers(cors_client):
    response = cors_client.get(
        "/api/ads/slots", headers={"Origin": READER, "Authorization": "Bearer x"}
    )
    assert response.status_code == 200
    assert "Access-Control-Allow-Origin" not in response.headers


@pytest.mark.parametrize(("method", "path"), NOT_PUBLIC)
def test_calls_that_are_not_public_reads_get_no_cors_headers(cors_client, method, path):
    make_user(email="member@example.jp")
    sign_in(cors_client, "member@example.jp")
    for headers in (
        {"Origin": READER},
        {"Origin": READER, "Access-Control-Request-Method": "GET"},
    ):
        response = cors_client.open(path, method=method, headers=headers)
        preflight = cors_client.options(path, headers=headers)
        for answer in (response, preflight):
            assert not [n for n, _ in answer.headers.items() if n.startswith("Access-Control")]
            assert "Origin" not in answer.vary


def test_the_route_shapes_decide_what_is_public():
    assert is_public_read("/api/videos/<video_id>/moments")
    assert is_public_read("/api/videos/<string:id>")
    assert not is_public_read("/api/videos/<video_id>/subtitles")
    assert not is_public_read("/api/search/history")
    assert not is_public_read(None)


def test_any_site_is_answered_with_a_literal_star(settings, library):
    client = app_with(settings, ("*",)).test_client()
    response = client.get("/api/search?q=大阪", headers={"Origin": STRANGER})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response.headers
    sign_in(client, make_user())
    with_cookie = client.get("/api/search?q=大阪", headers={"Origin": STRANGER})
    assert "Access-Control-Allow-Origin" not in with_cookie.headers


def test_unset_nothing_is_allowed(client):
    response = client.get("/api/ads/slots", headers={"Origin": READER})
    assert "Access-Control-Allow-Origin" not in response.headers
    assert "Origin" not in response.vary
    preflight = client.options(
        "/api/ads/slots", headers={"Origin": READER, "Access-Control-Request-Method": "GET"}
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers


# -- configuration ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "origins"),
    [
        ("", ()),
        ("https://example.com", ("https://example.com",)),
        (
            " https://Example.COM:443 , http://localhost:5173 ",
            ("https://example.com", "http://localhost:5173"),
        ),
        ("http://127.0.0.1:8001,http://127.0.0.1:8001", ("http://127.0.0.1:8001",)),
        ("http://[::1]:8001", ("http://[::1]:8001",)),
        ("*", ("*",)),
    ],
)
def test_the_origins_are_read_as_browsers_write_them(value, origins):
    assert load_settings({"CORS_ORIGINS": value}, read_dotenv=False).cors_origins == origins


@pytest.mark.parametrize(
    "value",
    [
        "https://example.com/",
        "https://example.com/app",
        "https://example.com?x=1",
        "ftp://example.com",
        "example.com",
        "https://*.example.com",
        "https://user@example.com",
        "https://example.com:99999",
        "*,https://example.com",
    ],
)
def test_what_is_not_an_origin_refuses_the_start(value):
    with pytest.raises(ConfigError, match="CORS_ORIGINS"):
        load_settings({"CORS_ORIGINS": value}, read_dotenv=False)
