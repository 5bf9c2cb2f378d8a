"""Every page at a phone's, a tablet's and a desktop's width: nothing scrolls the page
sideways, no label (a button, a nav item, a table heading) breaks inside a word, and the
ad slots keep the spec's grid (2 / 3 / 4 columns, cards at least 300 px high)."""

from __future__ import annotations

import pytest

from models import ingest
from models.ads.delivery import MIDROLL_EVERY_HITS, clear_process_cache
from models.ads.months import add_months, month_of
from models.clock import utcnow
from models.credits import unlock_video
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_admin, make_profile, make_reservation, make_user
from tests.fixtures import PAGE_SCREENSHOTS, drain, keep_screenshots_at

WIDTHS = (360, 768, 1280)
CH = "UCpagewidthspagewidths01"
VIDEO_IDS = [f"width{n:06d}" for n in range(MIDROLL_EVERY_HITS + 1)]
LONG_WORD = "Supercalifragilisticexpialidocious" * 3
NEXT = add_months(month_of(utcnow()), 1)
SEARCH = f"/search?q=ラーメン&perPage={len(VIDEO_IDS)}"  # one page of every video

# The labels of each line box inside an element: more than one top means the text
# wrapped, e.g. 検索 drawn as 検 over 索.
LABELS_ON_ONE_LINE = """() => {
  const broken = [];
  const labels = document.querySelectorAll(
    "button, a.button, header nav a, header nav button, table.grid th");
  for (const el of labels) {
    if (!el.getClientRects().length || !el.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set();
    for (const rect of range.getClientRects()) {
      if (rect.width > 0 && rect.height > 0) tops.add(Math.round(rect.top));
    }
    const lines = [...tops].sort((a, b) => a - b)
      .filter((top, i, all) => i === 0 || top - all[i - 1] > 2);
    if (lines.length > 1) broken.push(el.textContent.trim().replace(/\\s+/g, " "));
  }
  return broken;
}"""

# The outermost elements that reach past the right edge, to name in a failure.
TOO_WIDE = """() => [...document.body.querySelectorAll("*")]
  .filter(el => el.getBoundingClientRect().right > innerWidth + 0.5
                && !(el.parentElement.getBoundingClientRect().right > innerWidth + 0.5))
  .slice(0, 3)
  .map(el => el.tagName.toLowerCase() + (el.className ? "." + [...el.classList].join(".") : "")
             + " " + JSON.stringify(el.textContent.trim().slice(0, 40)))"""

AD_SLOTS = """() => [...document.querySelectorAll(".ad-slot:not(.preview-slot)")].map(slot => ({
  slot: slot.dataset.adSlot,
  columns: getComputedStyle(slot).gridTemplateColumns.split(" ").length,
  cards: [...slot.querySelectorAll(".ad-card")]
    .filter(card => card.getClientRects().length)
    .map(card => { const b = card.getBoundingClientRect();
                   return {left: b.left, right: b.right, height: b.height}; }),
}))"""


def columns_at(width: int) -> int:
    return 2 if width < 640 else 3 if width < 768 else 4


def problems_at(page, url: str, width: int, status: int = 200) -> list[str]:
    """What is wrong with one page at one width, in words."""
    page.set_viewport_size({"width": width, "height": 800})
    response = page.goto(url)
    page.wait_for_load_state("load")
    found = []
    if response.status != status:
        found.append(f"{url} at {width}: answered {response.status}, not {status}")
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if scroll > inner:
        wide = ", ".join(page.evaluate(TOO_WIDE))
        found.append(f"{url} at {width}: the page is {scroll} px wide ({wide})")
    for label in page.evaluate(LABELS_ON_ONE_LINE):
        found.append(f"{url} at {width}: {label!r} breaks over two lines")
    for slot in page.evaluate(AD_SLOTS):
        if slot["columns"] != columns_at(width):
            found.append(f"{url} at {width}: {slot['slot']} has {slot['columns']} columns")
        for card in slot["cards"]:
            if card["left"] < 0 or card["right"] > inner + 0.5:
                found.append(f"{url} at {width}: a {slot['slot']} card leaves the screen")
            if card["height"] < 300:
                found.append(f"{url} at {width}: a {slot['slot']} card is {card['height']} px")
    return found


def check_pages(page, site, paths: list[str], shots: dict[str, str] | None = None) -> None:
    found = []
    for path in paths:
        for width in WIDTHS:
            found += problems_at(page, f"{site}{path}", width, 404 if "no-such" in path else 200)
        if PAGE_SCREENSHOTS and shots and path in shots:
            page.goto(f"{site}{path}")
            keep_screenshots_at(page, shots[path])
    assert not found, "\n".join(found)


@pytest.fixture
def videos(platform_files):
    """Enough videos for a midroll, with a word longer than a phone's column."""
    platform_files.channel(CH, VIDEO_IDS, title="とても長い名前の麺を食べ歩くチャンネル")
    for n, video_id in enumerate(VIDEO_IDS):
        said = [f"ラーメン{n}杯目は {LONG_WORD} です。", "それで。", "ラーメンは美味しい。"]
        platform_files.video(
            video_id,
            CH,
            {
                "type": "manual",
                "language": "ja",
                "cues": [
                    {"start": 20.0 * i, "end": 20.0 * i + 4, "text": text}
                    for i, text in enumerate(said)
                ],
            },
            title=f"とても長い動画のタイトル{LONG_WORD} その {n} 回目",
            publishedAt=f"2026-01-{n + 1:02d}T00:00:00.000Z",
        )
    ingest.import_channel(CH)
    for video_id in VIDEO_IDS:
        ingest.fetch_subtitles(video_id)
    clear_process_cache()
    return VIDEO_IDS


