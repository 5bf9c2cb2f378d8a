"""Test set-up: a throwaway database (SQLite file, or PostgreSQL when
TEST_DATABASE=postgresql), migrated once, emptied after every test.

The whole suite runs once per database: `make test` runs it on both.

Redis: a unit test runs on a fakeredis server of its own (with Lua, for Dramatiq's
scripts) and never contacts a real Redis, so `pytest -m "not flow"` needs no Redis
server. Only flow tests (`@pytest.mark.flow`: real worker processes) use the real one
at TEST_REDIS_URL, started for the run when none answers.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sqlite3
import tempfile
from dataclasses import replace
from pathlib import Path
from queue import Queue

import fakeredis
import psycopg2
import pytest
import redis
from dramatiq import Worker

import models.redis_client
import tasks
from models import migrations
from models.ads.delivery import clear_process_cache
from models.db import db, init_db
from models.home import forget_home
from models.plan_prices import forget as forget_plan_prices
from models.receipts import forget as forget_receipts
from models.search import get_engine
from models.search.embedded.layout import DATA_TABLES
from models.settings import get_settings, load_settings, use_settings
from tests.fakes.http import serve
from tests.fakes.platform_files import PlatformFiles
from tests.fixtures import ADMIN_POSTGRES_URL, TEST_DATABASE, TEST_REDIS_URL, tables_to_clear
from web import wiring
from web.app import create_app
from workers.redis_server import ensure_redis

# In memory where the machine has a tmpfs: the SQLite files' commits then cost no disk
# flush (thousands of tests commit); removed when the run ends.
_SHARED_MEMORY = Path("/dev/shm")
_workdir = Path(
    tempfile.mkdtemp(
        prefix="subsearch-test-", dir=_SHARED_MEMORY if _SHARED_MEMORY.is_dir() else None
    )
)
_pg_name = f"subsearch_test_{os.getpid()}_{secrets.token_hex(3)}"


def _database_url() -> str:
    if TEST_DATABASE == "sqlite":
        return f"sqlite:///{_workdir / 'test.db'}"
    if TEST_DATABASE == "postgresql":
        base = ADMIN_POSTGRES_URL.rsplit("/", 1)[0]
        return f"{base}/{_pg_name}"
    raise pytest.UsageError(f"TEST_DATABASE must be sqlite or postgresql, not {TEST_DATABASE!r}")


# Before any project module reads the environment.
os.environ.update(
    {
        "APP_ENV": "test",
        "SECRET_KEY": "test-secret-key",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": TEST_REDIS_URL,
        "QUEUE_BROKER": "stub",
        "UPLOAD_DIR": str(_workdir / "uploads"),
        "SEARCH_EMBEDDED_PATH": str(_workdir / "search.db"),
        "PAYMENT_WEBHOOK_SECRET": "whsec_test_one,whsec_test_two",
    }
)
for _name in (
    "OIDC_ISSUER",
    "OIDC_CLIENT_ID",
    "OIDC_CLIENT_SECRET",
    "SEARCH_HOST",
    "DEV_LOGIN",
    "SEARCH_BACKEND",
    "VIDEO_API_BACKEND",
    "VIDEO_FIXTURE_DIR",
    "PAYMENT_BACKEND",
):
    os.environ.pop(_name, None)

use_settings(load_settings(read_dotenv=False))
# How each service is built, as every process of the service has it (web/wiring.py);
# tests swap the settings, and the broker, themselves.
wiring.install()


def _create_postgres_database():
    try:
        conn = psycopg2.connect(ADMIN_POSTGRES_URL, connect_timeout=5)
    except psycopg2.OperationalError as error:
        pytest.exit(
            f"PostgreSQL is not reachable at {ADMIN_POSTGRES_URL} ({error}). "
            "Start it (see README, The two commands) or set TEST_POSTGRES_URL.",
            returncode=3,
        )
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'CREATE DATABASE "{_pg_name}"')
        # A commit returns before its WAL reaches the disk: the throwaway database loses
        # nothing a test reads (the server stays up), and thousands of commits stop
        # waiting for a flush.
        cur.execute(f'ALTER DATABASE "{_pg_name}" SET synchronous_commit = off')
    conn.close()


def _drop_postgres_database():
    conn = psycopg2.connect(ADMIN_POSTGRES_URL)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{_pg_name}" WITH (FORCE)')
    conn.close()


@pytest.fixture(scope="session")
def redis_server():
    """The real local Redis, for flow tests only (asked for by `redis_backend`, so a run
    without flow tests never contacts it); on a machine without one, a server started
    for this run."""
    try:
        process = ensure_redis(TEST_REDIS_URL, data_dir=str(_workdir / "redis"))
    except RuntimeError as error:
        pytest.fail(f"Redis is needed for the flow tests: {error}", pytrace=False)
    yield
    if process is not None:
        process.terminate()
        process.wait(timeout=10)


BROWSER_TESTS = Path(__file__).parent / "browser"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups given here
def pytest_collection_modifyitems(config, items):
    """Tests marked `database_independent` (and every browser test: what a page shows and
    how it is used, over the same API the unit tests try on both databases) check
    nothing that depends on which database is under the app: `make test` runs them in
    the SQLite pass only, and the PostgreSQL pass leaves them out."""
    for item in items:
        if item.path.is_relative_to(BROWSER_TESTS):
            item.add_marker(pytest.mark.database_independent)
        if item.get_closest_marker("flow"):
            # In one of two chains, each on one test worker (make test's --dist loadgroup).
            item.add_marker(pytest.mark.xdist_group(flow_chain(item)))
        elif shares_a_fixture(item):
            # Its module's tests on one test worker, so that what they share is built
            # once (the relevance set's index embeds a corpus: a minute each time).
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    # The flow tests (worker processes, up to a minute each) first, so that their chain
    # runs beside the rest of the pass instead of after it.
    items.sort(key=lambda item: item.get_closest_marker("flow") is None)
    if TEST_DATABASE != "postgresql":
        return
    once = [item for item in items if item.get_closest_marker("database_independent")]
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if not item.get_closest_marker("database_independent")]


# The flow tests start worker processes of their own at production shape. They run in
# two chains, one test after another within each, so that at most two run at once: four
# at once on two cores starved one past its four-minute wait, and a single chain (about
# five minutes) was the PostgreSQL pass's whole length. These modules make the second
# chain (about 140 s of the 300 on SQLite, issue 43), the other flow tests the first.
SECOND_FLOW_CHAIN = frozenset(
    {
        "test_poison_flow.py",
        "test_block_flow.py",
        "test_counter_stop_flow.py",
        "test_redis_faults.py",
        "test_worker_metrics.py",
        "test_maintenance_flow.py",
    }
)


def flow_chain(item) -> str:
    return "flow-2" if item.path.name in SECOND_FLOW_CHAIN else "flow-1"


def shares_a_fixture(item) -> bool:
    """Whether the test uses a fixture built once for its module (or class)."""
    definitions = item._fixtureinfo.name2fixturedefs.values()
    return any(d.scope in ("module", "class") for defs in definitions for d in defs)


def is_flow(request) -> bool:
    return request.node.get_closest_marker("flow") is not None


def _refuse_real_redis(patch, attempts: list) -> None:
    """Make every real Redis connection (TCP or Unix socket) fail as refused, noting
    where it went. fakeredis's connections have their own `_connect`: untouched."""

    def refuse(connection):
        where = getattr(connection, "path", None) or (connection.host, connection.port)
        attempts.append(where)
        raise ConnectionRefusedError(111, f"a unit test may not reach a real Redis ({where})")

    patch.setattr(redis.connection.Connection, "_connect", refuse)
    patch.setattr(redis.connection.UnixDomainSocketConnection, "_connect", refuse)


