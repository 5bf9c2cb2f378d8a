"""A search on an index that is not set up for this version: a clear 503 naming what the
operator runs, never a 500 and never an index laid out by whoever asked first."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest

from models.settings import get_settings, use_settings
from tests.factories import make_user, sign_in


@pytest.fixture
def older_index(tmp_path):
    path = tmp_path / "search.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT)")
    old.commit()
    old.close()
    previous = get_settings()
    use_settings(replace(previous, search_path=str(path)))
    yield path
    use_settings(previous)


def test_the_api_answers_search_unavailable_naming_the_commands(client, older_index):
    answer = client.get("/api/search?q=大阪")
    assert answer.status_code == 503
    error = answer.get_json()["error"]
    assert error["code"] == "search_unavailable"
    assert "subsearch db upgrade" in error["message"]
    assert "subsearch search reindex" in error["message"]
    # and the file was left as it was
    tables = sqlite3.connect(older_index).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("documents",)]


def test_the_search_page_says_so_in_japanese(client, older_index):
    page = client.get("/search?q=大阪")
    assert page.status_code == 503
    assert "検索を準備しています" in page.get_data(as_text=True)


def test_a_missing_index_is_the_same_answer(client, tmp_path):
    previous = get_settings()
    use_settings(replace(previous, search_path=str(tmp_path / "absent" / "search.db")))
    try:
        sign_in(client, make_user())
        answer = client.get("/api/search?q=大阪")
    finally:
        use_settings(previous)
    assert (answer.status_code, answer.get_json()["error"]["code"]) == (503, "search_unavailable")
    assert not (tmp_path / "absent").exists()
