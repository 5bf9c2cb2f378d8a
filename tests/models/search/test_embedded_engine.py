"""What only the embedded engine does: the scan fallback and the semantic report."""

from __future__ import annotations

import pytest

from models.search import SearchQuery
from models.search.embedded import EmbeddedEngine
from tests.models.search.test_conformance import index


@pytest.fixture
def engine(tmp_path):
    engine = EmbeddedEngine(str(tmp_path / "search.db"))
    yield engine
    engine.close()


def test_a_one_character_query_falls_back_to_a_scan(engine):
    index(engine, "cat00000001", [(0, 3, "うちの猫はかわいい")])
    index(engine, "dog00000001", [(0, 3, "うちの犬はかわいい")])
    [hit] = engine.search(SearchQuery(q="猫")).hits
    assert hit.video_id == "cat00000001"
    assert "<mark>猫</mark>" in hit.highlight


def test_semantic_search_is_reported_as_not_applied(engine):
    index(engine, "sem00000001", [(0, 3, "意味で探す")])
    results = engine.search(SearchQuery(q="意味", semantic=True, sr=0.8))
    assert results.total_hits == 1
    assert results.semantic_applied is False


def test_the_index_lives_in_its_own_file(tmp_path):
    path = tmp_path / "nested" / "search.db"
    engine = EmbeddedEngine(str(path))
    engine.apply_settings()
    assert path.exists()
    assert engine.keys() == []
    engine.close()
