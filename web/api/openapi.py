"""The OpenAPI 3.1 document, generated from the routes and their declarations
(web/api/operation.py), and a human view of it: GET /api/openapi.json, GET /api/docs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, current_app, jsonify, render_template
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from models.payments import webhooks
from models.search import DEFAULT_SEMANTIC_RATIO
from web.api.blueprint import bp
from web.api.operation import (
    ADMIN,
    JSON,
    MAX_QUERY_BYTES,
    MEMBER,
    MULTIPART,
    NO_BODY,
    SIGNED,
    Operation,
    declaration,
    operation,
)
from web.api.schemas.common import ErrorBody
from web.idempotency import HEADER as IDEMPOTENCY_HEADER

REF = "#/components/schemas/{model}"
SESSION_COOKIE = "subsearch_session"
_VARIABLE = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")

DESCRIPTIONS = {
    200: "OK",
    201: "Created",
    202: "Accepted: counted",
    204: "Done; no body",
    302: "Redirect",
    400: "The request is not valid (`invalid_request`, with `fields` per field path)",
    401: "Not signed in (`unauthenticated`)",
    402: "Not enough credits",
    403: "Not allowed: not an administrator, a locked video, or a cross-site or "
    "non-JSON write with the session cookie (`forbidden`)",
    404: "No such resource (`not_found`); an id of the wrong shape is one",
    409: "Conflicts with the current state",
    413: "The body is too large",
    414: f"The query string is longer than {MAX_QUERY_BYTES} bytes as sent (`uri_too_long`)",
    415: "The body is not `application/json`",
    500: "The event could not be applied; the provider sends it again",
    502: "The payment provider refused the request",
    503: "A part the call needs (payment provider, search engine, queue) is not answering",
}

# What a tag's calls share, where no one parameter's description can say it.
TAGS = [
    {
        "name": "search",
        "description": (
            "Search by meaning: `semantic=1` asks for it and `sr` weighs it, from 0 (keywords "
            f"only) to 1 (meaning only), {DEFAULT_SEMANTIC_RATIO} by default; between the two "
            "the keyword and meaning rankings are fused with that weight, so a paraphrase or "
            "the other language (Japanese or English) finds what a keyword search misses. "
            "Without `semantic=1`, `sr` counts for nothing. Every answer says "
            "`semantic: {requested, applied}`: `applied` is true when the server's embedding "
            "model is loaded and the search was made by meaning as asked; false (as when the "
            "operator turned it off) means keyword results only. A moment, title or "
            "description found by meaning alone has a `highlight` without `<mark>`: the "
            "whole text is the match. Searches of a signed-in member, with `semantic` and "
            "`sr`, are kept in the search history."
        ),
    }
]


def _operations(app: Flask) -> Iterator[tuple[str, str, str, Operation | None]]:
    """(OpenAPI path, method, endpoint, declaration) of every /api route."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if not rule.rule.startswith("/api/"):
            continue
        view = app.view_functions[rule.endpoint]
        path = _VARIABLE.sub(r"{\1}", rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield path, method.lower(), rule.endpoint, declaration(view)


def undeclared(app: Flask) -> list[str]:
    """Routes under /api without a declaration (a test keeps this empty)."""
    return [f"{m.upper()} {p}" for p, m, _e, spec in _operations(app) if spec is None]


def build_document(app: Flask) -> dict[str, Any]:
    specs = [(p, m, e, s) for p, m, e, s in _operations(app) if s is not None]
    models: set[type[BaseModel]] = {ErrorBody}
    for *_rest, spec in specs:
        models.update(
            model for model in (spec.body, *spec.responses.values()) if isinstance(model, type)
        )
    _keys, schemas = models_json_schema(
        [(model, "validation") for model in sorted(models, key=lambda m: m.__name__)],
        ref_template=REF,
    )
    paths: dict[str, dict[str, dict[str, Any]]] = {}
    for path, method, endpoint, spec in specs:
        paths.setdefault(path, {})[method] = _operation(path, method, endpoint, spec)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "subsearch API",
            "version": "1",
            "description": (
                "Subtitle search, credits and unlocks, plans, referrals and direct ads. "
                'Errors are always `{"error": {"code", "message", "fields"?}}`. '
                "Signed-in calls use the session cookie; a state-changing call with it "
                "must be `application/json` (even with no body) or carry `X-CSRFToken`, "
                "and is refused when it comes from another site. "
                "Every rule a request is held to is in this document: a query parameter "
                "the call does not list, or one given twice, is refused (400, except the "
                "click and impression beacons, which ignore what a page adds); an empty "
                "value is a value, held to the parameter's schema like any other; text "
                "never holds control characters other than tab and line breaks, is "
                "limited as sent and stripped of surrounding spaces; a query string "
                f"longer than {MAX_QUERY_BYTES} bytes is refused with 414 (a request line "
                "over 4094 bytes is refused by the HTTP server before the service, "
                "without this error body)."
            ),
        },
        "servers": [{"url": "/"}],
        "tags": TAGS,
        "paths": paths,
        "components": {
            "schemas": schemas.get("$defs", {}),
            "securitySchemes": {
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": SESSION_COOKIE,
                    "description": "The session cookie set by signing in (/login).",
                }
            },
        },
    }


