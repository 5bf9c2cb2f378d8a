"""The API document: one OpenAPI 3.1 document generated from the declarations, valid,
covering every /api route with its auth and errors, and readable at /api/docs."""

from __future__ import annotations

import json
import re

import pytest
from openapi_spec_validator import validate
from pydantic import ValidationError as SchemaError

from tests.factories import make_user, sign_in
from web.api.openapi import undeclared
from web.api.schemas.catalog import SearchAnswer


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


def test_search_documents_both_answers_and_which_group_by_gives_which(client):
    # Given the document
    document = client.get("/api/openapi.json").get_json()
    search = document["paths"]["/api/search"]["get"]
    schemas = document["components"]["schemas"]
    # Then groupBy is a parameter whose one value is video, and it says what it does
    [group_by] = [p for p in search["parameters"] if p["name"] == "groupBy"]
    assert group_by["required"] is False
    assert {"const": "video", "type": "string"} in group_by["schema"]["anyOf"]
    assert "one entry per video" in group_by["description"]
    # And the 200 answer is one of the flat and the grouped shapes, each saying when
    answer = search["responses"]["200"]["content"]["application/json"]["schema"]
    union = schemas[answer["$ref"].rsplit("/", 1)[-1]]
    assert union["oneOf"] == [
        {"$ref": "#/components/schemas/SearchResults"},
        {"$ref": "#/components/schemas/VideoSearchResults"},
    ]
    assert "groupBy" in union["description"]
    flat, grouped = schemas["SearchResults"], schemas["VideoSearchResults"]
    assert flat["description"].startswith("Without `groupBy`")
    assert "hits" in flat["required"]
    assert grouped["description"].startswith("With `groupBy=video`")
    assert {"videos", "totalVideos", "totalVideosCapped"} <= set(grouped["required"])
    assert "1,000" in grouped["properties"]["totalVideosCapped"]["description"]
    video = schemas["VideoResult"]
    assert {"videoId", "title", "channel", "score", "url", "moments"} <= set(video["required"])
    assert set(schemas["Moment"]["required"]) == {"start", "end", "highlight", "matchedIn", "url"}


def test_the_search_answer_check_takes_either_shape_and_nothing_between(client):
    flat = client.get("/api/search?q=a").get_json()
    grouped = client.get("/api/search?q=a&groupBy=video").get_json()
    for body in (flat, grouped):
        SearchAnswer.model_validate_json(json.dumps(body))
    for mixed in ({**flat, "videos": []}, {**grouped, "hits": []}, {**grouped, "totalHits": 0}):
        with pytest.raises(SchemaError):
            SearchAnswer.model_validate_json(json.dumps(mixed))
