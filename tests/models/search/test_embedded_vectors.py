"""The embedded engine's vectors (issue 29): kept in the index file, found through the
nearest-neighbour snapshot and the delta since, never answering with a vector that was
replaced or deleted, whichever process or thread compacts or searches."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from models.search.base import Document, SearchQuery
from models.search.embedded import EmbeddedEngine, vectors
from tests.concurrency import at_once
from tests.models.search.engines import embedded_engine

pytestmark = pytest.mark.database_independent

DIMS = 16


class Directions:
    """An embedder for tests: a text is the unit vector named in it (`d3` is the fourth
    axis, `d3+d5` between two), so a test says which documents are near a query."""

    model = "directions"
    dims = DIMS
    loaded = True

    def vector(self, text: str) -> np.ndarray:
        out = np.zeros(DIMS, dtype=np.float32)
        for part in text.split("+"):
            out[int(part.strip().lstrip("d"))] += 1.0
        return out / np.linalg.norm(out)

    def passages(self, texts):
        return np.vstack([self.vector(text) for text in texts])

    def query(self, text):
        return self.vector(text)


def video(
    video_id: str,
    texts: list[str],
    channel: str = "UCchannel0001",
    title: str = "d0",
    published: str = "2026-01-01T00:00:00.000Z",
):
    embedder = Directions()
    common = {
        "video_id": video_id,
        "channel_id": channel,
        "video_title": title,
        "channel_title": "ch",
        "published_at": published,
        "subtitle_type": "manual",
    }
    docs = [
        Document(id=f"{video_id}-v", kind="video", title=title, description="", **common),
        *(
            Document(
                id=f"{video_id}-s{i:04d}",
                kind="subtitle",
                text=text,
                start=i * 5.0,
                end=i * 5.0 + 5.0,
                **common,
            )
            for i, text in enumerate(texts)
        ),
    ]
    vectors_ = embedder.passages([doc.text or doc.title or "" for doc in docs])
    return [replace(doc, vector=vectors_[i]) for i, doc in enumerate(docs)]


@pytest.fixture
def engine(tmp_path):
    yield from embedded_engine(tmp_path / "search.db", embedder=Directions())


def meant(engine: EmbeddedEngine, q: str, **fields) -> list[str]:
    query = SearchQuery(q=q, semantic=True, sr=1.0, targets=("subtitle",), **fields)
    return [v.video_id for v in engine.search_videos(query).videos]


def test_the_nearest_video_comes_first_through_the_snapshot_and_the_delta(engine):
    engine.replace_videos({"near0000001": video("near0000001", ["d3", "d4"])})
    engine.replace_videos({"far00000001": video("far00000001", ["d6+d6+d5"])})
    assert meant(engine, "d3") == ["near0000001"]

    assert engine.compact_vectors(force=True) == 5  # 3 segments and 2 video documents
    engine.replace_videos({"newer000001": video("newer000001", ["d5"])})

    assert meant(engine, "d3") == ["near0000001"]
    assert meant(engine, "d5")[0] == "newer000001"
    assert meant(engine, "d6") == ["far00000001"]
    assert engine.nearest.delta_size == 2  # only what came after the snapshot


def test_a_video_replaced_or_deleted_after_the_snapshot_is_never_found_by_its_old_vectors(engine):
    engine.replace_videos(
        {
            "moved000001": video("moved000001", ["d3"]),
            "gone0000001": video("gone0000001", ["d7"]),
        }
    )
    engine.compact_vectors(force=True)

    engine.replace_videos({"moved000001": video("moved000001", ["d9"]), "gone0000001": []})

    assert meant(engine, "d3") == []
    assert meant(engine, "d7") == []
    assert meant(engine, "d9") == ["moved000001"]
    # and so after the next snapshot, built from this one
    engine.compact_vectors(force=True)
    assert (meant(engine, "d3"), meant(engine, "d7"), meant(engine, "d9")) == (
        [],
        [],
        ["moved000001"],
    )


def test_another_process_sees_the_snapshot_and_what_came_after(engine):
    engine.replace_videos({"first000001": video("first000001", ["d2"])})
    engine.compact_vectors(force=True)
    engine.replace_videos({"second00001": video("second00001", ["d11"])})
    other = EmbeddedEngine(engine.path, embedder=Directions())

    assert meant(other, "d2") == ["first000001"]
    assert meant(other, "d11") == ["second00001"]
    other.close()


def test_old_snapshot_files_go_once_two_newer_exist(engine):
    for n in range(4):
        engine.replace_videos({f"video{n:06d}": video(f"video{n:06d}", [f"d{n}"])})
        engine.compact_vectors(force=True)
    names = {path.name.split(".")[0] for path in engine.vector_folder.glob("*.usearch")}
    assert len(names) == 2  # the current snapshot and the one before it
    assert meant(engine, "d0") == ["video000000"]


def test_a_small_delta_waits_for_the_next_compaction(engine):
    engine.replace_videos({"small000001": video("small000001", ["d1"])})
    assert engine.compact_vectors() == 0
    assert not list(engine.vector_folder.glob("*.usearch"))


def test_compactions_at_once_leave_one_snapshot_that_answers(engine):
    for n in range(20):
        engine.replace_videos({f"video{n:06d}": video(f"video{n:06d}", [f"d{n % DIMS}"])})

    outcomes = at_once(lambda _: engine.compact_vectors(force=True), range(4))

    assert not [o for o in outcomes if isinstance(o, Exception)]
    assert sum(1 for o in outcomes if o) >= 1
    assert meant(engine, "d5") == ["video000005"]
    state = engine._read(vectors.state)
    assert state.snapshot == state.seq


# Two videos, the second nearer to d4, and searches whose filters keep one of them or
# neither: by the channels asked for, and by the query's date and subtitle filters.
FILTERED_SEARCHES = [
    pytest.param(
        [
            ("mine0000001", {"channel": "UCmine000001"}),
            ("theirs00001", {"channel": "UCtheirs0001"}),
        ],
        [("d4", {"channels": ("UCmine000001",)}, ["mine0000001"])],
        id="channel",
    ),
    pytest.param(
        [
            ("recent00001", {"published": "2025-06-01T00:00:00.000Z"}),
            ("older000001", {"published": "2020-06-01T00:00:00.000Z"}),
        ],
        [
            ("d4 after:2025-01-01", {}, ["recent00001"]),
            ("d4 before:2021-01-01 type:manual", {}, ["older000001"]),
            ("d4 type:auto", {}, []),
        ],
        id="query",
    ),
]


@pytest.mark.parametrize("exact_limit", [vectors.EXACT_LIMIT, 0])
@pytest.mark.parametrize(("pair", "searches"), FILTERED_SEARCHES)
def test_the_filters_apply_to_the_meaning_side(engine, monkeypatch, exact_limit, pair, searches):
    monkeypatch.setattr(vectors, "EXACT_LIMIT", exact_limit)  # 0: through the snapshot
    (farther, farther_fields), (nearer, nearer_fields) = pair
    engine.replace_videos(
        {
            farther: video(farther, ["d4+d4+d5"], **farther_fields),
            nearer: video(nearer, ["d4"], **nearer_fields),
        }
    )
    engine.compact_vectors(force=True)

    assert meant(engine, "d4")[0] == nearer
    for q, fields, found in searches:
        assert meant(engine, q, **fields) == found


def test_title_and_description_are_searched_by_meaning_apart_from_subtitles(engine):
    engine.replace_videos({"titled00001": video("titled00001", ["d1"], title="d8")})
    by_title = SearchQuery(q="d8", semantic=True, sr=1.0, targets=("title",))
    by_subtitle = SearchQuery(q="d8", semantic=True, sr=1.0, targets=("subtitle",))

    [found] = engine.search_videos(by_title).videos
    assert (found.video_id, found.moments, found.matched_in) == ("titled00001", [], ("title",))
    assert engine.search_videos(by_subtitle).videos == []


def test_vectors_of_another_model_are_replaced_and_never_compared(engine):
    engine.replace_videos({"old00000001": video("old00000001", ["d3"])})
    other = Directions()
    other.model = "directions-2"
    renamed = EmbeddedEngine(engine.path, embedder=other)

    assert meant(renamed, "d3") == []  # the file holds the other model's vectors
    renamed.replace_videos({"new00000001": video("new00000001", ["d3"])})

    assert meant(renamed, "d3") == ["new00000001"]
    assert meant(engine, "d3") == []
    renamed.close()


def test_the_snapshot_finds_what_exact_search_finds(engine):
    rng = np.random.default_rng(7)
    embedder = engine.embedder
    for n in range(150):
        docs = video(f"rand{n:07d}", ["d0"] * 10)
        for i, doc in enumerate(docs):
            vector = rng.normal(size=DIMS).astype(np.float32)
            docs[i] = replace(doc, vector=vector / np.linalg.norm(vector))
        engine.replace_videos({f"rand{n:07d}": docs})
    engine.compact_vectors(force=True)
    queries = rng.normal(size=(30, DIMS)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    conn = engine._db()
    rows = conn.execute("SELECT rowid, vector FROM vectors WHERE rowid & 1048575 != 0").fetchall()
    matrix = vectors.unpack([row[1] for row in rows], DIMS)
    rowids = np.array([row[0] for row in rows])
    overlap = []
    for query in queries:
        exact = set(rowids[np.argsort(-(matrix @ query))[:10]].tolist())
        found = engine.nearest.nearest(conn, query, embedder.model, 10, (vectors.SEGMENTS,))
        overlap.append(len(exact & {rowid for rowid, _ in found}) / 10)
    assert np.mean(overlap) >= 0.95
