"""Nothing lost between the database and the queue: webhook events keep their payload
until processed, and other money-bearing messages wait in an outbox until their actor
has run (docs/operating.md, Faults and recovery). Clicks keep the view token of the
render they came from (docs/ads.md, Direct ads: delivery, measurement and reports)."""

STATEMENTS = [
    "ALTER TABLE payment_events ADD COLUMN payload TEXT",
    "ALTER TABLE payment_events ADD COLUMN processed_at TEXT",
    "ALTER TABLE payment_events ADD COLUMN sent_at TEXT",
    "ALTER TABLE payment_events ADD COLUMN send_count INTEGER NOT NULL DEFAULT 0",
    # Events received before this migration were handled by the code of their day.
    "UPDATE payment_events SET processed_at = created_at",
    """
    CREATE INDEX idx_payment_events_unprocessed ON payment_events (created_at)
    WHERE processed_at IS NULL
    """,
    """
    CREATE TABLE outbox_messages (
        id TEXT PRIMARY KEY,
        actor TEXT NOT NULL,
        args TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        sent_at TEXT,
        send_count INTEGER NOT NULL DEFAULT 0,
        processed_at TEXT
    )
    """,
    """
    CREATE INDEX idx_outbox_messages_unprocessed ON outbox_messages (created_at)
    WHERE processed_at IS NULL
    """,
    "ALTER TABLE ad_click_logs ADD COLUMN view_token TEXT",
    # The admin report's unverified clicks: few, and found without reading every click.
    """
    CREATE INDEX idx_ad_click_logs_unverified ON ad_click_logs (ad_reservation_id, created_at)
    WHERE view_token IS NULL
    """,
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
