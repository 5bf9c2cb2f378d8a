"""The API document: one OpenAPI 3.1 document generated from the declarations, valid,
covering every /api route with its auth and errors, and readable at /api/docs."""

from __future__ import annotations

import re

from openapi_spec_validator import validate

from tests.factories import make_user, sign_in
from web.api.openapi import undeclared


def test_the_document_is_valid_openapi_3_1_and_covers_every_api_route(app, client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert undeclared(app) == []
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert documented == routes


def test_auth_errors_and_webhook_signatures_are_declared(client):
    paths = client.get("/api/openapi.json").get_json()["paths"]
    me = paths["/api/me"]["get"]
    assert me["security"] == [{"session": []}]
    assert "401" in me["responses"]
    approve = paths["/api/admin/ads/reservations/{reservation_id}/approve"]["post"]
    assert approve["x-role"] == "admin"
    assert {"401", "403", "404", "409"} <= set(approve["responses"])
    assert paths["/api/search"]["get"]["security"] == []
    error = approve["responses"]["409"]["content"]["application/json"]["schema"]
    assert error == {"$ref": "#/components/schemas/ErrorBody"}
    for webhook in ("/api/webhooks/payment/ad-checkout", "/api/auth/payment/webhook"):
        headers = [p for p in paths[webhook]["post"]["parameters"] if p["in"] == "header"]
        assert [h["name"] for h in headers] == ["Stripe-Signature"]
        assert headers[0]["required"] is True
    unlock = paths["/api/videos/{video_id}/unlock"]["post"]
    assert {"401", "402", "403", "415"} <= set(unlock["responses"])


def test_the_reference_page_loads_only_this_sites_files(client):
    page = client.get("/api/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") and not s.startswith("//") for s in sources)
    for source in sources:
        answer = client.get(source)
        assert answer.status_code == 200, source
        answer.close()
    assert "/api/openapi.json" in html


def test_a_nested_field_is_named_by_its_dotted_path(client):
    sign_in(client, make_user())
    response = client.post(
        "/api/ads/reservations", json={"profile": {"businessLegalName": 5}, "months": 0}
    )
    fields = response.get_json()["error"]["fields"]
    assert fields["profile.businessLegalName"] == "required"
    assert "months" in fields
    assert "5" not in str(fields)  # inputs are never echoed
