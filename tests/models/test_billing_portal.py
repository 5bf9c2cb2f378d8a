"""Managing a subscription through the billing portal: the local provider's portal
changes plans (up at once, down at the period end), cancels at the period end and
resumes, sending the provider's subscription events; applying those events keeps the
credit rules (docs/accounts.md, Managing the subscription); the stripe engine opens the
provider's own portal."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from werkzeug.wrappers import Request, Response

from models.billing import (
    NoSubscription,
    apply_subscription_event,
    open_billing_portal,
    subscription_summary,
)
from models.payments import PaymentNotFound, PaymentRejected, get_provider
from models.payments.stripe_engine import StripeProvider
from models.plans import plan_of
from models.tables import Subscription, User
from tests.concurrency import at_once
from tests.factories import make_user
from tests.fakes.http import serve
from tests.models.test_subscription_events import balance, spend, subscribe
from web.devtools.local_payments.tables import LocalSubscription

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def user():
    return make_user()


def apply(events):
    """Apply the subscription events the provider sent, as the webhook's worker would."""
    for event in events:
        typed = event.event
        kind = "deleted" if typed.deleted else "update"
        apply_subscription_event(kind, typed.subscription_id, typed.reference_id)


def subscribed(user, price="price_local_plus"):
    sub = subscribe(user, price)
    apply_subscription_event("complete", sub, user.id)
    return sub


def portal_of(user):
    url = open_billing_portal(user.id, BASE)
    return url.rsplit("/", 1)[1]


# -- opening the portal ---------------------------------------------------------------


def test_a_member_without_a_subscription_cannot_open_the_portal(user):
    with pytest.raises(NoSubscription) as error:
        open_billing_portal(user.id, BASE)
    assert (error.value.status, error.value.code) == (409, "no_subscription")


def test_a_member_whose_subscription_ended_cannot_open_the_portal(user):
    sub = subscribed(user)
    apply(get_provider().cancel_subscription(sub))
    with pytest.raises(NoSubscription):
        open_billing_portal(user.id, BASE)


def test_the_portal_shows_the_members_live_subscriptions_and_returns_to_the_account(user):
    sub = subscribed(user)
    url = open_billing_portal(user.id, BASE)
    assert url.startswith(f"{BASE}/_local-payments/portal/bps_local_")
    provider = get_provider()
    portal_id = url.rsplit("/", 1)[1]
    assert provider.portal(portal_id).return_url == f"{BASE}/account"
    assert [row.id for row in provider.portal_subscriptions(portal_id)] == [sub]


def test_the_portal_cannot_touch_another_customers_subscription(user):
    subscribed(user)
    other = make_user()
    others = subscribed(other, "price_local_pro")
    with pytest.raises(PaymentNotFound):
        get_provider().portal_subscription(portal_of(user), others)


def test_a_portal_for_an_unknown_customer_is_refused():
    with pytest.raises(PaymentNotFound):
        get_provider().create_portal_session(customer_id="cus_nope", return_url=BASE)


# -- plan changes -----------------------------------------------------------------------


def test_an_upgrade_applies_at_once_and_refills_to_the_new_plan(user):
    sub = subscribed(user, "price_local_plus")
    spend(user, 450)
    [event] = get_provider().change_plan(sub, "price_local_pro")
    assert event.type == "customer.subscription.updated"
    apply([event])
    assert plan_of(user.id) == "pro"
    assert balance(user) == 2000


def test_a_downgrade_waits_for_the_period_end(user):
    sub = subscribed(user, "price_local_pro")
    spend(user, 1990)
    provider = get_provider()
    events = provider.change_plan(sub, "price_local_plus")
    assert events[0].payload["data"]["object"]["schedule"].startswith("sub_sched_local_")
    apply(events)
    # still pro, credits untouched until the period ends
    assert plan_of(user.id) == "pro"
    assert balance(user) == 10
    assert Subscription.get().payment_schedule_id is not None

    before = LocalSubscription.get_by_id(sub)
    apply(provider.end_period(sub))
    after = LocalSubscription.get_by_id(sub)
    assert after.current_period_start == before.current_period_end
    assert plan_of(user.id) == "plus"
    assert balance(user) == 500
    assert Subscription.get().payment_schedule_id is None


