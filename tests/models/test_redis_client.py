"""A unit test's Redis is fakeredis (tests/conftest.py, `redis_backend`): every client
models.redis_client makes, the Dramatiq broker's included, is on the test's own fake
server, and no real Redis is ever reached, so `pytest -m "not flow"` needs none."""

from __future__ import annotations

from urllib.parse import urlsplit

import fakeredis
import pytest
import redis
from dramatiq import Message

from models.ads import delivery_cache
from models.redis_client import available, get_redis
from tests.fixtures import TEST_REDIS_URL
from workers.broker import RedisBroker, build_broker


def test_a_unit_test_gets_fakeredis_shared_with_its_redis_client_fixture(
    redis_backend, redis_client
):
    assert isinstance(redis_backend, fakeredis.FakeServer)
    assert isinstance(redis_client, fakeredis.FakeRedis)
    models_client = get_redis()
    assert models_client.connection_pool.connection_class is fakeredis.FakeRedisConnection
    test_db = int(urlsplit(TEST_REDIS_URL).path.lstrip("/") or 0)
    assert models_client.connection_pool.connection_kwargs["db"] == test_db
    models_client.set("subsearch:probe", "1")
    assert redis_client.get("subsearch:probe") == b"1"  # same server, same database


def test_each_unit_test_starts_on_an_empty_fake_server():
    assert get_redis().keys("*") == []
    get_redis().set("left-behind", "1")  # the next test must not see it


def test_each_unit_test_starts_on_an_empty_fake_server_again():
    assert get_redis().keys("*") == []


def test_a_unit_test_cannot_reach_a_real_redis(real_redis_attempts):
    real = redis.Redis.from_url(TEST_REDIS_URL)
    with pytest.raises(redis.ConnectionError, match="may not reach a real Redis"):
        real.ping()
    assert real_redis_attempts  # without asking for this fixture, the test would fail
    real.close()


def test_the_queue_broker_runs_its_lua_scripts_on_fakeredis(redis_client):
    broker = build_broker(TEST_REDIS_URL)
    assert isinstance(broker, RedisBroker)
    broker.declare_queue("probe")
    broker.enqueue(Message(queue_name="probe", actor_name="a", args=(1,), kwargs={}, options={}))
    assert redis_client.llen("dramatiq:probe") == 1
    consumer = broker.consume("probe", prefetch=1, timeout=100)
    message = next(consumer)  # the dispatch script's fetch (with its maintenance)
    assert message.args == (1,)
    consumer.ack(message)
    consumer.close()
    assert redis_client.llen("dramatiq:probe") == 0
    broker.close()


def test_an_unreachable_fake_redis_takes_the_fallbacks(redis_backend, client):
    redis_backend.connected = False
    assert delivery_cache.generation() == -1
    assert not available()  # marked down, like a real failure
    health = client.get("/api/health")
    assert health.status_code == 503
    assert health.get_json()["checks"]["queue"] == "unavailable"


def test_the_health_check_pings_the_tests_redis(client):
    assert client.get("/api/health").get_json()["checks"]["queue"] == "ok"
