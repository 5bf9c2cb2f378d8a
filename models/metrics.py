"""The service's Prometheus metrics: their names, what they count, and how a scrape reads
them (docs/operating.md, Metrics).

Each process records into prometheus_client's values. Where several processes serve
together (gunicorn's workers, Dramatiq's worker processes) PROMETHEUS_MULTIPROC_DIR names
a folder of value files, set before prometheus_client is first imported (web/gunicorn.py,
`subsearch worker`), and a scrape adds the processes up. Without it (development's one
process, the tests) values live in the process.

Recording never breaks the work it measures: prometheus_client's increments only touch
memory or a memory-mapped file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Seconds; a search or a page slower than 2.5 s is an incident either way.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter(
    "subsearch_http_requests",
    "HTTP requests answered, by route template, method and status class (2xx..5xx).",
    ["route", "method", "status"],
)
REQUEST_SECONDS = Histogram(
    "subsearch_http_request_duration_seconds",
    "Time to answer an HTTP request, by route template and method.",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
WEBHOOK_EVENTS = Counter(
    "subsearch_webhook_events",
    "Payment webhook deliveries by endpoint and outcome (bad_signature, error, paid...).",
    ["endpoint", "outcome"],
)
AD_EVENTS = Counter(
    "subsearch_ad_events",
    "Impressions and clicks: `accepted` by the web front (queued or written inline), "
    "`counted` once by the measurement (a redelivery or a replay counts nothing).",
    ["kind", "stage"],
)
SEARCH_SECONDS = Histogram(
    "subsearch_search_duration_seconds",
    "Time the search engine took to answer, by engine and kind (moments, videos or video_moments).",
    ["engine", "kind"],
    buckets=LATENCY_BUCKETS,
)
HOLD_RELEASES = Counter(
    "subsearch_ad_hold_releases",
    "Unpaid ad reservations removed, freeing their position, by what released them.",
    ["source"],
)
SUBSCRIPTION_PROBLEMS = Counter(
    "subsearch_subscription_problems",
    "Subscription events that could not be applied as sent: `unknown_subscription` (the "
    "provider or this service knows no such subscription or owner; applied once, not "
    "retried), `duplicate_refunded` (a member's second paid subscription, cancelled and "
    "refunded), `duplicate_needs_operator` (one the provider could not refund).",
    ["kind"],
)
MONTHLY_RESETS = Counter(
    "subsearch_monthly_reset_runs",
    "Monthly credit reset messages by outcome (ran, or already_ran for the month).",
    ["outcome"],
)
RATE_LIMITED = Counter(
    "subsearch_rate_limited_requests",
    "Calls refused with 429 by a rate limit (web/limits.py), by route template.",
    ["route"],
)
SUBTITLE_FETCHES = Counter(
    "subsearch_subtitle_fetches",
    "Subtitle fetches by outcome: `completed`, `unavailable`, or how one failed (the kinds "
    "of models.platform.base.FAILURE_KINDS: `ip_blocked`, `request_blocked` and `network` "
    "are the platform refusing this service's address), or `waited` (not sent: fetching "
    "was paused).",
    ["outcome"],
)
INVALID_BEACONS = Counter(
    "subsearch_invalid_beacons",
    "Impression beacons that counted nothing, by reason: `forged` (missing, malformed or "
    "another ad's token), `expired`, `replayed`, or `flood` (answered unchecked: its "
    "address sent more invalid ones than RATE_LIMIT_INVALID_BEACONS allows).",
    ["reason"],
)


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROCESS_ENV) or None


def prepare_multiprocess_dir(path: str) -> None:
    """An empty folder for a new run's value files (a dead run's would add to the sums)."""
    os.makedirs(path, exist_ok=True)
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.remove(os.path.join(path, name))


class _ProcessValues(Collector):
    """This process's metrics (no multiprocess folder), without registering anything
    twice in the global registry."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def registry(extra: Iterable[Collector] = ()) -> CollectorRegistry:
    """What a scrape reads: every process's values (or this one's), plus `extra`
    collectors measured at scrape time (the outbox, the dead letters)."""
    scrape = CollectorRegistry(auto_describe=False)
    folder = multiprocess_dir()
    if folder:
        multiprocess.MultiProcessCollector(scrape, path=folder)  # type: ignore[no-untyped-call]
    else:
        scrape.register(_ProcessValues())
    for collector in extra:
        scrape.register(collector)
    return scrape


def exposition(extra: Iterable[Collector] = ()) -> bytes:
    """The Prometheus text format of `registry(extra)`."""
    return generate_latest(registry(extra))


def counter_values(name: str, **labels: str) -> dict[tuple[str, ...], float]:
    """A counter's totals as a scrape reads them, by its other labels' values, among the
    samples whose labels match `labels` (for the admin API and the tests)."""
    found: dict[tuple[str, ...], float] = {}
    for family in registry().collect():
        if family.name != name:
            continue
        for sample in family.samples:
            if not sample.name.endswith("_total"):
                continue
            if any(sample.labels.get(k) != v for k, v in labels.items()):
                continue
            rest = tuple(v for k, v in sorted(sample.labels.items()) if k not in labels)
            found[rest] = found.get(rest, 0.0) + sample.value
    return found


@contextmanager
def timed(histogram: Histogram, **labels: str) -> Iterator[None]:
    """Observe how long the block took, also when it raises."""
    with histogram.labels(**labels).time():
        yield
