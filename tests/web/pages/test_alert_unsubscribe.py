"""The mail's unsubscribe address, without signing in: GET only asks (a link scanner
stops nothing), POST stops the alert, as RFC 8058's one-click POST from a mail client
(no session, no CSRF token) or the page's own button; unknown addresses are 404."""

from __future__ import annotations

from models.tables import Alert
from tests.factories import make_alert, make_user


def address(alert) -> str:
    return f"/alerts/unsubscribe/{alert.unsubscribe_token}"


def test_opening_the_address_asks_and_stops_nothing(client):
    alert = make_alert(query="たこ焼き")
    page = client.get(address(alert), headers={"Accept-Language": "ja"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "通知「たこ焼き」を止めますか？" in text
    assert f'action="{address(alert)}"' in text
    assert Alert.get_by_id(alert.id).deleted_at is None


def test_the_one_click_post_stops_the_alert_without_sign_in_or_token(app):
    alert = make_alert()
    # A mail client's POST: no cookies, no CSRF token, the RFC 8058 body.
    client = app.test_client()
    answer = client.post(
        address(alert),
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200
    assert Alert.get_by_id(alert.id).deleted_at is not None
    # Again (a second click, a client that retries): still stopped, still 200.
    assert client.post(address(alert), data={"List-Unsubscribe": "One-Click"}).status_code == 200
    page = client.get(address(alert), headers={"Accept-Language": "en"})
    assert "The alert “たこ焼き” is stopped." in page.get_data(as_text=True)
    assert "Stop this alert</button>" not in page.get_data(as_text=True)


def test_the_pages_button_stops_it_in_the_readers_language(client):
    alert = make_alert(query="takoyaki")
    asked = client.get(address(alert), headers={"Accept-Language": "en"})
    assert "Stop this alert</button>" in asked.get_data(as_text=True)
    answer = client.post(
        address(alert), data={"List-Unsubscribe": "One-Click"}, headers={"Accept-Language": "en"}
    )
    text = answer.get_data(as_text=True)
    assert "The alert “takoyaki” is stopped. No more mail will come for it." in text
    assert Alert.get_by_id(alert.id).deleted_at is not None


def test_an_unknown_address_is_not_found(client):
    other = make_alert()
    assert client.get("/alerts/unsubscribe/no-such-token").status_code == 404
    assert client.post("/alerts/unsubscribe/no-such-token").status_code == 404
    assert Alert.get_by_id(other.id).deleted_at is None


def test_only_the_named_alert_stops(client):
    member = make_user()
    one, two = make_alert(member), make_alert(member)
    client.post(address(one))
    assert Alert.get_by_id(one.id).deleted_at is not None
    assert Alert.get_by_id(two.id).deleted_at is None
