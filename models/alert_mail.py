"""Alert mail (docs/alerts.md, Mail): the news of an alert mailed to its member, in the
member's language, once a batch (instant alerts) or once a day at ALERT_DIGEST_HOUR in
the member's time zone (daily alerts).

A mail carries a batch of matches, claimed before it is sent: `alert_matches.mail_batch`
holds "<batch id> <when its sender took it>" and `mailed_at` is set once the server
accepted it. A run that dies between the two leaves the batch claimed; the next run
sends the same matches again, under the same Message-ID (the batch id), once the dead
run's lease (BATCH_LEASE) has passed. So nothing is lost, and a mail is repeated only
by a death between the send and the mark. A run that finds a batch taken by a live one
raises `MailBusy` (its actor retries). A server that says "not now" raises
`MailDeferred` (retried); one that refuses the mail for good counts against the alert,
which is paused after MAX_HARD_FAILURES in a row (`paused_reason`: the server's reply).
Without SMTP_URL nothing is claimed or sent: the news waits in the app and the feed.
"""

from __future__ import annotations

import html
import logging
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, parseaddr
from functools import cache
from urllib.parse import urlencode, urlsplit
from zoneinfo import ZoneInfo, available_timezones

from peewee import Expression

from models import outbox
from models.alerts import news_rows
from models.clock import iso, utcnow
from models.db import db
from models.mail import Mailer, MailError, MailRejected, get_mailer
from models.settings import get_settings
from models.tables import Alert, AlertMatch, User

log = logging.getLogger(__name__)

MAIL_ACTOR = "send_alert_mail"
# A batch taken by a sender this long ago, still unmailed, is taken for abandoned (its
# run died): well past what one SMTP conversation may take (models.mail.SMTP_TIMEOUT).
BATCH_LEASE = timedelta(minutes=5)
# The claim time of a batch nobody is sending (its send failed, or a digest planned it).
RELEASED = "1970-01-01T00:00:00.000Z"
# Refusals in a row (5xx for the recipient or the message) that pause the alert; its
# `paused_reason` is then the server's last reply (`550 5.1.1 No such user`), which the
# account page shows.
MAX_HARD_FAILURES = 5
# News a mail lists; the rest are counted, with a link to the account page.
MAX_LISTED = 20
# Runs of one call at most (a batch resent, then the news since), so a steady flow of
# news cannot hold a worker thread.
MAX_MAILS_PER_RUN = 3

LOCALES = ("ja", "en")
DEFAULT_LOCALE = "ja"
DEFAULT_ZONES = {"ja": "Asia/Tokyo", "en": "UTC"}

# The routes a mail links to (web/pages/alert_unsubscribe.py and the pages'; a test
# checks each against the app's url_map).
UNSUBSCRIBE_PATH = "/alerts/unsubscribe/{token}"
ACCOUNT_PATH = "/account#alerts"
VIDEO_PATH = "/videos/{video_id}"

# Header lines left whole up to SMTP's limit (998): a folded List-Unsubscribe address
# is one some receivers read wrong.
MAIL_POLICY = policy.SMTP.clone(max_line_length=998)

# The mail's words, per language: the worker has no request, and so no Flask-Babel.
TEXTS: dict[str, dict[str, str]] = {
    "ja": {
        "subject_instant": "「{query}」の新着: {count}件の動画",
        "subject_daily": "「{query}」の今日の新着: {count}件の動画",
        "intro_instant": "通知「{query}」に合う新しい動画が見つかりました。",
        "intro_daily": "通知「{query}」に合う、この1日の新しい動画です。",
        "at": "{time} から",
        "more": "ほか{count}件はアカウントページで: {url}",
        "manage": "通知の確認と管理: {url}",
        "unsubscribe": "この通知を止める（ログイン不要）: {url}",
        "why": "{service} で通知を作成したため、このメールをお送りしています。",
    },
    "en": {
        "subject_instant": 'New for "{query}": {count} video(s)',
        "subject_daily": 'Today for "{query}": {count} new video(s)',
        "intro_instant": 'New videos match your alert "{query}".',
        "intro_daily": 'New videos of the last day that match your alert "{query}".',
        "at": "from {time}",
        "more": "{count} more on your account page: {url}",
        "manage": "See and manage your alerts: {url}",
        "unsubscribe": "Stop this alert (no sign-in needed): {url}",
        "why": "You receive this mail because you made an alert on {service}.",
    },
}


