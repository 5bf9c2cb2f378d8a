"""Benchmark of search under load: does the web front keep answering while clients
repeat the most expensive search it accepts?

Starts `python -m web.cli serve` on a free loopback port, over a synthetic index built
as bench/search.py builds one (1M segments by default, kept with --index to reuse) and a
temporary SQLite database. For each N of --clients it runs N client loops of the most
expensive accepted search (the slowest of a few costly shapes, measured first) for
--seconds, and meanwhile asks /api/ping and an ordinary search every half second,
printing how many of them answered within 1 s. Loopback only; it stops by itself.

    .venv/bin/python bench/search_load.py [--clients 2,4] [--seconds 20] [--index PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.search import build  # noqa: E402
from models import migrations  # noqa: E402
from models.db import db, init_db  # noqa: E402
from models.search.embedded import EmbeddedEngine  # noqa: E402

# The costly shapes the bounds accept (models/search/bounds.py); the slowest is looped.
EXPENSIVE = [
    "/api/search?q=鬱&groupBy=video",
    "/api/search?q=鬱",
    "/api/search?q=海+山&sort=views",
    "/api/search?q=は&page=10&perPage=100",
    "/api/search?q=です&page=10&perPage=100&sort=newest",
    "/api/search?q=は&page=50&groupBy=video",
]
ORDINARY = "/api/search?q=大阪&groupBy=video"
PROBE_EVERY = 0.5
IN_TIME = 1.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def ensure_index(path: Path, size: int) -> None:
    if path.exists():
        return
    print(f"building a {size:,}-segment index at {path} ...", flush=True)
    engine = EmbeddedEngine(str(path))
    engine.apply_settings()
    channels = [f"UC{n:022d}" for n in range(200)]
    seconds, _ = build(engine, size, random.Random(size), channels, None)
    engine.close()
    print(f"built in {seconds:.1f} s", flush=True)


def start_server(folder: Path, index: Path, budget_ms: int | None) -> tuple[subprocess.Popen, str]:
    database = f"sqlite:///{folder / 'subsearch.db'}"
    init_db(database)
    migrations.upgrade()
    db.close()
    port = free_port()
    env = {
        **os.environ,
        "APP_ENV": "development",
        "SECRET_KEY": "bench-search-load",
        "DATABASE_URL": database,
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(index),
        "UPLOAD_DIR": str(folder / "uploads"),
        "LOG_FORMAT": "text",
        # The search's own cost is measured here, not the rate limits in front of it.
        "RATE_LIMITS_ENABLED": "off",
    }
    env.pop("SEARCH_HOST", None)
    if budget_ms is not None:
        env["SEARCH_TIME_BUDGET_MS"] = str(budget_ms)
    log = (folder / "serve.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=folder,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    return server, answering(server, f"http://127.0.0.1:{port}", folder / "serve.log")


def answering(server: subprocess.Popen, base: str, log: Path) -> str:
    """`base` once the front started as `server` answers /api/ping (within 60 s); else
    the front is stopped and the run ends, naming its log."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/api/ping", timeout=1).ok:
                return base
        except requests.RequestException:
            pass
        if server.poll() is not None:
            break
        time.sleep(0.2)
    server.terminate()
    raise SystemExit(f"the web front did not start; see {log}")


def timed_get(url: str, timeout: float = 10.0) -> tuple[float, int]:
    started = time.perf_counter()
    try:
        status = requests.get(url, timeout=timeout).status_code
    except requests.RequestException:
        status = 0
    return time.perf_counter() - started, status


def most_expensive(base: str) -> tuple[str, float]:
    costs = {}
    for path in EXPENSIVE:
        timed_get(base + path)  # the first read of a shape warms the page cache
        seconds, status = timed_get(base + path)
        costs[path] = seconds if status == 200 else 0.0
        print(f"  {path:<55} {seconds * 1000:7.0f} ms  HTTP {status}", flush=True)
    path = max(costs, key=lambda p: costs[p])
    return path, costs[path]


def run_together(loops: list[Callable[[], None]], seconds: float, stop: threading.Event) -> None:
    """Each loop on a thread of its own for `seconds`, then `stop` set and all joined."""
    threads = [threading.Thread(target=loop) for loop in loops]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()


def phase(base: str, expensive: str, clients: int, seconds: float) -> None:
    stop = threading.Event()
    statuses: Counter[int] = Counter()
    loop_times: list[float] = []
    lock = threading.Lock()

    def loop() -> None:
        while not stop.is_set():
            took, status = timed_get(base + expensive)
            with lock:
                statuses[status] += 1
                loop_times.append(took)

    probes: dict[str, list[float]] = {"ping": [], "ordinary": []}

    def probe() -> None:
        while not stop.is_set():
            started = time.monotonic()
            for name, path in (("ping", "/api/ping"), ("ordinary", ORDINARY)):
                took, status = timed_get(base + path, timeout=5)
                probes[name].append(took if status == 200 else float("inf"))
            stop.wait(max(0.0, PROBE_EVERY - (time.monotonic() - started)))

    run_together([*[loop] * clients, probe], seconds, stop)

    line = []
    for name, times in probes.items():
        in_time = sum(t <= IN_TIME for t in times)
        finite = [t for t in times if t != float("inf")] or [0.0]
        line.append(
            f"{name} within 1 s {in_time}/{len(times)}"
            f" (p50 {statistics.median(finite) * 1000:.0f} ms, max {max(finite) * 1000:.0f} ms)"
        )
    if loop_times:
        answered = ", ".join(f"{count}x HTTP {code}" for code, count in sorted(statuses.items()))
        line.append(
            f"expensive loops: {answered}, p50 {statistics.median(loop_times) * 1000:.0f} ms"
        )
    print(f"N={clients}: " + "; ".join(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="segments in the index")
    parser.add_argument("--index", type=Path, help="an index file to use (built if missing)")
    parser.add_argument("--clients", default="2,4", help="client loops per phase")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--budget-ms", type=int, help="SEARCH_TIME_BUDGET_MS of the server")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="subsearch-load-") as name:
        folder = Path(name)
        index = args.index or folder / f"search-{args.size}.db"
        ensure_index(index, args.size)
        server, base = start_server(folder, index, args.budget_ms)
        try:
            print("the costly shapes, one at a time:", flush=True)
            expensive, cost = most_expensive(base)
            print(f"looping {expensive} ({cost * 1000:.0f} ms alone)", flush=True)
            phase(base, expensive, 0, min(args.seconds, 5.0))
            for clients in (int(n) for n in args.clients.split(",")):
                phase(base, expensive, clients, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
