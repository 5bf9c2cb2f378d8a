"""Actors through the StubBroker and an in-process worker, with the connection middleware."""

from __future__ import annotations

import json
import time
from datetime import timedelta

from models.clock import iso, utcnow
from models.idempotency import claim
from models.payments import LineItem, get_provider
from models.tables import IdempotencyKey, Session, Verification
from models.users import open_session
from models.verifications import VerificationStore
from tasks.maintenance import purge_expired_sessions
from tests.factories import make_user
from tests.fixtures import take_messages
from web.devtools.local_payments.actors import expire_local_checkouts
from web.devtools.local_payments.tables import LocalCheckoutSession


def test_purge_removes_expired_sessions_old_sign_in_state_and_day_old_idempotency_keys(
    stub_broker, stub_worker
):
    user = make_user()
    open_session(user)
    open_session(user)
    open_session(user)
    ids = [s.id for s in Session.select().order_by(Session.created_at)]
    past = iso(utcnow() - timedelta(days=2))
    Session.update(expires_at=past).where(Session.id == ids[0]).execute()
    Session.update(revoked_at=past).where(Session.id == ids[1]).execute()
    VerificationStore().set("old", "x", 1)
    Verification.update(expires_at=past).where(Verification.identifier == "old").execute()
    VerificationStore().set("live", "y", 600)
    claim(user.id, "old-key", "POST x")
    claim(user.id, "new-key", "POST x")
    IdempotencyKey.update(created_at=iso(utcnow() - timedelta(hours=25))).where(
        IdempotencyKey.idempotency_key == "old-key"
    ).execute()

    purge_expired_sessions.send()
    stub_broker.join(purge_expired_sessions.queue_name)
    stub_worker.join()
    purge_expired_sessions.send()  # a second run finds nothing more to do
    stub_broker.join(purge_expired_sessions.queue_name)
    stub_worker.join()

    assert [s.id for s in Session.select()] == [ids[2]]
    assert [v.identifier for v in Verification.select()] == ["live"]
    assert [k.idempotency_key for k in IdempotencyKey.select()] == ["new-key"]


def test_abandoned_local_checkouts_expire_and_the_expiry_is_announced(stub_broker):
    session = get_provider().create_payment_checkout(
        line_items=[LineItem("price_local_ad_jp", 1)],
        metadata={},
        success_url="s",
        cancel_url="c",
        expires_at=int(time.time()) - 1,
        idempotency_key="old",
    )
    expire_local_checkouts()
    expire_local_checkouts()  # a second run finds nothing left to expire
    assert LocalCheckoutSession.get_by_id(session.id).status == "expired"
    # one delivery to each endpoint (the ad-checkout one releases the hold at once)
    messages = take_messages(stub_broker, "payments")
    assert sorted(m["args"][0] for m in messages) == [
        "/api/auth/payment/webhook",
        "/api/webhooks/payment/ad-checkout",
    ]
    assert {json.loads(m["args"][1])["type"] for m in messages} == {"checkout.session.expired"}
