"""Alert mail read back from a real SMTP server (aiosmtpd on a loopback port): what an
instant mail and a daily digest say and in which language, the one-click unsubscribe
headers, a crashed or repeated run that neither loses nor doubles, refusals retried or,
when for good and repeated, pausing the alert, and nothing sent or lost without SMTP."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from models import alert_mail
from models.alert_mail import (
    BATCH_LEASE,
    MAX_HARD_FAILURES,
    MailBusy,
    plan_digests,
    send_alert_mail,
)
from models.mail import MailDeferred
from models.settings import get_settings
from models.tables import Alert, AlertMatch, OutboxMessage
from tests.concurrency import at_once
from tests.factories import make_alert, make_alert_match, make_channel, make_user, make_video

NOW = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


def body(message) -> str:
    return message.get_content().replace("\r\n", "\n")


def matches(alert) -> list[AlertMatch]:
    return list(AlertMatch.select().where(AlertMatch.alert == alert.id))


def fresh(alert) -> Alert:
    return Alert.get_by_id(alert.id)


class Killed(BaseException):
    """The worker process dying: nothing of the run's own handling runs after it."""


# -- what a mail says ---------------------------------------------------------------------


def test_an_instant_mail_carries_the_news(smtp_server):
    member = make_user(email="taro@example.jp")
    alert = make_alert(member, query="たこ焼き")
    channel = make_channel(title="大阪チャンネル")
    video = make_video(channel, title="大阪の粉もの巡り")
    make_alert_match(
        alert, video, start_seconds=83.5, highlight="大阪の<mark>たこ焼き</mark>は&lt;熱い&gt;"
    )

    assert send_alert_mail(alert.id, now=NOW) == 1

    [mail] = smtp_server.inbox.messages
    assert smtp_server.inbox.envelopes == [("alerts@example.jp", ["taro@example.jp"])]
    assert mail["Subject"] == "「たこ焼き」の新着: 1件の動画"
    assert mail["To"] == "taro@example.jp"
    assert mail["Content-Language"] == "ja"
    text = body(mail)
    assert "通知「たこ焼き」に合う新しい動画が見つかりました。" in text
    assert "■ 大阪の粉もの巡り" in text
    assert "大阪チャンネル · 1:23 から" in text
    assert "「大阪のたこ焼きは<熱い>」" in text  # the highlight as text, unescaped
    [link] = [line.strip() for line in text.splitlines() if "/videos/" in line]
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == get_settings().public_base_url
    assert parts.path == f"/videos/{video.id}"
    assert parse_qs(parts.query) == {"t": ["83.5"], "q": ["たこ焼き"]}
    # The news is mailed: a second run sends nothing.
    assert all(m.mailed_at for m in matches(alert))
    assert send_alert_mail(alert.id, now=NOW) == 0
    assert len(smtp_server.inbox.messages) == 1


def test_each_mail_carries_the_one_click_unsubscribe_headers(smtp_server):
    alert = make_alert()
    make_alert_match(alert)
    send_alert_mail(alert.id, now=NOW)
    [mail] = smtp_server.inbox.messages
    address = f"{get_settings().public_base_url}/alerts/unsubscribe/{alert.unsubscribe_token}"
    assert mail["List-Unsubscribe"] == f"<{address}>"
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail["Auto-Submitted"] == "auto-generated"
    assert address in body(mail)  # and a link in the text, for any mail client
    [batch] = {m.mail_batch.split()[0] for m in matches(alert)}
    assert mail["Message-ID"] == f"<alert-{batch}@example.jp>"


def test_the_mail_is_in_the_members_language(smtp_server):
    english = make_alert(make_user(locale="en"), query="takoyaki")
    make_alert_match(english, start_seconds=3725)
    unset = make_alert(make_user(locale=None), query="たこ焼き")
    make_alert_match(unset)
    send_alert_mail(english.id, now=NOW)
    send_alert_mail(unset.id, now=NOW)
    first, second = smtp_server.inbox.messages
    assert first["Subject"] == 'New for "takoyaki": 1 video(s)'
    assert first["Content-Language"] == "en"
    assert 'New videos match your alert "takoyaki".' in body(first)
    assert "from 1:02:05" in body(first)
    assert "Stop this alert (no sign-in needed):" in body(first)
    assert second["Subject"] == "「たこ焼き」の新着: 1件の動画"  # Japanese by default
    assert "この通知を止める（ログイン不要）:" in body(second)


