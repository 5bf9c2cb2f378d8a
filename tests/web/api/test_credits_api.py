"""The credits API as a client uses it: unlock, subscribe, referrals."""

from __future__ import annotations

import requests

from models.tables import User
from tests.factories import make_subscription, make_user, make_video, sign_in
from tests.fixtures import drain


def error_code(response):
    return response.get_json()["error"]["code"]


def test_unlock_answers_the_contract(client):
    user = make_user(credit_balance=1, bonus_credit=5)
    video = make_video(duration_seconds=1500)  # 3 credits
    sign_in(client, user)
    response = client.post(f"/api/videos/{video.id}/unlock", content_type="application/json")
    assert response.status_code == 200
    body = response.get_json()
    assert body["videoId"] == video.id
    assert body["credits"] == 3
    assert (body["creditBalance"], body["bonusCredit"]) == (0, 3)
    assert body["expiresAt"].endswith("Z")


def test_unlock_without_credits_is_402_and_changes_nothing(client):
    user = make_user(credit_balance=0, bonus_credit=0)
    sign_in(client, user)
    response = client.post(f"/api/videos/{make_video().id}/unlock", content_type="application/json")
    assert response.status_code == 402
    assert error_code(response) == "insufficient_credits"


def test_unlock_of_an_unknown_video_and_anonymously(client):
    anonymous = client.post(
        f"/api/videos/{make_video().id}/unlock", content_type="application/json"
    )
    assert anonymous.status_code == 401
    sign_in(client, make_user())
    response = client.post("/api/videos/nope/unlock", content_type="application/json")
    assert (response.status_code, error_code(response)) == (404, "not_found")


def test_checkout_validates_the_plan(client):
    sign_in(client, make_user())
    for body in ({"plan": "gold"}, {"plan": 1}, {}):
        response = client.post("/api/billing/checkout", json=body)
        assert response.status_code == 400
        assert "plan" in response.get_json()["error"]["fields"]


def test_checkout_refuses_a_subscriber(client):
    user = make_user()
    make_subscription(user, plan="plus")
    sign_in(client, user)
    response = client.post("/api/billing/checkout", json={"plan": "pro"})
    assert (response.status_code, error_code(response)) == (409, "already_subscribed")


def test_referrals_summary_and_claims(client):
    referrer = make_user()
    user = make_user()
    body = sign_in(client, user)
    assert client.get("/api/referrals").get_json() == {
        "code": body["referralCode"],
        "referredCount": 0,
    }
    own = client.post("/api/referrals/claim", json={"code": body["referralCode"]})
    assert (own.status_code, error_code(own)) == (400, "own_code")
    unknown = client.post("/api/referrals/claim", json={"code": "zzzzzzzz"})
    assert (unknown.status_code, error_code(unknown)) == (404, "unknown_code")
    missing = client.post("/api/referrals/claim", json={})
    assert missing.status_code == 400
    ok = client.post("/api/referrals/claim", json={"code": referrer.referral_code})
    assert ok.status_code == 200
    assert ok.get_json() == {"referredBy": referrer.id}
    again = client.post("/api/referrals/claim", json={"code": make_user().referral_code})
    assert (again.status_code, error_code(again)) == (409, "already_referred")


def test_a_code_typed_in_lower_case_claims_and_a_wrong_one_still_does_not(client):
    referrer = make_user()
    sign_in(client, make_user())
    wrong = client.post("/api/referrals/claim", json={"code": "nosuch00"})
    assert (wrong.status_code, error_code(wrong)) == (404, "unknown_code")
    ok = client.post("/api/referrals/claim", json={"code": f" {referrer.referral_code.lower()} "})
    assert (ok.status_code, ok.get_json()) == (200, {"referredBy": referrer.id})


def test_a_subscriber_cannot_claim_over_http(client):
    user = make_user()
    make_subscription(user, plan="pro", status="trialing")
    sign_in(client, user)
    response = client.post("/api/referrals/claim", json={"code": make_user().referral_code})
    assert (response.status_code, error_code(response)) == (409, "already_subscribed")


def test_sign_in_subscribe_on_the_checkout_page_and_see_plan_and_credits(
    site, stub_broker, stub_worker
):
    """The whole journey over HTTP: a referred user subscribes on the local provider's
    page; after the worker runs, the plan, credits and both rewards show."""
    referrer = make_user()
    browser = requests.Session()
    signed_in = browser.post(
        f"{site}/auth/dev-login", json={"email": "buyer@example.jp", "name": "購入者"}, timeout=5
    )
    assert signed_in.status_code == 200
    assert (
        browser.post(
            f"{site}/api/referrals/claim", json={"code": referrer.referral_code}, timeout=5
        ).status_code
        == 200
    )
    browser.post(f"{site}/api/videos/{make_video().id}/unlock", json={}, timeout=5)
    assert browser.get(f"{site}/api/me", timeout=5).json()["creditBalance"] == 49

    checkout = browser.post(f"{site}/api/billing/checkout", json={"plan": "plus"}, timeout=5)
    assert checkout.status_code == 200
    url = checkout.json()["checkoutUrl"]
    assert url.startswith(f"{site}/_local-payments/checkout/")
    page = browser.get(url, timeout=5)
    assert "¥980" in page.text
    paid = browser.post(f"{url}/complete", allow_redirects=False, timeout=5)
    assert paid.status_code == 303
    assert paid.headers["Location"] == f"{site}/account?subscribed=plus"

    drain(stub_broker, stub_worker)
    me = browser.get(f"{site}/api/me", timeout=5).json()
    assert (me["plan"], me["creditBalance"], me["bonusCredit"]) == ("plus", 500, 100)
    assert User.get_by_id(referrer.id).bonus_credit == 100
    assert User.get_by_id(me["id"]).payment_customer_id.startswith("cus_local_")
    account = browser.get(f"{site}/account", timeout=5).text
    assert 'data-plan="plus"' in account
