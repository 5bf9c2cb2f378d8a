"""What counts as found by meaning (MeaningFloor.kept, both engines): every document at the
floor when the nearest is a sure answer, else the few nearest videos' documents."""

from __future__ import annotations

import pytest

from models.search.meaning_floor import CENTRED, UNCENTRED, floor_for, measured_floor

pytestmark = pytest.mark.database_independent


def kept(found, floor=CENTRED):
    return floor.kept(found, score=lambda item: item[2], video=lambda item: item[0])


def test_a_sure_nearest_keeps_every_document_at_the_floor_of_every_video():
    found = [("a", 1, 0.61), ("b", 1, 0.45), ("c", 1, 0.33), ("d", 1, 0.31), ("e", 1, 0.29)]

    assert [video for video, _, _ in kept(found)] == ["a", "b", "c", "d"]


def test_an_unsure_nearest_keeps_the_three_nearest_videos_documents_above_the_noise():
    # Given a question whose answer e5-small rates as low as noise (the deer, 0.28)
    found = [
        ("cats", 1, 0.31),
        ("cats", 2, 0.30),
        ("okonomiyaki", 1, 0.30),
        ("deer", 1, 0.28),
        ("ramen", 1, 0.28),
        ("deer", 2, 0.26),
        ("deer", 3, 0.24),
    ]

    # Then the three nearest videos are kept, each with its documents at 0.25 or more
    assert kept(found) == [*found[:4], ("deer", 2, 0.26)]


def test_nothing_near_keeps_nothing():
    assert kept([("a", 1, 0.24), ("b", 1, 0.1)]) == []
    assert kept([]) == []


def test_a_model_no_floor_was_measured_for_keeps_the_uncentred_floor_and_no_cap():
    assert measured_floor("some-sentence-transformers-folder") is None
    assert floor_for("some-sentence-transformers-folder") is UNCENTRED
    found = [
        (f"v{n}", 1, similarity) for n, similarity in enumerate((0.9, 0.85, 0.82, 0.81, 0.8, 0.79))
    ]
    assert kept(found, UNCENTRED) == found[:5]