def _operation(path: str, method: str, endpoint: str, spec: Operation) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "operationId": endpoint.rsplit(".", 1)[-1],
        "summary": spec.summary,
        "tags": list(spec.tags) or [_tag(path)],
        "parameters": _parameters(spec),
        "responses": _responses(method, spec),
    }
    if spec.auth in (MEMBER, ADMIN):
        doc["security"] = [{"session": []}]
        if spec.auth == ADMIN:
            doc["x-role"] = "admin"
            doc["description"] = "Administrators only: members get 403."
    else:
        doc["security"] = []
    body = _request_body(spec)
    if body:
        doc["requestBody"] = body
    if not doc["parameters"]:
        del doc["parameters"]
    return doc


def _tag(path: str) -> str:
    parts = path.split("/")
    return "admin" if parts[2] == "admin" else parts[2]


def _parameters(spec: Operation) -> list[dict[str, Any]]:
    parameters: list[dict[str, Any]] = []
    for where, model in (("path", spec.path), ("query", spec.query)):
        if model is None:
            continue
        schema = model.model_json_schema(ref_template=REF)
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            prop = {k: v for k, v in prop.items() if k != "title"}
            parameter = {"name": name, "in": where, "required": where == "path" or name in required}
            if "description" in prop:
                parameter["description"] = prop.pop("description")
            parameter["schema"] = prop
            parameters.append(parameter)
    if spec.idempotent:
        parameters.append(
            {
                "name": IDEMPOTENCY_HEADER,
                "in": "header",
                "required": False,
                "description": "One UUID per click: the same key sent again by the same "
                "member answers the first answer and changes nothing (kept 24 h; 409 "
                "`request_in_progress` while the first runs, 409 `idempotency_key_reused` "
                "for another request)",
                # What models/idempotency.checked_key takes: visible ASCII, as a UUID is.
                "schema": {"type": "string", "pattern": "^[!-~]{1,255}$"},
            }
        )
    if spec.body_kind == SIGNED:
        parameters.append(
            {
                "name": webhooks.SIGNATURE_HEADER,
                "in": "header",
                "required": True,
                "description": "The provider's signature of the raw body "
                "(`t=<unix time>,v1=<HMAC-SHA256 hex>`), checked against every "
                "configured webhook secret",
                "schema": {"type": "string"},
            }
        )
    return parameters


def _request_body(spec: Operation) -> dict[str, Any] | None:
    if spec.body_kind == NO_BODY:
        return None
    if spec.body_kind == MULTIPART:
        schema: dict[str, Any] = {
            "type": "object",
            "required": ["file"],
            "properties": {"file": {"type": "string", "contentMediaType": "image/*"}},
        }
        return {"required": True, "content": {"multipart/form-data": {"schema": schema}}}
    if spec.body is None:
        return None
    ref = {"$ref": REF.format(model=spec.body.__name__)}
    required = spec.body_required if spec.body_kind == JSON else True
    return {"required": required, "content": {"application/json": {"schema": ref}}}


def _responses(method: str, spec: Operation) -> dict[str, dict[str, Any]]:
    responses: dict[str, dict[str, Any]] = {}
    for status, model in spec.responses.items():
        answer: dict[str, Any] = {"description": DESCRIPTIONS.get(status, "")}
        if isinstance(model, str):  # a media type whose body is not ours to describe
            free = {"type": "object"} if model.endswith("json") else {"type": "string"}
            answer["content"] = {model: {"schema": free}}
        elif model is not None:
            answer["content"] = {
                "application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}
            }
        for media_type in spec.files.get(status, ()):
            answer.setdefault("content", {})[media_type] = {"schema": {"type": "string"}}
        if spec.files.get(status):
            answer["headers"] = {
                "Content-Disposition": {
                    "schema": {"type": "string"},
                    "description": "With a file: `attachment`, its name in ASCII "
                    "(`filename=`) and in UTF-8 (`filename*=UTF-8''...`, RFC 6266)",
                }
            }
        if status == 302:
            answer["headers"] = {
                "Location": {"schema": {"type": "string"}, "description": "Where to go"}
            }
        responses[str(status)] = answer
    error = {"application/json": {"schema": {"$ref": REF.format(model="ErrorBody")}}}
    for status in spec.error_statuses(method.upper()):
        if str(status) not in responses:
            described = spec.error_descriptions.get(status, DESCRIPTIONS[status])
            responses[str(status)] = {"description": described, "content": error}
    return responses


def document(app: Flask) -> dict[str, Any]:
    """Built once per app: the routes do not change while it runs."""
    if "subsearch_openapi" not in app.extensions:
        app.extensions["subsearch_openapi"] = build_document(app)
    built: dict[str, Any] = app.extensions["subsearch_openapi"]
    return built


@bp.get("/openapi.json")
@operation("This document (OpenAPI 3.1)", responses={200: "application/json"})
def openapi_document() -> Response:
    return jsonify(document(current_app))


@bp.get("/docs")
@operation("A readable view of this document", responses={200: "text/html"})
def api_docs() -> str:
    return render_template("api_docs.html")
