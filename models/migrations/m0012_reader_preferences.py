"""The reader's language and time zone (issue 13): chosen on the account page, null
until chosen (the browser's language and its default zone apply until then)."""

STATEMENTS = [
    "ALTER TABLE users ADD COLUMN locale TEXT",
    "ALTER TABLE users ADD COLUMN time_zone TEXT",
]


def statements(dialect: str) -> list[str]:
    return STATEMENTS
