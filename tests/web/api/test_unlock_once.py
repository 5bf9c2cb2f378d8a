"""Credits only for readable subtitles, never twice for one click: the unlock API as the
video page calls it (one Idempotency-Key per click)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from models import idempotency
from models.clock import iso, utcnow
from models.tables import IdempotencyKey, User, UserVideoAccess
from tests.concurrency import at_once
from tests.factories import make_user, make_video, sign_in


def unlock(client, video_id, key=None):
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(
        f"/api/videos/{video_id}/unlock", content_type="application/json", headers=headers
    )


def credits_of(user):
    row = User.get_by_id(user.id)
    return row.credit_balance + row.bonus_credit


@pytest.mark.parametrize("status", ["pending", "unavailable", "failed", "deleted"])
def test_a_video_without_readable_subtitles_is_refused_and_costs_nothing(client, status):
    user = make_user(credit_balance=10)
    video = make_video(subtitle_status=status, duration_seconds=3600)
    sign_in(client, user)
    response = unlock(client, video.id)
    assert response.status_code == 409
    assert response.get_json()["error"]["code"] == "no_subtitles"
    assert credits_of(user) == 10
    assert not UserVideoAccess.select().where(UserVideoAccess.user == user.id).exists()


def test_a_repeated_key_answers_the_first_answer_and_charges_once(client):
    user = make_user(credit_balance=10)
    video = make_video(duration_seconds=1200)  # 2 credits
    sign_in(client, user)
    key = str(uuid.uuid4())
    first = unlock(client, video.id, key)
    again = unlock(client, video.id, key)
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()
    assert credits_of(user) == 8
    # a new click (a new key) is a new unlock: the spec's re-unlock charges again
    assert unlock(client, video.id, str(uuid.uuid4())).get_json()["creditBalance"] == 6


def test_a_refusal_is_the_first_answer_too(client):
    user = make_user(credit_balance=0)
    video = make_video()
    sign_in(client, user)
    key = str(uuid.uuid4())
    assert unlock(client, video.id, key).status_code == 402
    User.update(credit_balance=5).where(User.id == user.id).execute()
    repeat = unlock(client, video.id, key)
    assert (repeat.status_code, repeat.get_json()["error"]["code"]) == (
        402,
        "insufficient_credits",
    )
    assert credits_of(user) == 5


def test_twenty_parallel_requests_sharing_a_key_charge_once(app):
    user = make_user(credit_balance=50)
    video = make_video(duration_seconds=600)  # 1 credit
    key = str(uuid.uuid4())
    clients = [app.test_client() for _ in range(20)]
    for client in clients:  # the member's tabs, signed in before the clicks
        sign_in(client, user)

    def click(client):
        response = unlock(client, video.id, key)
        return response.status_code, response.get_json()

    answers = at_once(click, clients)
    statuses = [status for status, _ in answers]
    assert set(statuses) <= {200, 409}
    assert statuses.count(200) >= 1
    assert all(
        body["error"]["code"] == "request_in_progress" for status, body in answers if status == 409
    )
    assert credits_of(user) == 49
    assert len({str(body) for status, body in answers if status == 200}) == 1


def test_a_key_is_the_members_own(client):
    key = str(uuid.uuid4())
    video = make_video()
    first, second = make_user(credit_balance=5), make_user(credit_balance=5)
    sign_in(client, first)
    assert unlock(client, video.id, key).status_code == 200
    sign_in(client, second)
    assert unlock(client, video.id, key).status_code == 200
    assert (credits_of(first), credits_of(second)) == (4, 4)


def test_a_key_sent_for_another_video_is_refused(client):
    user = make_user(credit_balance=5)
    one, other = make_video(), make_video()
    sign_in(client, user)
    key = str(uuid.uuid4())
    assert unlock(client, one.id, key).status_code == 200
    response = unlock(client, other.id, key)
    assert (response.status_code, response.get_json()["error"]["code"]) == (
        409,
        "idempotency_key_reused",
    )
    assert credits_of(user) == 4


@pytest.mark.parametrize("key", ["", "x" * 256, "with space", "キー"])
def test_a_key_that_is_not_one_is_a_400(client, key):
    user = make_user(credit_balance=5)
    sign_in(client, user)
    response = client.post(
        f"/api/videos/{make_video().id}/unlock",
        content_type="application/json",
        headers={"Idempotency-Key": key.encode().decode("latin-1")},
    )
    assert response.status_code == 400
    assert "Idempotency-Key" in response.get_json()["error"]["fields"]
    assert credits_of(user) == 5


def test_keys_are_kept_a_day(client):
    user = make_user(credit_balance=5)
    video = make_video()
    sign_in(client, user)
    key = str(uuid.uuid4())
    assert unlock(client, video.id, key).status_code == 200
    # a day later the key is forgotten: the same key unlocks (and charges) again
    day_old = iso(utcnow() - timedelta(hours=24, seconds=1))
    IdempotencyKey.update(created_at=day_old).execute()
    assert unlock(client, video.id, key).get_json()["creditBalance"] == 3
    IdempotencyKey.update(created_at=day_old).execute()
    assert idempotency.purge_expired() == 1


def test_a_request_that_died_releases_its_key_after_two_minutes(client):
    user = make_user(credit_balance=5)
    video = make_video()
    sign_in(client, user)
    key = str(uuid.uuid4())
    # a claim whose request never finished (its process died mid-way)
    assert idempotency.claim(user.id, key, "POST anything") is None
    assert unlock(client, video.id, key).status_code == 409
    stale = iso(utcnow() - timedelta(minutes=3))
    IdempotencyKey.update(created_at=stale).execute()
    assert unlock(client, video.id, key).status_code == 200
    assert credits_of(user) == 4
