"""The web's log lines on standard error: one JSON object per event (LOG_FORMAT=json),
an access line per request named by its route template, the request id taken from
X-Request-ID when sane and echoed, every line of a request carrying its request and user
ids, and no secret in any line of a whole flow."""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import replace

import pytest
from click.testing import CliRunner
from flask import request

from models import logs
from models.settings import get_settings, use_settings
from tests.factories import make_user, make_video, sign_in
from tests.fixtures import drain
from tests.web.api.test_payment_webhooks import AD, SUBSCRIPTION, completed, event, post
from web.app import create_app, csrf
from web.cli import main

METRICS_TOKEN = "metrics-token-never-logged"
SEARCH_API_KEY = "search-api-key-never-logged"
PAYMENT_API_KEY = "sk_test_payment_key_never_logged"
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

probe_log = logging.getLogger("tests.web.probe")


def make_app(settings, log_format="json", **overrides):
    app = create_app(replace(settings, log_format=log_format, **overrides))
    app.config.update(TESTING=True)

    # A view that logs while it runs, as any view may (outside /api: no declaration).
    @app.get("/_probe/<name>")
    def probe(name):
        probe_log.info("probing %s", name)
        return "ok"

    # A careless view that logs everything it was sent.
    @app.post("/_probe/careless")
    @csrf.exempt
    def careless():
        probe_log.warning("headers %s body %s", dict(request.headers), request.get_data())
        return "ok"

    return app


@pytest.fixture
def restore():
    """The process's settings and log lines as they were before the test's apps."""
    previous = get_settings()
    yield
    use_settings(previous)
    logs.configure(previous.log_format, component="web")


@pytest.fixture
def json_client(settings, restore):
    return make_app(settings).test_client()


def json_lines(err: str) -> list[dict]:
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines, "nothing was logged"
    return [json.loads(line) for line in lines]  # every line is one JSON object


def access_lines(lines: list[dict]) -> list[dict]:
    return [line for line in lines if line["logger"] == "web.request_log"]


def test_each_request_logs_one_json_access_line_with_its_route_template(json_client, capsys):
    user = make_user()
    video = make_video(duration_seconds=600)
    sign_in(json_client, user)
    capsys.readouterr()

    answer = json_client.post(f"/api/videos/{video.id}/unlock", content_type="application/json")

    assert answer.status_code == 200
    (line,) = access_lines(json_lines(capsys.readouterr().err))
    assert line["route"] == "/api/videos/<video_id>/unlock"  # the template, not the path
    assert video.id not in json.dumps(line)
    assert line["method"] == "POST"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], int | float) and line["duration_ms"] >= 0
    assert line["user_id"] == user.id
    assert line["request_id"] == answer.headers["X-Request-ID"]
    uuid.UUID(line["request_id"])  # made here: none was sent
    assert ISO_UTC.fullmatch(line["time"])
    assert line["level"] == "info"
    assert line["component"] == "web"
    assert line["message"] == "POST /api/videos/<video_id>/unlock 200"


def test_a_signed_out_request_has_no_user_and_an_unknown_path_no_route(json_client, capsys):
    assert json_client.get("/api/ping").status_code == 200
    assert json_client.get("/no/such/page").status_code == 404
    ping, missing = access_lines(json_lines(capsys.readouterr().err))
    assert ping["route"] == "/api/ping" and ping["user_id"] is None
    assert missing["route"] is None and missing["status"] == 404


def test_every_line_of_a_request_carries_its_request_and_user_ids(json_client, capsys):
    user = make_user()
    sign_in(json_client, user)
    capsys.readouterr()

    answer = json_client.get("/_probe/one", headers={"X-Request-ID": "edge-1234"})

    lines = json_lines(capsys.readouterr().err)
    (inside,) = [line for line in lines if line["logger"] == "tests.web.probe"]
    assert inside["message"] == "probing one"
    assert inside["request_id"] == "edge-1234"
    assert inside["user_id"] == user.id
    assert inside["route"] == "/_probe/<name>"
    assert answer.headers["X-Request-ID"] == "edge-1234"
    # ... and nothing after it: the next request (signed out) has its own fields.
    capsys.readouterr()
    json_client.application.test_client().get("/_probe/two")
    (after,) = [
        line for line in json_lines(capsys.readouterr().err) if line["logger"] == "tests.web.probe"
    ]
    assert after["request_id"] != "edge-1234"
    assert "user_id" not in after


