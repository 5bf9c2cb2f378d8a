"""Every /api call, fuzzed from its own document (schemathesis), as an anonymous visitor,
a member and an administrator: no 5xx, every status declared for the call, every body
(errors included) the declared schema, every content type the declared one.

Bounded so that both database runs together stay within a few minutes: a fixed number
of examples per call and role, with the document's own boundary cases first."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.factories import (
    csrf_token,
    make_admin,
    make_channel,
    make_user,
    make_video,
    sign_in,
)
from web import create_app
from web.api.openapi import document

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EXAMPLES_PER_CALL = 20


@pytest.fixture(params=["anonymous", "member", "admin"])
def role(request):
    return request.param


@pytest.fixture
def caller(app, role):
    """The headers a caller of this role sends: its session cookie and CSRF token."""
    # Something for the ids to find, besides the 404s of random ones.
    make_video(channel=make_channel(id="UCfuzzchannel"), id="fuzzvideo01")
    if role == "anonymous":
        return {}
    client = app.test_client()
    sign_in(client, make_admin() if role == "admin" else make_user())
    token = csrf_token(client)
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"])
    return {"Cookie": f"{cookie.key}={cookie.value}", "X-CSRFToken": token}


def _schema():
    # The payment provider's webhooks are left out: a fuzzer cannot sign, and every
    # unsigned body is answered by design (tests/web/test_payment_webhooks.py).
    return schemathesis.openapi.from_dict(document(create_app())).exclude(tag="webhooks")


schema = _schema()


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_CALL,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_call_answers_as_documented(case, app, caller):
    case.call_and_validate(headers=caller, checks=CHECKS, app=app)
