"""The package build: setuptools as pyproject.toml configures it, plus the pages' gettext
catalogs compiled (web/translations/<locale>/LC_MESSAGES/messages.po to .mo).

The .mo files are not in git; without this a wheel or a plain `pip install` would serve
every page in English under <html lang="ja"> (Flask-Babel falls back to the source
strings). They are compiled in the source tree, where an editable install reads them,
and copied into the build, where a wheel takes them from.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
TRANSLATIONS = ROOT / "web" / "translations"


class CatalogError(RuntimeError):
    """A catalog that would compile to wrong pages: the build stops instead."""


def compile_catalogs(translations: Path = TRANSLATIONS) -> list[Path]:
    """Compile every messages.po under TRANSLATIONS beside itself, as `pybabel compile`
    does (fuzzy entries left out), and return the .mo files. A catalog marked fuzzy as a
    whole, or with an entry whose placeholders differ from its msgid's, stops the build."""
    compiled = []
    for po_path in sorted(translations.glob("*/LC_MESSAGES/messages.po")):
        with po_path.open("rb") as po_file:
            catalog = read_po(po_file, locale=po_path.parent.parent.name)
        if catalog.fuzzy:
            raise CatalogError(f"{po_path} is marked fuzzy as a whole")
        problems = [
            f"{po_path}:{message.lineno}: {error}"
            for message, errors in catalog.check()
            for error in errors
        ]
        if problems:
            raise CatalogError("; ".join(problems))
        mo_path = po_path.with_suffix(".mo")
        with mo_path.open("wb") as mo_file:
            write_mo(mo_file, catalog)
        compiled.append(mo_path)
    return compiled


class BuildPyWithCatalogs(build_py):
    """build_py that compiles the catalogs first (also for an editable install, whose
    build_py copies nothing) and makes sure the build holds them."""

    def run(self) -> None:
        catalogs = compile_catalogs()
        super().run()
        if self.editable_mode:
            return
        for mo_path in catalogs:
            target = Path(self.build_lib) / mo_path.relative_to(ROOT)
            self.mkpath(str(target.parent))
            self.copy_file(str(mo_path), str(target))


# The embedded engine's document score in C (models/search/embedded/_score.c), against the
# system's SQLite, the one the standard library's sqlite3 module runs on. Optional: where it
# cannot be compiled (no compiler, no sqlite3.h) the engine scores in Python, the same
# figures more slowly (models/search/embedded/scoring.py).
SCORE = Extension(
    "models.search.embedded._score",
    ["models/search/embedded/_score.c"],
    libraries=["sqlite3"],
    extra_compile_args=["-O2"],
    optional=True,
)

setup(cmdclass={"build_py": BuildPyWithCatalogs}, ext_modules=[SCORE])
