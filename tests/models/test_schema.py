"""The schema as the spec names it, on whichever database this run uses."""

from __future__ import annotations

import re

import pytest
from peewee import IntegrityError

from models.db import db
from models.migrations import dialect
from models.tables import (
    ALL_MODELS,
    AdClickLog,
    AdReservation,
    FavoriteChannel,
    SearchHistory,
    User,
)
from tests.factories import make_channel, make_reservation, make_user
from web.devtools.local_payments.tables import (
    LocalCheckoutSession,
    LocalCustomer,
    LocalPaymentIntent,
    LocalPortalSession,
    LocalPrice,
    LocalSubscription,
)

SPEC_UNIQUE = {
    "uq_search_histories_condition": (
        "search_histories",
        ["user_id", "query", "channels", "target", "sort", "semantic", "sr"],
    ),
    "uniq_ad_reservations_slot_position_country_start": (
        "ad_reservations",
        ["slot_id", "position", "country", "start_month"],
    ),
    "uniq_ad_impression_daily_reservation_date_country": (
        "ad_impression_daily",
        ["ad_reservation_id", "date", "country"],
    ),
}

SPEC_INDEXES = {
    "idx_channels_title": ("channels", ["title"]),
    "idx_channels_handle": ("channels", ["handle"]),
    "idx_channels_subtitle_status": ("channels", ["subtitle_status"]),
    "idx_videos_channel_id": ("videos", ["channel_id"]),
    "idx_videos_published_at": ("videos", ["published_at"]),
    "idx_videos_subtitle_status": ("videos", ["subtitle_status"]),
    "idx_videos_channel_subtitle": ("videos", ["channel_id", "subtitle_status"]),
    "idx_favorite_channels_user_created": ("favorite_channels", ["user_id", "created_at"]),
    "idx_search_histories_user_searched": ("search_histories", ["user_id", "searched_at"]),
    "idx_advertiser_profiles_user": ("advertiser_profiles", ["user_id"]),
    "idx_ad_reservations_country_status": ("ad_reservations", ["country", "status"]),
    "idx_ad_reservations_slot_country": ("ad_reservations", ["slot_id", "country"]),
    "idx_ad_reservations_user": ("ad_reservations", ["user_id"]),
    "idx_ad_reservations_advertiser_profile": ("ad_reservations", ["advertiser_profile_id"]),
    "idx_ad_click_logs_reservation_created": (
        "ad_click_logs",
        ["ad_reservation_id", "created_at"],
    ),
}

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def index_columns(table: str) -> dict[str, list[str]]:
    return {index.name: list(index.columns) for index in db.get_indexes(table)}


@pytest.mark.parametrize("name", sorted({**SPEC_UNIQUE, **SPEC_INDEXES}))
def test_every_named_index_exists_with_its_columns(name):
    table, columns = {**SPEC_UNIQUE, **SPEC_INDEXES}[name]
    assert index_columns(table).get(name) == columns


@pytest.mark.parametrize("name", sorted(SPEC_UNIQUE))
def test_named_unique_constraints_are_unique(name):
    table, _ = SPEC_UNIQUE[name]
    assert any(i.name == name and i.unique for i in db.get_indexes(table))
    if name in PARTIAL_UNIQUE:
        # Only rows still holding the position (a rejected unpaid reservation gives it
        # back): a partial unique index, which PostgreSQL cannot express as a constraint.
        assert _index_sql(name).endswith(PARTIAL_UNIQUE[name])
        return
    if dialect() == "postgresql":
        found = db.execute_sql(
            "SELECT 1 FROM pg_constraint WHERE conname = %s AND contype = 'u'", (name,)
        ).fetchone()
        assert found, f"{name} is not a constraint"


PARTIAL_UNIQUE = {
    "uniq_ad_reservations_slot_position_country_start": "WHERE position_released_at IS NULL",
}


def _index_sql(name: str) -> str:
    if dialect() == "postgresql":
        sql = "SELECT indexdef FROM pg_indexes WHERE indexname = %s"
    else:
        sql = "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?"
    text = db.execute_sql(sql, (name,)).fetchone()[0]
    return " ".join(
        text.replace("(position_released_at IS NULL)", "position_released_at IS NULL").split()
    )


LOCAL_MODELS = [
    LocalPrice,
    LocalCustomer,
    LocalCheckoutSession,
    LocalPaymentIntent,
    LocalSubscription,
    LocalPortalSession,
]


