"""One rule each for slots, countries and months: the API's schemas and the domain call
the same function, so they refuse and accept the same values."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter
from pydantic import ValidationError as SchemaError

from models.ads.admin import status_problem
from models.ads.inventory import slot_problem
from models.ads.months import month_problem
from models.countries import country_problem
from web.api.schemas.ads import Slot, Status
from web.api.schemas.common import CountryCode, Month

pytestmark = pytest.mark.database_independent

MONTHS = [
    "2027-01",
    "2027-12",
    "2027-13",
    "2027-00",
    "2027-1",
    "27-01",
    "2027/01",
    "\u0662\u0660\u0662\u0667-01",  # Arabic-Indic digits: Python's \\d would take them
    "２０２７-01",  # full-width digits
    "2027-01\n",
    " 2027-01",
    "",
]
SLOTS = [
    "search-result-midroll",
    "search-result-bottom",
    "video-detail-below-player",
    "video-detail-below-subtitle",
    "sidebar",
    "Search-Result-Bottom",
    "search-result-bottom ",
    "",
]
COUNTRIES = ["JP", "jp", " us ", "XX", "T1", "ZZ", "JPN", "Japan", ""]
STATUSES = ["pending_review", "active", "stopped", "expired", "paid", "Active", ""]


def schema_accepts(kind, value: str) -> bool:
    try:
        TypeAdapter(kind).validate_python(value)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize(
    ("kind", "problem", "values"),
    [
        (Month, month_problem, MONTHS),
        (Slot, slot_problem, SLOTS),
        (CountryCode, country_problem, COUNTRIES),
        (Status, status_problem, STATUSES),
    ],
    ids=["month", "slot", "country", "status"],
)
def test_the_schema_and_the_domain_agree(kind, problem, values):
    for value in values:
        assert schema_accepts(kind, value) == (problem(value) is None), value


@pytest.mark.parametrize(
    ("kind", "value", "words"),
    [
        (Month, "2027-13", "a month as YYYY-MM"),
        (Slot, "sidebar", "one of search-result-midroll, search-result-bottom"),
        (CountryCode, "XX", "an ISO 3166-1 alpha-2 country code"),
    ],
)
def test_the_schema_refuses_in_the_domains_words(kind, value, words):
    with pytest.raises(SchemaError) as error:
        TypeAdapter(kind).validate_python(value)
    assert words in str(error.value)


def test_months_are_ascii_digits_only():
    assert month_problem("\u0662\u0660\u0662\u0667-01") == "a month as YYYY-MM"
    assert month_problem("2027-01") is None