@pytest.fixture(autouse=True)
def redis_backend(request):
    """Where this test's Redis is. A flow test: the real server (returns None). Any
    other: a fresh fakeredis server (returned), behind every client that
    `models.redis_client` makes (`get_redis()`, the Dramatiq broker's pool, the
    scheduler's), while any real Redis connection is refused and fails the test,
    unless the test asks for `real_redis_attempts` (it means to reach a dead Redis).
    `server.connected = False` makes the fake one unreachable."""
    if is_flow(request):
        request.getfixturevalue("redis_server")
        yield None
        return

    server = fakeredis.FakeServer()
    real_pool = models.redis_client.connection_pool
    attempts = []

    def fake_pool(url, timeout=None):
        # The production pool (its URL, database, timeouts, no retries), connected to
        # the fake server instead of a socket: what fakeredis.FakeRedis.from_url does.
        pool = real_pool(url, timeout)
        pool.connection_class = fakeredis.FakeRedisConnection
        pool.connection_kwargs["server"] = server
        return pool

    with pytest.MonkeyPatch.context() as patch:  # not the test's: its undo() keeps this
        patch.setattr(models.redis_client, "connection_pool", fake_pool)
        _refuse_real_redis(patch, attempts)
        request.node.real_redis_attempts = attempts
        models.redis_client.reset()
        yield server
        models.redis_client.reset()
    if attempts and "real_redis_attempts" not in request.fixturenames:
        pytest.fail(
            f"a unit test tried to reach a real Redis at {attempts}: go through "
            "models.redis_client (fakeredis here), or mark the test flow",
            pytrace=False,
        )


