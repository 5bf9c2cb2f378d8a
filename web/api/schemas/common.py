"""Shared pieces of the API's declared shapes: the base models, checked text, ids, the
error body. Every request and response model in this package builds on these.

Text is checked once here, before any view or database sees it: valid Unicode (JSON
can carry a lone surrogate escape that no database stores), no NUL (PostgreSQL refuses
it in text), no other control characters but tab and line breaks, bounded length.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Annotated, Any, TypeVar

from annotated_types import GroupedMetadata
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
)
from pydantic.alias_generators import to_camel
from pydantic.config import JsonDict

from models.ads.months import MONTH_LENGTH, MONTH_PATTERN, month_problem
from models.countries import ISO_COUNTRY_CODES, country_problem, usable_country
from models.errors import ValidationError
from models.problems import Problem

# Control characters other than tab, line feed and carriage return: a class body that
# Python's re and the document's ECMA-262 patterns read alike.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
_CONTROL = re.compile(f"[{CONTROL}]")
# What str.strip() takes away (str.isspace), spelled out for the document's patterns.
SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# The spaces text may hold around its value: SPACE but the control characters text()
# refuses (\x0b, \x0c, \x1c-\x1f), for the patterns of fields read as text.
TEXT_SPACE = r"\t\n\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# Text as the document shows it: no control character, and for a required field at least
# one character that is not a space.
ANY_TEXT = f"^[^{CONTROL}]*$"
SOME_TEXT = f"^[^{CONTROL}]*[^{CONTROL}{SPACE}][^{CONTROL}]*$"


def _valid_unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(Problem("invalid_unicode")) from None
    if _CONTROL.search(value):
        raise ValueError(Problem("control_characters"))
    return value


def _stripped(value: str) -> str:
    return value.strip()


def _required(value: str) -> str:
    if not value:
        raise ValueError(Problem("required"))
    return value


class Rules(GroupedMetadata):
    """A text rule's pydantic metadata as one annotation, unpacked by pydantic in order:
    `name: Annotated[str, text(100)]`. (A function call is not a type, so a rule that
    takes arguments goes inside Annotated.)"""

    def __init__(self, *items: object) -> None:
        self.items = items

    def __iter__(self) -> Iterator[object]:
        return iter(self.items)


def text(max_length: int, *, min_length: int = 0, strip: bool = True) -> Rules:
    """A string of valid Unicode without control characters, at most `max_length`
    characters as sent, then stripped (by default); `min_length` 1: not blank. The
    document shows the same rule as `maxLength` and a pattern."""
    if min_length not in (0, 1):
        raise ValueError("text() takes min_length 0 or 1: longer minimums are a pattern")
    checks = [AfterValidator(_valid_unicode)]
    if strip:
        checks.append(AfterValidator(_stripped))
    if min_length:
        checks.append(AfterValidator(_required))
    shown: JsonDict = (
        {"minLength": 1, "pattern": SOME_TEXT} if min_length else {"pattern": ANY_TEXT}
    )
    return Rules(
        StringConstraints(max_length=max_length),
        *checks,
        Field(json_schema_extra=shown),
    )


def one_of(values: Collection[str], problem: Problem) -> Rules:
    """Text that must be exactly one of `values` (blank is "required")."""

    def check(value: str) -> str:
        if not value.strip():
            raise ValueError(Problem("required"))
        if value not in values:
            raise ValueError(problem)
        return value

    return Rules(AfterValidator(check), Field(json_schema_extra={"enum": list(values)}))


def pattern(regex: str, *, max_length: int) -> Rules:
    return Rules(StringConstraints(pattern=regex, max_length=max_length))


def checked(
    problem: Callable[[str], str | None], shown_as: JsonDict, *, max_length: int | None = None
) -> Rules:
    """Text held to a rule of the domain: `problem` says why a value is refused (the same
    function the domain calls), `shown_as` is the rule as the document shows it."""

    def check(value: str) -> str:
        found = problem(value)
        if found:
            raise ValueError(found)
        return value

    return Rules(
        StringConstraints(max_length=max_length),
        AfterValidator(check),
        Field(json_schema_extra=shown_as),
    )


Choice = TypeVar("Choice", bound=str)


def known(value: str, choices: Collection[Choice]) -> Choice:
    """`value` as one of a response field's fixed `choices` (its Literal's values), for a
    domain object that keeps it as plain text; ValueError for any other, as the model
    would refuse it."""
    for choice in choices:
        if value == choice:
            return choice
    raise ValueError(f"{value!r} is not one of {', '.join(choices)}")


# Ids as this service makes them (uuid4) and as the video platform does.
Uuid = Annotated[
    str, pattern(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", max_length=36)
]
PLATFORM_ID = r"^[A-Za-z0-9_-]{1,64}$"
PlatformId = Annotated[str, pattern(PLATFORM_ID, max_length=64)]
Month = Annotated[str, checked(month_problem, {"pattern": MONTH_PATTERN}, max_length=MONTH_LENGTH)]
DATE_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"


def _date_problem(value: str) -> str | None:
    try:
        date.fromisoformat(value)
    except ValueError:
        return "a date as YYYY-MM-DD"
    return None if re.fullmatch(DATE_PATTERN, value) else "a date as YYYY-MM-DD"


# A calendar day, YYYY-MM-DD (no 2026-02-30).
Date = Annotated[
    str, checked(_date_problem, {"pattern": DATE_PATTERN, "format": "date"}, max_length=10)
]


def _iso_country(value: str) -> str:
    problem = country_problem(value)
    if problem:
        raise ValueError(problem)
    return usable_country(value) or value


def _country_pattern(codes: Iterable[str]) -> str:
    """The codes as one pattern, any case, grouped by first letter ([Jj][EeMmOoPp])."""
    by_first: dict[str, list[str]] = {}
    for code in sorted(codes):
        by_first.setdefault(code[0], []).append(code[1])
    groups = "|".join(
        f"[{first}{first.lower()}][{''.join(seconds)}{''.join(seconds).lower()}]"
        for first, seconds in by_first.items()
    )
    return f"^[{SPACE}]*({groups})[{SPACE}]*$"


COUNTRY_PATTERN = _country_pattern(ISO_COUNTRY_CODES)
# One of the 249 ISO 3166-1 alpha-2 codes, any case in (spaces around ignored), upper
# case out.
CountryCode = Annotated[
    str,
    AfterValidator(_iso_country),
    Field(
        json_schema_extra={
            "pattern": COUNTRY_PATTERN,
            "description": "One of the 249 ISO 3166-1 alpha-2 country codes (any case)",
        }
    ),
]
# A database integer id: positive and within a signed 64-bit column.
RowId = Annotated[int, Field(ge=1, le=2**63 - 1)]
Timestamp = Annotated[str, Field(description="ISO 8601 date-time, UTC")]


class Body(BaseModel):
    """A JSON body: camelCase names, unknown fields refused, JSON types taken as they
    are (no "3" for 3, no true for 1)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True, strict=True
    )


