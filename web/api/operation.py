"""One declaration per API call: who may call it, its path, query and body models, and
its answers. The declaration validates the request before the view runs (views get
parsed models, never raw input), feeds the OpenAPI document, and in development and
tests checks every answer against the declared model.

    @bp.post("/videos/<video_id>/unlock")
    @operation(auth=MEMBER, path=VideoPath, responses={200: Unlocked}, errors=(409,))
    def unlock(path: VideoPath) -> Response: ...
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypedDict, TypeVar, Unpack
from urllib.parse import parse_qsl

from flask import Response, current_app, make_response, request
from flask.typing import ResponseReturnValue
from pydantic import BaseModel
from pydantic import ValidationError as SchemaError
from pydantic_core import ErrorDetails
from werkzeug.datastructures import MultiDict

from models.errors import DomainError, Forbidden, NotFound, ValidationError
from models.problems import Problem
from web.api.schemas.common import ErrorBody
from web.idempotency import once
from web.visitor import Unauthenticated, viewer

PUBLIC, MEMBER, ADMIN = "public", "member", "admin"
JSON, MULTIPART, SIGNED, NO_BODY = "json", "multipart", "signed", "none"

# A JSON body larger than this is refused with 413 (uploads have their own limit).
MAX_JSON_BYTES = 64 * 1024
# A query string longer than this (as sent, percent-encoded) is refused with 414 in the
# contract's format: well under gunicorn's 4094-byte request line, above which gunicorn
# answers its own 414 before the app, and above every query the document allows in
# practice (a 200-character Japanese q is 1,800 bytes encoded).
MAX_QUERY_BYTES = 3072


class PayloadTooLarge(DomainError):
    code = "payload_too_large"
    status = 413
    message = f"A JSON body may be at most {MAX_JSON_BYTES // 1024} KB."


class UriTooLong(DomainError):
    code = "uri_too_long"
    status = 414
    message = f"The query string may be at most {MAX_QUERY_BYTES} bytes."


class ResponseMismatch(AssertionError):
    """An answer that its declaration does not describe: a bug, found in tests."""


@dataclass(frozen=True)
class Operation:
    summary: str
    auth: str = PUBLIC
    path: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    body: type[BaseModel] | None = None
    body_kind: str = JSON
    body_required: bool = True
    # status -> the body's model; None for no body; a media type for a body not ours
    responses: dict[int, type[BaseModel] | str | None] = field(default_factory=dict)
    # status -> media types of a file the call may send in place of that JSON body (a
    # download, `Content-Disposition: attachment`), chosen by a query parameter
    files: dict[int, tuple[str, ...]] = field(default_factory=dict)
    errors: tuple[int, ...] = ()
    # status -> what that error means for this call, in place of the general description
    # (409: which conflicts, by code)
    error_descriptions: dict[int, str] = field(default_factory=dict)
    redirect: bool = False
    tags: tuple[str, ...] = ()
    # An Idempotency-Key header makes a repeat answer the first answer (web/idempotency.py)
    idempotent: bool = False

    def error_statuses(self, method: str) -> list[int]:
        """Every error this call can answer, for the document."""
        statuses = {400, *self.errors}
        if self.idempotent:
            statuses.add(409)  # the key's first request still runs, or was another
        if self.auth != PUBLIC:
            statuses.add(401)
        if self.auth == ADMIN or (self.auth == MEMBER and method != "GET"):
            statuses.add(403)  # not an administrator; a cross-site or non-JSON write
        if self.path is not None:
            statuses.add(404)
        if method != "GET" and self.body_kind == JSON:
            statuses.add(415)  # a body that is not application/json
        if self.body is not None and self.body_kind == JSON:
            statuses.add(413)
        if self.query is not None and self.query.model_config.get("extra") != "ignore":
            statuses.add(414)  # the query string is longer than MAX_QUERY_BYTES
        return sorted(statuses)


class Declaration(TypedDict, total=False):
    """What `operation(...)` takes besides the summary: Operation's other fields."""

    auth: str
    path: type[BaseModel] | None
    query: type[BaseModel] | None
    body: type[BaseModel] | None
    body_kind: str
    body_required: bool
    responses: dict[int, type[BaseModel] | str | None]
    files: dict[int, tuple[str, ...]]
    errors: tuple[int, ...]
    error_descriptions: dict[int, str]
    redirect: bool
    tags: tuple[str, ...]
    idempotent: bool


