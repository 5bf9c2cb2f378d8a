"""The package build carries the pages' Japanese: a wheel built from a clean checkout (no
compiled catalog in it, as git has none) holds web/translations/ja/LC_MESSAGES/messages.mo,
and that catalog translates the pages' words. Built offline: no build isolation, with
the setuptools and babel of the test environment ([project.optional-dependencies] dev)."""

from __future__ import annotations

import gettext
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# What the wheel holds does not depend on the database: the SQLite pass builds it.
pytestmark = pytest.mark.database_independent

ROOT = Path(__file__).resolve().parent.parent
CATALOG = "web/translations/{locale}/LC_MESSAGES/messages.mo"


def checkout_files() -> list[str]:
    """What a clean checkout of the working tree holds: the tracked files and the new
    ones not ignored (so a test of uncommitted work sees it), never a compiled catalog."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [
        name
        for name in listed.split("\0")
        if name and not name.endswith(".mo") and (ROOT / name).is_file()
    ]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("checkout")
    for name in checkout_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    assert not list(source.rglob("*.mo"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("subsearch-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def translations(wheel: zipfile.ZipFile, locale: str) -> gettext.GNUTranslations:
    return gettext.GNUTranslations(io.BytesIO(wheel.read(CATALOG.format(locale=locale))))


def test_a_wheel_from_a_clean_checkout_carries_the_japanese_catalog(wheel):
    japanese = translations(wheel, "ja")
    assert japanese.gettext("Sign in") == "ログイン"
    assert japanese.gettext("Language") == "言語"


def test_the_english_catalog_is_there_and_keeps_the_source_words(wheel):
    assert translations(wheel, "en").gettext("Sign in") == "Sign in"


def test_the_build_ships_the_pages_but_not_the_tests(wheel):
    names = set(wheel.namelist())
    assert "web/templates/base.html" in names
    assert "web/static/site.css" in names
    assert not any(name.startswith("tests/") for name in names)