class Query(BaseModel):
    """A query string: camelCase names, unknown parameters refused, numbers read from
    their text. An empty value is a value, held to the parameter's rule like any other
    (the API's callers send what they mean; a page's form is read by parse_query)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class PathParams(BaseModel):
    """A route's path variables, by the names the route gives them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Response(BaseModel):
    """A response body: camelCase names, and nothing undeclared (so the document is the
    whole answer). Models built from the domain's objects say how, in `of()`."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def as_json(self) -> dict[str, Any]:
        """The answer as the contract spells it; a field left to its default is left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


@contextmanager
def api_field_names() -> Iterator[None]:
    """The domain names a refused field as it does (`profile.contact_email`); the API, as
    the request did (`profile.contactEmail`)."""
    try:
        yield
    except ValidationError as error:
        error.fields = {
            ".".join(to_camel(part) for part in name.split(".")): problem
            for name, problem in error.fields.items()
        }
        raise


class Open(BaseModel):
    """A body whose shape belongs to someone else (a provider's event)."""

    model_config = ConfigDict(extra="allow")


class ErrorDetail(Response):
    code: str = Field(description="Stable machine-readable code, e.g. invalid_request")
    message: str = Field(description="A sentence for people")
    fields: dict[str, str] | None = Field(
        default=None, description="Per-field problems, keyed by the field's dotted path"
    )


class ErrorBody(Response):
    """Every error of the API has this shape."""

    error: ErrorDetail