def reading_pages(videos: list[str]) -> list[str]:
    """The pages anyone reads: home, results with and without hits, a video, the 404."""
    return ["/", SEARCH, "/search?q=該当しない言葉", f"/videos/{videos[1]}", "/no-such-page"]


def test_public_pages_fit_every_width(page, site, videos):
    check_pages(
        page,
        site,
        [*reading_pages(videos), "/login"],
        shots={SEARCH: "search", "/login": "login"},
    )


def test_member_pages_fit_every_width(page, site, videos):
    member = make_user(email="widths-member@example.jp")
    unlock_video(member.id, videos[1])  # its transcript, with a word wider than a phone
    sign_in(page, site, "widths-member@example.jp")
    check_pages(
        page,
        site,
        ["/account", SEARCH, f"/videos/{videos[1]}"],
        shots={"/account": "account"},
    )


def advertiser_pages(advertiser, profile, intent: str, **paid_fields) -> list[str]:
    """An advertiser's pages, with one reservation waiting for payment and one paid
    (`paid_fields` change the paid one)."""
    waiting = make_reservation(
        advertiser,
        profile,
        slot="search-result-midroll",
        start_month=NEXT,
        end_month=NEXT,
        advertiser_name="待っている広告主",
    )
    paid = make_reservation(
        advertiser,
        profile,
        **{
            "slot": "video-detail-below-subtitle",
            "start_month": NEXT,
            "end_month": add_months(NEXT, 2),
            "payment_intent_id": intent,
            "advertiser_name": "支払い済みの広告主",
            **paid_fields,
        },
    )
    return ["/ads/new", "/ads", f"/ads/{paid.id}", f"/ads/{waiting.id}"]


def admin_reservations(intent: str) -> None:
    """Two reservations for the admin's pages, one waiting for review and one running."""
    for position, name in enumerate(["審査待ちの広告主", "配信中の広告主"], start=1):
        make_reservation(
            slot="search-result-bottom",
            position=position,
            start_month=NEXT,
            end_month=add_months(NEXT, 2),
            payment_intent_id=f"{intent}_{position}",
            advertiser_name=name,
        )


def test_advertiser_pages_fit_every_width(page, site):
    advertiser = make_user(email="widths-ads@example.jp")
    profile = make_profile(advertiser, business_legal_name="株式会社とても長い名前の広告主")
    paths = advertiser_pages(
        advertiser,
        profile,
        "pi_widths",
        end_month=add_months(NEXT, 11),
        redirect_url=f"https://example.jp/{LONG_WORD}",
    )
    sign_in(page, site, advertiser.email)
    check_pages(page, site, paths, shots={"/ads/new": "ads-new"})


def test_admin_pages_fit_every_width(page, site):
    admin = make_admin(email="widths-admin@example.jp")
    admin_reservations("pi_admin")
    sign_in(page, site, admin.email)
    check_pages(
        page,
        site,
        ["/admin/", "/admin/ads", "/admin/ads/report", "/admin/revenue"],
        shots={"/admin/ads": "admin-ads"},
    )


def test_the_local_checkout_page_fits_every_width(page, site):
    make_user(email="widths-checkout@example.jp")
    sign_in(page, site, "widths-checkout@example.jp")
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    path = page.url.removeprefix(site)
    check_pages(page, site, [path], shots={path: "checkout"})


def test_the_billing_portal_fits_every_width(page, site, stub_broker, stub_worker):
    make_user(email="widths-portal@example.jp")
    sign_in(page, site, "widths-portal@example.jp")
    page.goto(f"{site}/account")
    page.click("[data-subscribe='plus']")
    page.wait_for_url("**/_local-payments/checkout/**")
    page.click("form[action$='/complete'] button[type=submit]")
    page.wait_for_url("**/account?subscribed=plus")
    drain(stub_broker, stub_worker)
    page.goto(f"{site}/account")
    page.click("[data-portal]")
    page.wait_for_url("**/_local-payments/portal/**")
    path = page.url.removeprefix(site)
    check_pages(page, site, [path], shots={path: "portal"})


def test_english_pages_fit_every_width_too(page, site, videos):
    """English words are longer than Japanese ones and break only at spaces: the same
    pages read in English keep to the screen and their grids."""
    page.context.set_extra_http_headers({"Accept-Language": "en"})
    admin = make_admin(email="widths-english@example.jp", locale="en")
    make_profile(admin)
    sign_in(page, site, admin.email)
    assert page.evaluate("document.documentElement.lang") == "en"
    check_pages(
        page,
        site,
        [
            *reading_pages(videos),
            "/account",
            "/ads/new",
            "/ads",
            "/admin/ads",
            "/admin/ads/report",
            "/admin/revenue",
        ],
    )
