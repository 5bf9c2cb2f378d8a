"""A click counts only with a valid view token (issue 42): a click whose token is
missing, forged, expired or another reservation's is logged with the reason, left out
of clicks and CTR, and shown apart in the admin report (docs/ads.md, Clicks).

Clicks logged before this migration kept a token only when it was genuine, and not why
one was missing: those without one are marked `unverified` (missing or forged, no
telling which), so an attack already in the log leaves the figures too. Their genuine
but expired tokens were not told apart then and stay counted."""

STATEMENTS = [
    "ALTER TABLE ad_click_logs ADD COLUMN invalid_reason TEXT",
    "UPDATE ad_click_logs SET invalid_reason = 'unverified' WHERE view_token IS NULL",
    # Human invalid clicks are counted apart and subtracted, as bots' and repeats are,
    # so the counts of every click stay on the covering (reservation, created_at) index.
    """
    CREATE INDEX idx_ad_click_logs_invalid
    ON ad_click_logs (ad_reservation_id, created_at, invalid_reason)
    WHERE invalid_reason IS NOT NULL AND is_bot = 0
    """,
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
