"""The account page's plans: each paid plan's price as the payment provider states it,
tax included (税込), beside what the plan gives, the member's own plan marked; and a page
that still answers, without prices, when the provider does not."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from models.payments import PaymentUnavailable, get_provider, provider_service
from models.settings import get_settings, use_settings
from tests.factories import make_subscription, make_user, sign_in
from web.devtools.local_payments.tables import LocalPrice

EN = {"Accept-Language": "en"}


def plan_card(page: str, plan: str) -> str:
    """The text of one plan's card, tags taken out."""
    card = re.search(rf'data-plan-offer="{plan}">(.*?)</li>\s*</ul>\s*</li>', page, re.S)
    assert card, f"no card for {plan}"
    return " ".join(re.sub(r"<[^>]+>", " ", card.group(1)).split())


class Unreachable:
    """The provider, with its price reads failing as a provider that times out does."""

    def __init__(self, provider):
        self.provider = provider
        self.asked = 0

    def get_price(self, price_id):
        self.asked += 1
        raise PaymentUnavailable("the provider timed out")

    def __getattr__(self, name):
        return getattr(self.provider, name)


def test_each_paid_plan_shows_its_price_tax_included_and_what_it_gives(client):
    sign_in(client, make_user())
    page = client.get("/account").get_data(as_text=True)
    # the local provider's prices: 980 and 2,980 yen a month
    assert plan_card(page, "plus") == "プラス ¥980 / 月 税込 毎月 500 クレジット 広告なし"
    assert plan_card(page, "pro") == "プロ ¥2,980 / 月 税込 毎月 2,000 クレジット 広告なし"
    assert plan_card(page, "free") == "無料 現在のプラン ¥0 毎月 50 クレジット 広告あり"
    # the buttons to subscribe follow the plans, as before
    assert page.index("data-plan-offers") < page.index('data-subscribe="plus"')
    assert "いまは料金を表示できません" not in page


def test_in_english_the_prices_say_tax_included(client):
    sign_in(client, make_user())
    page = client.get("/account", headers=EN).get_data(as_text=True)
    assert "Plans and prices" in page
    assert plan_card(page, "plus") == "Plus ¥980 / month tax included 500 credits a month No ads"
    assert plan_card(page, "pro").startswith("Pro ¥2,980 / month tax included")
    assert "税込" not in page


def test_a_subscriber_sees_their_own_plan_marked(client):
    member = make_user()
    make_subscription(member, plan="pro")
    sign_in(client, member)
    page = client.get("/account").get_data(as_text=True)
    assert plan_card(page, "pro").startswith("プロ 現在のプラン ¥2,980 / 月 税込")
    assert "現在のプラン" not in plan_card(page, "free")
    assert "data-portal" in page and 'data-subscribe="plus"' not in page


def test_the_price_is_the_one_checkout_would_charge(client, settings):
    """A price id set in PAYMENT_PLUS_PRICE_ID is read from the provider: the page shows
    what that price says, not a figure of its own."""
    raised = get_provider().create_price(
        unit_amount=1_280,
        currency="jpy",
        product_name="Plus",
        product_id="prod_local_plans",
        metadata={},
        idempotency_key="plus-1280",
    )
    # a subscription's price is monthly (the local engine's create makes one-off prices)
    LocalPrice.update(recurring_interval="month").where(LocalPrice.id == raised.id).execute()
    previous = get_settings()
    use_settings(replace(previous, payment_plus_price_id=raised.id))
    try:
        sign_in(client, make_user())
        page = client.get("/account").get_data(as_text=True)
    finally:
        use_settings(previous)
    assert plan_card(page, "plus").startswith("プラス ¥1,280 / 月 税込")


def test_the_prices_are_read_once_for_many_pages(client):
    asked = []
    provider = get_provider()

    class Counting:
        def get_price(self, price_id):
            asked.append(price_id)
            return provider.get_price(price_id)

        def __getattr__(self, name):
            return getattr(provider, name)

    sign_in(client, make_user())
    with provider_service.swap(Counting()):
        for _ in range(3):
            page = client.get("/account").get_data(as_text=True)
            assert plan_card(page, "plus").startswith("プラス ¥980 / 月 税込")
    assert sorted(asked) == ["price_local_plus", "price_local_pro"]


@pytest.mark.parametrize(
    ("headers", "note"),
    [({}, "いまは料金を表示できません"), (EN, "The prices cannot be shown just now")],
)
def test_the_page_answers_without_prices_while_the_provider_does_not(client, headers, note):
    sign_in(client, make_user())
    unreachable = Unreachable(get_provider())
    with provider_service.swap(unreachable):
        response = client.get("/account", headers=headers)
        again = client.get("/account", headers=headers)
    assert response.status_code == 200 and again.status_code == 200
    page = response.get_data(as_text=True)
    assert note in page
    # the plans are still there, with what they give, and the buttons to subscribe
    assert "¥980" not in page and "¥2,980" not in page
    assert "2,000" in plan_card(page, "pro")
    assert 'data-subscribe="plus"' in page and 'data-subscribe="pro"' in page
    # the provider that did not answer is not asked again by the next page
    assert unreachable.asked == 2  # plus and pro, once
