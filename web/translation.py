"""Flask-Babel with its types: web/ takes gettext, its lazy and plural forms and the
request's locale and zone from here (web/i18n.py chooses them). Flask-Babel 4 ships no
type information, so every name taken from it directly would be Any where it is used.

Callers keep the names pybabel extracts by (`_`, `gettext`, `ngettext`, `lazy_gettext`:
Makefile, messages)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import tzinfo
from typing import Protocol

import flask_babel
from babel import Locale
from flask import Flask

# The language the msgids are written in: pages in English read right with no catalog
# at all (web/catalogs.py).
SOURCE_LOCALE = "en"


class LazyText(Protocol):
    """A sentence translated each time it is read (Flask-Babel's LazyString): `str()` it,
    or hand it to a template, which renders it as text."""

    def __html__(self) -> str: ...


def gettext(string: str, **variables: object) -> str:
    """`string` in the reader's language, its `%(name)s` filled from `variables`."""
    translated: str = flask_babel.gettext(string, **variables)
    return translated


def ngettext(singular: str, plural: str, num: int, **variables: object) -> str:
    """The singular or the plural sentence for `num`, in the reader's language."""
    translated: str = flask_babel.ngettext(singular, plural, num, **variables)
    return translated


def lazy_gettext(string: str, **variables: object) -> LazyText:
    """gettext when the text is read: for sentences kept from import time on."""
    lazy: LazyText = flask_babel.lazy_gettext(string, **variables)
    return lazy


def in_source_language(text: LazyText) -> str:
    """`text` in the words it is written in, English, whoever reads the page: an API
    message said with a page's sentence (the English catalog leaves every msgid as it
    is, web/catalogs.py)."""
    with flask_babel.force_locale(SOURCE_LOCALE):
        return str(text)


def force_locale(locale: str) -> AbstractContextManager[None]:
    """Within the block, sentences are in `locale` (a flash said in the language just
    chosen)."""
    forced: AbstractContextManager[None] = flask_babel.force_locale(locale)
    return forced


def get_locale() -> Locale | None:
    """The request's locale, None outside a request."""
    locale: Locale | None = flask_babel.get_locale()
    return locale


def get_timezone() -> tzinfo | None:
    """The request's time zone (pytz), None outside a request."""
    zone: tzinfo | None = flask_babel.get_timezone()
    return zone


def init_babel(
    app: Flask, locale_selector: Callable[[], str], timezone_selector: Callable[[], str]
) -> None:
    flask_babel.Babel(app, locale_selector=locale_selector, timezone_selector=timezone_selector)
