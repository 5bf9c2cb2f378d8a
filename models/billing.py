"""Subscriptions as this service keeps them: one row per provider subscription, copied
from the provider's current state (never from a possibly stale event body)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from models import outbox
from models.clock import iso, now_iso, parse_iso, utcnow
from models.credits import set_balance_to_plan_limit
from models.db import db, is_postgres, write_transaction
from models.errors import DomainError, ValidationError
from models.invoices import current_issuer
from models.metrics import SUBSCRIPTION_PROBLEMS
from models.payments import (
    CheckoutSession,
    PaymentError,
    PaymentNotFound,
    PaymentRejected,
    PaymentUnavailable,
    ProviderSubscription,
    SubscriptionChanged,
    SubscriptionCheckoutCompleted,
    WebhookEvent,
    get_provider,
    plan_for_price,
    plan_price_id,
)
from models.plans import (
    PAID_STATUSES,
    PLAN_RANK,
    is_live,
    larger_plans_than,
    live_subscriptions,
)
from models.referrals import pay_referral_reward
from models.tables import (
    DuplicateSubscription,
    Subscription,
    SubscriptionCheckout,
    SubscriptionRefill,
    User,
)

log = logging.getLogger(__name__)

# The webhook endpoint whose events this module applies (payment_events.endpoint).
EVENT_ENDPOINT = "subscription"


# A subscription in these states is over (past_due and unpaid may still recover;
# incomplete has not started).
ENDED_STATUSES = ("canceled", "incomplete_expired")


@dataclass(frozen=True)
class SubscriptionChange:
    """The row before and after a sync; `before` is None for a new subscription."""

    before: Subscription | None
    after: Subscription


def _reference_for(remote: ProviderSubscription, hint: str | None) -> str | None:
    """Whose subscription this is: the hint from the checkout, the reference we put in
    its metadata, the row we already have, or the user owning the provider customer."""
    for candidate in (hint, remote.metadata.get("reference_id")):
        if candidate and User.get_or_none(User.id == candidate):
            return candidate
    known = Subscription.get_or_none(Subscription.payment_subscription_id == remote.id)
    if known:
        return known.reference_id
    if remote.customer_id:
        owner = User.get_or_none(User.payment_customer_id == remote.customer_id)
        if owner:
            return owner.id
    return None


# The actor that cancels and refunds a member's second paid subscription.
CANCEL_DUPLICATE_ACTOR = "cancel_duplicate_subscription"


def _unknown(subscription_id: str, why: str) -> None:
    """An event about a subscription we cannot keep: applied once and ended, not retried."""
    log.warning("subscription %s: %s; the event is applied as nothing", subscription_id, why)
    SUBSCRIPTION_PROBLEMS.labels(kind="unknown_subscription").inc()


def sync_subscription(
    subscription_id: str, reference_id: str | None = None
) -> SubscriptionChange | None:
    """Fetch the provider's subscription and upsert our row; None when it is not ours
    to keep (unknown to the provider, unknown price or owner), which is logged and
    counted, or when it is the member's second paid subscription: then no row is
    written, it is recorded in `duplicate_subscriptions` and its cancellation and
    refund are queued through the outbox (docs/payments.md)."""
    try:
        remote = get_provider().get_subscription(subscription_id)
    except PaymentNotFound:
        _unknown(subscription_id, "the provider knows no such subscription")
        return None
    plan = plan_for_price(remote.price_id)
    if plan is None:
        _unknown(remote.id, f"price {remote.price_id} is of no plan")
        return None
    owner = _reference_for(remote, reference_id)
    if owner is None:
        _unknown(remote.id, "it belongs to no known user")
        return None
    values = {
        "plan": plan,
        "reference_id": owner,
        "payment_customer_id": remote.customer_id,
        "status": remote.status,
        "period_start": remote.period_start,
        "period_end": remote.period_end,
        "trial_start": remote.trial_start,
        "trial_end": remote.trial_end,
        "cancel_at_period_end": remote.cancel_at_period_end,
        "cancel_at": remote.cancel_at,
        "canceled_at": remote.canceled_at,
        "ended_at": remote.ended_at,
        "billing_interval": remote.interval,
        "payment_schedule_id": remote.schedule_id,
    }
    duplicate_message: str | None = None
    with write_transaction():
        # One member's subscriptions are written one at a time, so two first payments
        # applied at once cannot both see no other paid subscription.
        _lock_member(owner)
        before = Subscription.get_or_none(Subscription.payment_subscription_id == remote.id)
        starts_paying = is_live(remote.status) and (before is None or not is_live(before.status))
        kept = _other_live_subscription(owner, remote.id) if starts_paying else None
        if kept is None:
            (
                Subscription.insert(
                    id=str(uuid.uuid4()), payment_subscription_id=remote.id, **values
                )
                .on_conflict(
                    conflict_target=[Subscription.payment_subscription_id],
                    update={getattr(Subscription, k): v for k, v in values.items()},
                )
                .execute()
            )
            after = Subscription.get(Subscription.payment_subscription_id == remote.id)
        else:
            duplicate_message = _record_duplicate(remote.id, owner, kept, plan)
    if kept is not None:
        if duplicate_message is not None:
            outbox.send(duplicate_message)
        return None
    return SubscriptionChange(before=before, after=after)


def _lock_member(user_id: str) -> None:
    """Hold the member's row until the transaction ends (SQLite: BEGIN IMMEDIATE already
    serialises writers)."""
    if is_postgres():
        User.select(User.id).where(User.id == user_id).for_update().first()


def _other_live_subscription(user_id: str, subscription_id: str) -> Subscription | None:
    """The member's paid subscription other than this one, if any."""
    row: Subscription | None = (
        live_subscriptions(user_id)
        .where(Subscription.payment_subscription_id != subscription_id)
        .order_by(Subscription.id)
        .first()
    )
    return row


