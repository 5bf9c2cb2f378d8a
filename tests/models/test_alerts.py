"""Alerts' rules (models/alerts.py): what a member may save, the plan's count held under
races of threads and processes, and that nobody else ever reads or changes an alert."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from models import alerts
from models.alerts import PlanLimit, create_alert, list_alerts
from models.errors import NotFound, ValidationError
from models.tables import Alert, AlertMatch
from tests.concurrency import at_once
from tests.factories import make_channel, make_subscription, make_user, make_video

ROOT = Path(__file__).resolve().parents[2]


def test_a_saved_alert_keeps_the_search_as_asked():
    member = make_user()
    channel = make_channel()
    alert = create_alert(
        member.id,
        "  たこ焼き -冷凍 lang:ja ",
        semantic=True,
        sr=0.7,
        channels=[channel.id, channel.id],
        frequency="daily",
    )
    assert (alert.query, bool(alert.semantic), alert.sr, alert.frequency) == (
        "たこ焼き -冷凍 lang:ja",
        True,
        0.7,
        "daily",
    )
    assert alerts.channels_of(alert) == [channel.id]
    assert alert.feed_token != alert.unsubscribe_token
    assert alerts.feed_url(alert.feed_token).endswith(f"/alerts/feed/{alert.feed_token}.atom")


@pytest.mark.parametrize(
    ("query", "frequency", "channels", "sr", "field"),
    [
        ("", "instant", [], 0.5, "query"),
        ("   ", "instant", [], 0.5, "query"),
        ("あ" * 201, "instant", [], 0.5, "query"),
        ("foo:bar", "instant", [], 0.5, "query"),  # an unknown filter
        ("-", "instant", [], 0.5, "query"),  # a lone minus
        ("lang:ja", "instant", [], 0.5, "query"),  # only a filter, no word
        ("a b c d e f g h i j k", "instant", [], 0.5, "query"),  # past the terms a search may hold
        ("たこ焼き", "weekly", [], 0.5, "frequency"),
        ("たこ焼き", "instant", ["bad id"], 0.5, "channels"),
        ("たこ焼き", "instant", ["UCunknownunknownunknown1"], 0.5, "channels"),
        ("たこ焼き", "instant", [], 1.5, "sr"),
    ],
)
def test_bad_input_is_refused_naming_the_field(query, frequency, channels, sr, field):
    member = make_user()
    with pytest.raises(ValidationError) as refused:
        create_alert(member.id, query, frequency=frequency, channels=channels, sr=sr)
    assert field in refused.value.fields
    assert Alert.select().count() == 0


@pytest.mark.parametrize(("plan", "limit"), [("free", 3), ("plus", 20), ("pro", 100)])
def test_each_plan_holds_its_count_of_alerts(plan, limit):
    member = make_user()
    if plan != "free":
        make_subscription(member, plan=plan)
    for n in range(limit):
        create_alert(member.id, f"word{n}", frequency="daily")
    with pytest.raises(PlanLimit) as refused:
        create_alert(member.id, "one more", frequency="daily")
    assert (refused.value.code, refused.value.status) == ("plan_limit", 403)
    assert len(list_alerts(member.id)) == limit


def test_a_deleted_alert_frees_its_place():
    member = make_user()
    saved = [create_alert(member.id, f"word{n}", frequency="daily") for n in range(3)]
    alerts.delete_alert(member.id, saved[0].id)
    create_alert(member.id, "another", frequency="instant")
    assert len(list_alerts(member.id)) == 3


def test_saves_racing_on_threads_never_pass_the_limit():
    member = make_user()
    outcomes = at_once(
        lambda n: create_alert(member.id, f"race{n}", frequency="daily"), list(range(8))
    )
    saved = [o for o in outcomes if isinstance(o, Alert)]
    refused = [o for o in outcomes if isinstance(o, PlanLimit)]
    assert (len(saved), len(refused)) == (3, 5), outcomes
    assert len(list_alerts(member.id)) == 3


SAVE_IN_A_PROCESS = textwrap.dedent(
    """
    import sys, threading
    from models.db import init_db
    import os
    init_db(os.environ["DATABASE_URL"])
    from models.alerts import PlanLimit, create_alert
    from models.db import db
    barrier = threading.Barrier(3)
    said = []
    def save(n):
        barrier.wait()
        with db.connection_context():
            try:
                create_alert(sys.argv[1], f"p{sys.argv[2]}t{n}", frequency="daily")
                said.append("saved")
            except PlanLimit:
                said.append("refused")
            except Exception as error:
                said.append(f"failed:{type(error).__name__}:{error}".replace(" ", "_"))
    threads = [threading.Thread(target=save, args=(n,)) for n in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    print(" ".join(said))
    """
)


def test_saves_racing_in_several_processes_never_pass_the_limit():
    # Given a free member (3 alerts) and four processes of three threads each
    member = make_user()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SAVE_IN_A_PROCESS, member.id, str(n)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    # When all of them save an alert at once
    said = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        said += out.split()
    # Then three were saved, nine refused, and the member holds three
    assert (said.count("saved"), said.count("refused")) == (3, 9), said
    assert len(list_alerts(member.id)) == 3


def test_nobody_else_reads_deletes_or_renews_an_alert():
    owner, other = make_user(), make_user()
    alert = create_alert(owner.id, "たこ焼き", frequency="daily")
    assert list_alerts(other.id) == []
    for call in (alerts.delete_alert, alerts.renew_feed_token, alerts.alert_matches):
        with pytest.raises(NotFound):
            call(other.id, alert.id)
    assert [s.alert.id for s in list_alerts(owner.id)] == [alert.id]


def test_a_deleted_alert_is_not_found_anywhere():
    member = make_user()
    alert = create_alert(member.id, "たこ焼き", frequency="daily")
    alerts.delete_alert(member.id, alert.id)
    for call in (alerts.delete_alert, alerts.renew_feed_token, alerts.alert_matches):
        with pytest.raises(NotFound):
            call(member.id, alert.id)
    with pytest.raises(NotFound):
        alerts.feed_of(alert.feed_token)
    assert list_alerts(member.id) == []


def test_two_deletes_at_once_delete_once():
    member = make_user()
    alert = create_alert(member.id, "たこ焼き", frequency="daily")
    outcomes = at_once(lambda _: alerts.delete_alert(member.id, alert.id), [0, 1, 2])
    assert outcomes.count(None) == 1
    assert sum(isinstance(o, NotFound) for o in outcomes) == 2


def test_a_renewed_feed_token_closes_the_old_address():
    member = make_user()
    alert = create_alert(member.id, "たこ焼き", frequency="daily")
    token = alerts.renew_feed_token(member.id, alert.id)
    assert token != alert.feed_token
    with pytest.raises(NotFound):
        alerts.feed_of(alert.feed_token)
    assert alerts.feed_of(token)[0].id == alert.id


def test_the_list_shows_the_newest_alert_first_with_its_latest_news_and_count():
    member = make_user()
    older = create_alert(member.id, "うどん", frequency="daily")
    newer = create_alert(member.id, "たこ焼き", frequency="instant")
    Alert.update(created_at="2026-01-01T00:00:00.000Z").where(Alert.id == older.id).execute()
    channel = make_channel()
    for n in range(5):
        video = make_video(channel, title=f"たこ焼き {n}")
        AlertMatch.create(
            alert=newer.id,
            video_id=video.id,
            start_seconds=n,
            end_seconds=n + 3,
            highlight=f"<mark>たこ焼き</mark> {n}",
            found_at=f"2026-02-0{n + 1}T00:00:00.000Z",
        )
    Alert.update(paused_at="2026-02-01T00:00:00.000Z", paused_reason="refused").where(
        Alert.id == older.id
    ).execute()
    [first, second] = list_alerts(member.id)
    assert (first.alert.id, second.alert.id) == (newer.id, older.id)
    assert first.match_count == 5
    assert [news.title for news in first.latest] == ["たこ焼き 4", "たこ焼き 3", "たこ焼き 2"]
    assert (first.paused_reason, second.paused_reason) == (None, "refused")
    page = alerts.alert_matches(member.id, newer.id, page=2, per_page=2)
    assert page.total == 5
    assert [news.title for news in page.news] == ["たこ焼き 2", "たこ焼き 1"]


def test_unsubscribe_deletes_the_alert_once_and_knows_no_other_token():
    member = make_user()
    alert = create_alert(member.id, "たこ焼き", frequency="instant")
    assert alerts.unsubscribe("no-such-token") is None
    first = alerts.unsubscribe(alert.unsubscribe_token)
    again = alerts.unsubscribe(alert.unsubscribe_token)
    assert first is not None and first.deleted_at is not None
    assert again is not None and again.deleted_at == first.deleted_at
    assert list_alerts(member.id) == []