@pytest.fixture
def real_redis_attempts(request, redis_backend):
    """Where this unit test tried to reach a real Redis (each refused): for a test that
    means to meet an unreachable one."""
    return request.node.real_redis_attempts


@pytest.fixture(scope="session", autouse=True)
def database():
    if TEST_DATABASE == "postgresql":
        _create_postgres_database()
    init_db(os.environ["DATABASE_URL"])
    migrations.upgrade()
    get_engine().apply_settings()  # the index's layout, as `subsearch db upgrade` sets it up
    yield db
    if not db.is_closed():
        db.close()
    if TEST_DATABASE == "postgresql":
        _drop_postgres_database()
    shutil.rmtree(_workdir, ignore_errors=True)


@pytest.fixture(autouse=True)
def clean_tables(database, redis_backend):
    yield

    # DELETE, children first, in one transaction: on PostgreSQL a TRUNCATE of every table
    # costs about ten times as much (it rewrites each table's files), on SQLite the same.
    database.connect(reuse_if_open=True)
    with database.atomic():
        if migrations.dialect() == "postgresql":
            database.execute_sql("; ".join(f"DELETE FROM {t}" for t in _tables(database)))
        else:
            for table in _tables(database):
                database.execute_sql(f"DELETE FROM {table}")
    database.close()
    _clear_search_index(real_redis=redis_backend is None)


_cleared: list[str] = []


def _tables(database) -> list[str]:
    if not _cleared:
        _cleared.extend(tables_to_clear(database))
    return _cleared


def _clear_search_index(real_redis: bool):
    path = os.environ["SEARCH_EMBEDDED_PATH"]
    if Path(path).exists():
        conn = sqlite3.connect(path, timeout=30)
        with conn:
            for table in DATA_TABLES:
                conn.execute(f"DELETE FROM {table}")
        conn.close()
    if not real_redis:
        return  # a unit test's fake Redis goes with it

    # Refresh locks and counters live in Redis; no flow test may inherit another's. A
    # client of its own, as patient as a worker's: the web's 0.25 s is for requests, and
    # two cores running a flow's sixteen threads can hold Redis past it.
    url = get_settings().redis_url
    pool = models.redis_client.connection_pool(url, models.redis_client.WORKER_TIMEOUT)
    client = redis.Redis(connection_pool=pool)
    try:
        for key in client.scan_iter(match="subsearch:*"):
            client.delete(key)
    finally:
        client.close()
        pool.disconnect()