def test_one_mail_a_batch_and_news_since_in_the_next(smtp_server):
    alert = make_alert()
    for _ in range(3):
        make_alert_match(alert)
    send_alert_mail(alert.id, now=NOW)
    later = make_alert_match(alert)
    send_alert_mail(alert.id, now=NOW)
    first, second = smtp_server.inbox.messages
    assert first["Subject"].endswith("3件の動画")
    assert second["Subject"].endswith("1件の動画")
    assert later.video_id in body(second) and later.video_id not in body(first)
    assert first["Message-ID"] != second["Message-ID"]


def test_a_long_batch_lists_the_first_and_counts_the_rest(smtp_server, monkeypatch):
    monkeypatch.setattr(alert_mail, "MAX_LISTED", 2)
    alert = make_alert()
    for _ in range(5):
        make_alert_match(alert)
    send_alert_mail(alert.id, now=NOW)
    [mail] = smtp_server.inbox.messages
    assert mail["Subject"].endswith("5件の動画")
    assert body(mail).count("■ ") == 2
    assert "ほか3件はアカウントページで:" in body(mail)
    assert all(m.mailed_at for m in matches(alert))


def test_deleted_and_paused_alerts_get_no_mail(smtp_server):
    deleted = make_alert(deleted_at="2026-11-28T00:00:00.000Z")
    paused = make_alert(paused_at="2026-11-28T00:00:00.000Z", paused_reason="550 no")
    for alert in (deleted, paused):
        make_alert_match(alert)
        assert send_alert_mail(alert.id, now=NOW) == 0
        assert [m.mail_batch for m in matches(alert)] == [None]
    assert send_alert_mail("no-such-alert", now=NOW) == 0
    assert smtp_server.inbox.messages == []


# -- crashes and reruns ---------------------------------------------------------------------