def test_keeping_the_plan_drops_a_scheduled_downgrade(user):
    sub = subscribed(user, "price_local_pro")
    provider = get_provider()
    apply(provider.change_plan(sub, "price_local_plus"))
    apply(provider.change_plan(sub, "price_local_pro"))
    apply(provider.end_period(sub))
    assert plan_of(user.id) == "pro"
    assert provider.change_plan(sub, "price_local_pro") == []  # nothing to change


def test_down_and_up_again_in_one_period_refills_nothing(user):
    sub = subscribed(user, "price_local_plus")
    provider = get_provider()
    apply(provider.change_plan(sub, "price_local_pro"))  # refilled to 2000
    spend(user, 1900)
    apply(provider.change_plan(sub, "price_local_plus"))
    apply(provider.change_plan(sub, "price_local_pro"))
    assert (plan_of(user.id), balance(user)) == ("pro", 100)


def test_a_downgrade_applied_at_once_by_the_provider_is_credited_from_the_next_period(user):
    """A provider portal configured to downgrade at once (not as docs/accounts.md says) still
    refills nothing until the next period, and stepping back up gives nothing either."""
    sub = subscribed(user, "price_local_pro")
    spend(user, 1990)
    provider = get_provider()
    apply(provider.update_subscription(sub, price_id="price_local_plus"))
    assert (plan_of(user.id), balance(user)) == ("plus", 10)
    apply(provider.update_subscription(sub, price_id="price_local_pro"))
    assert (plan_of(user.id), balance(user)) == ("pro", 10)
    apply(provider.update_subscription(sub, price_id="price_local_plus"))
    apply(provider.update_subscription(sub, renew=True))
    assert (plan_of(user.id), balance(user)) == ("plus", 500)


def test_a_plan_of_no_subscription_price_is_refused(user):
    sub = subscribed(user)
    with pytest.raises(PaymentRejected):
        get_provider().change_plan(sub, "price_local_ad_jp")


# -- cancel and resume --------------------------------------------------------------------


def test_cancel_keeps_the_plan_until_the_period_end_then_returns_to_free(user):
    sub = subscribed(user, "price_local_pro")
    spend(user, 100)
    provider = get_provider()
    apply(provider.set_cancel_at_period_end(sub, True))
    assert (plan_of(user.id), balance(user)) == ("pro", 1900)
    summary = subscription_summary(user.id)
    period_end = LocalSubscription.get_by_id(sub).current_period_end
    assert summary is not None and summary.renews_on is None
    assert summary.ends_on is not None
    assert summary.ends_on.isoformat() == _utc_day(period_end)

    [ended] = provider.end_period(sub)
    assert ended.type == "customer.subscription.deleted"
    apply([ended])
    assert (plan_of(user.id), balance(user)) == ("free", 50)
    assert subscription_summary(user.id) is None


def test_resume_undoes_the_cancel_and_refills_nothing(user):
    sub = subscribed(user, "price_local_plus")
    spend(user, 400)
    provider = get_provider()
    apply(provider.set_cancel_at_period_end(sub, True))
    assert provider.set_cancel_at_period_end(sub, True) == []  # already cancelled
    apply(provider.set_cancel_at_period_end(sub, False))
    assert Subscription.get().cancel_at_period_end is False
    assert balance(user) == 100
    summary = subscription_summary(user.id)
    assert summary is not None and summary.ends_on is None
    assert summary.renews_on is not None
    apply(provider.end_period(sub))
    assert (plan_of(user.id), balance(user)) == ("plus", 500)


def test_a_cancelled_subscription_changes_plan_only_after_resuming(user):
    sub = subscribed(user)
    provider = get_provider()
    apply(provider.set_cancel_at_period_end(sub, True))
    with pytest.raises(PaymentRejected):
        provider.change_plan(sub, "price_local_pro")


