"""POST /api/billing/portal and the local provider's portal over real HTTP: a member
opens the portal from the account page's call, changes plan, cancels, resumes, lets the
period end; the signed events reach the subscription webhook through the queue, and
the plan, credits and account page follow the rules."""

from __future__ import annotations

import re

import pytest
import requests

from models.tables import PaymentEvent, User
from tests.factories import csrf_token, make_subscription, make_user, sign_in
from tests.fixtures import drain

BUYER = "portal@example.jp"


def error_of(response):
    return response.get_json()["error"]


# -- the API call ----------------------------------------------------------------------


def test_the_portal_needs_a_signed_in_member(client):
    response = client.post("/api/billing/portal", json={})
    assert (response.status_code, error_of(response)["code"]) == (401, "unauthenticated")


def test_a_member_without_a_subscription_gets_a_clear_409(client):
    sign_in(client, make_user())
    response = client.post("/api/billing/portal", json={})
    assert response.status_code == 409
    assert error_of(response) == {
        "code": "no_subscription",
        "message": "You have no subscription to manage; subscribe to a plan first.",
    }


def test_a_subscription_without_a_payment_customer_is_refused_the_same_way(client):
    user = make_user()
    make_subscription(user, plan="plus")
    sign_in(client, user)
    # no body at all, with the page's CSRF token, is a call too
    response = client.post("/api/billing/portal", headers={"X-CSRFToken": csrf_token(client)})
    assert (response.status_code, error_of(response)["code"]) == (409, "no_subscription")


def test_fields_in_the_body_are_refused(client):
    sign_in(client, make_user())
    response = client.post("/api/billing/portal", json={"customer": "cus_other"})
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"customer": "not a field of this request"}


def test_the_call_is_in_the_api_document(client):
    paths = client.get("/api/openapi.json").get_json()["paths"]
    operation = paths["/api/billing/portal"]["post"]
    assert {"200", "401", "409"} <= set(operation["responses"])
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert "portalUrl" in str(schema) or "PortalUrl" in str(schema)


def test_the_account_page_of_a_free_member_has_no_portal_button(client):
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    assert "data-portal" not in page
    assert "data-subscribe=" in page


# -- the round trip over HTTP ------------------------------------------------------------


class Member:
    """A browser-like session of a member on the served site."""

    def __init__(self, site, broker, worker):
        self.site, self.broker, self.worker = site, broker, worker
        self.http = requests.Session()
        answer = self.http.post(f"{site}/auth/dev-login", json={"email": BUYER}, timeout=5)
        assert answer.status_code == 200
        self.id = answer.json()["id"]

    def subscribe(self, plan):
        checkout = self.http.post(f"{self.site}/api/billing/checkout", json={"plan": plan})
        assert checkout.status_code == 200
        paid = self.http.post(f"{checkout.json()['checkoutUrl']}/complete", timeout=5)
        assert paid.status_code == 200
        self.settle()

    def settle(self):
        drain(self.broker, self.worker)

    def open_portal(self):
        answer = self.http.post(f"{self.site}/api/billing/portal", json={}, timeout=5)
        assert answer.status_code == 200, answer.text
        url = answer.json()["portalUrl"]
        assert re.fullmatch(rf"{self.site}/_local-payments/portal/bps_local_\w+", url)
        return url

    def act(self, portal, action, **form):
        """Press a button on the portal page (its form posts), and let the events land."""
        page = self.http.get(portal, timeout=5).text
        subscription = re.search(r'data-subscription="([^"]+)"', page).group(1)
        answer = self.http.post(
            f"{portal}/{action}",
            data={"subscription": subscription, **form},
            allow_redirects=False,
            timeout=5,
        )
        assert answer.status_code == 303, answer.text
        assert answer.headers["Location"] == portal
        self.settle()
        return self.http.get(portal, timeout=5).text

    def spend_to(self, credits):
        User.update(credit_balance=credits).where(User.id == self.id).execute()

    def me(self):
        body = self.http.get(f"{self.site}/api/me", timeout=5).json()
        return body["plan"], body["creditBalance"]

    def account(self):
        return self.http.get(f"{self.site}/account", timeout=5).text


@pytest.fixture
def member(site, stub_broker, stub_worker):
    return Member(site, stub_broker, stub_worker)


def test_upgrade_in_the_portal_refills_to_the_new_plan(member, site):
    member.subscribe("plus")
    member.spend_to(20)
    account = member.account()
    assert "data-portal" in account and "data-renews-on" in account

    portal = member.open_portal()
    page = member.http.get(portal, timeout=5).text
    assert 'data-portal-plan="plus"' in page
    assert f'href="{site}/account"' in page

    page = member.act(portal, "plan", plan="pro")
    assert 'data-portal-plan="pro"' in page
    assert member.me() == ("pro", 2000)
    assert 'data-plan="pro"' in member.account()
    types = {e.type for e in PaymentEvent.select().where(PaymentEvent.endpoint == "subscription")}
    assert "customer.subscription.updated" in types


def test_downgrade_in_the_portal_waits_for_the_period_end(member):
    member.subscribe("pro")
    member.spend_to(10)
    portal = member.open_portal()

    page = member.act(portal, "plan", plan="plus")
    assert 'data-portal-scheduled="plus"' in page
    assert member.me() == ("pro", 10)

    member.act(portal, "end-period")
    assert member.me() == ("plus", 500)


def test_cancel_shows_the_end_date_resume_refills_nothing_and_the_end_returns_to_free(member):
    member.subscribe("plus")
    member.spend_to(100)
    portal = member.open_portal()

    page = member.act(portal, "cancel")
    assert "data-portal-cancels" in page
    account = member.account()
    assert "data-cancels-on" in account and "に解約されます" in account
    assert member.me() == ("plus", 100)

    member.act(portal, "resume")
    assert "data-cancels-on" not in member.account()
    assert member.me() == ("plus", 100)

    member.act(portal, "cancel")
    member.act(portal, "end-period")
    assert member.me() == ("free", 50)
    assert 'data-plan="free"' in member.account()
    refused = member.http.post(f"{member.site}/api/billing/portal", json={}, timeout=5)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "no_subscription")


def test_a_plus_member_asking_checkout_for_pro_is_sent_to_the_portal(member):
    member.subscribe("plus")
    answer = member.http.post(f"{member.site}/api/billing/checkout", json={"plan": "pro"})
    assert answer.status_code == 409
    assert "billing portal" in answer.json()["error"]["message"]


def test_the_portal_refuses_another_customers_subscription(member, site):
    member.subscribe("plus")
    portal = member.open_portal()
    answer = member.http.post(
        f"{portal}/cancel", data={"subscription": "sub_local_someone"}, timeout=5
    )
    assert answer.status_code == 404
    assert requests.get(f"{site}/_local-payments/portal/bps_nope", timeout=5).status_code == 404
    bad_plan = member.http.post(f"{portal}/plan", data={"plan": "gold"}, timeout=5)
    assert bad_plan.status_code == 400