View = Callable[..., ResponseReturnValue]


class DeclaredView:
    """A view with its declaration as `operation`, where the document, the answer check
    and the rate limits read it. Flask routes it as the function it wraps: its name, and
    so its endpoint, are that function's."""

    def __init__(self, view: View, spec: Operation) -> None:
        functools.update_wrapper(self, view)
        self.view = view
        self.operation = spec

    def __call__(self, **path_values: object) -> ResponseReturnValue:
        return self.view(**path_values)


def declaration(view: object) -> Operation | None:
    """The declaration of a routed view, None for a view without one."""
    spec = getattr(view, "operation", None)
    return spec if isinstance(spec, Operation) else None


def operation(summary: str = "", **declared: Unpack[Declaration]) -> Callable[[View], DeclaredView]:
    def decorate(view: View) -> DeclaredView:
        spec = Operation(summary=summary or _first_line(view.__doc__), **declared)

        @functools.wraps(view)
        def run(**path_values: object) -> ResponseReturnValue:
            _check_auth(spec.auth)
            kwargs: dict[str, BaseModel] = {}
            if spec.path is not None:
                kwargs["path"] = parse_path(spec.path, path_values)
            if spec.query is not None:
                kwargs["query"] = parse_query(spec.query)
            elif request.args:
                raise _unknown_parameters(request.args)
            if spec.body is not None and spec.body_kind == JSON:
                kwargs["body"] = json_body(spec.body, required=spec.body_required)
            if spec.idempotent:
                return once(_request_identity(), lambda: make_response(view(**kwargs)))
            return view(**kwargs)

        return DeclaredView(run, spec)

    return decorate


def _request_identity() -> str:
    """What a request does: method, path and a digest of its body; an Idempotency-Key
    sent again with another identity is refused."""
    digest = hashlib.sha256(request.get_data(cache=True)).hexdigest()
    return f"{request.method} {request.path} {digest}"


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n")[0].rstrip(".")


def _check_auth(auth: str) -> None:
    if auth == PUBLIC:
        return
    user = viewer()
    if user is None:
        raise Unauthenticated()
    if auth == ADMIN and not user.is_admin:
        raise Forbidden("Administrators only.")


Model = TypeVar("Model", bound=BaseModel)


def parse_path(model: type[Model], values: Mapping[str, object]) -> Model:
    """A path variable of the wrong shape names nothing: 404, before any query."""
    try:
        return model.model_validate(values)
    except SchemaError:
        raise NotFound() from None


def parse_query(model: type[Model], *, known_only: bool = False) -> Model:
    """Each query parameter through the model, as the document states it: an empty
    value is a value, a parameter given twice or not named by the model is refused.

    `known_only` reads a page's address instead: a form sends its empty fields and an
    address may carry parameters of its own (utm_...), so empty values count as absent
    and only the model's parameters are read. A model that ignores extra parameters (the
    beacons: a click must never fail the visitor) is read the same way."""
    if known_only or model.model_config.get("extra") == "ignore":
        names = {f.alias or name for name, f in model.model_fields.items()}
        args = _lenient_args()
        values = {key: args[key] for key in args if key in names}
        values = {key: value for key, value in values.items() if value != ""}
    else:
        if len(request.query_string) > MAX_QUERY_BYTES:
            raise UriTooLong()
        repeated = [key for key, sent in request.args.lists() if len(sent) > 1]
        if repeated:
            raise ValidationError(fields=dict.fromkeys(repeated, "given more than once"))
        values = request.args.to_dict()
    try:
        return model.model_validate(values)
    except SchemaError as error:
        raise _validation_error(error, "query") from None


def _lenient_args() -> MultiDict[str, str]:
    """The query's parameters, read even when its raw bytes are not UTF-8 (Werkzeug's
    `request.args` fails then): such bytes become U+FFFD. Only the beacons get this far
    with them; the edge refuses them everywhere else (web/errors.py)."""
    try:
        return request.args
    except UnicodeDecodeError:
        text = request.query_string.decode(errors="replace")
        return MultiDict(parse_qsl(text, keep_blank_values=True, errors="replace"))


