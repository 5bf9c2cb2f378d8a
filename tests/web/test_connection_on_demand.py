"""A request takes a database connection only when it reads or writes. A ping and a
beacon on a live ad never take one, so they answer while the database cannot be
reached (and on PostgreSQL they no longer pay the round trip with which the pool
checks a connection it hands out). A request that does take one gives it back when it
ends; one that finds a connection already open leaves it open."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from peewee import OperationalError

from models.ads.delivery import active_reservations, clear_process_cache
from models.db import db
from models.tables import AdClickLog
from tests.factories import make_live_ad
from tests.fixtures import drain_beacons

SEEN = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0", "Edge-IPCountry": "JP"}


@pytest.fixture
def ad():
    clear_process_cache()
    return make_live_ad(position=1)


class Unreachable:
    """The database refuses every new connection while `down` is set."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.monkeypatch = monkeypatch
        self.attempts = 0

    def _refuse(self) -> None:
        self.attempts += 1
        raise OperationalError("could not connect to server: Connection refused")

    def down(self) -> None:
        db.close()  # the test's own connection, so the requests start with none
        self.monkeypatch.setattr(db.obj, "_connect", self._refuse)

    def up(self) -> None:
        self.monkeypatch.undo()


@pytest.fixture
def database_link(monkeypatch):
    return Unreachable(monkeypatch)


def served_urls(client) -> dict:
    body = client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").get_json()
    return body["positions"][0]["ad"]


def path_of(url: str) -> str:
    """A served URL as a path for the test client."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_a_ping_answers_while_the_database_is_down(client, database_link):
    database_link.down()
    response = client.get("/api/ping")
    assert (response.status_code, response.get_json()) == (200, {"ok": True})
    assert database_link.attempts == 0


def test_beacons_on_a_live_ad_are_taken_while_the_database_is_down(client, ad, database_link):
    # Given a served render, with the live ads known to this process
    ad_urls = served_urls(client)
    assert ad.id in active_reservations()
    database_link.down()

    # When the visitor sees the ad and clicks it
    seen = client.post(path_of(ad_urls["impressionUrl"]), headers=SEEN)
    clicked = client.get(path_of(ad_urls["clickUrl"]), headers=SEEN)

    # Then both are taken, and counted once the database is back
    assert seen.status_code == 202
    assert clicked.status_code == 302
    assert database_link.attempts == 0
    database_link.up()
    assert drain_beacons() == 2
    assert AdClickLog.select().where(AdClickLog.ad_reservation == ad.id).count() == 1


def test_a_request_that_reads_gives_its_connection_back(client, ad):
    db.close()
    assert client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").status_code == 200
    assert db.is_closed()


def test_a_request_leaves_open_a_connection_it_found_open(client, ad):
    db.connect(reuse_if_open=True)
    assert client.get("/api/ads/serve?slot=video-detail-below-player&country=JP").status_code == 200
    assert client.get("/api/ping").status_code == 200
    assert not db.is_closed()
