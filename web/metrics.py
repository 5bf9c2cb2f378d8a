"""`GET /metrics`: the Prometheus text format for operators, never public
(docs/operating.md, Metrics). It answers only when METRICS_TOKEN is set (otherwise 404,
as if it did not exist) and the request carries `Authorization: Bearer <METRICS_TOKEN>`
(otherwise 401).

Every request is counted here by its route template (`/api/videos/<video_id>/unlock`,
never the raw path: one series per route, not per video) and status class, and timed.
What waits (the outbox, each queue's messages and dead letters) and the last check of
the search index are measured at scrape time, so they are right even when no process has
recorded anything since it started.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterable

import redis
from flask import Blueprint, Flask, Response, abort, g, request
from peewee import PeeweeException
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from models import index_check, outbox, platform_pause, redis_client
from models.clock import parse_iso
from models.metrics import REQUEST_SECONDS, REQUESTS, exposition
from models.settings import get_settings
from scheduler.runner import last_sent_ticks
from web.errors import error_response
from workers import deadletters
from workers.broker import get_broker

bp = Blueprint("metrics", __name__)
log = logging.getLogger(__name__)

UNMATCHED = "<unmatched>"  # a 404 for no route at all: one series for all of them


class WaitingWork(Collector):
    """The outbox (waiting count, oldest age), the last search index check (what it found
    and when), the scheduler's last tick per job, and the queues (ready, delayed and dead
    messages by queue), read when scraped. A part that cannot be read is left out and
    counted in subsearch_scrape_errors, so the scrape itself still answers."""

    def __init__(self, broker: Callable[[], object] = get_broker):
        self.broker = broker

    def collect(self) -> Iterable[Metric]:
        errors = GaugeMetricFamily(
            "subsearch_scrape_errors",
            "Parts of this scrape that could not be read (1), by part.",
            labels=["part"],
        )
        try:
            waiting = outbox.waiting()
        except PeeweeException:
            log.warning("metrics: the outbox could not be read", exc_info=True)
            errors.add_metric(["outbox"], 1)
        else:
            yield GaugeMetricFamily(
                "subsearch_outbox_waiting",
                "Stored events and messages not yet processed (outbox and webhook events).",
                value=waiting.count,
            )
            yield GaugeMetricFamily(
                "subsearch_outbox_oldest_age_seconds",
                "Age of the oldest unprocessed outbox entry; 0 when none waits.",
                value=waiting.oldest_seconds or 0.0,
            )
        try:
            check = index_check.last_check()
            finished = parse_iso(check.finished_at).timestamp() if check else 0.0
        except (PeeweeException, ValueError):
            log.warning("metrics: the last index check could not be read", exc_info=True)
            errors.add_metric(["index_check"], 1)
        else:
            # No check yet: left out (not 0, which would read as a clean index), and the
            # alert SearchIndexCheckMissing fires on their absence.
            if check is not None:
                found = GaugeMetricFamily(
                    "subsearch_index_check_videos",
                    "Videos the last search index check found wrong, by state: missing "
                    "(searchable, not in the index), extra (in the index only), stale "
                    "(indexed with other documents).",
                    labels=["state"],
                )
                found.add_metric(["missing"], check.missing)
                found.add_metric(["extra"], check.extra)
                found.add_metric(["stale"], check.stale)
                yield found
                yield GaugeMetricFamily(
                    "subsearch_index_check_searchable_videos",
                    "Videos the database held as searchable at the last search index check.",
                    value=check.videos,
                )
                yield GaugeMetricFamily(
                    "subsearch_index_check_last_run_timestamp_seconds",
                    "When the last search index check finished (Unix time).",
                    value=finished,
                )
        try:
            ticks = last_sent_ticks(redis_client.get_redis())
        except redis.RedisError:
            log.warning("metrics: the scheduler's ticks could not be read", exc_info=True)
            errors.add_metric(["scheduler"], 1)
        else:
            sent = GaugeMetricFamily(
                "subsearch_scheduler_last_tick_timestamp_seconds",
                "When each scheduled job's last tick was (Unix time) that a scheduler sent.",
                labels=["job"],
            )
            for job, tick in sorted(ticks.items()):
                sent.add_metric([job], tick.timestamp())
            yield sent
        try:
            pause = platform_pause.state()
        except redis.RedisError:
            log.warning("metrics: the platform pause could not be read", exc_info=True)
            errors.add_metric(["platform_pause"], 1)
        else:
            yield GaugeMetricFamily(
                "subsearch_platform_paused",
                "1 while every subtitle fetch is paused because the platform refuses this "
                "service's address (running, or waiting for its probe), else 0.",
                value=1 if pause else 0,
            )
            if pause is not None:
                yield GaugeMetricFamily(
                    "subsearch_platform_paused_since_timestamp_seconds",
                    "When the platform began refusing, in this run of refusals (Unix time).",
                    value=pause.since,
                )
        broker = self.broker()
        if hasattr(broker, "client"):  # the Redis broker; the tests' stub keeps no queues
            try:
                rows = deadletters.status(broker)  # type: ignore[arg-type]
            except redis.RedisError:
                log.warning("metrics: the queues could not be read", exc_info=True)
                errors.add_metric(["queues"], 1)
            else:
                messages = GaugeMetricFamily(
                    "subsearch_queue_messages",
                    "Messages by queue and state: ready, delayed, dead (dead-lettered).",
                    labels=["queue", "state"],
                )
                for row in rows:
                    messages.add_metric([row.queue, "ready"], row.ready)
                    messages.add_metric([row.queue, "delayed"], row.delayed)
                    messages.add_metric([row.queue, "dead"], row.dead)
                yield messages
        yield errors


def _start_timer() -> None:
    g.metrics_started = time.perf_counter()


def _count(response: Response) -> Response:
    started = g.pop("metrics_started", None)
    route = request.url_rule.rule if request.url_rule else UNMATCHED
    REQUESTS.labels(
        route=route, method=request.method, status=f"{response.status_code // 100}xx"
    ).inc()
    if started is not None:
        REQUEST_SECONDS.labels(route=route, method=request.method).observe(
            time.perf_counter() - started
        )
    return response


@bp.get("/metrics")
def metrics() -> Response | tuple[Response, int]:
    token = get_settings().metrics_token
    if not token:
        abort(404)
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        response, status = error_response(
            401, "unauthenticated", "Send Authorization: Bearer <METRICS_TOKEN>."
        )
        response.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response, status
    return Response(exposition([WaitingWork()]), content_type=CONTENT_TYPE_LATEST)


def init_app(app: Flask) -> None:
    app.before_request(_start_timer)
    app.after_request(_count)
    app.register_blueprint(bp)
