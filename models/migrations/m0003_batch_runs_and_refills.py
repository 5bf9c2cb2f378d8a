"""Ledgers that make periodic and event-driven credit changes happen once:
`batch_runs` (one row per batch and period) and `subscription_refills` (one row per
subscription, plan and billing period whose credits were set)."""

STATEMENTS = [
    """
    CREATE TABLE batch_runs (
        name TEXT NOT NULL,
        period TEXT NOT NULL,
        ran_at TEXT NOT NULL DEFAULT {NOW_ISO},
        PRIMARY KEY (name, period)
    )
    """,
    """
    CREATE TABLE subscription_refills (
        payment_subscription_id TEXT NOT NULL,
        plan TEXT NOT NULL,
        period_start {BIGINT} NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        PRIMARY KEY (payment_subscription_id, plan, period_start)
    )
    """,
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
