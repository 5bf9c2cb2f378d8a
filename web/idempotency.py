"""The Idempotency-Key header at the edge (models/idempotency.py keeps the keys): a view
wrapped in `once` runs at most once per key and member, and a repeat gets the first
answer, error answers included."""

from __future__ import annotations

from collections.abc import Callable

from flask import Response, make_response, request

from models import idempotency
from models.db import write_transaction
from models.errors import DomainError
from web.errors import handle_domain_error
from web.visitor import member

HEADER = "Idempotency-Key"


def once(what: str, run: Callable[[], Response]) -> Response:
    """Run `run` (the view's work, answering JSON), unless the member's Idempotency-Key
    was sent before for `what` (the request: what it does and to what); without the
    header it simply runs. The work and the keeping of its answer are one transaction."""
    sent = request.headers.get(HEADER)
    if sent is None:
        return run()
    user_id, key = member().id, idempotency.checked_key(sent)
    first = idempotency.claim(user_id, key, what)
    if first is not None:
        return Response(first.body, status=first.status, mimetype="application/json")
    try:
        with write_transaction():
            answer = run()
            idempotency.record(user_id, key, _answer(answer))
        return answer
    except DomainError as error:
        # The API's JSON error (make_response gives it its status, as the handler would).
        refused = make_response(handle_domain_error(error))
        idempotency.record(user_id, key, _answer(refused))
        return refused
    except BaseException:
        idempotency.release(user_id, key)
        raise


def _answer(response: Response) -> idempotency.Answer:
    return idempotency.Answer(response.status_code, response.get_data(as_text=True))