def test_a_run_killed_between_send_and_mark_sends_the_same_mail_again(smtp_server, monkeypatch):
    alert = make_alert()
    first = make_alert_match(alert)
    real_mark = alert_mail._mark_mailed

    def killed(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(alert_mail, "_mark_mailed", killed)
    with pytest.raises(Killed):
        send_alert_mail(alert.id, now=NOW)
    monkeypatch.setattr(alert_mail, "_mark_mailed", real_mark)
    [sent] = smtp_server.inbox.messages
    # News found meanwhile waits for the next mail, not this batch.
    second = make_alert_match(alert)

    # Redelivered while the dead run's lease holds: another run may still be sending.
    with pytest.raises(MailBusy):
        send_alert_mail(alert.id, now=NOW + timedelta(seconds=30))
    assert len(smtp_server.inbox.messages) == 1

    # After the lease: the same batch again, same Message-ID (clients fold it), then the
    # news since in a mail of its own.
    assert send_alert_mail(alert.id, now=NOW + BATCH_LEASE + timedelta(seconds=1)) == 2
    _, again, news_since = smtp_server.inbox.messages
    assert again["Message-ID"] == sent["Message-ID"]
    assert body(again) == body(sent)
    assert first.video_id in body(again) and second.video_id not in body(again)
    assert second.video_id in body(news_since)
    assert all(m.mailed_at for m in matches(alert))
    assert send_alert_mail(alert.id, now=NOW + timedelta(hours=1)) == 0
    assert len(smtp_server.inbox.messages) == 3


def test_a_run_killed_before_the_send_loses_nothing(smtp_server, monkeypatch):
    alert = make_alert()
    match = make_alert_match(alert)

    def killed(*args, **kwargs):
        raise Killed

    monkeypatch.setattr(alert_mail, "compose", killed)
    with pytest.raises(Killed):
        send_alert_mail(alert.id, now=NOW)
    monkeypatch.undo()
    assert smtp_server.inbox.messages == []
    assert send_alert_mail(alert.id, now=NOW + BATCH_LEASE + timedelta(seconds=1)) == 1
    [mail] = smtp_server.inbox.messages
    assert match.video_id in body(mail)


def test_two_runs_at_once_never_claim_the_same_news(smtp_server):
    alert = make_alert()
    make_alert_match(alert)
    batch = alert_mail.claim_news(alert.id, alert_mail.iso(NOW))  # one run has claimed it
    assert batch is not None
    assert alert_mail.claim_news(alert.id, alert_mail.iso(NOW)) is None  # the other: nothing
    with pytest.raises(MailBusy):  # nor may it send the first one's batch
        send_alert_mail(alert.id, now=NOW)
    assert smtp_server.inbox.messages == []


def test_runs_at_once_mail_each_news_once(smtp_server):
    # Given an alert with news and several deliveries of its message at once
    alert = make_alert()
    news = [make_alert_match(alert) for _ in range(3)]
    # When they run together (each a worker thread with its own connection)
    outcomes = at_once(lambda _: send_alert_mail(alert.id, now=NOW), list(range(6)))
    # Then one mail carries the news; the others found nothing or the batch busy
    assert all(isinstance(o, int | MailBusy) for o in outcomes), outcomes
    assert sum(o for o in outcomes if isinstance(o, int)) == 1
    [mail] = smtp_server.inbox.messages
    for match in news:
        assert match.video_id in body(mail)
    assert all(m.mailed_at for m in matches(alert))


# -- refusals ---------------------------------------------------------------------------------


def test_a_refused_send_is_retried_with_the_same_mail(smtp_server):
    alert = make_alert()
    make_alert_match(alert)
    smtp_server.inbox.data_replies.append("451 4.3.0 Try again later")
    with pytest.raises(MailDeferred, match="451"):
        send_alert_mail(alert.id, now=NOW)
    assert smtp_server.inbox.messages == []
    assert [m.mailed_at for m in matches(alert)] == [None]
    [claimed] = {m.mail_batch.split()[0] for m in matches(alert)}
    # The retry (at once: the refused run let go of the batch) sends it.
    assert send_alert_mail(alert.id, now=NOW + timedelta(seconds=2)) == 1
    [mail] = smtp_server.inbox.messages
    assert mail["Message-ID"] == f"<alert-{claimed}@example.jp>"
    assert fresh(alert).mail_failures == 0


def test_repeated_refusals_for_good_pause_the_alert_with_the_reason(smtp_server):
    alert = make_alert()
    make_alert_match(alert)
    for attempt in range(1, MAX_HARD_FAILURES + 1):
        smtp_server.inbox.rcpt_replies.append("550 5.1.1 No such user here")
        assert send_alert_mail(alert.id, now=NOW + timedelta(minutes=attempt)) == 0
        assert fresh(alert).mail_failures == attempt
    paused = fresh(alert)
    assert paused.paused_at is not None
    assert paused.paused_reason == "550 5.1.1 No such user here"
    assert paused.deleted_at is None  # still there, its news in the app and the feed
    assert [m.mailed_at for m in matches(alert)] == [None]
    # Paused: no further attempt.
    assert send_alert_mail(alert.id, now=NOW + timedelta(hours=1)) == 0
    assert smtp_server.inbox.messages == []


def test_a_mail_that_goes_through_forgets_earlier_refusals(smtp_server):
    alert = make_alert()
    make_alert_match(alert)
    for _ in range(MAX_HARD_FAILURES - 1):
        smtp_server.inbox.rcpt_replies.append("550 5.1.1 No such user here")
        send_alert_mail(alert.id, now=NOW)
    assert fresh(alert).mail_failures == MAX_HARD_FAILURES - 1
    assert send_alert_mail(alert.id, now=NOW) == 1
    assert fresh(alert).mail_failures == 0
    assert fresh(alert).paused_at is None


# -- without SMTP ---------------------------------------------------------------------------


def test_without_smtp_url_nothing_is_sent_and_nothing_is_lost(smtp_server):
    from dataclasses import replace  # noqa: PLC0415

    from models.settings import use_settings  # noqa: PLC0415

    with_smtp = get_settings()
    instant = make_alert()
    daily = make_alert(frequency="daily")
    make_alert_match(instant)
    make_alert_match(daily)
    use_settings(replace(with_smtp, smtp_url=None))
    try:
        assert send_alert_mail(instant.id, now=NOW) == 0
        assert plan_digests(datetime(2026, 11, 29, 23, 0, tzinfo=UTC)) == 0
    finally:
        use_settings(with_smtp)
    assert [m.mail_batch for m in matches(instant) + matches(daily)] == [None, None]
    assert fresh(daily).last_digest_on is None
    # SMTP set up later: the news that waited goes out.
    assert send_alert_mail(instant.id, now=NOW) == 1
    assert plan_digests(datetime(2026, 11, 29, 23, 0, tzinfo=UTC)) == 1


# -- daily digests --------------------------------------------------------------------------


def tokyo(day: int, hour: int) -> datetime:
    """`hour` o'clock in Tokyo on November `day`, as UTC."""
    return datetime(2026, 11, day, hour, 0, tzinfo=UTC) - timedelta(hours=9)


def run_digests(now: datetime) -> int:
    """The hourly job, then the mails it planned (the outbox's messages), as a worker would."""
    planned = plan_digests(now)
    waiting = list(OutboxMessage.select().where(OutboxMessage.processed_at.is_null()))
    for message in waiting:
        assert message.actor == "send_alert_mail"
        [alert_id] = __import__("json").loads(message.args)
        send_alert_mail(alert_id, now=now)
        OutboxMessage.update(processed_at="x").where(OutboxMessage.id == message.id).execute()
    return planned


def test_a_daily_digest_comes_at_the_hour_of_the_members_zone_once_a_day(smtp_server):
    alert = make_alert(make_user(locale="ja"), frequency="daily")  # Asia/Tokyo by default
    for _ in range(2):
        make_alert_match(alert)
    # The news is not mailed as it comes: it waits for the digest.
    assert send_alert_mail(alert.id, now=tokyo(29, 6)) == 0
    assert run_digests(tokyo(29, 7)) == 0
    assert smtp_server.inbox.messages == []
    assert run_digests(tokyo(29, 8)) == 1
    [digest] = smtp_server.inbox.messages
    assert digest["Subject"] == "「たこ焼き」の今日の新着: 2件の動画"
    assert "通知「たこ焼き」に合う、この1日の新しい動画です。" in body(digest)
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert fresh(alert).last_digest_on == "2026-11-29"
    # Later the same day, even with news: none until tomorrow's hour.
    make_alert_match(alert)
    assert run_digests(tokyo(29, 9)) == 0
    assert run_digests(tokyo(29, 23)) == 0
    assert run_digests(tokyo(30, 7)) == 0
    assert len(smtp_server.inbox.messages) == 1
    assert run_digests(tokyo(30, 8)) == 1
    assert len(smtp_server.inbox.messages) == 2
    assert smtp_server.inbox.messages[1]["Subject"].endswith("1件の動画")


def test_the_digest_hour_follows_each_members_zone(smtp_server):
    english = make_alert(make_user(locale="en"), frequency="daily", query="takoyaki")
    new_york = make_alert(make_user(time_zone="America/New_York"), frequency="daily")
    for alert in (english, new_york):
        make_alert_match(alert)
    assert plan_digests(datetime(2026, 11, 29, 7, 59, tzinfo=UTC)) == 0
    assert plan_digests(datetime(2026, 11, 29, 8, 0, tzinfo=UTC)) == 1  # 08:00 UTC (English)
    assert fresh(english).last_digest_on == "2026-11-29"
    assert plan_digests(datetime(2026, 11, 29, 12, 0, tzinfo=UTC)) == 0  # 07:00 in New York
    assert plan_digests(datetime(2026, 11, 29, 13, 0, tzinfo=UTC)) == 1  # 08:00 in New York
    assert fresh(new_york).last_digest_on == "2026-11-29"


def test_a_digest_hour_the_scheduler_missed_is_caught_up_the_same_day(smtp_server):
    alert = make_alert(frequency="daily")
    make_alert_match(alert)
    assert run_digests(tokyo(29, 11)) == 1  # down from 08:00 to 11:00
    assert len(smtp_server.inbox.messages) == 1


def test_a_day_without_news_sends_nothing_and_news_after_the_hour_waits(smtp_server):
    alert = make_alert(frequency="daily")
    assert run_digests(tokyo(29, 8)) == 0
    assert fresh(alert).last_digest_on == "2026-11-29"  # the day is had: no digest at 09:00
    make_alert_match(alert)
    assert run_digests(tokyo(29, 9)) == 0
    assert smtp_server.inbox.messages == []
    assert run_digests(tokyo(30, 8)) == 1


def test_a_rerun_or_a_crash_of_the_planner_neither_loses_nor_doubles_a_digest(
    smtp_server, monkeypatch
):
    alert = make_alert(frequency="daily")
    make_alert_match(alert)
    # The planner's process dies after its transaction, before it hands the message on.
    monkeypatch.setattr(alert_mail.outbox, "send", lambda message_id: False)
    assert plan_digests(tokyo(29, 8)) == 1
    monkeypatch.undo()
    # A rerun of the hour plans nothing more...
    assert plan_digests(tokyo(29, 8)) == 0
    # ...and the message waits in the outbox (its redrive sends it), its news claimed.
    [waiting] = OutboxMessage.select().where(OutboxMessage.processed_at.is_null())
    assert waiting.actor == "send_alert_mail"
    assert send_alert_mail(alert.id, now=tokyo(29, 8)) == 1
    assert send_alert_mail(alert.id, now=tokyo(29, 8)) == 0  # a second delivery of it
    assert len(smtp_server.inbox.messages) == 1


def test_instant_alerts_have_no_digest_and_daily_news_waits_for_its_digest(smtp_server):
    instant = make_alert()
    daily = make_alert(frequency="daily")
    make_alert_match(instant)
    make_alert_match(daily)
    assert send_alert_mail(daily.id, now=NOW) == 0
    assert plan_digests(tokyo(29, 8)) == 1
    assert fresh(instant).last_digest_on is None
    assert [m.mail_batch for m in matches(instant)] == [None]


def test_the_mails_links_are_the_apps_routes(app):
    rules = {rule.rule for rule in app.url_map.iter_rules()}
    assert "/alerts/unsubscribe/<token>" in rules
    assert "/videos/<video_id>" in rules
    assert alert_mail.UNSUBSCRIBE_PATH.replace("{token}", "<token>") in rules
    assert re.sub(r"\{(\w+)\}", r"<\1>", alert_mail.VIDEO_PATH) in rules
    assert alert_mail.ACCOUNT_PATH.split("#")[0] in rules


def test_a_digest_refused_for_good_goes_again_with_the_next_days(smtp_server):
    alert = make_alert(frequency="daily")
    first = make_alert_match(alert)
    smtp_server.inbox.rcpt_replies.append("550 5.2.1 Mailbox disabled")
    assert run_digests(tokyo(29, 8)) == 1
    assert smtp_server.inbox.messages == []
    assert fresh(alert).mail_failures == 1
    # The next day, with no news of its own: the refused digest is sent again.
    assert run_digests(tokyo(30, 8)) == 1
    [mail] = smtp_server.inbox.messages
    assert first.video_id in body(mail)
    assert fresh(alert).mail_failures == 0


def test_a_zone_that_does_not_exist_is_the_languages_zone(smtp_server):
    alert = make_alert(make_user(locale="en", time_zone="Mars/Olympus_Mons"), frequency="daily")
    make_alert_match(alert)
    assert plan_digests(datetime(2026, 11, 29, 7, 0, tzinfo=UTC)) == 0
    assert plan_digests(datetime(2026, 11, 29, 8, 0, tzinfo=UTC)) == 1


def test_the_log_line_of_a_refusal_names_no_address(smtp_server, caplog):
    alert = make_alert(make_user(email="hanako@example.jp"))
    make_alert_match(alert)
    smtp_server.inbox.rcpt_replies.append("550 5.1.1 <hanako@example.jp>: no such user")
    send_alert_mail(alert.id, now=NOW)
    ours = " ".join(r.getMessage() for r in caplog.records if r.name == "models.alert_mail")
    assert "550 5.1.1 <<address>>: no such user" in ours
    assert "hanako@example.jp" not in ours
    # The member's own page may show the server's words whole.
    assert fresh(alert).mail_failures == 1
