"""The maintenance merge of the embedded index's full-text segments (layout.merge_step):
written video by video the index holds many small segments, which every lookup reads;
the merge brings them to one, a step at a time, and finds the same documents after."""

from __future__ import annotations

import pytest

from models import indexing
from models.search import SearchQuery
from tests.models.search.test_conformance import index

pytestmark = pytest.mark.database_independent


def segments(engine) -> int:
    """How many segments the full-text index holds (FTS5's structure record lists each
    with its id; a count of its leaf-page ranges is enough to compare)."""
    conn = engine._db()
    return conn.execute(
        "SELECT count(DISTINCT id >> 37) FROM documents_fts_data WHERE id > 10"
    ).fetchone()[0]


def test_merging_leaves_fewer_segments_and_the_same_answers(embedded):
    for n in range(40):
        index(embedded, f"merge{n:06d}", [(0, 3, f"大阪の串カツ その{n}"), (4, 7, "ramen")])
    before = embedded.search_videos(SearchQuery(q="くしかつ", per_page=50)).videos
    many = segments(embedded)
    assert embedded.merge_full_text() >= 1
    assert segments(embedded) < many
    assert embedded.merge_full_text() == 0  # a rerun finds nothing left to merge
    after = embedded.search_videos(SearchQuery(q="くしかつ", per_page=50)).videos
    assert [v.video_id for v in after] == [v.video_id for v in before]
    assert len(after) == 40


def test_the_maintenance_job_merges_the_configured_engine(embedded, monkeypatch):
    monkeypatch.setattr(indexing, "get_engine", lambda: embedded)
    for n in range(20):
        index(embedded, f"job{n:08d}", [(0, 3, "ramen")])
    assert indexing.merge_full_text() >= 1
    assert indexing.merge_full_text() == 0
