"""The local payment provider's delayed method (konbini; docs/ads.md, Direct ads:
purchase and review): a checkout may be complete and still unpaid, and a payment intent may wait for
its money or lapse."""

STATEMENTS = [
    """
    ALTER TABLE local_payment_checkout_sessions
    ADD COLUMN payment_status TEXT NOT NULL DEFAULT 'unpaid'
    CONSTRAINT ck_local_checkout_payment_status
    CHECK (payment_status IN ('paid', 'unpaid', 'no_payment_required'))
    """,
    "ALTER TABLE local_payment_checkout_sessions ADD COLUMN payment_method TEXT",
    """
    ALTER TABLE local_payment_intents
    ADD COLUMN status TEXT NOT NULL DEFAULT 'requires_action'
    CONSTRAINT ck_local_intent_status
    CHECK (status IN ('requires_action', 'succeeded', 'canceled'))
    """,
    # Until now every completed checkout was paid by card on the spot, and every
    # payment intent was made by such a payment.
    """
    UPDATE local_payment_checkout_sessions SET payment_status = 'paid', payment_method = 'card'
    WHERE status = 'complete'
    """,
    "UPDATE local_payment_intents SET status = 'succeeded'",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
