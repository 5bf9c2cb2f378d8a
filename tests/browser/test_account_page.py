"""The account page in a browser: copy the referral code and its share link, read a
wrong code's refusal in Japanese, switch the page to English; the plans with their
prices beside the member's own, and without prices while the provider does not answer."""

from __future__ import annotations

import itertools

from playwright.sync_api import expect

from models.payments import PaymentUnavailable, get_provider, provider_service
from tests.browser.test_purchase_form import sign_in
from tests.factories import make_subscription, make_user
from tests.fixtures import keep_screenshot, keep_screenshots_at, no_sideways_scroll


def test_copy_claim_and_switch_to_english(page, site):
    user = make_user(email="account-browser@example.jp")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    keep_screenshots_at(page, "account")
    no_sideways_scroll(page)

    page.click(f"button[data-copy='{user.referral_code}']")
    status = page.locator("[data-copy-status]")
    expect(status).to_have_text("コピーしました")
    assert page.evaluate("navigator.clipboard.readText()") == user.referral_code
    page.evaluate("document.querySelector('[data-copy-status]').textContent = ''")
    page.locator("[data-share-link] + button[data-copy]").click()
    expect(status).to_have_text("コピーしました")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/account?ref={user.referral_code}"), copied

    page.fill("#referral-claim input[name=code]", "NO-SUCH-CODE")
    page.click("#referral-claim button[type=submit]")
    message = page.locator("#referral-claim .message")
    expect(message).to_have_text("この紹介コードのユーザーはいません。")

    page.select_option("[data-preferences] select[name=locale]", "en")
    page.click("[data-preferences] button[type=submit]")
    page.wait_for_url(f"{site}/account")
    assert page.locator("h1").inner_text() == "Account"
    assert page.locator("[data-subscribe='plus']").inner_text() == "Subscribe to Plus"
    assert page.locator("[data-preferences] select[name=locale]").input_value() == "en"
    keep_screenshots_at(page, "account-en")


def test_the_404_page_in_japanese(page, site):
    page.goto(f"{site}/no-such-page")
    assert "このページは見つかりません。" in page.locator(".error-message").inner_text()
    keep_screenshots_at(page, "404")


# Each character's line on the screen, as the browser laid it out.
LINES_OF = """(element) => {
  const lines = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let lastTop = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getBoundingClientRect();
      if (!rect.width || !node.data[i].trim()) continue;
      if (lastTop === null || rect.top > lastTop + rect.height / 2) {
        lines.push("");
        lastTop = rect.top;
      }
      lines[lines.length - 1] += node.data[i];
    }
  }
  return lines;
}"""


def test_the_account_page_on_a_phone_shows_address_link_and_code_whole(page, site):
    user = make_user(
        email="yamada.taro.subsearch.member@example-company.co.jp", referral_code="Il0O2Kx5"
    )
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    for width in (375, 1280):
        page.set_viewport_size({"width": width, "height": 800})
        # the e-mail breaks only after the @ or a hyphen, or before a dot, never inside
        # a word
        lines = page.locator("[data-email]").evaluate(LINES_OF)
        assert "".join(lines) == user.email
        for before, after in itertools.pairwise(lines):
            assert before.endswith(("@", "-")) or after.startswith("."), lines
        # the share link is this service's public address, shown whole and copyable
        link = page.locator("[data-share-link]")
        assert link.inner_text() == f"{site}/account?ref={user.referral_code}"
        assert link.evaluate("e => e.scrollWidth <= e.clientWidth")
        box = link.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
        # the code is large, spaced, in a face that tells 0 from O and I from l
        code = page.locator("[data-referral-code]")
        style = code.evaluate(
            "e => { const s = getComputedStyle(e); return {size: parseFloat(s.fontSize),"
            " spacing: parseFloat(s.letterSpacing), family: s.fontFamily,"
            " numeric: s.fontVariantNumeric}; }"
        )
        assert style["size"] >= 20 and style["spacing"] > 0, style
        assert "slashed-zero" in style["numeric"], style
        assert style["family"].startswith('"DejaVu Sans Mono"'), style
        assert code.inner_text() == user.referral_code
        keep_screenshot(page, f"account-phone-{width}")