def _record_duplicate(
    subscription_id: str, owner: str, kept: Subscription, plan: str
) -> str | None:
    """Record a second paid subscription and queue its cancellation and refund (in the
    caller's transaction); None when it was recorded before (a redelivered event)."""
    inserted = db.execute(
        DuplicateSubscription.insert(
            payment_subscription_id=subscription_id,
            reference_id=owner,
            kept_subscription_id=kept.payment_subscription_id,
            plan=plan,
            status="cancelling",
        ).on_conflict_ignore()
    ).rowcount
    if inserted != 1:
        return None
    log.warning(
        "member %s paid a second subscription %s (%s) beside %s: cancelling and refunding it",
        owner,
        subscription_id,
        plan,
        kept.payment_subscription_id,
    )
    return outbox.add(CANCEL_DUPLICATE_ACTOR, subscription_id)


def cancel_duplicate_subscription(subscription_id: str) -> str:
    """Cancel and refund a recorded second subscription through the provider; when the
    provider refuses, leave it for the operator (logged, counted, listed with status
    `needs_operator`). Returns the row's status. A rerun finds it settled."""
    row = DuplicateSubscription.get_or_none(
        DuplicateSubscription.payment_subscription_id == subscription_id
    )
    if row is None or row.status != "cancelling":
        return row.status if row is not None else "unknown"
    try:
        refunded = get_provider().cancel_and_refund_subscription(
            subscription_id, idempotency_key=f"duplicate-{subscription_id}"
        )
    except PaymentRejected as error:
        status, detail = "needs_operator", f"The provider refused: {error}"
        log.error(
            "second subscription %s of member %s could not be refunded (%s): the operator "
            "refunds it by hand",
            subscription_id,
            row.reference_id,
            error,
        )
        SUBSCRIPTION_PROBLEMS.labels(kind="duplicate_needs_operator").inc()
    else:
        status, detail = "refunded", f"Cancelled; {refunded} refunded."
        SUBSCRIPTION_PROBLEMS.labels(kind="duplicate_refunded").inc()
    DuplicateSubscription.update(status=status, detail=detail, updated_at=now_iso()).where(
        (DuplicateSubscription.payment_subscription_id == subscription_id)
        & (DuplicateSubscription.status == "cancelling")
    ).execute()
    return status


