"""One place that turns failures into answers: the contract's JSON body under /api/,
an HTML page elsewhere. Internals never leak."""

from __future__ import annotations

import logging
import string
from urllib.parse import quote, unquote_to_bytes

from flask import Flask, Response, jsonify, make_response, render_template, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import BadRequest, HTTPException, MethodNotAllowed

from models.errors import DomainError, ValidationError
from models.payments import PaymentError, PaymentUnavailable
from models.search import IndexNotReady, SearchBusy, SearchError
from web.csrf import CSRFError
from web.i18n import ERROR_CODES
from web.translation import gettext as _
from web.translation import lazy_gettext

log = logging.getLogger(__name__)

INDEX_NOT_READY = (
    "The search index is not set up for this version: the operator runs"
    " `subsearch db upgrade`, then `subsearch search reindex`."
)

SEARCH_BUSY = (
    "The search took longer than it may and was stopped; try again in a few seconds,"
    " or with more or longer words."
)

CODES = {
    400: "invalid_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}

MESSAGES = {
    400: "The request is not valid.",
    401: "Sign in to continue.",
    403: "You do not have access to this.",
    404: "Not found.",
    405: "This method is not allowed here.",
    413: "The request body is too large.",
    415: "Send the body as application/json.",
    429: "Too many requests; try again later.",
    500: "Something went wrong on our side.",
}


# What the pages (not the API) say, in the reader's words.
PAGE_MESSAGES = {
    400: lazy_gettext("Please check what you entered."),
    401: lazy_gettext("Please sign in to continue."),
    403: lazy_gettext("You do not have access to this."),
    404: lazy_gettext("This page does not exist."),
    405: lazy_gettext("This page cannot be used this way."),
    413: lazy_gettext("What you sent is too large."),
    415: lazy_gettext("This kind of file is not accepted."),
    429: lazy_gettext("Too many requests. Wait a moment and try again."),
    500: lazy_gettext("Something went wrong on our side."),
    503: lazy_gettext("The service is busy. Try again in a moment."),
}


def page_message(status: int, code: str | None = None) -> str:
    """The reader's sentence for a failure: its code's words, else its status's."""
    if code and code in ERROR_CODES and code not in CODES.values():
        return str(ERROR_CODES[code])
    return str(PAGE_MESSAGES.get(status, _("Something went wrong.")))


def error_response(
    status: int,
    code: str | None = None,
    message: str | None = None,
    fields: dict[str, str] | None = None,
) -> tuple[Response, int]:
    body: dict[str, str | dict[str, str]] = {
        "code": code or CODES.get(status, "error"),
        "message": message or MESSAGES.get(status, ""),
    }
    if fields:
        body["fields"] = fields
    return jsonify(error=body), status


def wants_json() -> bool:
    """The API, and any call that sent JSON (the dev login), get JSON errors."""
    return request.path.startswith("/api/") or request.path == "/api" or request.is_json


def _page(status: int, message: str) -> tuple[str, int]:
    return render_template("error.html", status=status, message=message), status


def handle_domain_error(error: DomainError) -> tuple[Response, int] | tuple[str, int]:
    if error.fields:
        log.info("%s %s refused: %s", request.method, request.path, error.fields)
    if wants_json():
        return error_response(error.status, error.code, error.message, error.fields)
    return _page(error.status, page_message(error.status, error.code))


def handle_http_error(error: HTTPException) -> ResponseReturnValue:
    status = error.code or 500
    if wants_json():
        if status == 413 and request.path == "/api/uploads/ad-image":
            return error_response(413, "image_too_large", "The image is larger than 500 KB.")
        response = error_response(status)
        if status == 405 and isinstance(error, MethodNotAllowed) and error.valid_methods:
            response[0].headers["Allow"] = ", ".join(error.valid_methods)
        return response
    if 300 <= status < 400:
        return error
    return _page(status, page_message(status))


def handle_payment_error(error: PaymentError) -> tuple[Response, int] | tuple[str, int]:
    log.warning("payment provider: %s", error)
    if isinstance(error, PaymentUnavailable):
        status, code = 503, "unavailable"
        message = "The payment provider is not answering; try again shortly."
    else:
        status, code = 502, "payment_provider_error"
        message = "The payment provider refused the request."
    if wants_json():
        return error_response(status, code, message)
    if status == 503:
        return _page(status, _("The payment provider is not answering; try again shortly."))
    return _page(status, _("The payment provider refused the request."))


def handle_search_error(error: SearchError) -> tuple[Response, int] | tuple[str, int]:
    log.warning("search engine: %s", error)
    if isinstance(error, SearchBusy):
        # This search ran past its time budget and was stopped: the reader may retry.
        if wants_json():
            body, status = error_response(503, "search_busy", SEARCH_BUSY)
        else:
            page, status = _page(503, _("Search is busy right now; try again in a few seconds."))
            body = make_response(page)
        body.headers["Retry-After"] = str(error.retry_after)
        return body, status
    if isinstance(error, IndexNotReady):
        # The operator's to fix, not the reader's: said to both, naming the commands.
        if wants_json():
            return error_response(503, "search_unavailable", INDEX_NOT_READY)
        return _page(503, _("Search is being set up; try again later."))
    message = "Search is not available right now; try again shortly."
    if wants_json():
        return error_response(503, "unavailable", message)
    return _page(503, _("Search is not available right now; try again shortly."))


def handle_csrf_error(error: BadRequest) -> tuple[Response, int] | tuple[str, int]:
    if wants_json():
        return error_response(400, "invalid_request", "The form has expired; reload and try again.")
    return _page(400, _("The form has expired; reload and try again."))


def handle_unexpected(error: Exception) -> tuple[Response, int] | tuple[str, int]:
    log.error("unhandled error on %s %s", request.method, request.path, exc_info=error)
    if wants_json():
        return error_response(500)
    return _page(500, page_message(500))


# Their only query parameter is an opaque view token, checked by signature and never
# sent to the database: a garbage token counts nothing, and a click still goes on.
OPAQUE_QUERY = {"api.ad_click", "api.ad_impression"}

UNREADABLE_QUERY = (
    "The query string holds text that is not valid UTF-8 (a byte that starts no"
    " character, or an encoded surrogate); send each parameter percent-encoded as UTF-8."
)
NOT_UTF8 = "not valid UTF-8 text"
# What a parameter's name keeps as is when it is named in an answer: the rest is
# percent-encoded, as it was (or should have been) sent.
_NAME_SAFE = "".join(ch for ch in string.punctuation if ch != "%")


class UnreadableAddress(ValidationError):
    """A query string whose text is not UTF-8: each parameter holding such bytes named."""

    message = UNREADABLE_QUERY


def unreadable_parameters(query_string: bytes) -> list[str]:
    """The parameters of a raw query string whose name or value, percent-decoded, is not
    UTF-8 (Python's decoder refuses lone surrogates and overlong forms too). Werkzeug
    would read them anyway, keeping such bytes percent-encoded (`?q=%FF` is the text
    "%FF"), and fails on raw ones. Each is named as decoded, or, when its name is the
    part that cannot be, as sent (`%FF`)."""
    if query_string.isascii() and b"%" not in query_string:
        return []
    found = []
    for pair in query_string.split(b"&"):
        sent_name, _, sent_value = pair.replace(b"+", b" ").partition(b"=")
        name, value = unquote_to_bytes(sent_name), unquote_to_bytes(sent_value)
        if not _utf8(name):
            found.append(quote(name, safe=_NAME_SAFE))
        elif not _utf8(value):
            found.append(name.decode())
    return found


def _utf8(data: bytes) -> bool:
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def refuse_unreadable_address() -> None:
    """Before any view runs (before_request): an address is text the app can read. A
    NUL in the path or the query is no id or text of ours, and PostgreSQL refuses it in
    text; a query parameter that is not UTF-8 is no text at all. Both are a 400. The
    beacons read only a token and never fail the visitor, so their query is not held
    to either."""
    if "\x00" in request.path:
        raise ValidationError("The address contains a NUL character.")
    if request.endpoint in OPAQUE_QUERY:
        return
    unreadable = unreadable_parameters(request.query_string)
    if unreadable:
        raise UnreadableAddress(fields=dict.fromkeys(unreadable, NOT_UTF8))
    query = (text for key, values in request.args.lists() for text in (key, *values))
    if any("\x00" in text for text in query):
        raise ValidationError("The address contains a NUL character.")


def handle_unreadable_address(error: UnreadableAddress) -> tuple[Response, int] | tuple[str, int]:
    log.info("%s %s refused: %s", request.method, request.path, error.fields)
    if wants_json():
        return error_response(error.status, error.code, error.message, error.fields)
    return _page(
        400,
        _(
            "This address holds text that is not valid UTF-8, so it cannot be read."
            " Check the link you followed, or type what you are looking for again."
        ),
    )


def init_app(app: Flask) -> None:
    app.before_request(refuse_unreadable_address)
    app.register_error_handler(UnreadableAddress, handle_unreadable_address)
    app.register_error_handler(DomainError, handle_domain_error)
    app.register_error_handler(PaymentError, handle_payment_error)
    app.register_error_handler(SearchError, handle_search_error)
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Exception, handle_unexpected)