@pytest.mark.parametrize("model", ALL_MODELS + LOCAL_MODELS, ids=lambda m: m._meta.table_name)
def test_models_match_the_migrated_columns(model):
    table = model._meta.table_name
    database_columns = {column.name for column in db.get_columns(table)}
    model_columns = {field.column_name for field in model._meta.sorted_fields}
    assert model_columns == database_columns


def test_composite_primary_keys():
    assert db.get_primary_keys("user_video_access") == ["user_id", "video_id"]
    assert db.get_primary_keys("favorite_channels") == ["user_id", "channel_id"]


def test_default_timestamps_are_fixed_width_iso_text_and_users_in_milliseconds():
    db.execute_sql("INSERT INTO channels (id, title) VALUES ('UCraw', 'raw')")
    created, updated = db.execute_sql(
        "SELECT created_at, updated_at FROM channels WHERE id = 'UCraw'"
    ).fetchone()
    assert ISO.match(created) and ISO.match(updated)

    db.execute_sql("INSERT INTO users (id, name, email) VALUES ('u-raw', 'raw', 'raw@x.jp')")
    row = db.execute_sql(
        "SELECT credit_balance, bonus_credit, role, email_verified, created_at FROM users"
        " WHERE id = 'u-raw'"
    ).fetchone()
    assert row[:4] == (50, 0, "member", 0)
    assert isinstance(row[4], int) and row[4] > 1_700_000_000_000


def test_users_updated_at_is_refreshed_by_every_update_even_set_based():
    user = make_user()
    db.execute_sql(
        "UPDATE users SET updated_at = 1000, created_at = 1000 WHERE id = " + db.obj.param,
        (user.id,),
    )
    User.update(credit_balance=User.credit_balance - 1).where(User.id == user.id).execute()
    fresh = User.get_by_id(user.id)
    assert fresh.created_at == 1000
    assert fresh.updated_at > 1_700_000_000_000


def test_balances_cannot_go_below_zero():
    user = make_user()
    with pytest.raises(IntegrityError), db.atomic():
        User.update(bonus_credit=-1).where(User.id == user.id).execute()


def test_deleting_a_referrer_sets_referred_by_to_null():
    referrer = make_user()
    referred = make_user(referred_by=referrer.id)
    referrer.delete_instance()
    assert User.get_by_id(referred.id).referred_by_id is None


def test_deleting_a_user_removes_favorites_and_search_history():
    user = make_user()
    FavoriteChannel.create(user=user, channel=make_channel())
    SearchHistory.create(user=user, query="大阪")
    user.delete_instance()
    assert FavoriteChannel.select().count() == 0
    assert SearchHistory.select().count() == 0


def _reservation_for(user):
    return make_reservation(user, id="r-1")


def test_reservations_are_never_deleted_with_their_owner():
    user = make_user()
    _reservation_for(user)
    with pytest.raises(IntegrityError), db.atomic():
        User.delete().where(User.id == user.id).execute()
    assert AdReservation.select().count() == 1


def test_click_logs_are_never_deleted_with_their_reservation():
    reservation = _reservation_for(make_user())
    AdClickLog.create(id="c-1", ad_reservation=reservation, country="JP")
    with pytest.raises(IntegrityError), db.atomic():
        AdReservation.delete().where(AdReservation.id == reservation.id).execute()
    assert AdClickLog.select().count() == 1


def test_one_position_per_slot_country_and_start_month():
    user = make_user()
    first = _reservation_for(user)
    data = {**first.__data__, "id": "r-2"}
    with pytest.raises(IntegrityError), db.atomic():
        AdReservation.insert(data).execute()


@pytest.mark.parametrize("model", ALL_MODELS + LOCAL_MODELS, ids=lambda m: m._meta.table_name)
def test_nullability_matches_the_models(model):
    table = model._meta.table_name
    nullable = {column.name: column.null for column in db.get_columns(table)}
    for field in model._meta.sorted_fields:
        if field.primary_key:
            continue
        assert nullable[field.column_name] == field.null, field.column_name


def test_sqlite_runs_with_wal_foreign_keys_and_a_busy_timeout():
    if dialect() != "sqlite":
        pytest.skip("SQLite pragmas")
    pragma = lambda name: db.execute_sql(f"PRAGMA {name}").fetchone()[0]  # noqa: E731
    assert pragma("journal_mode") == "wal"
    assert pragma("foreign_keys") == 1
    assert pragma("busy_timeout") >= 5000
