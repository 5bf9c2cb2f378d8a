"""Probe actors loaded by the worker process in the flow tests (never in production)."""

from __future__ import annotations

import os

import redis

from models.verifications import VerificationStore
from workers.actors import actor

_redis = redis.Redis.from_url(os.environ["REDIS_URL"])


@actor(queue_name="flow", max_retries=0)
def record_probe(key):
    """Write a row through the per-message connection, then count the run in Redis (in
    that order, so a test that sees the count also sees the row)."""
    VerificationStore().set(key, "processed", 600)
    _redis.incr(f"{key}:runs")


@actor(queue_name="flow", max_retries=0)
def flaky_probe(key):
    """Fails until the test allows it, so the message is dead-lettered first."""
    if not _redis.get(f"{key}:allow"):
        raise RuntimeError("not allowed yet")
    _redis.incr(f"{key}:runs")


@actor(queue_name="flow", max_retries=1, min_backoff=1, max_backoff=10)
def doomed_probe(key):
    """Counts its run, then fails every time: retried once at once, then dead-lettered."""
    _redis.incr(f"{key}:runs")
    raise RuntimeError("fails on purpose")
