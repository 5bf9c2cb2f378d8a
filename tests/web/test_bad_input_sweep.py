"""Every API route, fed garbage, answers a 4xx in the contract's format, never a 500."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_admin, sign_in

GARBAGE_BODIES = [
    None,
    "not json",
    [],
    "[1,2]",
    '{"a": [}',
    {"x": None},
    7,
    {
        "slot": {"a": 1},
        "months": "x",
        "profile": [],
        "code": 5,
        "plan": [],
        "reason": {},
        "email": 3,
        "name": [],
        "startMonth": 202701,
        "consent": "yes",
        "imageUrl": 9,
        "businessCategory": None,
        "contactEmail": ["a"],
    },
]
GARBAGE_QUERY = (
    "?q=%00&slot=%FF&country=%%&month=9999-99&months=-1&page=x&perPage=1e9&sr=nan"
    "&semantic=2&channels=,,,&target=&sort=%20&startDate=x&endDate=&status=%00"
)


def routes(app):
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(
            r"<(?:\w+:)?(\w+)>",
            lambda m: "1" if m.group(0).startswith("<int") else "x%27%22%3Cscript%3E",
            rule.rule,
        )
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, path


@pytest.mark.parametrize("role", ["anonymous", "admin"])
def test_no_route_answers_500_to_garbage(app, client, role):
    if role == "admin":
        sign_in(client, make_admin())
    every = list(routes(app))
    assert len(every) > 40  # the sweep covers the whole API
    for method, path in every:
        for body in GARBAGE_BODIES:
            kwargs = {}
            if isinstance(body, str):
                kwargs = {"data": body, "content_type": "application/json"}
            elif body is not None:
                kwargs = {"json": body}
            response = client.open(path + GARBAGE_QUERY, method=method, **kwargs)
            assert response.status_code < 500 or (
                response.status_code == 503 and path.startswith("/api/health")
            ), (method, path, body, response.status_code, response.get_data(as_text=True)[:300])
            if response.status_code >= 400 and response.mimetype == "application/json":
                error = response.get_json()["error"]
                assert error["code"] and error["message"], (method, path)