def test_a_sane_incoming_request_id_is_echoed_and_logged(json_client, capsys):
    sent = "Root=1-67891233-abcdef012345678912345678"  # an edge's trace id
    answer = json_client.get("/api/ping", headers={"X-Request-ID": sent})
    assert answer.headers["X-Request-ID"] == sent
    (line,) = access_lines(json_lines(capsys.readouterr().err))
    assert line["request_id"] == sent


@pytest.mark.parametrize(
    "sent",
    ["x" * 129, "two words", "caf\xe9", "", "tab\there"],
    ids=["too-long", "space", "non-ascii", "empty", "control"],
)
def test_an_unreasonable_request_id_is_replaced_by_a_new_one(json_client, capsys, sent):
    answer = json_client.get("/api/ping", headers={"X-Request-ID": sent})
    echoed = answer.headers["X-Request-ID"]
    assert echoed != sent
    uuid.UUID(echoed)
    (line,) = access_lines(json_lines(capsys.readouterr().err))
    assert line["request_id"] == echoed


def test_the_longest_sane_request_id_is_kept(json_client):
    sent = "a" * 128
    assert (
        json_client.get("/api/ping", headers={"X-Request-ID": sent}).headers["X-Request-ID"] == sent
    )


def test_log_format_text_gives_lines_for_a_person(settings, restore, capsys):
    client = make_app(settings, log_format="text").test_client()
    answer = client.get("/api/ping")
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    (access,) = [line for line in lines if "web.request_log" in line]
    with pytest.raises(json.JSONDecodeError):
        json.loads(access)
    assert re.match(rf"{ISO_UTC.pattern} INFO \[web\] web\.request_log: GET /api/ping 200 ", access)
    assert f"request_id={answer.headers['X-Request-ID']}" in access
    assert "status=200" in access


def test_a_flow_logs_no_cookie_secret_token_or_key(
    settings, restore, capsys, stub_broker, stub_worker
):
    secret = settings.payment_webhook_secrets[0]
    app = make_app(
        settings,
        metrics_token=METRICS_TOKEN,
        search_api_key=SEARCH_API_KEY,
        payment_api_key=PAYMENT_API_KEY,
    )
    client = app.test_client()
    user = make_user(credit_balance=10)
    video = make_video(duration_seconds=600)

    sign_in(client, user)
    cookie = client.get_cookie("subsearch_session").value
    assert post(client, AD, completed(reservation_id=None), secret).status_code == 200
    forged = post(client, SUBSCRIPTION, event("customer.subscription.updated"), "whsec_forged1")
    assert forged.status_code == 400
    assert client.get("/api/search", query_string={"q": "大阪"}).status_code == 200
    unlock = client.post(f"/api/videos/{video.id}/unlock", content_type="application/json")
    assert unlock.status_code == 200
    client.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    # A view that logs everything it is sent: headers with the cookie and a bearer
    # token, and a body with keys, a webhook secret and a card number.
    careless = client.post(
        "/_probe/careless",
        headers={"Authorization": f"Bearer {METRICS_TOKEN}", "X-Api-Key": SEARCH_API_KEY},
        data=f"key={PAYMENT_API_KEY}&secret={secret}&card=4242 4242 4242 4242".encode(),
    )
    assert careless.status_code == 200
    drain(stub_broker, stub_worker)

    err = capsys.readouterr().err
    lines = json_lines(err)
    assert any(line.get("actor") == "create_payment_customer" for line in lines)
    assert any(line["message"].startswith("ad checkout webhook") for line in lines)
    (logged,) = [line for line in lines if line["message"].startswith("headers ")]
    # It did log them, with the values taken out.
    assert "'Cookie': '[REDACTED]'" in logged["message"]
    assert "'Authorization': '[REDACTED]'" in logged["message"]
    for value in (cookie, secret, METRICS_TOKEN, SEARCH_API_KEY, PAYMENT_API_KEY):
        assert value not in err
    assert "whsec_forged1" not in err
    assert "4242 4242 4242 4242" not in err


@pytest.mark.parametrize(
    ("command", "component"),
    [(["scheduler", "--help"], "scheduler"), (["users", "--help"], "cli")],
)
def test_the_command_line_logs_as_the_process_it_runs(
    settings, restore, capsys, command, component
):
    use_settings(replace(settings, log_format="json"))
    assert CliRunner().invoke(main, command).exit_code == 0
    capsys.readouterr()
    logging.getLogger("scheduler.runner").info("enqueued a job")
    (line,) = json_lines(capsys.readouterr().err)
    assert (line["component"], line["message"]) == (component, "enqueued a job")
