"""Search by meaning (issue 29): each video's passage vectors are kept beside its
subtitle track, so a reindex or a new index gets them back without embedding again, and
a change of model is seen (the rows record it) and embeds everything anew."""


def statements(dialect: str) -> list[str]:
    blob = "BYTEA" if dialect == "postgresql" else "BLOB"
    return [
        f"""
        CREATE TABLE video_vectors (
            video_id TEXT PRIMARY KEY REFERENCES videos (id),
            model TEXT NOT NULL,
            dims INTEGER NOT NULL,
            digests {blob} NOT NULL,
            vectors {blob} NOT NULL,
            embedded_at TEXT NOT NULL
        )
        """,
        "CREATE INDEX idx_video_vectors_model ON video_vectors (model)",
    ]