def duplicate_subscriptions_for_operator() -> list[DuplicateSubscription]:
    """Second subscriptions the provider could not refund: the operator's to settle."""
    return list(
        DuplicateSubscription.select()
        .where(DuplicateSubscription.status == "needs_operator")
        .order_by(DuplicateSubscription.created_at)
    )


@dataclass(frozen=True)
class SubscriptionWork:
    """What an event asks of us: copy this subscription, then credit as `kind` says
    ("complete", "update" or "deleted"); `reference_id` hints whose it is."""

    kind: str
    subscription_id: str
    reference_id: str | None


def subscription_work(event: WebhookEvent) -> SubscriptionWork | None:
    """What an event asks of us, or None to ignore it."""
    if isinstance(event, SubscriptionCheckoutCompleted) and event.subscription_id is not None:
        return SubscriptionWork("complete", event.subscription_id, event.reference_id)
    if isinstance(event, SubscriptionChanged):
        kind = "deleted" if event.deleted else "update"
        return SubscriptionWork(kind, event.subscription_id, event.reference_id)
    return None


def _first_refill(subscription_id: str, plan: str, period_start: int | None) -> bool:
    """Record that credits were set for this subscription, plan and period; False when
    they already were (a redelivered or repeated event), or when a larger plan of the
    same subscription was already credited in this period: a downgrade is credited from
    the next period on, so stepping down and up again refills nothing."""
    if plan != "free":
        credited_larger = (
            SubscriptionRefill.select()
            .where(
                (SubscriptionRefill.payment_subscription_id == subscription_id)
                & (SubscriptionRefill.period_start == (period_start or 0))
                & SubscriptionRefill.plan.in_(larger_plans_than(plan))
            )
            .exists()
        )
        if credited_larger:
            return False
    query = SubscriptionRefill.insert(
        payment_subscription_id=subscription_id, plan=plan, period_start=period_start or 0
    ).on_conflict_ignore()
    inserted: int = db.execute(query).rowcount
    return inserted == 1


def apply_subscription_event(
    kind: str, subscription_id: str, reference_id: str | None = None, event_id: str | None = None
) -> SubscriptionChange | None:
    """The credit side of a subscription event, after copying the provider's state.

    - complete and update: credit_balance goes to the plan's limit when the plan or the
      billing period is new to us (docs/accounts.md, Credits, plans and referrals:
      cancelling and restoring refills nothing); complete also pays the referral
      reward, once.
    - deleted: back to the free 50, unless another subscription is still live.

    With `event_id` (a stored event), the event is marked processed in the same
    transaction as the credits and the reward: all of them, or none and a retry.
    """
    change = sync_subscription(subscription_id, reference_id)
    with write_transaction():
        if change is not None:
            _apply_credits(kind, change.after)
        if event_id is not None:
            outbox.mark_event_processed(EVENT_ENDPOINT, event_id)
    return change


def _apply_credits(kind: str, row: Subscription) -> None:
    subscription_id = row.payment_subscription_id
    assert subscription_id is not None  # sync_subscription writes it on every row
    if kind in ("complete", "update") and is_live(row.status):
        if _first_refill(subscription_id, row.plan, row.period_start):
            set_balance_to_plan_limit(row.reference_id)
    elif kind == "deleted" or row.status in ENDED_STATUSES:
        still_live = live_subscriptions(row.reference_id).where(Subscription.id != row.id).exists()
        if not still_live and _first_refill(subscription_id, "free", 0):
            set_balance_to_plan_limit(row.reference_id)
    if kind == "complete":
        pay_referral_reward(row.reference_id)


def apply_stored_event(event_id: str) -> SubscriptionChange | None:
    """Apply a subscription webhook event stored by the webhook (the outbox row), once:
    an event already processed, or one asking nothing of us, changes nothing more."""
    body = outbox.stored_event(EVENT_ENDPOINT, event_id)
    if body is None:
        return None
    work = subscription_work(get_provider().read_event(body))
    if work is None:
        outbox.mark_event_processed(EVENT_ENDPOINT, event_id)
        return None
    return apply_subscription_event(
        work.kind, work.subscription_id, work.reference_id, event_id=event_id
    )