# An e-mail address in a server's reply, kept out of the log lines.
ADDRESS = re.compile(r"[^\s<>@]+@[^\s<>@]+")


class MailBusy(RuntimeError):
    """Another run is sending this alert's batch now: try again later."""


def locale_of(user: User) -> str:
    return user.locale if user.locale in LOCALES else DEFAULT_LOCALE


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def zone_of(user: User) -> ZoneInfo:
    """The member's time zone: their choice, else Asia/Tokyo for Japanese readers and UTC
    for English ones (as web/i18n.py picks it for pages)."""
    if user.time_zone and user.time_zone in _time_zones():
        return ZoneInfo(user.time_zone)
    return ZoneInfo(DEFAULT_ZONES[locale_of(user)])


# -- batches ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    id: str  # the Message-ID's left part
    value: str  # what `mail_batch` holds while this run owns it


def _value(batch_id: str, claimed_at: str) -> str:
    return f"{batch_id} {claimed_at}"


def _unmailed(alert_id: str) -> Expression:
    return (AlertMatch.alert == alert_id) & AlertMatch.mailed_at.is_null()


def _take_pending(alert_id: str, now: datetime) -> Batch | None:
    """Take over the alert's oldest claimed, unmailed batch (sent again with its own
    id), unless a live run holds it (MailBusy); None when there is none."""
    pending = (
        AlertMatch.select(AlertMatch.mail_batch)
        .where(_unmailed(alert_id) & AlertMatch.mail_batch.is_null(False))
        .distinct()
    )
    values = sorted({str(row.mail_batch) for row in pending}, key=lambda v: v.split(" ")[-1])
    for value in values:
        batch_id, claimed_at = value.split(" ", 1)
        if claimed_at != RELEASED and claimed_at > iso(now - BATCH_LEASE):
            raise MailBusy(f"alert {alert_id}: batch {batch_id} is being sent")
        mine = _value(batch_id, iso(now))
        taken = (
            AlertMatch.update(mail_batch=mine)
            .where(_unmailed(alert_id) & (AlertMatch.mail_batch == value))
            .execute()
        )
        if not taken:
            raise MailBusy(f"alert {alert_id}: batch {batch_id} was taken by another run")
        return Batch(batch_id, mine)
    return None


def claim_news(alert_id: str, claimed_at: str) -> Batch | None:
    """Claim every unclaimed, unmailed match of the alert into a new batch, in one
    conditional UPDATE (two runs at once never claim the same match); None if none."""
    batch_id = uuid.uuid4().hex
    value = _value(batch_id, claimed_at)
    claimed = (
        AlertMatch.update(mail_batch=value)
        .where(_unmailed(alert_id) & AlertMatch.mail_batch.is_null())
        .execute()
    )
    return Batch(batch_id, value) if claimed else None


def _has_pending(alert_id: str) -> bool:
    return bool(
        AlertMatch.select()
        .where(_unmailed(alert_id) & AlertMatch.mail_batch.is_null(False))
        .exists()
    )


def _release(batch: Batch) -> None:
    """Nobody is sending it any more: the next run takes it at once."""
    AlertMatch.update(mail_batch=_value(batch.id, RELEASED)).where(
        (AlertMatch.mail_batch == batch.value) & AlertMatch.mailed_at.is_null()
    ).execute()


def _mark_mailed(alert_id: str, batch: Batch, now: datetime) -> None:
    with db.atomic():
        AlertMatch.update(mailed_at=iso(now)).where(
            (AlertMatch.mail_batch == batch.value) & AlertMatch.mailed_at.is_null()
        ).execute()
        Alert.update(mail_failures=0).where(
            (Alert.id == alert_id) & (Alert.mail_failures > 0)
        ).execute()


def _count_rejection(alert_id: str, reply: str, now: datetime) -> bool:
    """One more refusal in a row; True when it paused the alert."""
    with db.atomic():
        Alert.update(mail_failures=Alert.mail_failures + 1).where(Alert.id == alert_id).execute()
        paused = (
            Alert.update(paused_at=iso(now), paused_reason=reply[:300])
            .where(
                (Alert.id == alert_id)
                & Alert.paused_at.is_null()
                & (Alert.mail_failures >= MAX_HARD_FAILURES)
            )
            .execute()
        )
    return bool(paused)


