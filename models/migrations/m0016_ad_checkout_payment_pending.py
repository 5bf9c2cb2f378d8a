"""An ad checkout the provider completed unpaid (konbini: the buyer holds a voucher)
is marked when its event arrives, so the advertiser's pages say 入金待ち with the
deadline instead of offering a checkout that can no longer be opened (issue 27)."""

STATEMENTS = [
    "ALTER TABLE ad_checkouts ADD COLUMN payment_pending_at TEXT",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
