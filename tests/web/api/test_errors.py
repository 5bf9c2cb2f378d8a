"""Every /api/ failure answers the contract's error body; nothing leaks."""

from __future__ import annotations

from tests.factories import make_admin, make_user, sign_in


def assert_error(response, status, code):
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_unknown_api_route(client):
    assert_error(client.get("/api/no-such-thing"), 404, "not_found")


def test_wrong_method(client):
    response = client.delete("/api/me")
    assert_error(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


def test_malformed_json(client):
    response = client.post("/auth/dev-login", data="{not json", content_type="application/json")
    assert_error(response, 400, "invalid_request")


def test_json_that_is_not_an_object(client):
    assert_error(client.post("/auth/dev-login", json=["a"]), 400, "invalid_request")


def test_validation_names_the_field(client):
    error = assert_error(
        client.post("/auth/dev-login", json={"email": "not-an-address"}), 400, "invalid_request"
    )
    assert error["fields"] == {"email": "not an e-mail address"}


def test_state_changing_api_calls_take_only_json_bodies(client):
    sign_in(client, make_admin())
    response = client.post("/api/admin/queue/requeue", data={"queue": "default"})
    assert_error(response, 415, "unsupported_media_type")
    assert client.post("/api/admin/queue/requeue", json={"queue": ""}).status_code == 400


def test_unauthenticated_api_call(client):
    assert_error(client.get("/api/me"), 401, "unauthenticated")


def test_unexpected_errors_do_not_leak_internals(app):
    @app.get("/api/explode")
    def explode():
        raise RuntimeError("password=hunter2 in /srv/secret.py")

    app.config.update(TESTING=False, PROPAGATE_EXCEPTIONS=False)
    response = app.test_client().get("/api/explode")
    error = assert_error(response, 500, "internal_error")
    assert "hunter2" not in response.get_data(as_text=True)
    assert "secret" not in error["message"]


def test_pages_get_an_html_error_page(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"


def test_a_nul_in_the_path_or_query_is_a_400_on_every_database(client):
    sign_in(client, make_user())
    for url in (
        "/api/ads/reservations/%00/checkout",
        "/api/ads/reservations/x/checkout?a=%00",
        "/api/ads/reservations/x/checkout?%00=1",
    ):
        answer = client.post(url)
        assert answer.status_code == 400, url
        assert answer.get_json()["error"]["code"] == "invalid_request"
    assert client.get("/search?q=%00").status_code == 400
