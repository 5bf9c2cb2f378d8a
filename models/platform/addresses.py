"""What an operator may name a channel by: its id (`UC` and 22 more), its handle (`@name`,
or the name alone) or its address on the platform (`https://www.youtube.com/channel/UC...`,
`https://www.youtube.com/@name`, with or without `www.` or `m.`)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

CHANNEL_ID = re.compile(r"UC[0-9A-Za-z_-]{22}")
# A handle: 3 to 30 characters, letters of any script, digits, `_`, `-` and `.`.
HANDLE = re.compile(r"@?([\w.-]{3,30})")
HOSTS = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com"})


def channel_reference(text: str) -> str | None:
    """The channel id or `@handle` that `text` names, or None when it names none."""
    text = text.strip()
    if CHANNEL_ID.fullmatch(text):
        return text
    if text.startswith(("http://", "https://")):
        return _from_address(text)
    handle = HANDLE.fullmatch(text)
    return f"@{handle.group(1)}" if handle else None


def _from_address(address: str) -> str | None:
    parts = urlsplit(address)
    if (parts.hostname or "").lower() not in HOSTS:
        return None
    path = [part for part in parts.path.split("/") if part]
    if len(path) >= 2 and path[0] == "channel" and CHANNEL_ID.fullmatch(path[1]):
        return path[1]
    if path and path[0].startswith("@"):
        handle = HANDLE.fullmatch(path[0])
        return f"@{handle.group(1)}" if handle else None
    return None