def receive_webhook_event(event: WebhookEvent, payload: str) -> outbox.Receipt:
    """Store a verified subscription webhook event (once) for `apply_stored_event`."""
    return outbox.receive_event(
        EVENT_ENDPOINT,
        event.id,
        event.type,
        payload,
        needs_work=subscription_work(event) is not None,
    )


class PlanUnavailable(DomainError):
    code = "unavailable"
    status = 503
    message = "This plan cannot be bought right now."


class AlreadySubscribedToPlan(DomainError):
    code = "already_subscribed"
    status = 409
    message = "You already have a paid plan; change or cancel it in the billing portal."


class NoSubscription(DomainError):
    code = "no_subscription"
    status = 409
    message = "You have no subscription to manage; subscribe to a plan first."


# A subscription the member can still manage in the portal: not ended, and started
# (an `incomplete` one was never paid for).
MANAGEABLE_STATUSES = (*PAID_STATUSES, "past_due", "unpaid")


def managed_subscription(user_id: str) -> Subscription | None:
    """The subscription the account page shows and the portal manages: the member's
    largest plan among those not ended, the latest period first."""
    rows = list(
        Subscription.select().where(
            (Subscription.reference_id == user_id) & Subscription.status.in_(MANAGEABLE_STATUSES)
        )
    )
    rows.sort(
        key=lambda row: (
            is_live(row.status),
            PLAN_RANK.get(row.plan, 0),
            row.period_end or 0,
        ),
        reverse=True,
    )
    return rows[0] if rows else None


@dataclass(frozen=True)
class SubscriptionSummary:
    """What the account page says about the subscription: its plan and provider status,
    and either the day it renews or (cancelled at period end) the day it ends."""

    plan: str
    status: str
    renews_on: date | None
    ends_on: date | None

    @property
    def paid_up(self) -> bool:
        return is_live(self.status)


def _day(ms: int | None) -> date | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, UTC).date()


def subscription_summary(user_id: str) -> SubscriptionSummary | None:
    row = managed_subscription(user_id)
    if row is None:
        return None
    if row.cancel_at_period_end or row.cancel_at:
        return SubscriptionSummary(
            row.plan, row.status, None, _day(row.cancel_at or row.period_end)
        )
    return SubscriptionSummary(row.plan, row.status, _day(row.period_end), None)


def open_billing_portal(user_id: str, base_url: str) -> str:
    """The address of the provider's billing portal for the member's subscription, from
    which they come back to the account page; NoSubscription when there is none."""
    row = managed_subscription(user_id)
    customer_id = None
    if row is not None:
        customer_id = row.payment_customer_id or User.get_by_id(user_id).payment_customer_id
    if not customer_id:
        raise NoSubscription()
    url = get_provider().create_portal_session(
        customer_id=customer_id, return_url=f"{base_url}/account"
    )
    if not url:
        raise PaymentUnavailable("The provider gave the portal no address.")
    return url


def ensure_payment_customer(user_id: str) -> str:
    """The user's customer at the provider, created once (idempotency key per user) and
    stored by a conditional UPDATE that never replaces an existing one."""
    user = User.get_by_id(user_id)
    if user.payment_customer_id:
        return user.payment_customer_id
    customer = get_provider().create_customer(
        email=user.email,
        name=user.name,
        user_id=user.id,
        idempotency_key=f"customer-{user.id}",
        # Its subscription invoices are receipts (qualified invoices): they name the
        # issuer and its registration number (docs/payments.md, Receipts).
        invoice_issuer=current_issuer(),
    )
    User.update(payment_customer_id=customer).where(
        (User.id == user.id) & User.payment_customer_id.is_null()
    ).execute()
    stored: str | None = User.get_by_id(user.id).payment_customer_id
    return stored or customer


class CheckoutOpen(DomainError):
    code = "checkout_open"
    status = 409
    message = (
        "You already have a plan checkout open or being paid; finish or cancel it, "
        "or wait until it expires."
    )


