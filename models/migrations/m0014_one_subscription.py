"""One subscription per member (issue 26): the checkout a member has open or being paid
(`subscription_checkouts`, one row per member, so opening a second is one conditional
statement), the duplicate subscriptions that were cancelled and refunded or left for the
operator (`duplicate_subscriptions`), and what the local provider refunded."""

STATEMENTS = [
    """
    CREATE TABLE subscription_checkouts (
        user_id TEXT PRIMARY KEY REFERENCES users (id),
        token TEXT NOT NULL,
        plan TEXT NOT NULL,
        session_id TEXT,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    """
    CREATE TABLE duplicate_subscriptions (
        payment_subscription_id TEXT PRIMARY KEY,
        reference_id TEXT NOT NULL,
        kept_subscription_id TEXT NOT NULL,
        plan TEXT NOT NULL,
        status TEXT NOT NULL,
        detail TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_duplicate_subscriptions_status ON duplicate_subscriptions (status)",
    "ALTER TABLE local_payment_subscriptions ADD COLUMN refunded_amount {BIGINT}",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
