"""Tables of the offline `local` payment provider (development and tests only; empty in
production). Amounts are integers in the currency's smallest unit, times Unix seconds,
as the real provider keeps them."""

from models.migrations import unique_constraint

STATEMENTS = [
    """
    CREATE TABLE local_payment_prices (
        id TEXT PRIMARY KEY,
        unit_amount {BIGINT} NOT NULL,
        currency TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 1,
        product TEXT NOT NULL,
        recurring_interval TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        idempotency_key TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    """
    CREATE TABLE local_payment_customers (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        name TEXT NOT NULL,
        user_id TEXT,
        idempotency_key TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    """
    CREATE TABLE local_payment_checkout_sessions (
        id TEXT PRIMARY KEY,
        mode TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'open',
        line_items TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        customer_id TEXT,
        client_reference_id TEXT,
        success_url TEXT NOT NULL,
        cancel_url TEXT NOT NULL,
        expires_at {BIGINT} NOT NULL,
        amount_total {BIGINT} NOT NULL,
        currency TEXT NOT NULL,
        payment_intent_id TEXT,
        subscription_id TEXT,
        idempotency_key TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO},
        CONSTRAINT ck_local_checkout_status CHECK (status IN ('open', 'complete', 'expired'))
    )
    """,
    (
        "CREATE INDEX idx_local_checkout_status_expires"
        " ON local_payment_checkout_sessions (status, expires_at)"
    ),
    """
    CREATE TABLE local_payment_intents (
        id TEXT PRIMARY KEY,
        amount_received {BIGINT} NOT NULL,
        currency TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        checkout_session_id TEXT NOT NULL,
        created {BIGINT} NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_local_payment_intents_created ON local_payment_intents (created)",
    """
    CREATE TABLE local_payment_subscriptions (
        id TEXT PRIMARY KEY,
        customer_id TEXT,
        price_id TEXT NOT NULL,
        status TEXT NOT NULL,
        current_period_start {BIGINT} NOT NULL,
        current_period_end {BIGINT} NOT NULL,
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
        canceled_at {BIGINT},
        ended_at {BIGINT},
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
]

UNIQUE = [
    ("uq_local_prices_idempotency", "local_payment_prices", "idempotency_key"),
    ("uq_local_customers_idempotency", "local_payment_customers", "idempotency_key"),
    ("uq_local_checkout_idempotency", "local_payment_checkout_sessions", "idempotency_key"),
    ("uq_local_intents_checkout", "local_payment_intents", "checkout_session_id"),
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS + [unique_constraint(dialect, *spec) for spec in UNIQUE]
