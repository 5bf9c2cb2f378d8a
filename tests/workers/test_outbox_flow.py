"""Money through real processes: the web front and a worker on real Redis, with the
queued message lost in between. The stored event still gives the plan and credits,
exactly once."""

from __future__ import annotations

import json

import pytest
import requests

from models.payments import webhooks
from models.referrals import claim_referral
from models.tables import User
from tests.factories import make_user
from tests.web.api.test_subscription_outbox import completion_event
from tests.workers.processes import wait_for

pytestmark = pytest.mark.flow


def deliver(url, payload):
    body = json.dumps(payload).encode()
    return requests.post(
        f"{url}/api/auth/payment/webhook",
        data=body,
        headers={
            "Content-Type": "application/json",
            webhooks.SIGNATURE_HEADER: webhooks.sign(body, "whsec_test_one"),
        },
        timeout=10,
    )


def credits_of(user):
    fresh = User.get_by_id(user.id)
    return fresh.credit_balance, fresh.bonus_credit


def test_a_completion_lost_by_redis_arrives_exactly_once(start_web, start_worker, redis_client):
    web = start_web()
    referrer, user = make_user(), make_user()
    claim_referral(user.id, referrer.referral_code)
    payload = completion_event(user)

    # The worker is not running: the message waits in Redis, and Redis loses it.
    assert deliver(web, payload).status_code == 200
    assert redis_client.llen("dramatiq:billing") == 1
    redis_client.flushdb()

    redelivered = deliver(web, payload)  # the provider tries again
    assert redelivered.status_code == 200
    assert redelivered.json()["duplicate"] is True
    start_worker()

    assert wait_for(lambda: credits_of(user) == (500, 100), timeout=60), credits_of(user)
    assert credits_of(referrer) == (50, 100)
    assert deliver(web, payload).json()["duplicate"] is True
    assert wait_for(lambda: redis_client.llen("dramatiq:billing") == 0, timeout=10)
    assert credits_of(user) == (500, 100)
    assert credits_of(referrer) == (50, 100)