@pytest.fixture
def settings():
    return load_settings(read_dotenv=False)


@pytest.fixture
def app(settings):
    app = create_app(settings)
    app.config.update(TESTING=True)
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(autouse=True)
def stub_broker():
    """The in-memory broker, emptied around every test so no message outlives its test."""
    broker = tasks.setup()  # the stub broker (QUEUE_BROKER=stub), with every actor

    def fresh_queues():
        # New queue objects, so nothing a test took without finishing can make a later
        # join wait forever.
        broker.flush_all()
        for name in list(broker.queues):
            broker.queues[name] = Queue()

    fresh_queues()
    yield broker
    fresh_queues()


@pytest.fixture(autouse=True)
def redis_up(redis_backend):
    """No test inherits another's 'Redis is down', a worker's longer Redis timeouts (see
    models.redis_client) or another's cached ad delivery."""
    models.redis_client.reset()
    clear_process_cache()
    forget_home()
    forget_plan_prices()
    forget_receipts()
    yield
    models.redis_client.reset()


@pytest.fixture
def stub_worker(stub_broker):
    worker = Worker(stub_broker, worker_timeout=100)
    worker.start()
    yield worker
    worker.stop()
    # A Worker adds its middleware to the broker for good; take it off again so later
    # tests' workers do not share the broker with this one's.
    stub_broker.middleware[:] = [
        m for m in stub_broker.middleware if getattr(m, "worker", None) is not worker
    ]


@pytest.fixture
def redis_client(redis_backend):
    """A client on this test's Redis (database 15), emptied around the test: fakeredis
    on the test's fake server, or the real Redis in a flow test."""
    if redis_backend is None:
        client = redis.Redis.from_url(TEST_REDIS_URL)
    else:
        client = fakeredis.FakeRedis.from_url(TEST_REDIS_URL, server=redis_backend)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture
def new_redis_client(redis_backend):
    """new_redis_client() -> a client with connections of its own on this test's Redis,
    as another process would have (fakeredis, or the real one in a flow test)."""
    made = []

    def make():
        made.append(
            redis.Redis(connection_pool=models.redis_client.connection_pool(TEST_REDIS_URL))
        )
        return made[-1]

    yield make
    for client in made:
        client.close()


@pytest.fixture
def site(settings, stub_broker, stub_worker):
    """The app served over HTTP on a loopback port, PUBLIC_BASE_URL pointing at itself,
    with an in-process worker: for journeys that cross real requests and the queue."""
    holder = {}

    def wsgi(environ, start_response):
        return holder["app"](environ, start_response)

    previous = get_settings()
    with serve(wsgi) as url:
        holder["app"] = create_app(replace(settings, public_base_url=url))
        yield url
    use_settings(previous)  # the next test must not inherit this server's address


@pytest.fixture
def platform_files(tmp_path):
    """A fixture video platform of the test's own, in a temporary folder."""
    previous = get_settings()
    use_settings(replace(previous, video_fixture_dir=str(tmp_path / "platform")))
    yield PlatformFiles(tmp_path / "platform")
    use_settings(previous)


@pytest.fixture
def smtp_server():
    """A real SMTP server on a loopback port (tests/smtp.py), and the settings' SMTP_URL
    pointing at it for the test."""
    from tests.smtp import SmtpServer  # noqa: PLC0415  # aiosmtpd only for the mail tests

    previous = get_settings()
    with SmtpServer() as server:
        use_settings(
            replace(previous, smtp_url=server.url, mail_from="subsearch <alerts@example.jp>")
        )
        try:
            yield server
        finally:
            use_settings(previous)
