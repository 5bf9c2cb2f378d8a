"""The ad purchase lifecycle (issue 17): a rejected unpaid reservation gives its position
back while its row (and the stop notice) stays; a payment that still arrives for it is
flagged for a refund; bot clicks are kept but marked.

The position's uniqueness now covers only reservations that still hold it."""

STATEMENTS = [
    "ALTER TABLE ad_reservations ADD COLUMN position_released_at TEXT",
    "ALTER TABLE ad_reservations ADD COLUMN paid_after_stop_at TEXT",
    "{DROP_POSITION_UNIQUE}",
    """
    CREATE UNIQUE INDEX uniq_ad_reservations_slot_position_country_start
    ON ad_reservations (slot_id, position, country, start_month)
    WHERE position_released_at IS NULL
    """,
    """
    CREATE TABLE ad_stop_notices (
        ad_reservation_id TEXT PRIMARY KEY REFERENCES ad_reservations (id),
        recipient TEXT NOT NULL,
        subject TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "ALTER TABLE ad_click_logs ADD COLUMN is_bot INTEGER NOT NULL DEFAULT 0",
    # Bot clicks are few; counting them apart keeps the human counts on the existing
    # covering index.
    """
    CREATE INDEX idx_ad_click_logs_bot ON ad_click_logs (ad_reservation_id, created_at)
    WHERE is_bot = 1
    """,
]


def statements(dialect: str) -> list[str]:
    # m0001 made it a named constraint on PostgreSQL, a unique index on SQLite.
    drop = (
        "DROP INDEX uniq_ad_reservations_slot_position_country_start"
        if dialect == "sqlite"
        else "ALTER TABLE ad_reservations"
        " DROP CONSTRAINT uniq_ad_reservations_slot_position_country_start"
    )
    return [drop if s == "{DROP_POSITION_UNIQUE}" else s for s in STATEMENTS]
