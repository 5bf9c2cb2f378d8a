"""Idempotency keys (issue 15): a member's request sent again with the same
Idempotency-Key gets the first answer instead of running twice, so an unlock clicked
twice charges once. A key is kept 24 hours."""

STATEMENTS = [
    """
    CREATE TABLE idempotency_keys (
        user_id TEXT NOT NULL REFERENCES users (id),
        idempotency_key TEXT NOT NULL,
        request TEXT NOT NULL,
        response_status INTEGER,
        response_body TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, idempotency_key)
    )
    """,
    "CREATE INDEX idx_idempotency_keys_created ON idempotency_keys (created_at)",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
