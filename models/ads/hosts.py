"""Landing-page hosts: whether the host of an ad's redirect URL, read as a browser reads
it, lies on the service's own network (docs/ads.md, Landing pages).

Only the URL's text is judged, never DNS: a name's answer can change after review, and
the administrator reviews the URL as written. What a browser would take for an address
(`http://2130706433/`, `http://0x7f.1/`, `http://１２７.０.０.１/`) is read as that
address, and a name only a local network knows (`localhost`, `redis`, `*.internal`) is
refused by its text."""

from __future__ import annotations

import unicodedata
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address
from urllib.parse import unquote

from models.problems import Problem

LOCAL_NETWORK = Problem("local_network")
NOT_A_URL = Problem("invalid_url")
# Names only a local network resolves: RFC 6761 (localhost), RFC 6762 (.local), RFC 8375
# (home.arpa), ICANN's reservation of .internal, and the common "localdomain".
LOCAL_SUFFIXES = ("localhost", "local", "internal", "home.arpa", "localdomain")
# What a browser refuses in a host once percent-decoded (the URL Standard's forbidden
# domain code points, less the controls, checked apart).
FORBIDDEN = set(" #%/:<>?@[\\]^|")
# NAT64's well-known prefix (RFC 6052) carries an IPv4 address in its last 32 bits.
NAT64 = IPv6Network("64:ff9b::/96")
DIGITS = {10: "0123456789", 8: "01234567", 16: "0123456789abcdef"}

Address = IPv4Address | IPv6Address


def local_host_problem(host: str) -> Problem | None:
    """Why a URL's host (as `urlsplit(...).hostname` gives it: brackets off, lower case)
    is refused, or None for a public name or address."""
    if ":" in host:
        try:
            return None if _public(ip_address(unquote(host))) else LOCAL_NETWORK
        except ValueError:
            return NOT_A_URL
    name = _as_browsers_read(host)
    if name is None:
        return NOT_A_URL
    if _ends_in_a_number(name):
        address = _ipv4(name)
        if address is None:
            return NOT_A_URL
        return None if _public(address) else LOCAL_NETWORK
    if "." not in name or any(_within(name, suffix) for suffix in LOCAL_SUFFIXES):
        return LOCAL_NETWORK
    return None


def _as_browsers_read(host: str) -> str | None:
    """The host percent-decoded and mapped as IDNA maps it (compatibility forms and case
    folded, ideographic full stops as dots), without its trailing dot; None when a
    browser would refuse it."""
    try:
        decoded = unquote(host, errors="strict")
    except UnicodeDecodeError:
        return None
    name = unicodedata.normalize("NFKC", decoded).casefold().replace("\u3002", ".")
    name = name.removesuffix(".")
    if not name or any(c in FORBIDDEN or unicodedata.category(c) == "Cc" for c in name):
        return None
    if "" in name.split("."):
        return None
    return name


def _ends_in_a_number(name: str) -> bool:
    """The URL Standard's test: a host whose last label is a number is an IPv4 address
    (or invalid), never a name."""
    last = name.rsplit(".", 1)[-1]
    if all(c in DIGITS[10] for c in last):
        return True
    return last[:2] == "0x" and all(c in DIGITS[16] for c in last[2:])


def _ipv4_number(part: str) -> int | None:
    base = 10
    if part[:2] == "0x":
        part, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, base = part[1:], 8
    if not part:
        return 0
    return int(part, base) if all(c in DIGITS[base] for c in part) else None


def _ipv4(name: str) -> IPv4Address | None:
    """The URL Standard's IPv4 parser: one to four parts, each decimal, 0x hex or 0
    octal; the last fills the bytes left. None where a browser fails."""
    parts = name.split(".")
    numbers = [_ipv4_number(part) for part in parts]
    if len(parts) > 4 or None in numbers:
        return None
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    return IPv4Address(sum(n << (8 * (3 - i)) for i, n in enumerate(values[:-1])) + values[-1])


def _public(address: Address) -> bool:
    """Reachable only on the public internet: not loopback, private, link-local (the
    metadata address 169.254.169.254 is), unspecified, shared, reserved or multicast.
    An IPv4 address inside an IPv6 one (mapped, 6to4, NAT64) is judged as itself."""
    if isinstance(address, IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address in NAT64:
            inner = IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None:
            return _public(inner)
        if address.is_site_local:
            return False
    return address.is_global and not (address.is_multicast or address.is_reserved)


def _within(name: str, suffix: str) -> bool:
    return name == suffix or name.endswith("." + suffix)