def test_the_time_zone_list_offers_japan_first_then_places_by_region(page, site):
    user = make_user(email="zones@example.jp")
    sign_in(page, site, user.email)
    page.goto(f"{site}/account")
    select = page.locator("[data-preferences] select[name=time_zone]")
    options = select.locator("option")
    assert options.nth(1).get_attribute("value") == "Asia/Tokyo"
    assert options.nth(1).inner_text().startswith("日本時間")
    groups = select.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
    assert groups[:3] == ["アジア", "ヨーロッパ", "南北アメリカ"]
    texts = options.evaluate_all("os => os.map(o => o.textContent.trim())")
    assert not [t for t in texts if "/" in t], "an IANA name shown raw"
    paris = select.locator("option[value='Europe/Paris']")
    assert paris.inner_text().startswith("フランス — パリ")
    select.select_option("Europe/Paris")
    page.click("[data-preferences] button[type=submit]")
    page.wait_for_url(f"{site}/account")
    assert select.input_value() == "Europe/Paris"


def rows_of(cards) -> int:
    """How many rows the cards are laid out in."""
    tops = cards.evaluate_all("cs => cs.map((c) => Math.round(c.getBoundingClientRect().top))")
    return len(set(tops))


def test_the_plans_with_their_prices_beside_the_member_own(page, site):
    member = make_user(email="plans-browser@example.jp")
    make_subscription(member, plan="plus")
    sign_in(page, site, member.email)
    page.goto(f"{site}/account#plans")
    plus = page.locator("[data-plan-offer='plus']")
    expect(plus.locator("[data-plan-yours]")).to_have_text("現在のプラン")
    expect(plus.locator("[data-plan-price]")).to_have_text("¥980 / 月 税込")
    pro = page.locator("[data-plan-offer='pro']")
    pro_text = " ".join(pro.inner_text().split())
    assert pro_text == "プロ ¥2,980 / 月 税込 毎月 2,000 クレジット 広告なし"
    assert page.locator("[data-plan-yours]").count() == 1
    # the way to change the plan follows the plans
    expect(page.get_by_role("button", name="契約を管理する")).to_be_visible()
    cards = page.locator("[data-plan-offer]")
    for width, rows in ((1280, 1), (375, 3)):
        page.set_viewport_size({"width": width, "height": 800})
        assert rows_of(cards) == rows, width
        no_sideways_scroll(page)
    keep_screenshots_at(page, "account-plans")

    page.get_by_role("button", name="English").click()
    expect(page.locator("h1")).to_have_text("Account")
    expect(plus.locator("[data-plan-price]")).to_have_text("¥980 / month tax included")
    expect(plus.locator("[data-plan-yours]")).to_have_text("Your plan")
    keep_screenshots_at(page, "account-plans-en")


class Unreachable:
    """The provider, its price reads failing as when it cannot be reached."""

    def __init__(self, provider):
        self.provider = provider

    def get_price(self, price_id):
        raise PaymentUnavailable("connection refused")

    def __getattr__(self, name):
        return getattr(self.provider, name)


def test_while_the_provider_does_not_answer_the_plans_show_without_prices(page, site):
    sign_in(page, site, make_user(email="no-prices@example.jp").email)
    with provider_service.swap(Unreachable(get_provider())):
        page.goto(f"{site}/account")
    expect(page.locator("[data-prices-unavailable]")).to_have_text(
        "いまは料金を表示できません。お支払いの前に、決済画面で料金を確認できます。"
    )
    assert page.locator(".plan-tax").count() == 0
    expect(page.locator("[data-plan-offer='pro']")).to_contain_text("毎月 2,000 クレジット")
    expect(page.get_by_role("button", name="プロに登録")).to_be_visible()
    keep_screenshots_at(page, "account-prices-unavailable")
