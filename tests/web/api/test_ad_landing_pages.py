"""A landing page on the service's own network is refused: a click must never send a
visitor (or a crawler of ours) to loopback, a private network or the cloud's metadata
address (issue 42)."""

from __future__ import annotations

import pytest

from models.ads.months import add_months, month_of
from models.clock import utcnow
from models.tables import AdReservation
from tests.factories import make_profile, make_upload, make_user, sign_in

NEXT = add_months(month_of(utcnow()), 1)

INTERNAL = [
    # loopback, private, link-local, metadata, unspecified (IPv4)
    "http://127.0.0.1:6379/",
    "http://127.1/",
    "https://10.0.0.5/admin",
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://0.0.0.0:8000/",
    "http://100.64.0.1/",  # shared address space (carrier NAT)
    # forms of an IPv4 address a browser reads as one
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://127.0.0.1./",
    "http://%31%32%37.0.0.1/",
    "http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/",
    # IPv6
    "http://[::1]/",
    "http://[fd00::1]/",
    "http://[fd00:ec2::254]/",
    "http://[fe80::1]/",
    "http://[::]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::ffff:169.254.169.254]/",
    # names of the local network
    "http://localhost/",
    "http://localhost./",
    "http://LOCALHOST:8000/",
    "http://redis/",
    "http://intranet/",
    "http://app.localhost/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://printer.local/",
    "http://router.home.arpa/",
]

PUBLIC = [
    "https://example.jp/shop",
    "https://example.jp./shop",
    "https://shop.example.co.jp:8443/a?b=c#d",
    "http://93.184.216.34/",
    "https://xn--eckwd4c7c.xn--zckzah/",
    "https://ラーメン.jp/",
]


def order(user, redirect_url):
    return {
        "profileId": make_profile(user).id,
        "slot": "search-result-bottom",
        "country": "JP",
        "startMonth": NEXT,
        "months": 1,
        "advertiserName": "山田商店",
        "imageUrl": make_upload(user),
        "redirectUrl": redirect_url,
        "consent": True,
    }


@pytest.mark.parametrize("url", INTERNAL)
def test_a_landing_page_on_a_local_network_is_refused(client, url):
    user = make_user()
    sign_in(client, user)
    refused = client.post("/api/ads/reservations", json=order(user, url))
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert set(error["fields"]) == {"redirectUrl"}
    assert AdReservation.select().count() == 0


@pytest.mark.parametrize("url", PUBLIC)
def test_a_public_landing_page_is_accepted(client, url):
    user = make_user()
    sign_in(client, user)
    created = client.post("/api/ads/reservations", json=order(user, url))
    assert created.status_code == 201, created.get_json()
    assert created.get_json()["reservation"]["redirectUrl"] == url
