"""Helpers shared by the tests: where the test services are, running queued work to the
end, and which tables a test may have written. Tests and conftest.py import from here;
nothing imports from a conftest."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from peewee import Database, Model, sort_models

import web.devtools.local_payments.tables  # noqa: F401  (declares the local provider's tables)
from models import redis_client
from models.ads.counting import Click, Impression
from models.metrics import counter_values
from models.tables import BaseModel
from workers import beacons

TEST_DATABASE = os.environ.get("TEST_DATABASE", "sqlite")
ADMIN_POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)


def _redis_url_of_this_process(base: str) -> str:
    """BASE's Redis database, less one for each pytest-xdist worker before this one
    (gw0: 15, gw1: 14...): flow tests running side by side never share queues or keys."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    parts = urlsplit(base)
    database = int(parts.path.lstrip("/") or 0) - int(worker.removeprefix("gw"))
    if database < 0:
        raise RuntimeError(f"too many test workers for the Redis databases below {base}")
    return urlunsplit(parts._replace(path=f"/{database}"))


TEST_REDIS_URL = _redis_url_of_this_process(
    os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)

REAL_BROWSER_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0.0.0 Safari/537.36"
)

# Kept between tests: the record of applied migrations and the seeded ad slots.
KEPT_TABLES = frozenset({"schema_migrations", "ad_slots"})


def wait_for(condition: Callable[[], object], timeout: float = 30.0) -> bool:
    """Whether CONDITION came true within TIMEOUT seconds (checked every 0.1 s): how a
    test waits for something to have happened, instead of sleeping a guessed while."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def metric_changes(name: str, **labels: str):
    """A callable giving how a counter moved since this call, by its other labels (one
    label: its value), leaving out what did not move. Counters live as long as the test
    process: a test reads its own changes, not the totals."""
    before = counter_values(name, **labels)

    def changes() -> dict:
        moved = {}
        for key, value in counter_values(name, **labels).items():
            delta = value - before.get(key, 0.0)
            if delta:
                moved[key[0] if len(key) == 1 else key] = int(delta)
        return moved

    return changes


# A folder: the browser tests save there the pages they look at, to be looked at by a
# person (PAGE_SCREENSHOTS=/tmp/shots pytest tests/browser); unset, nothing is saved.
PAGE_SCREENSHOTS = os.environ.get("PAGE_SCREENSHOTS")


def keep_screenshot(page, name: str) -> None:
    """The whole page as NAME.png in PAGE_SCREENSHOTS, when that is set."""
    if PAGE_SCREENSHOTS:
        os.makedirs(PAGE_SCREENSHOTS, exist_ok=True)
        page.screenshot(path=os.path.join(PAGE_SCREENSHOTS, f"{name}.png"), full_page=True)


def keep_screenshots_at(page, name: str, widths=(375, 1280)) -> None:
    """The page at a phone's and a desktop's width (NAME-375.png, NAME-1280.png), then
    back to the tests' window."""
    if not PAGE_SCREENSHOTS:
        return
    for width in widths:
        page.set_viewport_size({"width": width, "height": 800})
        keep_screenshot(page, f"{name}-{width}")
    page.set_viewport_size({"width": 1000, "height": 700})


def come_to_rest(locator):
    """Scroll to the element and let two frames pass, as a hand does before it clicks.
    Chromium routes a click that follows a scroll at once by where a cross-site frame
    (the video player) was before the scroll, so such a click lands in the player."""
    locator.scroll_into_view_if_needed()
    locator.page.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    return locator


def settled_click(locator) -> None:
    come_to_rest(locator).click()


def held_until(page, held: list, timeout_ms: int = 5000) -> list:
    """Wait until a route handler has held a request (it is called between Playwright
    calls, not at once), and return what it holds."""
    waited = 0
    while not held and waited < timeout_ms:
        page.wait_for_timeout(20)
        waited += 20
    assert held, "the request was never made"
    return held


def drain(broker, worker, queues=("payments", "billing", "batch", "maintenance")) -> None:
    """Run queued work to the end, including the work it queues in turn. Draining
    "measure" counts the beacons' stream too, as the counting actor does."""
    for _ in range(3):
        for queue in queues:
            if queue in broker.queues:
                broker.join(queue, timeout=20_000)
        worker.join()
        if "measure" in queues:
            drain_beacons()


