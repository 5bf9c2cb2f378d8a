"""Ingestion that survives the real platform (issue 44): each video keeps how its last
subtitle fetch failed (`last_failure_kind`, one of models.platform.base.FAILURE_KINDS)
and when (`last_failure_at`). A refusal of the service's address is recorded there
without marking the video; a video whose transcripts are disabled becomes `unavailable`
only once a second fetch agrees with the first."""

STATEMENTS = [
    "ALTER TABLE videos ADD COLUMN last_failure_kind TEXT",
    "ALTER TABLE videos ADD COLUMN last_failure_at TEXT",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