def test_an_ended_subscription_cannot_be_changed(user):
    sub = subscribed(user)
    provider = get_provider()
    apply(provider.cancel_subscription(sub))
    assert provider.cancel_subscription(sub) == []
    for act in (
        lambda: provider.change_plan(sub, "price_local_pro"),
        lambda: provider.set_cancel_at_period_end(sub, True),
        lambda: provider.end_period(sub),
    ):
        with pytest.raises(PaymentRejected):
            act()


def _utc_day(unix):
    return datetime.fromtimestamp(unix, UTC).date().isoformat()


# -- the stripe engine --------------------------------------------------------------------


class FakePortalApi:
    """The provider's billing portal sessions endpoint, recording what it was sent."""

    def __init__(self):
        self.sent = []

    def __call__(self, environ, start_response):
        request = Request(environ)
        self.sent.append((request.method, request.path, dict(request.form)))
        if request.path != "/v1/billing_portal/sessions":
            response = Response("{}", status=404, mimetype="application/json")
        elif request.form.get("customer") == "cus_missing":
            body = {
                "error": {
                    "type": "invalid_request_error",
                    "code": "resource_missing",
                    "message": "No such customer: 'cus_missing'",
                }
            }
            response = Response(json.dumps(body), status=400, mimetype="application/json")
        else:
            body = {
                "id": "bps_test_1",
                "object": "billing_portal.session",
                "customer": request.form["customer"],
                "return_url": request.form["return_url"],
                "url": "https://billing.example/p/session/test_1",
            }
            response = Response(json.dumps(body), mimetype="application/json")
        return response(environ, start_response)


def test_the_stripe_engine_opens_a_billing_portal_session_for_the_customer():
    fake = FakePortalApi()
    with serve(fake) as url:
        provider = StripeProvider("sk_test_fake", api_base=url, network_retries=0)
        portal = provider.create_portal_session(
            customer_id="cus_123", return_url="https://sub.example/account"
        )
        with pytest.raises(PaymentNotFound):
            provider.create_portal_session(customer_id="cus_missing", return_url="x")
    assert portal == "https://billing.example/p/session/test_1"
    assert fake.sent[0] == (
        "POST",
        "/v1/billing_portal/sessions",
        {"customer": "cus_123", "return_url": "https://sub.example/account"},
    )


def test_the_portal_uses_the_users_customer_when_the_row_has_none(user):
    sub = subscribed(user)
    customer = Subscription.get().payment_customer_id
    Subscription.update(payment_customer_id=None).execute()
    User.update(payment_customer_id=customer).where(User.id == user.id).execute()
    provider = get_provider()
    assert [row.id for row in provider.portal_subscriptions(portal_of(user))] == [sub]


# -- the local provider's calendar --------------------------------------------------------


def test_a_local_subscription_renews_by_itself_when_its_period_ends_once(user):
    # Given a plus member whose period has just ended, credits partly spent
    sub = subscribed(user)
    spend(user, 100)
    ended = LocalSubscription.get_by_id(sub).current_period_end
    provider = get_provider()
    assert provider.end_due_periods(now=ended - 1) == []  # not yet
    # When the provider's clock runs twice at once
    runs = at_once(lambda _: provider.end_due_periods(now=ended), [0, 1])
    events = [event for run in runs for event in run]
    # Then the period ended once: one renewal, the next period, a refill
    assert [event.event.deleted for event in events] == [False]
    apply(events)
    row = LocalSubscription.get_by_id(sub)
    assert (row.current_period_start, row.status) == (ended, "active")
    assert balance(user) == 500


def test_a_local_subscription_cancelled_at_period_end_ends_by_itself(user):
    sub = subscribed(user, "price_local_pro")
    provider = get_provider()
    apply(provider.update_subscription(sub, cancel_at_period_end=True))
    ended = LocalSubscription.get_by_id(sub).current_period_end
    apply(provider.end_due_periods(now=ended))
    assert LocalSubscription.get_by_id(sub).status == "canceled"
    assert plan_of(user.id) == "free"
    assert provider.end_due_periods(now=ended + 86400) == []  # an ended one stays ended
