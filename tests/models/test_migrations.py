"""`db upgrade`: versioned, idempotent, and it seeds the ad slots."""

from __future__ import annotations

from click.testing import CliRunner

from models import migrations
from models.db import db
from models.tables import AdSlot
from web.cli import main

SLOT_IDS = {
    "search-result-midroll",
    "search-result-bottom",
    "video-detail-below-player",
    "video-detail-below-subtitle",
}


def schema_snapshot():
    tables = sorted(db.get_tables())
    return {
        table: (
            [(c.name, c.data_type, c.null) for c in db.get_columns(table)],
            sorted((i.name, tuple(i.columns), i.unique) for i in db.get_indexes(table)),
        )
        for table in tables
    }


def test_upgrade_twice_changes_nothing():
    before = schema_snapshot()
    assert migrations.upgrade() == []
    assert migrations.upgrade() == []
    assert schema_snapshot() == before
    assert migrations.applied_versions() == {v for v, _, _ in migrations.available()}


def test_the_four_slots_are_seeded_and_a_rerun_keeps_existing_rows():
    assert {slot.id for slot in AdSlot.select()} == SLOT_IDS
    AdSlot.update(display_name="運用中の名前").where(AdSlot.id == "search-result-bottom").execute()
    migrations.upgrade()
    assert AdSlot.select().count() == 4
    assert AdSlot.get_by_id("search-result-bottom").display_name == "運用中の名前"
    AdSlot.update(display_name="検索結果下部").where(AdSlot.id == "search-result-bottom").execute()


def test_a_slot_still_named_as_first_seeded_gets_its_plain_name():
    midroll = "search-result-midroll"
    AdSlot.update(display_name="検索結果ミッドロール").where(AdSlot.id == midroll).execute()
    migrations.upgrade()
    assert AdSlot.get_by_id(midroll).display_name == "検索結果の途中"
    # A name an operator chose is theirs.
    AdSlot.update(display_name="運用中の名前").where(AdSlot.id == midroll).execute()
    migrations.upgrade()
    assert AdSlot.get_by_id(midroll).display_name == "運用中の名前"
    AdSlot.update(display_name="検索結果の途中").where(AdSlot.id == midroll).execute()


def test_db_upgrade_command_reports_up_to_date():
    result = CliRunner().invoke(main, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output
