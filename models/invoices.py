"""Qualified invoices (適格請求書, issue 48): the consumption tax of a tax-inclusive
price, who issues the invoice, and what an invoice says about the buyer and the sale.

Every price is tax-inclusive (税込) at the 10% standard rate; the tax is worked out once
per invoice and rate, rounded half up to the yen (docs/decisions.md, Qualified invoices).
The payment providers issue the invoices themselves (Stripe's hosted invoice, the local
provider's invoice page); this module only says what they must say.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.settings import Settings, get_settings

# The standard rate (標準税率). Nothing this service sells is at the reduced 8%.
STANDARD_RATE_PERCENT = 10
# Currencies whose amounts have no minor unit (the provider's "zero-decimal" list).
ZERO_DECIMAL = {"jpy", "krw", "vnd", "clp", "pyg", "ugx", "xaf", "xof"}


def consumption_tax(total: int, rate_percent: int = STANDARD_RATE_PERCENT) -> int:
    """The consumption tax inside a tax-inclusive `total`, rounded half up to the yen
    (1円未満四捨五入), as the payment provider rounds the tax of a line:
    round(total × rate / (100 + rate)), in whole numbers so no float rounds it.
    ¥55,000 holds ¥5,000; ¥980 holds ¥89; ¥2,980 holds ¥271. Call it once per invoice
    and rate, on the invoice's total, never per line."""
    if total < 0:
        raise ValueError("a total cannot be negative")
    return (2 * total * rate_percent + 100 + rate_percent) // (2 * (100 + rate_percent))


def money(amount: int, currency: str) -> str:
    """`¥55,000`: an amount in the provider's minor units, as an invoice prints it (the
    same in every language: the invoice is Japanese)."""
    code = (currency or "jpy").lower()
    if code == "jpy":
        return f"¥{amount:,}"
    if code in ZERO_DECIMAL:
        return f"{amount:,} {code.upper()}"
    return f"{amount / 100:,.2f} {code.upper()}"


@dataclass(frozen=True)
class TaxLine:
    """One rate's part of an invoice: the tax-inclusive amount at the rate and its tax."""

    total: int
    currency: str
    rate_percent: int = STANDARD_RATE_PERCENT

    @property
    def tax(self) -> int:
        return consumption_tax(self.total, self.rate_percent)

    @property
    def net(self) -> int:
        return self.total - self.tax

    @property
    def label(self) -> str:
        """`10%対象（税込）`"""
        return f"{self.rate_percent}%対象（税込）"

    @property
    def text(self) -> str:
        """`¥55,000（うち消費税 ¥5,000）`"""
        return f"{money(self.total, self.currency)}（うち消費税 {money(self.tax, self.currency)}）"


@dataclass(frozen=True)
class Issuer:
    """The seller as every invoice names it: INVOICE_ISSUER_NAME, INVOICE_ISSUER_ADDRESS,
    INVOICE_REGISTRATION_NUMBER."""

    name: str
    address: str
    registration_number: str

    @property
    def footer(self) -> str:
        return f"{self.name}\n{self.address}\n登録番号 {self.registration_number}"


def issuer_of(settings: Settings) -> Issuer | None:
    """The issuer the settings name; None while any of the three is unset (development
    and tests only: production refuses to start without them)."""
    if not (
        settings.invoice_issuer_name
        and settings.invoice_issuer_address
        and settings.invoice_registration_number
    ):
        return None
    return Issuer(
        name=settings.invoice_issuer_name,
        address=settings.invoice_issuer_address,
        registration_number=settings.invoice_registration_number,
    )


def current_issuer() -> Issuer | None:
    return issuer_of(get_settings())


@dataclass(frozen=True)
class InvoiceRequest:
    """What the invoice of a one-time checkout says besides its line items: the issuer,
    the buyer (宛名, and their registration number when they gave one), what was bought
    and the tax of its total. `metadata` goes on the invoice at the provider."""

    issuer: Issuer
    buyer_name: str
    buyer_registration_number: str | None
    description: str
    total: int
    currency: str
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def tax_line(self) -> TaxLine:
        return TaxLine(self.total, self.currency)


def ad_description(
    slot_name: str, position: int, country: str, start_month: str, months: int
) -> str:
    """What an ad invoice says was bought: `広告掲載 検索結果の途中 位置1（JP）2026-12から3か月`."""
    return f"広告掲載 {slot_name} 位置{position}（{country}）{start_month}から{months}か月"
