"""Receipts (qualified invoices, 適格請求書; issue 48, docs/payments.md, Receipts): the
local payment provider issues an invoice for each paid one-time checkout and each paid
subscription period, as the real provider does, and keeps what a one-time checkout's
invoice is to say (issuer, buyer, description) on the checkout. `source` names what an
invoice was issued for, once: a redelivered completion issues nothing more."""

STATEMENTS = [
    """
    CREATE TABLE local_payment_invoices (
        id TEXT PRIMARY KEY,
        number TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL UNIQUE,
        customer_id TEXT,
        checkout_session_id TEXT,
        subscription_id TEXT,
        period_start {BIGINT},
        period_end {BIGINT},
        amount {BIGINT} NOT NULL,
        currency TEXT NOT NULL,
        description TEXT NOT NULL,
        quantity INTEGER NOT NULL DEFAULT 1,
        buyer_name TEXT NOT NULL,
        buyer_email TEXT,
        buyer_registration_number TEXT,
        issuer_name TEXT,
        issuer_address TEXT,
        issuer_registration_number TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        issued_at {BIGINT} NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX ix_local_invoices_checkout ON local_payment_invoices (checkout_session_id)",
    """
    CREATE INDEX ix_local_invoices_customer
    ON local_payment_invoices (customer_id, period_start)
    """,
    "ALTER TABLE local_payment_checkout_sessions ADD COLUMN invoice_data TEXT",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