def _unknown_parameters(args: Iterable[str]) -> ValidationError:
    """A call without a query model names no parameter: any one sent is refused."""
    return ValidationError(fields=dict.fromkeys(args, Problem("unknown_field")))


def json_body(model: type[Model], *, required: bool = True) -> Model:
    """The request's JSON body through `model`: size, depth, Unicode and shape checked
    by pydantic's own parser (which refuses lone surrogates and deep nesting)."""
    if (request.content_length or 0) > MAX_JSON_BYTES:
        raise PayloadTooLarge()
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BYTES:  # a chunked body says no length up front
        raise PayloadTooLarge()
    if not raw.strip():
        if required:
            raise ValidationError("Send a JSON object as the body.")
        raw = b"{}"
    try:
        return model.model_validate_json(raw)
    except SchemaError as error:
        raise _validation_error(error, "body") from None


# pydantic's error types that are one problem each, whatever their context.
PROBLEM_OF_TYPE = {
    "missing": "required",
    "string_type": "required",
    "extra_forbidden": "unknown_field",
    "string_pattern_mismatch": "bad_format",
    "int_type": "not_an_integer",
    "int_parsing": "unreadable_integer",
}


def _problem(error: ErrorDetails) -> str:
    """A field's problem by pydantic's error type and context, in the words of the
    contract's existing answers: our validators raise a Problem; the errors no page
    translates keep pydantic's sentence."""
    kind, context = error["type"], error.get("ctx") or {}
    if kind in PROBLEM_OF_TYPE:
        return Problem(PROBLEM_OF_TYPE[kind])
    if kind == "string_too_short" and context["min_length"] == 1:
        return Problem("required")
    if kind == "string_too_long":
        return Problem("too_long", n=context["max_length"])
    if kind == "greater_than_equal":
        return Problem("too_small", n=_bound(context["ge"]))
    if kind == "less_than_equal":
        return Problem("too_large", n=_bound(context["le"]))
    if kind == "literal_error" and context["expected"] == "True":
        return Problem("not_true")
    if kind == "value_error":
        raised = context["error"].args
        if raised and isinstance(raised[0], Problem):
            return raised[0]
    return error["msg"].removeprefix("Value error, ")


def _bound(value: float) -> int | float:
    """A bound as pydantic says it: a whole float (`le=1` of a float field) without ".0"."""
    return int(value) if float(value).is_integer() else value


def _validation_error(error: SchemaError, part: str) -> ValidationError:
    """The contract's 400: one entry per field path. Inputs are never echoed."""
    fields: dict[str, str] = {}
    for problem in error.errors(include_url=False, include_input=False):
        if problem["type"] == "json_invalid":
            return ValidationError("The body is not valid JSON (or nests too deeply).")
        if not problem["loc"]:
            return ValidationError(f"The {part} must be a JSON object.")
        fields.setdefault(".".join(str(step) for step in problem["loc"]), _problem(problem))
    return ValidationError(fields=fields)


def check_response(response: Response) -> Response:
    """after_request (development and tests): the answer matches its declaration."""
    spec = declaration(current_app.view_functions.get(request.endpoint or ""))
    if spec is None or response.direct_passthrough or request.method in ("HEAD", "OPTIONS"):
        return response
    status = response.status_code
    model: type[BaseModel] | str | None
    if status in spec.responses:
        model = spec.responses[status]
    elif status >= 400 and status in [*spec.error_statuses(request.method), 405]:
        model = ErrorBody
    else:
        raise ResponseMismatch(f"{request.endpoint} answered an undeclared {status}")
    if response.mimetype in spec.files.get(status, ()):
        return response  # a file, not JSON: its body is the file's own
    if model is None or isinstance(model, str):
        if status == 204 and response.get_data():
            raise ResponseMismatch(f"{request.endpoint} sent a body with 204")
        return response
    try:
        model.model_validate_json(response.get_data())
    except SchemaError as error:
        raise ResponseMismatch(f"{request.endpoint} {status}: {error}") from None
    return response
