"""The initial schema: every table of the spec, plus accounts, sessions, verifications
and payment_events. Frozen: later changes go in later migrations."""

from models.migrations import unique_constraint

# Enumerations the database enforces as well as the application.
ROLES = "'member', 'admin'"
CHANNEL_STATUSES = "'pending', 'processing', 'completed', 'failed', 'deleted', 'opted_out'"
VIDEO_STATUSES = "'pending', 'completed', 'failed', 'unavailable', 'deleted'"
SLOT_IDS = (
    "'search-result-midroll', 'search-result-bottom', "
    "'video-detail-below-player', 'video-detail-below-subtitle'"
)
CATEGORIES = (
    "'it_saas', 'ec_retail', 'beauty_cosmetics', 'food_beverage', 'media', "
    "'entertainment_games', 'education', 'hr_recruiting', 'automotive', 'real_estate', "
    "'travel_tourism', 'medical_healthcare', 'finance', 'gambling_gaming', 'other'"
)
RESERVATION_STATUSES = "'pending_review', 'active', 'stopped', 'expired'"

STATEMENTS = [
    f"""
    CREATE TABLE users (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        email TEXT NOT NULL,
        email_verified INTEGER NOT NULL DEFAULT 0,
        image TEXT,
        role TEXT NOT NULL DEFAULT 'member',
        payment_customer_id TEXT,
        credit_balance INTEGER NOT NULL DEFAULT 50,
        bonus_credit INTEGER NOT NULL DEFAULT 0,
        referral_code TEXT,
        referred_by TEXT REFERENCES users (id) ON DELETE SET NULL,
        referral_rewarded_at TEXT,
        country TEXT,
        created_at {{BIGINT}} NOT NULL DEFAULT {{NOW_MS}},
        updated_at {{BIGINT}} NOT NULL DEFAULT {{NOW_MS}},
        CONSTRAINT ck_users_role CHECK (role IN ({ROLES})),
        CONSTRAINT ck_users_credit_balance CHECK (credit_balance >= 0),
        CONSTRAINT ck_users_bonus_credit CHECK (bonus_credit >= 0)
    )
    """,
    "CREATE INDEX idx_users_referred_by ON users (referred_by)",
    """
    CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_accounts_user ON accounts (user_id)",
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        expires_at TEXT NOT NULL,
        revoked_at TEXT,
        ip_address TEXT,
        user_agent TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_sessions_user ON sessions (user_id)",
    "CREATE INDEX idx_sessions_expires ON sessions (expires_at)",
    """
    CREATE TABLE verifications (
        id TEXT PRIMARY KEY,
        identifier TEXT NOT NULL,
        value TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_verifications_expires ON verifications (expires_at)",
    f"""
    CREATE TABLE channels (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        handle TEXT,
        thumbnail_url TEXT,
        subtitle_status TEXT NOT NULL DEFAULT 'pending',
        video_count INTEGER NOT NULL DEFAULT 0,
        country TEXT,
        subscriber_count {{BIGINT}},
        created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        CONSTRAINT ck_channels_subtitle_status CHECK (subtitle_status IN ({CHANNEL_STATUSES}))
    )
    """,
    "CREATE INDEX idx_channels_title ON channels (title)",
    "CREATE INDEX idx_channels_handle ON channels (handle)",
    "CREATE INDEX idx_channels_subtitle_status ON channels (subtitle_status)",
    f"""
    CREATE TABLE videos (
        id TEXT PRIMARY KEY,
        channel_id TEXT NOT NULL REFERENCES channels (id),
        title TEXT NOT NULL,
        thumbnail_url TEXT,
        duration_seconds INTEGER NOT NULL,
        view_count {{BIGINT}},
        like_count {{BIGINT}},
        published_at TEXT NOT NULL,
        category_id TEXT,
        subtitle_status TEXT NOT NULL DEFAULT 'pending',
        subtitle_type TEXT,
        created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        CONSTRAINT ck_videos_subtitle_status CHECK (subtitle_status IN ({VIDEO_STATUSES})),
        CONSTRAINT ck_videos_subtitle_type CHECK (subtitle_type IN ('manual', 'auto'))
    )
    """,
    "CREATE INDEX idx_videos_channel_id ON videos (channel_id)",
    "CREATE INDEX idx_videos_published_at ON videos (published_at)",
    "CREATE INDEX idx_videos_subtitle_status ON videos (subtitle_status)",
    "CREATE INDEX idx_videos_channel_subtitle ON videos (channel_id, subtitle_status)",
    """
    CREATE TABLE user_video_access (
        user_id TEXT NOT NULL REFERENCES users (id),
        video_id TEXT NOT NULL REFERENCES videos (id),
        credits INTEGER NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO},
        expires_at TEXT NOT NULL,
        PRIMARY KEY (user_id, video_id)
    )
    """,
    "CREATE INDEX idx_user_video_access_expires ON user_video_access (expires_at)",
    """
    CREATE TABLE subscriptions (
        id TEXT PRIMARY KEY,
        plan TEXT NOT NULL,
        reference_id TEXT NOT NULL REFERENCES users (id),
        payment_customer_id TEXT,
        payment_subscription_id TEXT,
        status TEXT NOT NULL DEFAULT 'incomplete',
        period_start {BIGINT},
        period_end {BIGINT},
        trial_start {BIGINT},
        trial_end {BIGINT},
        cancel_at_period_end INTEGER NOT NULL DEFAULT 0,
        cancel_at {BIGINT},
        canceled_at {BIGINT},
        ended_at {BIGINT},
        seats INTEGER,
        billing_interval TEXT,
        payment_schedule_id TEXT,
        CONSTRAINT ck_subscriptions_plan CHECK (plan IN ('plus', 'pro'))
    )
    """,
    "CREATE INDEX idx_subscriptions_reference_status ON subscriptions (reference_id, status)",
    """
    CREATE TABLE payment_events (
        id TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        type TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        PRIMARY KEY (id, endpoint)
    )
    """,
    """
    CREATE TABLE favorite_channels (
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        channel_id TEXT NOT NULL REFERENCES channels (id),
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        PRIMARY KEY (user_id, channel_id)
    )
    """,
    "CREATE INDEX idx_favorite_channels_user_created ON favorite_channels (user_id, created_at)",
    """
    CREATE TABLE search_histories (
        id {SERIAL_PK},
        user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        query TEXT NOT NULL,
        channels TEXT NOT NULL DEFAULT '',
        target TEXT NOT NULL DEFAULT 'description,subtitle,title',
        sort TEXT NOT NULL DEFAULT 'relevance',
        semantic INTEGER NOT NULL DEFAULT 0,
        sr {REAL} NOT NULL DEFAULT 0.5,
        searched_at TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    "CREATE INDEX idx_search_histories_user_searched ON search_histories (user_id, searched_at)",
    f"""
    CREATE TABLE ad_slots (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        CONSTRAINT ck_ad_slots_id CHECK (id IN ({SLOT_IDS}))
    )
    """,
    f"""
    CREATE TABLE advertiser_profiles (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        business_legal_name TEXT NOT NULL,
        business_address TEXT NOT NULL,
        contact_name TEXT NOT NULL,
        contact_email TEXT NOT NULL,
        business_category TEXT NOT NULL,
        invoice_registration_number TEXT,
        created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        CONSTRAINT ck_advertiser_profiles_category CHECK (business_category IN ({CATEGORIES}))
    )
    """,
    "CREATE INDEX idx_advertiser_profiles_user ON advertiser_profiles (user_id)",
    f"""
    CREATE TABLE ad_reservations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        slot_id TEXT NOT NULL REFERENCES ad_slots (id),
        position INTEGER NOT NULL,
        country TEXT NOT NULL,
        start_month TEXT NOT NULL,
        end_month TEXT NOT NULL,
        advertiser_name TEXT NOT NULL,
        image_url TEXT NOT NULL,
        redirect_url TEXT NOT NULL,
        advertiser_profile_id TEXT NOT NULL REFERENCES advertiser_profiles (id),
        business_legal_name TEXT NOT NULL,
        business_address TEXT NOT NULL,
        contact_name TEXT NOT NULL,
        contact_email TEXT NOT NULL,
        business_category TEXT NOT NULL,
        invoice_registration_number TEXT,
        status TEXT NOT NULL DEFAULT 'pending_review',
        stopped_at TEXT,
        stopped_reason TEXT,
        payment_intent_id TEXT,
        created_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        updated_at TEXT NOT NULL DEFAULT {{NOW_ISO}},
        CONSTRAINT ck_ad_reservations_position CHECK (position BETWEEN 1 AND 4),
        CONSTRAINT ck_ad_reservations_months CHECK (start_month <= end_month),
        CONSTRAINT ck_ad_reservations_status CHECK (status IN ({RESERVATION_STATUSES})),
        CONSTRAINT ck_ad_reservations_category CHECK (business_category IN ({CATEGORIES}))
    )
    """,
    "CREATE INDEX idx_ad_reservations_country_status ON ad_reservations (country, status)",
    "CREATE INDEX idx_ad_reservations_slot_country ON ad_reservations (slot_id, country)",
    "CREATE INDEX idx_ad_reservations_user ON ad_reservations (user_id)",
    (
        "CREATE INDEX idx_ad_reservations_advertiser_profile"
        " ON ad_reservations (advertiser_profile_id)"
    ),
    """
    CREATE TABLE ad_click_logs (
        id TEXT PRIMARY KEY,
        ad_reservation_id TEXT NOT NULL REFERENCES ad_reservations (id),
        country TEXT NOT NULL,
        user_agent TEXT,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
    (
        "CREATE INDEX idx_ad_click_logs_reservation_created"
        " ON ad_click_logs (ad_reservation_id, created_at)"
    ),
    """
    CREATE TABLE ad_impression_daily (
        id TEXT PRIMARY KEY,
        ad_reservation_id TEXT NOT NULL REFERENCES ad_reservations (id),
        date TEXT NOT NULL,
        country TEXT NOT NULL,
        impressions INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL DEFAULT {NOW_ISO},
        updated_at TEXT NOT NULL DEFAULT {NOW_ISO}
    )
    """,
]

# users.updated_at is refreshed on every update, including set-based ones
# (the monthly reset), so the database does it rather than each caller.
SQLITE_STATEMENTS = [
    """
    CREATE TRIGGER trg_users_touch_updated_at AFTER UPDATE ON users
    FOR EACH ROW WHEN NEW.updated_at = OLD.updated_at
    BEGIN
        UPDATE users SET updated_at = {NOW_MS} WHERE id = NEW.id;
    END
    """,
]

POSTGRES_STATEMENTS = [
    """
    CREATE OR REPLACE FUNCTION subsearch_users_touch_updated_at() RETURNS trigger AS $$
    BEGIN
        IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
            NEW.updated_at := {NOW_MS};
        END IF;
        RETURN NEW;
    END;
    $$ LANGUAGE plpgsql
    """,
    """
    CREATE TRIGGER trg_users_touch_updated_at BEFORE UPDATE ON users
    FOR EACH ROW EXECUTE FUNCTION subsearch_users_touch_updated_at()
    """,
]


# Named unique constraints: a constraint on PostgreSQL, a unique index of the same
# name on SQLite (which does not keep constraint names).
UNIQUE = [
    ("uq_users_email", "users", "email"),
    ("uq_users_referral_code", "users", "referral_code"),
    ("uq_accounts_issuer_subject", "accounts", "issuer, subject"),
    ("uq_verifications_identifier", "verifications", "identifier"),
    ("uq_subscriptions_payment_subscription", "subscriptions", "payment_subscription_id"),
    (
        "uq_search_histories_condition",
        "search_histories",
        "user_id, query, channels, target, sort, semantic, sr",
    ),
    (
        "uniq_ad_reservations_slot_position_country_start",
        "ad_reservations",
        "slot_id, position, country, start_month",
    ),
    (
        "uniq_ad_impression_daily_reservation_date_country",
        "ad_impression_daily",
        "ad_reservation_id, date, country",
    ),
]


def statements(dialect: str) -> list[str]:
    extra = SQLITE_STATEMENTS if dialect == "sqlite" else POSTGRES_STATEMENTS
    uniques = [unique_constraint(dialect, *spec) for spec in UNIQUE]
    return STATEMENTS + uniques + extra
