"""A click counts as verified once per view token (issue 26): later clicks with the same
token stay in the log, marked as repeats, and are left out of clicks and CTR
(docs/ads.md, Clicks).

Clicks logged before this migration are marked the same way: of each token's human
clicks, the earliest (ties broken by id) stays the verified one."""

STATEMENTS = [
    "ALTER TABLE ad_click_logs ADD COLUMN is_repeat INTEGER NOT NULL DEFAULT 0",
    # Finds a token's earlier clicks when a click is recorded; few clicks share a token.
    """
    CREATE INDEX idx_ad_click_logs_token ON ad_click_logs (ad_reservation_id, view_token)
    WHERE view_token IS NOT NULL
    """,
    """
    UPDATE ad_click_logs SET is_repeat = 1
    WHERE view_token IS NOT NULL AND is_bot = 0 AND EXISTS (
        SELECT 1 FROM ad_click_logs AS earlier
        WHERE earlier.ad_reservation_id = ad_click_logs.ad_reservation_id
          AND earlier.view_token = ad_click_logs.view_token
          AND earlier.is_bot = 0
          AND (earlier.created_at < ad_click_logs.created_at
               OR (earlier.created_at = ad_click_logs.created_at
                   AND earlier.id < ad_click_logs.id))
    )
    """,
    # Repeats are counted apart and subtracted, as bot clicks are, so the counts of
    # every click stay on the covering (reservation, created_at) index.
    """
    CREATE INDEX idx_ad_click_logs_repeat ON ad_click_logs (ad_reservation_id, created_at)
    WHERE is_repeat = 1
    """,
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
