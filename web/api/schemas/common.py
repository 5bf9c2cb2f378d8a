"""Shared pieces of the API's declared shapes: the base models, checked text, ids, the
error body. Every request and response model in this package builds on these.

Text is checked once here, before any view or database sees it: valid Unicode (JSON
can carry a lone surrogate escape that no database stores), no NUL (PostgreSQL refuses
it in text), no other control characters but tab and line breaks, bounded length.
"""

from __future__ import annotations

import re
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

from models.countries import usable_country

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


# Ids as this service makes them (uuid4) and as the video platform does.
Uuid = pattern(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", max_length=36)
PLATFORM_ID = r"^[A-Za-z0-9_-]{1,64}$"
PlatformId = pattern(PLATFORM_ID, max_length=64)
Month = pattern(r"^[0-9]{4}-(0[1-9]|1[0-2])$", max_length=7)
Date = pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", max_length=10)


def _iso_country(value: str) -> str:
    code = usable_country(value)
    if code is None:
        raise ValueError("an ISO 3166-1 alpha-2 country code")
    return code


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
    whole answer)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


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
    """Every error of the API (CONTRACT 0)."""

    error: ErrorDetail
