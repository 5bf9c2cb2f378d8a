"""State changes through the API with a session: only from this site's own pages, as JSON
calls or with the page's CSRF token; the webhooks and the impression beacon stay open."""

from __future__ import annotations

import io
import json
import uuid
from urllib.parse import urlsplit

import pytest

from models.ads.delivery import clear_process_cache
from models.payments import webhooks
from models.tables import User, UserVideoAccess
from tests.factories import (
    csrf_token,
    image_bytes,
    make_live_ad,
    make_user,
    make_video,
    sign_in,
)

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/130 Safari/537.36"
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


@pytest.fixture
def reader(client):
    """A signed-in user with credits, and a video that costs 3 of them."""
    user = make_user(credit_balance=10, bonus_credit=0)
    sign_in(client, user)
    return user, make_video(duration_seconds=1500)


def png():
    return io.BytesIO(image_bytes(1280, 720))


def unlock(client, video, **kwargs):
    return client.post(f"/api/videos/{video.id}/unlock", **kwargs)


def assert_forbidden_and_nothing_spent(response, user):
    assert response.status_code == 403, response.get_data(as_text=True)
    assert response.get_json()["error"]["code"] == "forbidden"
    assert response.get_json()["error"]["message"]
    assert User.get_by_id(user.id).credit_balance == 10
    assert UserVideoAccess.select().where(UserVideoAccess.user == user.id).count() == 0


@pytest.mark.parametrize("content_type", [FORM, "text/plain", None])
def test_a_cross_site_form_post_to_unlock_spends_nothing(client, reader, content_type):
    # Given a signed-in reader, when another site's form posts an empty body to unlock
    user, video = reader
    headers = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    response = unlock(client, video, headers=headers, content_type=content_type)
    # Then it is refused and no credit is spent
    assert_forbidden_and_nothing_spent(response, user)


def test_a_post_from_another_origin_spends_nothing_even_as_json(client, reader):
    user, video = reader
    response = unlock(client, video, content_type=JSON, headers={"Origin": "https://evil.example"})
    assert_forbidden_and_nothing_spent(response, user)


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://localhost.evil"])
def test_an_empty_form_post_from_another_origin_spends_nothing(client, reader, origin):
    user, video = reader
    response = unlock(client, video, content_type=FORM, headers={"Origin": origin})
    assert_forbidden_and_nothing_spent(response, user)


def test_a_same_site_sibling_is_not_this_site(client, reader):
    # The site has one origin: a request from a sibling subdomain is refused too.
    user, video = reader
    response = unlock(client, video, content_type=JSON, headers={"Sec-Fetch-Site": "same-site"})
    assert_forbidden_and_nothing_spent(response, user)


def test_an_empty_post_that_is_neither_json_nor_tokened_spends_nothing(client, reader):
    # No Sec-Fetch-Site and no Origin (an old browser): still not a JSON call.
    user, video = reader
    assert_forbidden_and_nothing_spent(unlock(client, video), user)
    forged = unlock(client, video, headers={"X-CSRFToken": "forged"})
    assert_forbidden_and_nothing_spent(forged, user)


def test_a_same_origin_json_call_unlocks(client, reader):
    # Given the video page's own call: same origin, JSON, no body
    user, video = reader
    headers = {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"}
    response = unlock(client, video, content_type=JSON, headers=headers)
    # Then the credits are spent and access is granted
    assert response.status_code == 200, response.get_data(as_text=True)
    assert User.get_by_id(user.id).credit_balance == 7
    assert UserVideoAccess.select().where(UserVideoAccess.user == user.id).count() == 1


def test_the_configured_public_origin_counts_as_this_site(client, reader, settings):
    # Behind a proxy the request's own host may differ; PUBLIC_BASE_URL is this site too.
    _, video = reader
    public = urlsplit(settings.public_base_url)
    origin = f"{public.scheme}://{public.netloc}"
    response = unlock(client, video, content_type=JSON, headers={"Origin": origin})
    assert response.status_code == 200, response.get_data(as_text=True)


def test_the_page_token_lets_a_non_json_call_through(client, reader):
    user, video = reader
    response = unlock(client, video, headers={"X-CSRFToken": csrf_token(client)})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert User.get_by_id(user.id).credit_balance == 7


def test_a_form_body_is_still_415_on_a_json_endpoint_even_with_the_token(client, reader):
    _, video = reader
    response = unlock(client, video, data={"a": "1"}, headers={"X-CSRFToken": csrf_token(client)})
    assert response.status_code == 415
    assert response.get_json()["error"]["code"] == "unsupported_media_type"


def test_an_anonymous_cross_site_post_acts_for_nobody(client):
    # No session: nothing to protect, and the view answers as to anyone signed out.
    response = client.post(
        f"/api/videos/{make_video().id}/unlock", headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert response.status_code == 401


def test_the_upload_needs_the_page_token(client, reader):
    files = {"file": (png(), "banner.png", "image/png")}
    refused = client.post("/api/uploads/ad-image", data=files)
    assert refused.status_code == 403
    assert refused.get_json()["error"]["code"] == "forbidden"
    files = {"file": (png(), "banner.png", "image/png")}
    stored = client.post(
        "/api/uploads/ad-image", data=files, headers={"X-CSRFToken": csrf_token(client)}
    )
    assert stored.status_code == 201, stored.get_data(as_text=True)


def test_the_upload_from_another_site_is_refused_even_with_a_token(client, reader):
    token = csrf_token(client)
    files = {"file": (png(), "banner.png", "image/png")}
    response = client.post(
        "/api/uploads/ad-image",
        data=files,
        headers={"X-CSRFToken": token, "Origin": "https://evil.example"},
    )
    assert response.status_code == 403


def test_the_impression_beacon_stays_open_to_any_page(client, stub_broker):
    # Given an active ad served to a page
    make_live_ad(position=1)
    clear_process_cache()
    sign_in(client, make_user())  # a signed-in free reader still sees ads
    served = client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").get_json()
    url = urlsplit(served["positions"][0]["ad"]["impressionUrl"])
    # When the beacon fires with no body, no JSON and no token, even marked cross-site
    response = client.post(
        f"{url.path}?{url.query}",
        headers={"User-Agent": BROWSER, "Edge-IPCountry": "JP", "Sec-Fetch-Site": "cross-site"},
    )
    # Then it is accepted for counting
    assert response.status_code == 202


def test_an_anonymous_beacon_for_an_unknown_ad_is_still_answered(client):
    response = client.post("/api/ad-impression/nope", headers={"User-Agent": BROWSER})
    assert response.status_code == 404


@pytest.mark.parametrize("path", ["/api/webhooks/payment/ad-checkout", "/api/auth/payment/webhook"])
def test_the_payment_webhooks_stay_open(client, path):
    # Even if a session cookie rode along, the provider's signed call is not refused.
    sign_in(client, make_user())
    payload = {
        "id": f"evt_{uuid.uuid4().hex}",
        "object": "event",
        "type": "customer.created",  # unhandled: answered 200, nothing done
        "data": {"object": {"id": "cus_1"}},
    }
    body = json.dumps(payload).encode()
    headers = {
        webhooks.SIGNATURE_HEADER: webhooks.sign(body, "whsec_test_one"),
        "Sec-Fetch-Site": "cross-site",
        "Origin": "https://provider.example",
    }
    response = client.post(path, data=body, headers=headers, content_type=JSON)
    assert response.status_code == 200, response.get_data(as_text=True)
