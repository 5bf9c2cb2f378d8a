"""Every /api call, fuzzed from its own document (schemathesis), as an anonymous visitor,
a member and an administrator: no 5xx, every status declared for the call, every body
(errors included) the declared schema, every content type the declared one; and the
document and the server agree both ways: a request the document refuses is refused
(negative_data_rejection), and one it allows is not refused as malformed (400, 413,
414: positive_data_acceptance), except where a call's 400 depends on stored state the
document cannot state (POSITIVE_EXCEPT).

Bounded so that both database runs together stay within a few minutes: a fixed number
of examples per call and role, with the document's own boundary cases first."""

from __future__ import annotations

from dataclasses import replace

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import ChecksConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
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
from web.api.openapi import document
from web.app import create_app

pytestmark = pytest.mark.database_independent

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]
EXAMPLES_PER_CALL = 20

# Calls whose well-formed requests may still get a 400 for what is stored or for
# today's date, which no schema states; every other call gets positive_data_acceptance.
POSITIVE_EXCEPT = {
    # a file's bytes must be a PNG, JPEG or WebP image, which no schema states
    "POST /api/uploads/ad-image",
    # imageUrl must be one of this service's uploads, profileId the caller's profile
    "POST /api/ads/reservations",
    # the caller's own code is `own_code`
    "POST /api/referrals/claim",
    # startDate after endDate, or a range over two years, including the default ends
    "GET /api/admin/ads/report",
    # an edit is checked against the profile it completes
    "PATCH /api/ads/profiles/{profile_id}",
    # a month outside the window around today's date (docs/ads.md, Months), which a
    # pattern cannot state
    "GET /api/ads/serve",
    "GET /api/ads/inventory",
    # page x perPage is bounded together (docs/search.md, What a search may cost): a rule
    # across two parameters
    "GET /api/search",
    # the search's words and targets, read as the search reads them: a q that cannot be
    # read or is past a bound, or targets that are no subset of three, no pattern states
    "GET /api/videos/{video_id}/moments",
    # the alert's query, read as the search reads its q (a query that cannot be read or
    # is past a bound), and channels that must be known ones: no pattern states either
    "POST /api/alerts",
}


@pytest.fixture(name="settings")
def unlimited_settings(settings):
    """Limits have their own tests (test_rate_limits.py): met by a fuzzer's hundreds of
    calls, they would answer 429 in place of everything checked here."""
    return replace(settings, rate_limits_enabled=False)


@pytest.fixture(params=["anonymous", "member", "admin"])
def role(request):
    return request.param


@pytest.fixture
def caller(app, role):
    """What a caller of this role sends: its CSRF token as a header and its session as a
    cookie. The cookie goes as `cookies`: werkzeug's test client writes the Cookie
    header from its own jar and drops one passed among the headers, so a member sent so
    was an anonymous caller (test_a_member_of_the_fuzz_is_signed_in)."""
    # Something for the ids to find, besides the 404s of random ones.
    make_video(channel=make_channel(id="UCfuzzchannel"), id="fuzzvideo01")
    if role == "anonymous":
        return {"headers": {}, "cookies": {}}
    client = app.test_client()
    sign_in(client, make_admin() if role == "admin" else make_user())
    token = csrf_token(client)
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"])
    return {"headers": {"X-CSRFToken": token}, "cookies": {cookie.key: cookie.value}}


# 414 is how the document refuses a query string over its byte limit (a rule of the
# whole string, not of one parameter), for well-formed and malformed requests alike.
DEFAULT_REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429"]
EXPECTED = {
    "negative_data_rejection": {"expected-statuses": [*DEFAULT_REFUSALS, "413", "414", "5xx"]},
    "positive_data_acceptance": {
        "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "414", "429", "5xx"]
    },
}


def _schema():
    # The payment provider's webhooks are left out: a fuzzer cannot sign, and every
    # unsigned body is answered by design (tests/web/api/test_payment_webhooks.py).
    schema = schemathesis.openapi.from_dict(document(create_app())).exclude(tag="webhooks")
    schema.config.checks = ChecksConfig.from_dict(EXPECTED)
    return schema


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
    checks = CHECKS
    if case.operation.label not in POSITIVE_EXCEPT:
        checks = [*CHECKS, positive_data_acceptance]
    case.call_and_validate(**_sent(case, caller), checks=checks, app=app)


def _sent(case, caller):
    """The caller's headers and cookie for this case. A call that needs a session holds
    the session cookie as one of its parameters (the `session` scheme): the caller's
    value takes the place of the one generated, and a case that leaves the cookie out
    (a call refused for want of it) is sent without it."""
    secured = bool(case.operation.definition.raw.get("security"))
    cookies = {
        name: value
        for name, value in caller["cookies"].items()
        if not secured or name in (case.cookies or {})
    }
    return {"headers": caller["headers"], "cookies": cookies}


@pytest.mark.parametrize("role", ["member", "admin"])
def test_a_member_of_the_fuzz_is_signed_in(app, caller, role):
    """The fuzz's callers reach the API as who they are: /api/me answers them."""
    me = schema["/api/me"]["GET"].Case()
    assert me.call(**caller, app=app).status_code == 200
