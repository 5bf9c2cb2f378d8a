"""The compiled gettext catalogs the pages are read in (web/translations/<locale>/
LC_MESSAGES/messages.mo, compiled by the package build and by `make translations`).

A missing catalog fails no request: Flask-Babel falls back to the English source
strings, so every page would read English under <html lang="ja">. Production refuses to
start instead (create_app); development and tests are told in the log.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path

from babel.messages.mofile import read_mo

from models.settings import ConfigError
from web.i18n import LOCALES
from web.translation import SOURCE_LOCALE

TRANSLATIONS = Path(__file__).resolve().parent / "translations"


def catalog_path(locale: str, translations: Path | None = None) -> Path:
    return (translations or TRANSLATIONS) / locale / "LC_MESSAGES" / "messages.mo"


def missing_catalogs(translations: Path | None = None) -> list[str]:
    """Each configured language (web.i18n.LOCALES) but the source one whose compiled
    catalog is absent, unreadable or translates nothing, in words."""
    missing = []
    for locale in LOCALES:
        if locale == SOURCE_LOCALE:
            continue
        path = catalog_path(locale, translations)
        try:
            stat = path.stat()
            translated = _messages_in(str(path), stat.st_mtime_ns, stat.st_size)
        except FileNotFoundError:
            missing.append(f"{locale}: {path} is missing")
            continue
        except (OSError, struct.error, ValueError) as error:
            missing.append(f"{locale}: {path} cannot be read ({error})")
            continue
        if not translated:
            missing.append(f"{locale}: {path} translates nothing")
    return missing


@lru_cache(maxsize=16)
def _messages_in(path: str, mtime_ns: int, size: int) -> int:
    """How many messages the catalog holds, read once per version of the file (an app is
    built for every test; reading both catalogs took a quarter of that)."""
    with open(path, "rb") as mo_file:
        return len(read_mo(mo_file))


def refuse_missing_catalogs(translations: Path | None = None) -> None:
    missing = missing_catalogs(translations)
    if missing:
        raise ConfigError(
            "the pages' languages need their compiled catalogs (pip install builds them; "
            "in a checkout run `make translations`): " + "; ".join(missing)
        )
