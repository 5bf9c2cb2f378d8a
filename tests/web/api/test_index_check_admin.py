"""The last search index check (`subsearch search verify`) as admins read it: in
GET /api/admin/queue (camelCase, null before any check, declared in the API document)
and on the admin page, in the reader's language and time zone, with what it found
standing out and the example videos linked."""

from __future__ import annotations

import json
import re

from models.tables import IndexCheck
from tests.factories import make_admin, sign_in
from tests.web.test_i18n import english_on, japanese_on

COMMAND = "subsearch search verify --repair"


def make_check(**overrides) -> IndexCheck:
    values = {
        "engine": "embedded",
        "started_at": "2026-11-24T09:10:00.000Z",
        "finished_at": "2026-11-24T09:16:00.000Z",
        "videos": 1234,
        "missing": 2,
        "extra": 0,
        "stale": 1,
        "repaired": False,
        "examples": json.dumps(
            {"missing": ["vidMissing1", "vidMissing2"], "extra": [], "stale": ["vidStale001"]}
        ),
    }
    values.update(overrides)
    return IndexCheck.create(**values)


def admin_page(client, language: str = "ja") -> str:
    answer = client.get("/admin/", headers={"Accept-Language": language})
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def found_row(html: str, kind: str) -> str:
    row = re.search(rf'<tr data-found="{kind}">(.*?)</tr>', html, re.S)
    assert row, kind
    return row.group(1)


def test_before_any_check_the_queue_answer_says_null(client):
    sign_in(client, make_admin())
    answer = client.get("/api/admin/queue")
    assert answer.status_code == 200
    assert answer.get_json()["indexCheck"] is None


def test_the_queue_answer_carries_the_latest_check_in_camel_case(client):
    make_check(finished_at="2026-11-23T09:16:00.000Z", missing=9)  # the day before
    make_check(repaired=True)
    sign_in(client, make_admin())
    answer = client.get("/api/admin/queue").get_json()
    assert answer["indexCheck"] == {
        "engine": "embedded",
        "startedAt": "2026-11-24T09:10:00.000Z",
        "finishedAt": "2026-11-24T09:16:00.000Z",
        "videos": 1234,
        "missing": 2,
        "extra": 0,
        "stale": 1,
        "repaired": True,
        "examples": {
            "missing": ["vidMissing1", "vidMissing2"],
            "extra": [],
            "stale": ["vidStale001"],
        },
    }
    assert {"queues", "outbox"} <= set(answer)


def test_the_api_document_declares_the_check(client):
    schemas = client.get("/api/openapi.json").get_json()["components"]["schemas"]
    status = schemas["QueueStatus"]
    assert "indexCheck" in status["properties"] and "indexCheck" in status["required"]
    check = schemas["IndexCheck"]
    assert set(check["properties"]) == {
        "engine",
        "startedAt",
        "finishedAt",
        "videos",
        "missing",
        "extra",
        "stale",
        "repaired",
        "examples",
    }
    assert set(schemas["IndexCheckExamples"]["properties"]) == {"missing", "extra", "stale"}


def test_before_any_check_the_page_says_so_and_names_the_command(client):
    sign_in(client, make_admin())
    html = admin_page(client)
    assert "検索インデックスの点検" in html
    assert "まだ点検は行われていません。" in html
    assert f"<code>{COMMAND}</code>" in html
    assert english_on(html) == []


def test_the_page_shows_the_last_check_in_japanese_and_tokyo_time(client):
    make_check()
    sign_in(client, make_admin())
    html = admin_page(client)
    assert english_on(html) == []
    assert "まだ点検は行われていません。" not in html
    assert re.search(r"<dd data-finished>2026/11/24 18:16 JST</dd>", html)
    assert "<code>embedded</code>" in html
    assert "1,234" in html
    assert "修復していません。" in html
    assert '<th scope="row">欠落</th>' in found_row(html, "missing")
    assert "欠落: 検索対象なのにインデックスにない動画" in html
    # What it found stands out; a kind it did not find does not.
    assert '<strong class="error">2</strong>' in found_row(html, "missing")
    assert '<strong class="error">1</strong>' in found_row(html, "stale")
    assert "<strong" not in found_row(html, "extra")
    for video_id in ("vidMissing1", "vidMissing2"):
        assert f'<a href="/videos/{video_id}"><code>{video_id}</code></a>' in found_row(
            html, "missing"
        )
    assert 'href="/videos/vidStale001"' in found_row(html, "stale")
    assert f"<code>{COMMAND}</code>" in html


def test_a_repairing_check_says_it_wrote_the_videos_again(client):
    make_check(repaired=True)
    sign_in(client, make_admin())
    assert "食い違いのあった動画を書き直しました。" in admin_page(client)


def test_the_page_in_english_shows_utc_and_no_japanese(client):
    make_check()
    sign_in(client, make_admin(locale="en"))
    html = admin_page(client, "en")
    assert japanese_on(html) == []
    assert "Search index check" in html
    assert "<dd data-finished>Nov 24, 2026 09:16 UTC</dd>" in html
    assert '<th scope="row">Missing</th>' in found_row(html, "missing")
    assert "Missing: searchable videos not in the index." in html
    assert "Not repaired." in html
