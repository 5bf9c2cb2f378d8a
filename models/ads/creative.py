"""Creative rules: the advertiser display name and the redirect URL (its host judged by
models/ads/hosts.py)."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

from models.ads.hosts import local_host_problem
from models.problems import Problem

MAX_NAME_LENGTH = 30
# Words that label something as an ad, and claims of affiliation with the service.
AD_LABELS = (
    "広告",
    "スポンサード",
    "スポンサー",
    "ad",
    "ads",
    "pr",
    "sponsored",
    "sponsor",
    "promoted",
)
AFFILIATION_CLAIMS = ("公式", "正規代理店", "公認", "official")
LINE_BREAKS = re.compile(r"[\r\n\u0085\u2028\u2029\v\f]")
LATIN_WORD_CHAR = r"[0-9a-z\u00c0-\u024f]"


def _fold(text: str) -> str:
    """NFKC and case folding, without invisible format characters (zero-width spaces,
    soft hyphens, joiners), which would otherwise hide a word inside another."""
    visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", visible).casefold()


def _contains(folded: str, word: str) -> bool:
    """Latin words must stand alone ("ADVANCE" has no "ad"); other scripts have no
    spaces between words, so any occurrence counts."""
    word = _fold(word)
    if re.fullmatch(r"[0-9a-z\u00c0-\u024f ]+", word):
        pattern = rf"(?<!{LATIN_WORD_CHAR}){re.escape(word)}(?!{LATIN_WORD_CHAR})"
        return re.search(pattern, folded) is not None
    return word in folded


def advertiser_name_problem(name: object, service_names: tuple[str, ...]) -> Problem | None:
    """Why a display name is refused, or None when it is acceptable."""
    if not isinstance(name, str) or not name.strip():
        return Problem("required")
    if LINE_BREAKS.search(name):
        return Problem("multiple_lines")
    if len(unicodedata.normalize("NFC", name.strip())) > MAX_NAME_LENGTH:
        return Problem("too_long", n=MAX_NAME_LENGTH)
    folded = _fold(name)
    if any(_contains(folded, label) for label in AD_LABELS):
        return Problem("ad_label")
    if any(_contains(folded, claim) for claim in AFFILIATION_CLAIMS):
        return Problem("affiliation_claim")
    # The service's name is refused even glued to other words ("SubsearchJapan"): unlike a
    # short label, it is distinctive enough that any occurrence reads as the service.
    services = (_fold(service).strip() for service in service_names if service)
    if any(service and service in folded for service in services):
        return Problem("service_name")
    return None


def redirect_url_problem(url: object) -> Problem | None:
    """Why a redirect URL is refused, or None: the one check of every landing page an
    advertiser gives (docs/ads.md, Landing pages)."""
    if not isinstance(url, str) or not url.strip():
        return Problem("required")
    url = url.strip()
    if len(url) > 2048 or re.search(r"[\s\x00-\x1f\x7f]", url):
        return Problem("invalid_url")
    # Browsers read a backslash as a slash, Python's parser does not: the host a visitor
    # reaches would not be the host checked here ("https://evil.example\\@good.example").
    if "\\" in url:
        return Problem("backslash_in_url")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return Problem("invalid_url")
    if parts.scheme not in ("http", "https"):
        return Problem("not_http")
    # "https://good.example@evil.example/" reads as one site and goes to another.
    if "@" in parts.netloc:
        return Problem("credentials_in_url")
    if not host:
        return Problem("no_host")
    # Nothing on the service's own network: loopback, private, metadata, local names.
    return local_host_problem(host)


def landing_host(url: str) -> str:
    """The host a click on the ad reaches, as a reviewer should read it: lower case, and
    a name in another script in its ASCII form (`xn--...`), so that a look-alike of a
    well-known name shows as what it is; "" for a URL without one."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host
