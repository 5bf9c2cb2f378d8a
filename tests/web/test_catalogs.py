"""The pages' languages need their compiled catalogs: without web/translations/ja/
LC_MESSAGES/messages.mo every page reads English under <html lang="ja">, so production
refuses to start, naming the language, and development starts and says so in the log."""

from __future__ import annotations

import logging
import shutil

import pytest

from models.settings import ConfigError
from tests.factories import production_app
from web import catalogs
from web.app import create_app

pytestmark = pytest.mark.database_independent

COMPILED = catalogs.catalog_path("ja")


@pytest.fixture
def translations(tmp_path, monkeypatch):
    """A copy of the catalogs the app reads from, to take one away."""
    copy = tmp_path / "translations"
    shutil.copytree(catalogs.TRANSLATIONS, copy)
    monkeypatch.setattr(catalogs, "TRANSLATIONS", copy)
    return copy


def test_the_checkout_has_the_compiled_japanese_catalog():
    assert COMPILED.is_file(), "run `make translations`"
    assert catalogs.missing_catalogs() == []


def test_production_starts_with_every_catalog(translations):
    assert production_app().name == "web"


def test_production_refuses_to_start_without_the_japanese_catalog(translations):
    (translations / "ja" / "LC_MESSAGES" / "messages.mo").unlink()
    with pytest.raises(ConfigError, match=r"ja: .*messages\.mo is missing"):
        production_app()


def test_production_refuses_a_catalog_that_is_not_one(translations):
    (translations / "ja" / "LC_MESSAGES" / "messages.mo").write_bytes(b"not a catalog")
    with pytest.raises(ConfigError, match=r"ja: .*cannot be read"):
        production_app()


def test_english_needs_no_catalog_its_words_are_the_source(translations):
    (translations / "en" / "LC_MESSAGES" / "messages.mo").unlink()
    assert production_app().name == "web"


def test_development_starts_without_and_says_why_pages_read_english(translations, settings, caplog):
    (translations / "ja" / "LC_MESSAGES" / "messages.mo").unlink()
    with caplog.at_level(logging.WARNING, logger="web"):
        create_app(settings)
    assert any(
        "pages will read English" in record.getMessage() and "ja:" in record.getMessage()
        for record in caplog.records
    )