# How long a plan checkout can be paid (the provider's minimum is 30 minutes): while it
# is open the member cannot open another, so it is kept short.
CHECKOUT_TTL = timedelta(minutes=30)
# How long a claim waits for the provider to create its checkout before another
# request may take it over.
OPENING_TTL = timedelta(minutes=2)
# A checkout paid whose subscription never reached us stops blocking after this.
PAID_CHECKOUT_BLOCKS_FOR = timedelta(days=1)


def _held_checkout(held: SubscriptionCheckout, plan: str) -> CheckoutSession | None:
    """Whether the member's recorded checkout still blocks a new one: the checkout to
    send them back to (open, same plan), CheckoutOpen (open for another plan, being
    created, or paid and not yet applied), or None when it is over (expired, cancelled,
    applied, unknown to the provider)."""
    if held.session_id is None:
        if held.expires_at > now_iso():
            raise CheckoutOpen()
        return None
    try:
        session = get_provider().get_checkout_session(held.session_id)
    except PaymentNotFound:
        return None
    if session.status == "open":
        if session.expires_at is not None and session.expires_at <= time.time():
            return None  # past its time: it can no longer be paid
        if held.plan == plan and session.url:
            return session
        raise CheckoutOpen()
    if session.status == "complete":
        applied = session.subscription_id is not None and (
            Subscription.select()
            .where(Subscription.payment_subscription_id == session.subscription_id)
            .exists()
        )
        stale = parse_iso(held.created_at) < utcnow() - PAID_CHECKOUT_BLOCKS_FOR
        if not applied and not stale:
            raise CheckoutOpen()
    return None


def _claim_checkout(user_id: str, plan: str) -> str | CheckoutSession:
    """Claim the member's one checkout: a token for the checkout to open, or the open
    one to send them back to. The claim is one conditional statement (insert where none
    is held, or replace the one read, unchanged since) followed by the check for a paid
    subscription, in one transaction: of two requests at once, one wins."""
    held = SubscriptionCheckout.get_or_none(SubscriptionCheckout.user == user_id)
    if held is not None:
        reuse = _held_checkout(held, plan)
        if reuse is not None:
            return reuse
    token = str(uuid.uuid4())
    values = {"token": token, "plan": plan, "session_id": None}
    expires_at = iso(utcnow() + OPENING_TTL)
    with write_transaction():
        if held is None:
            query = SubscriptionCheckout.insert(
                user=user_id, expires_at=expires_at, **values
            ).on_conflict_ignore()
            won = db.execute(query).rowcount == 1
        else:
            won = (
                SubscriptionCheckout.update(expires_at=expires_at, created_at=now_iso(), **values)
                .where(
                    (SubscriptionCheckout.user == user_id)
                    & (SubscriptionCheckout.token == held.token)
                )
                .execute()
                == 1
            )
        if not won:
            raise CheckoutOpen()
        if live_subscriptions(user_id).exists():
            raise AlreadySubscribedToPlan()
    return token


class CheckoutAlreadyPaid(DomainError):
    code = "already_paid"
    status = 409
    message = "This checkout has already been paid: the plan is being confirmed."


@dataclass(frozen=True)
class OpenPlanCheckout:
    """The member's plan checkout still open at the provider: the account page offers to
    continue it (its `url`) or to cancel it (`abandon_plan_checkout`)."""

    plan: str
    expires_at: str
    url: str


def open_plan_checkout(user_id: str) -> OpenPlanCheckout | None:
    """The member's open plan checkout, asked of the provider; None when there is none
    (never opened, being created, over, or the provider cannot say just now)."""
    held = SubscriptionCheckout.get_or_none(SubscriptionCheckout.user == user_id)
    if held is None or held.session_id is None:
        return None
    try:
        session = get_provider().get_checkout_session(held.session_id)
    except PaymentError:
        return None
    if session.status != "open" or not session.url:
        return None
    if session.expires_at is not None and session.expires_at <= time.time():
        return None
    expires_at = (
        iso(datetime.fromtimestamp(session.expires_at, UTC))
        if session.expires_at is not None
        else held.expires_at
    )
    return OpenPlanCheckout(held.plan, expires_at, session.url)


