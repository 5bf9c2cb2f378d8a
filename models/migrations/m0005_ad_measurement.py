"""Ad measurement: impression event ids (each counted once, pruned after 7 days) and the
indexes the reports read by date."""

STATEMENTS = [
    """
    CREATE TABLE ad_impression_events (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_ad_impression_events_created ON ad_impression_events (created_at)",
    "CREATE INDEX idx_ad_impression_daily_date ON ad_impression_daily (date, ad_reservation_id)",
    "CREATE INDEX idx_ad_click_logs_created ON ad_click_logs (created_at, ad_reservation_id)",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
