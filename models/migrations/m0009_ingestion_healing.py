"""Ingestion that heals (issue 15): a video whose subtitle fetch failed is fetched again
by the scheduler after 1 h, 6 h and 24 h before it stays `failed` (docs/search.md,
Failed fetches heal). `fetch_attempts` counts the failed fetches in a row; `next_fetch_at` is when
the next one is due, null when none is."""

STATEMENTS = [
    "ALTER TABLE videos ADD COLUMN fetch_attempts INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE videos ADD COLUMN next_fetch_at TEXT",
    # The hourly round reads only the few videos waiting for a retry.
    """
    CREATE INDEX idx_videos_next_fetch_at ON videos (next_fetch_at)
    WHERE next_fetch_at IS NOT NULL
    """,
    # Fetches that failed before this version count as a first failure whose retry is
    # due now: the next hourly round tries them again.
    """
    UPDATE videos SET fetch_attempts = 1, next_fetch_at = {NOW_ISO}
    WHERE subtitle_status = 'failed'
    """,
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
