"""`subsearch ads price create|archive`: a price revision through the payment interface."""

from __future__ import annotations

import re

from click.testing import CliRunner

from models.payments import get_provider
from tests.fixtures import take_messages
from web.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_create_prints_the_variable_to_switch_and_keeps_the_product():
    result = run("ads", "price", "create", "--country", "JP", "--amount", "60000")
    assert result.exit_code == 0, result.output
    match = re.search(r"^PAYMENT_AD_PRICE_JP_ID=(\S+)$", result.output, re.M)
    assert match
    created = get_provider().get_price(match.group(1))
    assert (created.unit_amount, created.currency, created.active) == (60000, "jpy", True)
    assert created.product == get_provider().get_price("price_local_ad_jp").product
    assert "subsearch ads price archive price_local_ad_jp" in result.output


def test_archive_retires_a_price():
    result = run("ads", "price", "archive", "price_local_ad_jp")
    assert result.exit_code == 0, result.output
    assert get_provider().get_price("price_local_ad_jp").active is False


def test_bad_input_is_refused_clearly():
    assert "not an ISO" in run("ads", "price", "create", "--country", "XX", "--amount", "1").output
    assert run("ads", "price", "create", "--country", "JP", "--amount", "0").exit_code == 2
    unknown = run("ads", "price", "archive", "price_nope")
    assert unknown.exit_code == 1
    assert "price_nope" in unknown.output
    no_currency = run("ads", "price", "create", "--country", "US", "--amount", "1000")
    assert no_currency.exit_code != 0
    assert "--currency" in no_currency.output


def test_ads_expire_enqueues_the_expiry_and_the_hold_release(stub_broker):
    result = run("ads", "expire")
    assert result.exit_code == 0, result.output
    assert [m["actor_name"] for m in take_messages(stub_broker, "ads")] == [
        "expire_ad_reservations",
        "release_unpaid_ad_holds",
    ]
