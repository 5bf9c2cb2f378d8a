"""Alerts (issue 49, docs/alerts.md): a member's saved search, heard of whenever a video
indexed after it was made says it. `alert_matches` holds each video an alert heard of,
once (its primary key): a video indexed again is no news. A match waits with `mailed_at`
null until a mail (instant) or a digest (daily) carries it; `mail_batch` names the mail
that claimed it, so a mail sent again after a crash carries the same matches.
`videos.first_indexed_at` is when a video first reached the index: only a video first
indexed after an alert was made is news to it (a video of before, indexed again, is
not); videos indexed before this migration take their last update as that time.
`feed_token` opens the private Atom feed and `unsubscribe_token` the mail's one-click
unsubscribe, both without signing in; either can be renewed."""

STATEMENTS = [
    """
    CREATE TABLE alerts (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        query TEXT NOT NULL,
        semantic INTEGER NOT NULL DEFAULT 0,
        sr {REAL} NOT NULL,
        channels TEXT NOT NULL DEFAULT '[]',
        frequency TEXT NOT NULL,
        feed_token TEXT NOT NULL UNIQUE,
        unsubscribe_token TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        deleted_at TEXT,
        paused_at TEXT,
        paused_reason TEXT,
        mail_failures INTEGER NOT NULL DEFAULT 0,
        last_digest_on TEXT
    )
    """,
    "CREATE INDEX ix_alerts_user ON alerts (user_id, created_at)",
    """
    CREATE TABLE alert_matches (
        alert_id TEXT NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
        video_id TEXT NOT NULL,
        start_seconds {REAL},
        end_seconds {REAL},
        highlight TEXT NOT NULL DEFAULT '',
        found_at TEXT NOT NULL DEFAULT {NOW_ISO},
        mail_batch TEXT,
        mailed_at TEXT,
        PRIMARY KEY (alert_id, video_id)
    )
    """,
    "CREATE INDEX ix_alert_matches_found ON alert_matches (alert_id, found_at)",
    "CREATE INDEX ix_alert_matches_unmailed ON alert_matches (mailed_at, alert_id)",
    "ALTER TABLE videos ADD COLUMN first_indexed_at TEXT",
    "UPDATE videos SET first_indexed_at = updated_at WHERE subtitle_status = 'completed'",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
