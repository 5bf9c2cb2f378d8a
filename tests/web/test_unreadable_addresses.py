"""A query string whose text is not UTF-8 (a byte that starts no character, an encoded
surrogate, an overlong form) is refused at the edge, naming the parameter, on every call
and page but the ad beacons, which stay lenient (a click never fails the visitor).
Werkzeug would otherwise keep such bytes percent-encoded (`?q=%FF` reads as the text
"%FF") and fail on raw ones (a 500). A U+FFFD a person typed is text like any other."""

from __future__ import annotations

import html as html_text

import pytest

from tests.factories import make_live_ad

JAPANESE = {"Accept-Language": "ja"}
ENGLISH = {"Accept-Language": "en"}
NOT_UTF8 = "not valid UTF-8 text"

# Percent-encoded bytes that are no UTF-8: a lone byte, an encoded lone surrogate
# (U+D800, as CESU-8 writes it), an overlong NUL, a character cut short, past U+10FFFF.
UNREADABLE = ["%FF", "%ED%A0%80", "%C0%80", "%E3%81", "%F4%90%80%80", "a%EDb"]


def raw(client, path: str, query: bytes, **kwargs):
    """A request whose query string holds `query` byte for byte, as a server hands on
    bytes a client sent without percent-encoding them."""
    environ = {"QUERY_STRING": query.decode("latin-1")}
    return client.get(path, environ_overrides=environ, **kwargs)


def refused(response, fields):
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert "UTF-8" in error["message"]
    assert error["fields"] == fields
    return error


@pytest.mark.parametrize("text", UNREADABLE)
def test_a_query_that_is_not_utf8_is_a_400_naming_q(client, text):
    refused(client.get(f"/api/search?q={text}"), {"q": NOT_UTF8})
    refused(client.get(f"/api/search?groupBy=video&q=%E7%8C%AB{text}"), {"q": NOT_UTF8})


def test_raw_bytes_that_are_not_utf8_are_a_400_not_a_500(client):
    refused(raw(client, "/api/search", b"q=\xff"), {"q": NOT_UTF8})
    refused(
        raw(client, "/api/search", b"q=\xe7\x8c\xab&channels=\xed\xa0\x80"), {"channels": NOT_UTF8}
    )


def test_every_parameter_and_name_is_held_to_it(client):
    refused(client.get("/api/search?q=a&channels=%FF"), {"channels": NOT_UTF8})
    refused(client.get("/api/search?q=a&sort=%ED%A0%80"), {"sort": NOT_UTF8})
    refused(client.get("/api/search?q=a&%FF=1"), {"%FF": NOT_UTF8})
    refused(client.get("/api/ads/slots?x=%C0%80"), {"x": NOT_UTF8})
    refused(client.get("/api/ads/serve?slot=%E3%81"), {"slot": NOT_UTF8})


def test_a_replacement_character_typed_is_searched_as_text(client):
    for q in ("%EF%BF%BD", "%E7%8C%AB%EF%BF%BD", "%F0%9F%8D%9C"):  # U+FFFD, 猫U+FFFD, 🍜
        answer = client.get(f"/api/search?q={q}")
        assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    page = client.get("/search?q=%EF%BF%BD", headers=JAPANESE)
    assert page.status_code == 200


@pytest.mark.parametrize("headers", [JAPANESE, ENGLISH])
def test_the_search_page_says_the_address_is_not_text(client, headers):
    for answer in (
        client.get("/search?q=%ED%A0%80", headers=headers),
        client.get("/search?q=%E7%8C%AB&target=%FF", headers=headers),
        raw(client, "/search", b"q=\xff", headers=headers),
    ):
        assert answer.status_code == 400
        page = html_text.unescape(answer.get_data(as_text=True))
        if headers is JAPANESE:
            assert (
                "このアドレスには、文字として読めない部分（UTF-8 でない部分）があります。" in page
            )
        else:
            assert "This address holds text that is not valid UTF-8" in page
        assert 'class="result"' not in page


def test_other_pages_refuse_it_too(client):
    for url in ("/?utm_source=%FF", "/videos/abcdefghijk?q=%ED%A0%80"):
        answer = client.get(url, headers=JAPANESE)
        assert answer.status_code == 400, url
        assert "UTF-8" in answer.get_data(as_text=True)


def test_the_beacons_stay_lenient(client):
    ad = make_live_ad(redirect_url="https://advertiser.example/landing")
    click = f"/api/ad-click/{ad.id}"
    for answer in (
        client.get(f"{click}?v=%FF&utm=%ED%A0%80"),
        raw(client, click, b"v=\xff&x=\xed\xa0\x80"),
    ):
        assert answer.status_code == 302
        assert answer.headers["Location"] == "https://advertiser.example/landing"
    impression = f"/api/ad-impression/{ad.id}"
    assert client.post(f"{impression}?v=%FF").status_code == 204
    assert client.post(impression, environ_overrides={"QUERY_STRING": "v=\xff"}).status_code == 204
