"""The main pages as a newcomer, a member, an advertiser and the administrator read them,
in Japanese at a phone's and a desktop's width: no raw id, code or jargon of the service
is in the text a person sees (the page's words, option texts, placeholders, image
texts). The list below is the words a person must never meet; a page that shows one
fails, naming the page, the width and the word."""

from __future__ import annotations

import os
import re

import pytest

from models.ads import SLOT_IDS
from models.ads.reservations import stop
from models.credits import unlock_video
from models.settings import get_settings, load_settings
from models.tables import AdReservation
from tests.browser.test_first_run import sample  # noqa: F401  (the sample data, loaded)
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_user
from tests.fixtures import keep_screenshots_at
from web.app import create_app
from web.devtools.demo import ADMIN_EMAIL, ADVERTISER_EMAIL
from web.urls import AD_PAGES

WIDTHS = (375, 1280)
SUPPORT_EMAIL = "support@subsearch.example"
SEARCH = "/search?q=たこ焼き"
STOP_REASON = "画像の文字が小さく読めないため"

# Words a person never reads: ids of the ad slots, price ids, internal names, the
# development contact address, the API's own field names.
RAW_WORDS = (
    *SLOT_IDS,
    "price_local_",
    "ミッドロール",
    "うちトークンなし",
    "ads@127.0.0.1",
    "CTR",
)
# The API's field names (camelCase, as the JSON has them) and codes in snake_case:
# `redirectUrl`, `advertiserName`, `pending_payment`, `price_local_plus`.
CAMEL_CASE = re.compile(r"(?<![\w./@-])[a-z]+(?:[A-Z][a-z0-9]+)+(?![\w@-])")
SNAKE_CASE = re.compile(r"(?<![\w./@-])[a-z]+(?:_[a-z0-9]+)+(?![\w@-])")
# A raw IANA time-zone name offered as it is (Asia/Tokyo, America/Argentina/Salta).
ZONE_NAME = re.compile(
    r"^(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)"
    r"/[A-Za-z_/+-]+$"
)

# What a person reads on the page: its drawn text, the options of its drawn lists, the
# placeholders of its drawn fields, the texts of its images and labelled controls.
SEEN = """() => {
  const drawn = el => el.getClientRects().length > 0;
  const text = [document.body.innerText];
  for (const el of document.querySelectorAll("[placeholder]")) {
    if (drawn(el)) text.push(el.placeholder);
  }
  for (const el of document.querySelectorAll("img[alt], [aria-label], [title]")) {
    if (!drawn(el)) continue;
    for (const name of ["alt", "aria-label", "title"]) {
      if (el.hasAttribute(name)) text.push(el.getAttribute(name));
    }
  }
  for (const el of document.querySelectorAll("input[type=submit], input[type=button]")) {
    if (drawn(el)) text.push(el.value);
  }
  const options = [...document.querySelectorAll("select")].filter(drawn)
    .flatMap(select => [...select.options].map(option => option.textContent.trim()));
  return {text: text.join("\\n"), options};
}"""


def raw_words_in(text: str, options: list[str]) -> list[str]:
    found = [word for word in RAW_WORDS if word in text]
    found += sorted({match.group() for match in CAMEL_CASE.finditer(text)})
    found += sorted({match.group() for match in SNAKE_CASE.finditer(text)} - set(found))
    zones = [option for option in options if ZONE_NAME.match(option)]
    if zones:
        found.append(f"{len(zones)} raw time-zone names ({', '.join(zones[:3])}, ...)")
    return found


def problems_on(page, site: str, path: str, shot: str) -> list[str]:
    """The raw words PATH shows at each width, in words naming the page and the width."""
    found = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        response = page.goto(f"{site}{path}")
        page.wait_for_load_state("networkidle")
        if response.status != 200:
            found.append(f"{path} at {width}: answered {response.status}")
            continue
        seen = page.evaluate(SEEN)
        words = raw_words_in(seen["text"], seen["options"])
        found += [f"{path} at {width}: {word}" for word in words]
    keep_screenshots_at(page, f"no-raw-ids-{shot}")
    return found


@pytest.fixture
def settings():
    """The site as deployed: its contact address configured, as production requires."""
    return load_settings({**os.environ, "SUPPORT_EMAIL": SUPPORT_EMAIL}, read_dotenv=False)


@pytest.fixture
def walked(site, sample):  # noqa: F811  (the fixture imported above)
    demo = list(AdReservation.select().order_by(AdReservation.slot_id))
    stopped = next(r for r in demo if r.slot_id == "video-detail-below-player")
    with create_app(get_settings()).test_request_context():
        stop(stopped.id, STOP_REASON, AD_PAGES)
    return {"reservations": [r.id for r in demo], "stopped": stopped.id}


def first_video(page, site) -> str:
    page.goto(f"{site}{SEARCH}")
    href = page.locator("a[href^='/videos/']").first.get_attribute("href")
    return href.split("?")[0]


def test_a_visitor_meets_no_raw_id(page, site, walked):
    video = first_video(page, site)
    found = []
    for path, shot in [
        ("/", "home"),
        (SEARCH, "search"),
        (video, "video"),
        ("/terms", "terms"),
        ("/advertise", "advertise"),
    ]:
        found += problems_on(page, site, path, shot)
    assert not found, "\n".join(found)


def test_a_member_meets_no_raw_id(page, site, walked):
    video = first_video(page, site)
    member = make_user(email="no-raw-ids-member@example.jp")
    unlock_video(member.id, video.removeprefix("/videos/"))
    sign_in(page, site, member.email)
    found = []
    for path, shot in [(video, "video-member"), ("/account", "account")]:
        found += problems_on(page, site, path, shot)
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    found += problems_on(page, site, page.url.removeprefix(site), "checkout")
    assert not found, "\n".join(found)


def test_an_advertiser_meets_no_raw_id_and_the_configured_contact(page, site, walked):
    sign_in(page, site, ADVERTISER_EMAIL)
    found = []
    for path, shot in [("/ads", "ads"), ("/ads/new", "ads-new")]:
        found += problems_on(page, site, path, shot)
    for reservation_id in walked["reservations"]:
        found += problems_on(page, site, f"/ads/{reservation_id}", f"ad-{reservation_id[:8]}")
    page.goto(f"{site}/ads/{walked['stopped']}")
    assert STOP_REASON in page.inner_text("main")
    assert SUPPORT_EMAIL in page.inner_text("main")
    assert not found, "\n".join(found)


def test_the_administrator_meets_no_raw_id(page, site, walked):
    sign_in(page, site, ADMIN_EMAIL)
    found = []
    for path, shot in [
        ("/admin/", "admin"),
        ("/admin/ads", "admin-ads"),
        ("/admin/ads/report", "admin-report"),
        ("/admin/revenue", "admin-revenue"),
    ]:
        found += problems_on(page, site, path, shot)
    assert not found, "\n".join(found)
