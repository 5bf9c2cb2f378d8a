"""Ad purchase bookkeeping: uploaded images and their owners, the per slot-and-country
lock rows that serialise position assignment, and each reservation's checkout."""

from models.migrations import unique_constraint

STATEMENTS = [
    """
    CREATE TABLE ad_images (
        name TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        format TEXT NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_ad_images_user ON ad_images (user_id)",
    """
    CREATE TABLE ad_inventory_locks (
        slot_id TEXT NOT NULL REFERENCES ad_slots (id),
        country TEXT NOT NULL,
        PRIMARY KEY (slot_id, country)
    )
    """,
    """
    CREATE TABLE ad_checkouts (
        ad_reservation_id TEXT PRIMARY KEY REFERENCES ad_reservations (id) ON DELETE CASCADE,
        checkout_session_id TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
]


def statements(dialect: str) -> list[str]:
    session_unique = unique_constraint(
        dialect, "uq_ad_checkouts_session", "ad_checkouts", "checkout_session_id"
    )
    return [*STATEMENTS, session_unique]
