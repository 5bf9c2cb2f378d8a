"""What only the embedded engine does: the scan fallback, the semantic report, the file's
layout and batched writes."""

from __future__ import annotations

import sqlite3

import pytest

from models.search import IndexNotReady, SearchQuery, Segment, video_documents
from models.search.embedded import EmbeddedEngine
from tests.models.search.test_conformance import channel, index, video

pytestmark = pytest.mark.database_independent


def test_a_one_character_query_falls_back_to_a_scan(embedded):
    index(embedded, "cat00000001", [(0, 3, "うちの猫はかわいい")])
    index(embedded, "dog00000001", [(0, 3, "うちの犬はかわいい")])
    [hit] = embedded.search(SearchQuery(q="猫")).hits
    assert hit.video_id == "cat00000001"
    assert "<mark>猫</mark>" in hit.highlight


def test_semantic_search_is_reported_as_not_applied(embedded):
    index(embedded, "sem00000001", [(0, 3, "意味で探す")])
    results = embedded.search(SearchQuery(q="意味", semantic=True, sr=0.8))
    assert results.total_hits == 1
    assert results.semantic_applied is False


def test_the_index_lives_in_its_own_file(tmp_path):
    path = tmp_path / "nested" / "search.db"
    engine = EmbeddedEngine(str(path))
    engine.apply_settings()
    assert path.exists()
    assert engine.keys() == []
    engine.close()


def older_layout(path):
    """A file laid out by an earlier version (no layout number, other columns)."""
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT, norm_text TEXT)")
    old.execute("INSERT INTO documents (id, norm_text) VALUES ('x-s0000', 'old')")
    old.commit()
    old.close()


def test_opening_a_file_of_an_older_layout_neither_reads_nor_changes_it(tmp_path):
    # Given a file laid out by an earlier version
    path = tmp_path / "search.db"
    older_layout(path)
    engine = EmbeddedEngine(str(path))
    # When a process that did not set it up searches or writes, then both are refused
    # with the commands to run, and the file keeps what it held
    with pytest.raises(IndexNotReady, match="subsearch db upgrade"):
        engine.search_videos(SearchQuery(q="索引"))
    with pytest.raises(IndexNotReady, match="subsearch search reindex"):
        index(engine, "fresh000001", [(0, 3, "新しい索引")])
    engine.close()
    kept = sqlite3.connect(path)
    assert kept.execute("SELECT id FROM documents").fetchall() == [("x-s0000",)]
    kept.close()


def test_setting_up_lays_an_older_file_out_again_once(tmp_path):
    # Given a file of an older layout
    path = tmp_path / "search.db"
    older_layout(path)
    engine = EmbeddedEngine(str(path))
    # When it is set up (db upgrade), then it holds the current layout, empty, and works
    assert engine.apply_settings() is True
    assert engine.document_count() == 0
    index(engine, "fresh000001", [(0, 3, "新しい索引")])
    # and setting it up again changes nothing
    assert engine.apply_settings() is False
    assert engine.search_videos(SearchQuery(q="索引")).total_videos == 1
    engine.close()


def test_a_missing_file_is_not_created_by_a_write(tmp_path):
    path = tmp_path / "absent" / "search.db"
    engine = EmbeddedEngine(str(path))
    with pytest.raises(IndexNotReady):
        index(engine, "fresh000001", [(0, 3, "新しい索引")])
    with pytest.raises(IndexNotReady):
        engine.health()
    assert not path.exists()


def test_a_deleted_video_key_is_never_given_to_another_video(embedded):
    # Given two videos, the second holding the highest key
    index(embedded, "first000001", [(0, 3, "一本目")])
    index(embedded, "second00001", [(0, 3, "二本目")])
    keys = dict(embedded._db().execute("SELECT video_id, key FROM videos").fetchall())
    # When the last one is deleted and another video is indexed
    embedded.delete_video_documents("second00001")
    index(embedded, "third000001", [(0, 3, "三本目")])
    # Then the new video has a key of its own: a search that read the deleted video's
    # rowids can never find the new video's documents under them
    third = embedded._db().execute("SELECT key FROM videos WHERE video_id = 'third000001'")
    assert third.fetchone()[0] > keys["second00001"]


def test_several_videos_are_replaced_in_one_write(embedded):
    index(embedded, "many0000001", [(0, 3, "古い字幕")])
    docs = {
        vid: video_documents(video(vid), channel(), "", [Segment(0, 3, f"{vid} の字幕")])
        for vid in ("many0000001", "many0000002")
    }
    embedded.replace_videos(docs)
    assert embedded.search_videos(SearchQuery(q="古い")).total_videos == 0
    assert embedded.search_videos(SearchQuery(q="字幕")).total_videos == 2
    assert embedded.document_count() == 4  # a video document and a segment each


def test_a_video_keeps_its_key_when_replaced_and_frees_it_when_deleted(embedded):
    index(embedded, "keyed000001", [(0, 3, "一回目")])
    index(embedded, "keyed000002", [(0, 3, "別の動画")])
    index(embedded, "keyed000001", [(0, 3, "二回目")])
    assert [v.video_id for v in embedded.search_videos(SearchQuery(q="回目")).videos] == [
        "keyed000001"
    ]
    embedded.delete_video_documents("keyed000001")
    assert embedded.video_segments("keyed000001") == []
    assert embedded.search_videos(SearchQuery(q="回目")).total_videos == 0
    assert embedded.video_segments("keyed000002")