# -- sending ----------------------------------------------------------------------------


def send_alert_mail(alert_id: str, *, now: datetime | None = None) -> int:
    """Mail the alert's news that waits: a batch claimed before (a run that died, a
    refused send, a planned digest) is sent again as it was; then, for an instant alert,
    the news since in a new batch. Returns how many mails the server accepted. Raises
    MailBusy or MailDeferred to be tried again; a refusal for good is counted (and
    pauses the alert at MAX_HARD_FAILURES) and ends the run."""
    mailer = get_mailer()
    if not mailer.delivers:
        return 0  # no SMTP_URL: the news stays unmailed, in the app and the feed
    sent = 0
    for _ in range(MAX_MAILS_PER_RUN):
        now_at = now or utcnow()
        alert = _live_alert(alert_id)
        if alert is None:
            break
        batch = _take_pending(alert_id, now_at)
        if batch is None and alert.frequency == "instant":
            batch = claim_news(alert_id, iso(now_at))
        if batch is None:
            break
        if not _deliver(alert, batch, mailer, now_at):
            break
        sent += 1
    return sent


def _live_alert(alert_id: str) -> Alert | None:
    found: Alert | None = Alert.get_or_none(
        (Alert.id == alert_id) & Alert.deleted_at.is_null() & Alert.paused_at.is_null()
    )
    return found


def _deliver(alert: Alert, batch: Batch, mailer: Mailer, now: datetime) -> bool:
    user = User.get_by_id(alert.user_id)
    news = _batch_news(batch)
    message = compose(alert, user, batch.id, news, now=now)
    try:
        mailer.send(message)
    except MailRejected as refused:
        _release(batch)
        paused = _count_rejection(alert.id, str(refused), now)
        log.warning(
            "alert %s: mail refused (%s)%s",
            alert.id,
            ADDRESS.sub("<address>", str(refused)),
            "; alert paused" if paused else "",
        )
        return False
    except MailError:
        _release(batch)
        raise
    _mark_mailed(alert.id, batch, now)
    log.info("alert %s: mailed %d news in batch %s", alert.id, len(news), batch.id)
    return True


@dataclass(frozen=True)
class MailNews:
    video_id: str
    title: str
    channel_title: str
    start: float | None
    highlight: str  # HTML-escaped with <mark>, as the engine gives it


def _batch_news(batch: Batch) -> list[MailNews]:
    rows = news_rows(AlertMatch.mail_batch == batch.value).order_by(
        AlertMatch.found_at, AlertMatch.video_id
    )
    return [
        MailNews(
            video_id=row.video_id,
            title=getattr(row, "video_title", None) or row.video_id,
            channel_title=getattr(row, "channel_title", None) or "",
            start=row.start_seconds,
            highlight=row.highlight or "",
        )
        for row in rows
    ]


# -- composing --------------------------------------------------------------------------


def unsubscribe_url(token: str) -> str:
    return get_settings().public_base_url + UNSUBSCRIBE_PATH.format(token=token)


def video_url(video_id: str, start: float | None, query: str) -> str:
    params: dict[str, str] = {}
    if start:
        params["t"] = f"{start:g}"
    params["q"] = query
    return (
        get_settings().public_base_url
        + VIDEO_PATH.format(video_id=video_id)
        + "?"
        + urlencode(params)
    )