def abandon_plan_checkout(user_id: str) -> None:
    """Cancel the member's plan checkout so another plan can be chosen at once: the
    provider's session is expired first (it can no longer be paid), then the claim is
    released by one conditional DELETE of the claim read (a claim taken over meanwhile,
    by a new checkout, stays). Nothing to cancel is not an error. CheckoutAlreadyPaid
    when it was completed meanwhile; a provider that cannot be reached raises its
    PaymentError and keeps the claim."""
    held = SubscriptionCheckout.get_or_none(SubscriptionCheckout.user == user_id)
    if held is None:
        return
    if held.session_id is not None:
        provider = get_provider()
        try:
            session = provider.get_checkout_session(held.session_id)
            if session.status == "open":
                try:
                    session = provider.expire_checkout_session(session.id)
                except PaymentRejected:
                    # Closed meanwhile (a second cancel, a payment): as it stands now.
                    session = provider.get_checkout_session(session.id)
        except PaymentNotFound:
            session = None
        if session is not None and session.status == "complete":
            raise CheckoutAlreadyPaid()
    # A claim still being created (no session yet) is released too: its request then
    # finds its claim gone and expires the session it made (start_subscription_checkout).
    _release_claim(user_id, held.token)


def _release_claim(user_id: str, token: str) -> None:
    SubscriptionCheckout.delete().where(
        (SubscriptionCheckout.user == user_id) & (SubscriptionCheckout.token == token)
    ).execute()


def start_subscription_checkout(user_id: str, plan: str, base_url: str) -> str:
    """A subscription checkout for `plan`; returns the URL to send the buyer to.

    One checkout per member at a time (docs/payments.md): while one is open or being
    paid, asking again for the same plan gives it again, for another plan
    CheckoutOpen; a member with a paid subscription gets AlreadySubscribedToPlan. A
    checkout that expired, was cancelled or was applied no longer counts."""
    if plan not in ("plus", "pro"):
        raise ValidationError(fields={"plan": "must be plus or pro"})
    if live_subscriptions(user_id).exists():
        raise AlreadySubscribedToPlan()
    price_id = plan_price_id(plan)
    if not price_id:
        raise PlanUnavailable(f"No price is configured for the {plan} plan.")
    earlier_customer = User.get_by_id(user_id).payment_customer_id
    customer_id = ensure_payment_customer(user_id)
    issuer = current_issuer()
    if earlier_customer and issuer is not None:
        # A customer made before receipts existed gets the issuer on its invoices now;
        # setting the same values again changes nothing.
        get_provider().set_invoice_issuer(earlier_customer, issuer)
    claim = _claim_checkout(user_id, plan)
    if isinstance(claim, CheckoutSession):
        assert claim.url is not None  # _held_checkout reuses only a session with one
        return claim.url
    provider = get_provider()
    try:
        session = provider.create_subscription_checkout(
            customer_id=customer_id,
            price_id=price_id,
            reference_id=user_id,
            success_url=f"{base_url}/account?subscribed={plan}",
            cancel_url=f"{base_url}/account?cancelled={plan}",
            idempotency_key=f"subscribe-{user_id}-{claim}",
            expires_at=int(time.time() + CHECKOUT_TTL.total_seconds()),
        )
    except Exception:
        _release_claim(user_id, claim)
        raise
    expires = session.expires_at or int(time.time() + CHECKOUT_TTL.total_seconds())
    recorded = (
        SubscriptionCheckout.update(
            session_id=session.id, expires_at=iso(datetime.fromtimestamp(expires, UTC))
        )
        .where((SubscriptionCheckout.user == user_id) & (SubscriptionCheckout.token == claim))
        .execute()
    )
    if not recorded:
        # Taken over while the provider was slow: this checkout must not be payable.
        try:
            provider.expire_checkout_session(session.id)
        except PaymentError:
            log.warning("checkout %s of member %s left open", session.id, user_id, exc_info=True)
        raise CheckoutOpen()
    if not session.url:
        raise PaymentUnavailable("The provider gave the checkout no address.")
    return session.url
