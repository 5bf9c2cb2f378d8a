"""Subtitles kept (issue 25): each fetched track is stored as the source of truth, so the
index is rebuilt from the database without calling the platform, and the transcript
shows every cue with its own time. A video's description is kept beside its title for
the same reason. `index_checks` records each comparison of the index with the database
(`subsearch search verify`)."""


def statements(dialect: str) -> list[str]:
    blob = "BYTEA" if dialect == "postgresql" else "BLOB"
    return [
        "ALTER TABLE videos ADD COLUMN description TEXT",
        f"""
        CREATE TABLE subtitle_tracks (
            video_id TEXT PRIMARY KEY REFERENCES videos (id),
            language TEXT NOT NULL,
            type TEXT NOT NULL,
            cues {blob} NOT NULL,
            cue_count INTEGER NOT NULL,
            fetched_at TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
            updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}}
        )
        """,
        """
        CREATE TABLE index_checks (
            id {SERIAL_PK},
            engine TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            videos INTEGER NOT NULL,
            missing INTEGER NOT NULL,
            extra INTEGER NOT NULL,
            stale INTEGER NOT NULL,
            repaired INTEGER NOT NULL,
            examples TEXT NOT NULL
        )
        """,
        "CREATE INDEX idx_index_checks_finished ON index_checks (finished_at)",
    ]
