"""Receipts (qualified invoices, 適格請求書): an ad reservation's, and the plan's."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import Field

from models.clock import iso
from models.payments import Receipt as ProviderReceipt
from web.api.schemas.common import Response, Timestamp


class ReceiptUrl(Response):
    url: str = Field(
        description="The payment provider's page of the invoice (a qualified invoice, "
        "適格請求書), printable; it can be opened by whoever has the address"
    )


def _time(unix_ms: int) -> str:
    return iso(datetime.fromtimestamp(unix_ms / 1000, UTC))


class Receipt(Response):
    period_start: Timestamp = Field(description="The start of the period paid for")
    period_end: Timestamp = Field(description="The end of the period paid for")
    amount: int = Field(
        description="What was paid, tax included (税込), in the currency's smallest unit "
        "(yen for jpy)"
    )
    currency: str = Field(description="ISO 4217, lower case (jpy)")
    url: str = Field(description="The payment provider's page of the invoice")

    @classmethod
    def of(cls, receipt: ProviderReceipt) -> Receipt:
        return cls(
            period_start=_time(receipt.period_start),
            period_end=_time(receipt.period_end),
            amount=receipt.amount,
            currency=receipt.currency,
            url=receipt.url,
        )


class Receipts(Response):
    receipts: list[Receipt] = Field(
        description="The plan's paid invoices, newest first; empty before the first payment"
    )
