"""The local payment provider's billing portal (issue 15, docs/accounts.md, Managing
the subscription): portal sessions that let a customer manage their subscriptions, and a plan
change scheduled for the end of the period (a downgrade), as the provider's
subscription schedule holds it."""

STATEMENTS = [
    """
    CREATE TABLE local_payment_portal_sessions (
        id TEXT PRIMARY KEY,
        customer_id TEXT NOT NULL,
        return_url TEXT NOT NULL,
        created {BIGINT} NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "ALTER TABLE local_payment_subscriptions ADD COLUMN schedule_id TEXT",
    "ALTER TABLE local_payment_subscriptions ADD COLUMN scheduled_price_id TEXT",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
