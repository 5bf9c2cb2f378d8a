"""`subsearch ads price`: price revisions of the ad product (new price, then archive the old)."""

from __future__ import annotations

import uuid

import click

from models.countries import usable_country
from models.payments import PaymentError, PaymentProvider, ad_price_id, get_provider
from tasks.ads import expire_ad_reservations, release_unpaid_ad_holds
from web.cli.group import open_db

# Currencies of the countries we sell in; others name theirs with --currency.
COUNTRY_CURRENCY = {"JP": "jpy"}


def _provider() -> PaymentProvider:
    open_db()
    return get_provider()


@click.group()
def ads() -> None:
    """Direct ads."""


@ads.group()
def price() -> None:
    """Ad prices at the payment provider (immutable: revise by creating a new one)."""


@price.command("create")
@click.option("--country", required=True, help="ISO 3166-1 alpha-2 code, e.g. JP.")
@click.option(
    "--amount",
    required=True,
    type=click.IntRange(min=1),
    help="Price per slot-month in the currency's smallest unit (yen for JPY).",
)
@click.option("--currency", help="ISO 4217 code; defaults to the country's current price.")
def price_create(country: str, amount: int, currency: str | None) -> None:
    """Create a new ad price for COUNTRY and print the variable to switch to it."""
    code = usable_country(country)
    if code is None:
        raise click.BadParameter(
            f"{country!r} is not an ISO 3166-1 alpha-2 code", param_hint="--country"
        )
    provider = _provider()
    current = None
    current_id = ad_price_id(code)
    try:
        if current_id:
            current = provider.get_price(current_id)
        currency = currency or (current.currency if current else COUNTRY_CURRENCY.get(code))
        if not currency:
            raise click.UsageError(
                f"No current price for {code}: name the currency with --currency"
            )
        created = provider.create_price(
            unit_amount=amount,
            currency=currency,
            product_name=f"subsearch 広告枠 ({code})",
            product_id=current.product if current else None,
            metadata={"purpose": "ad_slot_month", "country": code},
            idempotency_key=f"ad-price-{uuid.uuid4()}",
        )
    except PaymentError as error:
        raise click.ClickException(f"the payment provider refused: {error}") from None
    click.echo(
        f"created {created.id}: {created.unit_amount:,} {created.currency.upper()} per slot-month"
    )
    click.echo("Switch to it by setting:")
    click.echo(f"PAYMENT_AD_PRICE_{code}_ID={created.id}")
    if current:
        click.echo(f"then retire the old price: subsearch ads price archive {current.id}")


@price.command("archive")
@click.argument("price_id")
def price_archive(price_id: str) -> None:
    """Archive PRICE_ID: no new checkout can use it; paid reservations keep their amount."""
    try:
        archived = _provider().archive_price(price_id)
    except PaymentError as error:
        raise click.ClickException(f"the payment provider refused: {error}") from None
    click.echo(f"archived {archived.id} ({'active' if archived.active else 'inactive'})")


@ads.command("expire")
def ads_expire() -> None:
    """Enqueue the expiry job (and the release of unpaid holds)."""
    expire_ad_reservations.send()
    release_unpaid_ad_holds.send()
    click.echo("enqueued expire_ad_reservations and release_unpaid_ad_holds")
