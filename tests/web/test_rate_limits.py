"""Rate limits (web/limits.py): each limited call answers 429 in the contract's format
with Retry-After once its caller is past the limit, and again 200 after the wait;
counts are per signed-in user, else per client address; Redis down lets calls through;
a flood of invalid impression beacons is answered without looking anything up, and a
valid beacon is never limited."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

from models import redis_client
from models.ads import measurement, view_tokens
from models.ads.delivery import clear_process_cache
from models.clock import utcnow
from models.settings import ConfigError, Settings, load_settings
from tests.factories import make_live_ad, make_user, sign_in
from tests.fixtures import metric_changes
from web.api.openapi import document
from web.app import create_app
from web.limits import LIMITED

BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130 Safari/537.36"
SEEN = {"User-Agent": BROWSER, "Edge-IPCountry": "JP"}
UNKNOWN_AD = "00000000-0000-4000-8000-000000000000"


def app_with(settings, **limits):
    app = create_app(replace(settings, **limits))
    app.config.update(TESTING=True)
    return app


def from_address(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


# Each limited call, as a caller makes it: (limit, method, path, keyword arguments).
# Anonymous calls to member routes are counted too (by address): a flood needs no account.
CALLS = {
    "api.search": ("search", "GET", "/api/search?q=test", {}),
    "api.video_moments": ("search", "GET", "/api/videos/abcdefghijk/moments?q=test", {}),
    "pages.search": ("search", "GET", "/search?q=test", {}),
    "api.unlock": ("unlock", "POST", "/api/videos/abcdefghijk/unlock", {"json": {}}),
    "api.claim": ("referral_claim", "POST", "/api/referrals/claim", {"json": {"code": "X"}}),
    "api.upload_ad_image": ("upload", "POST", "/api/uploads/ad-image", {"data": {}}),
    "api.create_ad_profile": ("ad_profiles", "POST", "/api/ads/profiles", {"json": {}}),
    "api.edit_ad_profile": ("ad_profiles", "PATCH", "/api/ads/profiles/1", {"json": {}}),
    "api.create_reservation": ("reservations", "POST", "/api/ads/reservations", {"json": {}}),
    "api.billing_checkout": ("billing", "POST", "/api/billing/checkout", {"json": {}}),
    "api.billing_portal": ("billing", "POST", "/api/billing/portal", {"json": {}}),
    "api.resume_checkout": (
        "billing",
        "POST",
        "/api/ads/reservations/00000000-0000-0000-0000-000000000000/checkout",
        {"json": {}},
    ),
    "api.cancel_reservation_checkout": (
        "billing",
        "DELETE",
        "/api/ads/reservations/00000000-0000-0000-0000-000000000000/checkout",
        {"json": {}},
    ),
    "api.cancel_plan_checkout": ("billing", "DELETE", "/api/billing/checkout", {"json": {}}),
    "api.save_alert": ("alerts", "POST", "/api/alerts", {"json": {}}),
    "api.renew_alert_feed": (
        "alerts",
        "POST",
        "/api/alerts/00000000-0000-0000-0000-000000000000/feed-token",
        {"json": {}},
    ),
    "api.resume_alert_mail": (
        "alerts",
        "POST",
        "/api/alerts/00000000-0000-0000-0000-000000000000/resume",
        {"json": {}},
    ),
    "auth.login": ("sign_in", "GET", "/login", {}),
    "auth.callback": ("sign_in", "GET", "/auth/callback?error=access_denied", {}),
    "dev_login": ("sign_in", "POST", "/auth/dev-login", {"json": {"email": "x@example.jp"}}),
}


def call(client, endpoint):
    _limit, method, path, kwargs = CALLS[endpoint]
    return client.open(path, method=method, **kwargs)


def test_every_limited_call_is_tested():
    assert set(CALLS) == set(LIMITED)


@pytest.mark.parametrize("endpoint", sorted(CALLS))
def test_a_call_past_its_limit_answers_429_with_retry_after(settings, endpoint):
    # Given a limit of two calls a minute for this call
    name = CALLS[endpoint][0]
    # (The sign-in callback exists only with an identity provider; it is never reached.)
    provider = "https://id.example" if endpoint == "auth.callback" else None
    app = app_with(settings, **{f"rate_limit_{name}": "2/minute"}, oidc_issuer=provider)
    client = from_address(app, "192.0.2.10")
    # When the caller makes it three times
    first, second = call(client, endpoint), call(client, endpoint)
    third = call(client, endpoint)
    # Then the first two are answered as usual and the third is refused
    assert first.status_code != 429 and second.status_code != 429
    assert third.status_code == 429
    assert 1 <= int(third.headers["Retry-After"]) <= 60


def test_the_api_answers_429_in_the_contract_format(settings):
    # Given a search limit of one a minute, used up
    client = from_address(app_with(settings, rate_limit_search="1/minute"), "192.0.2.11")
    client.get("/api/search?q=test")
    # When the caller searches again
    answer = client.get("/api/search?q=test")
    # Then the body is the contract's error, naming the wait
    assert answer.status_code == 429
    body = answer.get_json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == "too_many_requests"
    assert f"{answer.headers['Retry-After']} s" in body["error"]["message"]


def test_a_page_past_its_limit_says_so_in_words(settings):
    # Given a search limit of one a minute, used up by a Japanese reader
    client = from_address(app_with(settings, rate_limit_search="1/minute"), "192.0.2.12")
    client.get("/search?q=test", headers={"Accept-Language": "ja"})
    # When the reader searches again
    answer = client.get("/search?q=test", headers={"Accept-Language": "ja"})
    # Then the page says, in Japanese, to wait and when to try again
    page = answer.get_data(as_text=True)
    assert answer.status_code == 429
    assert answer.headers["Retry-After"]
    assert "リクエストが多すぎます" in page
    assert f"{answer.headers['Retry-After']} 秒後" in page


def test_the_search_page_and_the_search_api_share_one_count(settings):
    # Given a search limit of two a minute
    client = from_address(app_with(settings, rate_limit_search="2/minute"), "192.0.2.13")
    # When a caller searches once on the page and once through the API
    client.get("/search?q=test")
    client.get("/api/search?q=test")
    # Then a third search, either way, is refused
    assert client.get("/api/search?q=test").status_code == 429
    assert client.get("/search?q=test").status_code == 429


def test_a_search_by_meaning_counts_for_several_searches(settings):
    # Given a search limit of seven a minute, where a search by meaning counts for five
    app = app_with(settings, rate_limit_search="7/minute", rate_limit_search_meaning_cost=5)
    client = from_address(app, "192.0.2.40")
    # When a caller searches by meaning once, then by keywords twice
    assert client.get("/api/search?q=test&semantic=1").status_code == 200
    assert client.get("/search?q=test").status_code == 200
    assert client.get("/api/search?q=test&semantic=0").status_code == 200
    # Then the allowance is spent: neither kind of search is answered
    assert client.get("/api/search?q=test").status_code == 429
    assert client.get("/search?q=test&semantic=1").status_code == 429
    # while another caller still has two searches by meaning before a keyword one
    other = from_address(app, "192.0.2.41")
    assert other.get("/api/search?q=test&semantic=1").status_code == 200
    assert other.get("/api/search?q=test&semantic=1").status_code == 429
    assert other.get("/api/search?q=test").status_code == 200


def test_the_limit_lets_the_caller_through_again_after_the_wait(settings):
    # Given a search limit of one a second, used up
    client = from_address(app_with(settings, rate_limit_search="1/second"), "192.0.2.14")
    assert client.get("/api/search?q=test").status_code == 200
    refused = client.get("/api/search?q=test")
    assert refused.status_code == 429
    # When the caller waits as long as Retry-After says
    time.sleep(int(refused.headers["Retry-After"]) + 0.05)
    # Then the next search is answered
    assert client.get("/api/search?q=test").status_code == 200


def test_other_addresses_keep_their_own_allowance(settings):
    # Given one anonymous visitor who used up the search limit
    app = app_with(settings, rate_limit_search="1/minute")
    first = from_address(app, "192.0.2.15")
    first.get("/api/search?q=test")
    assert first.get("/api/search?q=test").status_code == 429
    # When a visitor from another address searches
    answer = from_address(app, "192.0.2.16").get("/api/search?q=test")
    # Then that visitor is answered
    assert answer.status_code == 200


def test_members_behind_one_address_are_counted_apart(settings):
    # Given two members behind the same address, one of whom used up the search limit
    app = app_with(settings, rate_limit_search="1/minute")
    alice, bob = from_address(app, "192.0.2.17"), from_address(app, "192.0.2.17")
    sign_in(alice, make_user(email="alice@example.jp"))
    sign_in(bob, make_user(email="bob@example.jp"))
    alice.get("/api/search?q=test")
    assert alice.get("/api/search?q=test").status_code == 429
    # When the other member searches
    answer = bob.get("/api/search?q=test")
    # Then that member is answered
    assert answer.status_code == 200


def test_a_member_is_counted_on_every_address(settings):
    # Given a member who used up the search limit from one address
    app = app_with(settings, rate_limit_search="1/minute")
    home = from_address(app, "192.0.2.18")
    sign_in(home, make_user(email="carol@example.jp"))
    home.get("/api/search?q=test")
    # When the same session comes from another address
    home.environ_base["REMOTE_ADDR"] = "198.51.100.18"
    answer = home.get("/api/search?q=test")
    # Then it is still refused
    assert answer.status_code == 429


def test_without_trusted_proxies_a_forwarded_address_changes_nothing(settings):
    # Given no trusted proxy (the default) and a visitor who used up the search limit
    client = from_address(app_with(settings, rate_limit_search="1/minute"), "192.0.2.19")
    client.get("/api/search?q=test", headers={"X-Forwarded-For": "203.0.113.1"})
    # When the visitor claims another address in X-Forwarded-For
    answer = client.get("/api/search?q=test", headers={"X-Forwarded-For": "203.0.113.2"})
    # Then the visitor is still refused
    assert answer.status_code == 429


def test_behind_a_trusted_proxy_the_reported_address_is_counted(settings):
    # Given one trusted proxy, through which one visitor used up the search limit
    app = app_with(settings, rate_limit_search="1/minute", trusted_proxy_hops=1)
    proxy = from_address(app, "10.0.0.2")
    proxy.get("/api/search?q=test", headers={"X-Forwarded-For": "203.0.113.1"})
    assert (
        proxy.get("/api/search?q=test", headers={"X-Forwarded-For": "203.0.113.1"}).status_code
        == 429
    )
    # When another visitor comes through the same proxy
    answer = proxy.get("/api/search?q=test", headers={"X-Forwarded-For": "203.0.113.2"})
    # Then that visitor is answered
    assert answer.status_code == 200


def test_limited_calls_are_counted_by_route(settings):
    # Given a search limit of one a minute
    client = from_address(app_with(settings, rate_limit_search="1/minute"), "192.0.2.20")
    limited = metric_changes("subsearch_rate_limited_requests")
    # When a caller searches three times
    for _ in range(3):
        client.get("/api/search?q=test")
    # Then the two refused calls are counted under the route's template
    assert limited() == {"/api/search": 2}


def test_calls_go_through_when_redis_is_down(settings, redis_backend, caplog):
    # Given a search limit of two a minute, and Redis unreachable
    client = from_address(app_with(settings, rate_limit_search="2/minute"), "192.0.2.21")
    redis_backend.connected = False
    # When a visitor searches
    with caplog.at_level(logging.WARNING):
        answers = [client.get("/api/search?q=test").status_code for _ in range(2)]
    # Then the searches are answered, and the log says the limits left Redis
    assert answers == [200, 200]
    assert any("storage unreachable" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("endpoint", sorted(CALLS))
def test_with_redis_down_every_limited_call_is_answered(settings, redis_backend, endpoint):
    # Given Redis unreachable
    name = CALLS[endpoint][0]
    provider = "https://id.example" if endpoint == "auth.callback" else None
    app = app_with(settings, **{f"rate_limit_{name}": "2/minute"}, oidc_issuer=provider)
    client = from_address(app, "192.0.2.23")
    redis_backend.connected = False
    # When the call is made within its limit
    answers = [call(client, endpoint).status_code for _ in range(2)]
    # Then it is answered as it would be with Redis up: neither refused nor failed
    assert all(status not in (429, 500) for status in answers), answers


def test_limits_can_be_turned_off(settings):
    # Given rate limits turned off
    client = from_address(
        app_with(settings, rate_limit_search="1/minute", rate_limits_enabled=False), "192.0.2.22"
    )
    # When a visitor searches three times
    answers = [client.get("/api/search?q=test").status_code for _ in range(3)]
    # Then every search is answered
    assert answers == [200, 200, 200]


def test_the_document_declares_429_on_every_limited_api_call(app):
    # Given the document's calls that answer 429
    declared = {
        (path, method.upper())
        for path, methods in document(app)["paths"].items()
        for method, spec in methods.items()
        if "429" in spec["responses"]
    }
    # Then they are exactly the limited API calls
    limited = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method)
        for rule in app.url_map.iter_rules()
        if rule.endpoint in LIMITED and rule.rule.startswith("/api/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert declared == limited
    assert ("/api/ad-impression/{reservation_id}", "POST") not in declared


def test_a_rate_limit_setting_that_does_not_parse_stops_the_start():
    with pytest.raises(ConfigError, match="RATE_LIMIT_SEARCH"):
        load_settings({"RATE_LIMIT_SEARCH": "sixty a minute"}, read_dotenv=False)


def test_rate_limits_read_from_the_environment():
    settings = load_settings(
        {"RATE_LIMIT_UPLOAD": "5/minute;50/day", "TRUSTED_PROXY_HOPS": "1"}, read_dotenv=False
    )
    assert settings.rate_limit_upload == "5/minute;50/day"
    assert settings.trusted_proxy_hops == 1
    assert settings.rate_limit_search == "60/minute;1200/hour"


# The impression beacon.


@pytest.fixture
def ad():
    reservation = make_live_ad(position=2, redirect_url="https://advertiser.example/")
    clear_process_cache()
    return reservation


def beacon(client, reservation_id, token):
    return client.post(f"/api/ad-impression/{reservation_id}?v={token}", headers=SEEN)


def fresh_token(reservation):
    return view_tokens.make(reservation.id, reservation.position, view_tokens.new_render_id())


def test_past_the_limit_invalid_beacons_are_answered_without_a_lookup(settings, ad, monkeypatch):
    # Given an address that sent two forged beacons, the most allowed a minute
    client = from_address(app_with(settings, rate_limit_invalid_beacons="2/minute"), "192.0.2.30")
    for _ in range(2):
        assert beacon(client, ad.id, "forged").status_code == 204
    looked_up = []
    real_state = measurement.reservation_state
    monkeypatch.setattr(
        measurement, "reservation_state", lambda *a: looked_up.append(a) or real_state(*a)
    )
    flood = metric_changes("subsearch_invalid_beacons")
    # When it sends another, for an ad that exists and for one that does not
    answers = [beacon(client, ad.id, "forged"), beacon(client, UNKNOWN_AD, "forged")]
    # Then both are answered 204 at once: nothing was looked up, and both show as a flood
    assert [a.status_code for a in answers] == [204, 204]
    assert looked_up == []
    assert flood() == {"flood": 2}


def test_invalid_beacons_are_counted_by_reason(settings, ad):
    # Given an ad, its genuine token, and an expired one
    client = from_address(app_with(settings, rate_limit_invalid_beacons="10/minute"), "192.0.2.31")
    token = fresh_token(ad)
    expired = view_tokens.make(
        ad.id, ad.position, view_tokens.new_render_id(), now=utcnow() - 2 * view_tokens.TTL
    )
    invalid = metric_changes("subsearch_invalid_beacons")
    # When a forged, an expired and a replayed token come in
    beacon(client, ad.id, "forged")
    beacon(client, ad.id, expired)
    assert beacon(client, ad.id, token).status_code == 202
    beacon(client, ad.id, token)
    # Then each is counted under its reason
    assert invalid() == {"forged": 1, "expired": 1, "replayed": 1}


def test_a_valid_beacon_from_a_flooding_address_still_counts(settings, ad):
    # Given an address past its invalid beacon limit
    client = from_address(app_with(settings, rate_limit_invalid_beacons="1/minute"), "192.0.2.32")
    beacon(client, ad.id, "forged")
    beacon(client, ad.id, "forged")
    # When a genuine, fresh token comes from it
    answer = beacon(client, ad.id, fresh_token(ad))
    # Then the impression is accepted
    assert answer.status_code == 202


def test_valid_beacons_are_never_limited(settings, ad):
    # Given the tightest limits
    client = from_address(app_with(settings, rate_limit_invalid_beacons="1/minute"), "192.0.2.33")
    # When one address sends many genuine impressions (a busy office behind one address)
    answers = [beacon(client, ad.id, fresh_token(ad)).status_code for _ in range(20)]
    # Then every one is accepted
    assert answers == [202] * 20


def test_another_address_is_not_held_by_a_flood(settings, ad):
    # Given an address past its invalid beacon limit
    app = app_with(settings, rate_limit_invalid_beacons="1/minute")
    flooding = from_address(app, "192.0.2.34")
    beacon(flooding, ad.id, "forged")
    # When another address sends a forged beacon for an unknown ad
    answer = beacon(from_address(app, "192.0.2.35"), UNKNOWN_AD, "forged")
    # Then it is checked as usual
    assert answer.status_code == 404


def test_with_redis_down_invalid_beacons_are_checked_as_usual(settings, ad, redis_backend):
    # Given Redis unreachable
    client = from_address(app_with(settings, rate_limit_invalid_beacons="1/minute"), "192.0.2.36")
    redis_backend.connected = False
    # When an address sends forged beacons for an unknown ad
    answers = [beacon(client, UNKNOWN_AD, "forged").status_code for _ in range(3)]
    # Then each is checked (404), none fails
    assert answers == [404, 404, 404]
    assert not redis_client.available()


def test_the_sample_file_lists_the_limits_with_their_defaults():
    sample = (Path(__file__).resolve().parents[2] / ".env.sample").read_text()
    values = dict(
        line.split("=", 1) for line in sample.splitlines() if line and not line.startswith("#")
    )
    defaults = Settings()
    for name in {*LIMITED.values(), "invalid_beacons"}:
        assert values[f"RATE_LIMIT_{name.upper()}"] == getattr(defaults, f"rate_limit_{name}")
    assert values["TRUSTED_PROXY_HOPS"] == "0"


@pytest.mark.flow
def test_on_the_real_redis_the_count_lives_under_its_own_prefix(settings, redis_client):
    # Given the real Redis and a search limit of one a minute
    client = from_address(app_with(settings, rate_limit_search="1/minute"), "192.0.2.40")
    # When a visitor searches twice
    answers = [client.get("/api/search?q=test").status_code for _ in range(2)]
    # Then the second is refused, counted under the limits' own prefix
    assert answers == [200, 429]
    assert list(redis_client.scan_iter(match="subsearch:limits:*"))
