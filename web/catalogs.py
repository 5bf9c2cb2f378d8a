"""The compiled gettext catalogs the pages are read in (web/translations/<locale>/
LC_MESSAGES/messages.mo, compiled by the package build and by `make translations`).

A missing catalog fails no request: Flask-Babel falls back to the English source
strings, so every page would read English under <html lang="ja">. Production refuses to
start instead (create_app); development and tests are told in the log.
"""

from __future__ import annotations

import struct
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
            with path.open("rb") as mo_file:
                translated = len(read_mo(mo_file))
        except FileNotFoundError:
            missing.append(f"{locale}: {path} is missing")
            continue
        except (OSError, struct.error, ValueError) as error:
            missing.append(f"{locale}: {path} cannot be read ({error})")
            continue
        if not translated:
            missing.append(f"{locale}: {path} translates nothing")
    return missing


def refuse_missing_catalogs(translations: Path | None = None) -> None:
    missing = missing_catalogs(translations)
    if missing:
        raise ConfigError(
            "the pages' languages need their compiled catalogs (pip install builds them; "
            "in a checkout run `make translations`): " + "; ".join(missing)
        )
