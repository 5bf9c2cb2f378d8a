"""Shared pieces of the API's declared shapes: the base models, checked text, ids, the
error body. Every request and response model in this package builds on these.

Text is checked once here, before any view or database sees it: valid Unicode (JSON
can carry a lone surrogate escape that no database stores), no NUL (PostgreSQL refuses
it in text), no other control characters but tab and line breaks, bounded length.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)
from pydantic.alias_generators import to_camel

from models.ads.months import MONTH_LENGTH, MONTH_PATTERN, month_problem
from models.countries import country_problem, usable_country
from models.errors import ValidationError

# Control characters other than tab, line feed and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _valid_unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text") from None
    if _CONTROL.search(value):
        raise ValueError("must not contain control characters")
    return value


def text(max_length: int, *, min_length: int = 0, strip: bool = True) -> Any:
    """A string of valid Unicode, stripped (by default), from min to max characters."""
    return Annotated[
        str,
        StringConstraints(strip_whitespace=strip, min_length=min_length, max_length=max_length),
        AfterValidator(_valid_unicode),
    ]


def one_of(values, message: str, *, max_length: int = 64) -> Any:
    """Text that must be one of `values` (stripped; blank is "required")."""

    def check(value: str) -> str:
        if value not in values:
            raise ValueError(message)
        return value

    return Annotated[
        text(max_length, min_length=1),
        AfterValidator(check),
        Field(json_schema_extra={"enum": list(values)}),
    ]


def pattern(regex: str, *, max_length: int) -> Any:
    return Annotated[str, StringConstraints(pattern=regex, max_length=max_length)]


def checked(problem: Callable[[str], str | None], shown_as: dict[str, Any], **limits: int) -> Any:
    """Text held to a rule of the domain: `problem` says why a value is refused (the same
    function the domain calls), `shown_as` is the rule as the document shows it."""

    def check(value: str) -> str:
        found = problem(value)
        if found:
            raise ValueError(found)
        return value

    return Annotated[
        str,
        StringConstraints(**limits),
        AfterValidator(check),
        Field(json_schema_extra=shown_as),
    ]


# Ids as this service makes them (uuid4) and as the video platform does.
Uuid = pattern(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", max_length=36)
PLATFORM_ID = r"^[A-Za-z0-9_-]{1,64}$"
PlatformId = pattern(PLATFORM_ID, max_length=64)
Month = checked(month_problem, {"pattern": MONTH_PATTERN}, max_length=MONTH_LENGTH)
Date = pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", max_length=10)


def _iso_country(value: str) -> str:
    problem = country_problem(value)
    if problem:
        raise ValueError(problem)
    return usable_country(value) or value


# One of the 249 ISO 3166-1 alpha-2 codes, any case in, upper case out.
CountryCode = Annotated[
    str, AfterValidator(_iso_country), Field(json_schema_extra={"pattern": "^[A-Za-z]{2}$"})
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
    their text, and an empty value the same as an absent one."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )

    @model_validator(mode="before")
    @classmethod
    def _empty_is_absent(cls, values):
        if isinstance(values, dict):
            return {key: value for key, value in values.items() if value != ""}
        return values


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