def clock_time(seconds: float | None) -> str:
    """`12:34` or `1:02:03`."""
    total = int(seconds or 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


MARK = re.compile(r"</?mark>")


def plain_highlight(highlight: str) -> str:
    """The engine's highlight (escaped HTML with <mark>) as text."""
    return " ".join(html.unescape(MARK.sub("", highlight)).split())


def message_domain() -> str:
    settings = get_settings()
    address = parseaddr(settings.mail_from)[1]
    if "@" in address:
        return address.rsplit("@", 1)[1]
    return urlsplit(settings.public_base_url).hostname or "localhost"


def compose(
    alert: Alert, user: User, batch_id: str, news: list[MailNews], *, now: datetime
) -> EmailMessage:
    """The mail of one batch, in the member's language, with the one-click unsubscribe
    headers of RFC 8058 and the batch id as its Message-ID (a mail sent again after a
    crash is the same mail to the reader's client)."""
    settings = get_settings()
    locale = locale_of(user)
    words = TEXTS[locale]
    kind = "daily" if alert.frequency == "daily" else "instant"
    query = alert.query
    unsubscribe = unsubscribe_url(alert.unsubscribe_token)
    account = settings.public_base_url + ACCOUNT_PATH

    lines = [words[f"intro_{kind}"].format(query=query), ""]
    for item in news[:MAX_LISTED]:
        lines.append(f"■ {item.title}")
        detail = [part for part in (item.channel_title,) if part]
        if item.start is not None:
            detail.append(words["at"].format(time=clock_time(item.start)))
        if detail:
            lines.append("  " + " · ".join(detail))
        text = plain_highlight(item.highlight)
        if text:
            lines.append(f"  「{text}」" if locale == "ja" else f'  "{text}"')
        lines.append("  " + video_url(item.video_id, item.start, query))
        lines.append("")
    if len(news) > MAX_LISTED:
        lines += [words["more"].format(count=len(news) - MAX_LISTED, url=account), ""]
    lines += [
        "-- ",
        words["why"].format(service=settings.service_name),
        words["manage"].format(url=account),
        words["unsubscribe"].format(url=unsubscribe),
    ]

    message = EmailMessage(policy=MAIL_POLICY)
    message["Subject"] = words[f"subject_{kind}"].format(query=query, count=len(news))
    message["From"] = settings.mail_from
    message["To"] = user.email
    message["Date"] = format_datetime(now)
    message["Message-ID"] = f"<alert-{batch_id}@{message_domain()}>"
    message["List-Id"] = f"<alerts.{message_domain()}>"
    message["List-Unsubscribe"] = f"<{unsubscribe}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content("\n".join(lines) + "\n")
    message["Content-Language"] = locale  # after set_content, which sets Content-* anew
    return message


# -- daily digests ----------------------------------------------------------------------


def plan_digests(now: datetime | None = None) -> int:
    """Plan today's digest of every daily alert whose member's local time has reached
    ALERT_DIGEST_HOUR and which has had none today: in one transaction per alert, the
    day is claimed (a conditional UPDATE of `last_digest_on`, so a rerun or a second
    scheduler plans nothing more), the news waiting is claimed into a batch nobody
    sends yet, and an outbox message asks `send_alert_mail` to send it. Returns how many
    digests were planned. Without SMTP_URL nothing is planned: the news waits."""
    if not get_mailer().delivers:
        return 0
    now = now or utcnow()
    hour = get_settings().alert_digest_hour
    candidates = list(
        Alert.select(Alert.id, Alert.last_digest_on, User.locale, User.time_zone)
        .join(User, on=(User.id == Alert.user))
        .where(
            (Alert.frequency == "daily") & Alert.deleted_at.is_null() & Alert.paused_at.is_null()
        )
        .objects()
    )
    messages: list[str] = []
    for row in candidates:
        member = User(
            locale=getattr(row, "locale", None), time_zone=getattr(row, "time_zone", None)
        )
        local = now.astimezone(zone_of(member))
        today = local.date().isoformat()
        if local.hour < hour or (row.last_digest_on and row.last_digest_on >= today):
            continue
        with db.atomic():
            won = (
                Alert.update(last_digest_on=today)
                .where(
                    (Alert.id == row.id)
                    & (Alert.last_digest_on.is_null() | (Alert.last_digest_on < today))
                    & Alert.deleted_at.is_null()
                    & Alert.paused_at.is_null()
                )
                .execute()
            )
            # Today's news, and a batch a refusal left waiting (sent again with it).
            if won and (claim_news(row.id, RELEASED) is not None or _has_pending(row.id)):
                messages.append(outbox.add(MAIL_ACTOR, row.id))
    for message_id in messages:
        outbox.send(message_id)  # after commit; a message not sent waits for the redrive
    return len(messages)


def alert_of_unsubscribe_token(token: str) -> Alert | None:
    """The alert (live or stopped) a mail's unsubscribe address names; None if none."""
    if not token:
        return None
    found: Alert | None = Alert.get_or_none(Alert.unsubscribe_token == token)
    return found