def drain_beacons() -> int:
    """Count what the beacons put on their stream (workers/beacons.py) with one
    consumer, a round at a time, until a round reads nothing; how many entries it read."""
    consumer = beacons.new_consumer(redis_client.get_redis())
    beacons.ensure_group(consumer.client)
    read = 0
    while taken := beacons.consume_round(consumer, block_ms=None).read:
        read += taken
    return read


def take_messages(broker, queue_name: str) -> list[dict]:
    """Remove and return (decoded) the messages waiting on a stub queue, marking each
    done so a later join on that queue does not wait for them."""
    queue = broker.queues.get(queue_name)
    taken = []
    while queue is not None and not queue.empty():
        taken.append(json.loads(queue.get()))
        queue.task_done()
    return taken


def take_beacons() -> list[Impression | Click]:
    """Remove and return the events the front put on the beacons' stream, uncounted."""
    client = redis_client.get_redis()
    entries = client.xrange(beacons.STREAM)
    if entries:
        client.xdel(beacons.STREAM, *[entry_id for entry_id, _ in entries])
    return [beacons.decode(fields) for _, fields in entries]


def _models(base: type[Model]) -> list[type[Model]]:
    found = []
    for model in base.__subclasses__():
        found.append(model)
        found.extend(_models(model))
    return found


def tables_to_clear(database: Database) -> list[str]:
    """Every table a test may write, children before parents (so plain DELETEs respect
    the foreign keys), derived from the peewee models. A table in the database that no
    model declares is an error: it would keep rows from one test to the next."""
    present = {t for t in database.get_tables() if not t.startswith("sqlite_")}
    models = [m for m in _models(BaseModel) if m._meta.table_name in present]
    declared = {m._meta.table_name for m in models}
    undeclared = present - declared - KEPT_TABLES
    if undeclared:
        raise RuntimeError(f"tables without a model, never cleared: {sorted(undeclared)}")
    ordered = reversed(sort_models(models))
    return [m._meta.table_name for m in ordered if m._meta.table_name not in KEPT_TABLES]


# Each place PHRASE is drawn on the page (whitespace in it matches any run of whitespace
# or none, across elements too), and the tops of the lines each occurrence is drawn on.
_PHRASE_LINES = """(phrase) => {
  const nodes = [];
  let text = "";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, template, [hidden]")) continue;
    nodes.push({node, start: text.length});
    text += node.data;
  }
  const where = (offset) => {
    let i = nodes.length - 1;
    while (i > 0 && nodes[i].start > offset) i--;
    return [nodes[i].node, offset - nodes[i].start];
  };
  const escaped = phrase.trim().split(/\\s+/)
    .map(part => part.replace(/[.*+?^${}()|[\\]\\\\]/g, "\\\\$&")).join("\\\\s*");
  const found = [];
  for (const match of text.matchAll(new RegExp(escaped, "g"))) {
    const range = document.createRange();
    range.setStart(...where(match.index));
    range.setEnd(...where(match.index + match[0].length - 1));
    range.setEnd(range.endContainer, range.endOffset + 1);
    const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
    if (!rects.length) continue;  // not drawn (display: none, a closed <details>)
    const tops = [...new Set(rects.map(r => Math.round(r.top)))].sort((a, b) => a - b)
      .filter((top, i, all) => i === 0 || top - all[i - 1] > 2);
    found.push(tops.length);
  }
  return found;
}"""


def broken_inside(page, phrase: str) -> bool:
    """Whether PHRASE is split over two lines anywhere it is drawn on the page (言/葉,
    掲載しませ/んか, 1/か月), measured from the boxes of its own characters. The phrase
    must be drawn at least once: a test of a word that is not there would always pass."""
    lines = page.evaluate(_PHRASE_LINES, phrase)
    assert lines, f"{phrase!r} is not drawn on {page.url}"
    return any(count > 1 for count in lines)


def sideways_overflow(page) -> int:
    """How many pixels the page scrolls sideways (0 when it fits its window)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def no_sideways_scroll(page, widths=(375, 1280)) -> None:
    """The page fits a phone's and a desktop's width, then the window is set back."""
    for width in widths:
        page.set_viewport_size({"width": width, "height": 800})
        assert sideways_overflow(page) <= 0, f"{page.url} scrolls sideways at {width} px"
    page.set_viewport_size({"width": 1000, "height": 700})
