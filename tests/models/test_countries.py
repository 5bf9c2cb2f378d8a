"""users.country: written once, only with one of the 249 ISO codes."""

from __future__ import annotations

import logging

import pytest

from models.countries import ISO_COUNTRY_CODES, backfill_user_country, usable_country
from models.tables import User
from tests.factories import make_user


def test_there_are_249_codes():
    assert len(ISO_COUNTRY_CODES) == 249


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("JP", "JP"),
        ("jp", "JP"),
        ("XX", None),
        ("T1", None),
        (None, None),
        ("", None),
        ("JPN", None),
        ("ZZ", None),
        ("EU", None),
    ],
)
def test_usable_country(header, expected):
    assert usable_country(header) == expected


def test_backfill_writes_once_and_never_overwrites():
    user = make_user()
    assert backfill_user_country(user.id, "JP") is True
    assert backfill_user_country(user.id, "US") is False
    assert User.get_by_id(user.id).country == "JP"


def test_a_failed_backfill_is_logged_not_raised(monkeypatch, caplog):
    user = make_user()

    def broken(*_args, **_kwargs):
        raise RuntimeError("database went away")

    monkeypatch.setattr(User, "update", broken)
    with caplog.at_level(logging.ERROR):
        assert backfill_user_country(user.id, "JP") is False
    assert "country backfill failed" in caplog.text
