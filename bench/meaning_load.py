"""Benchmark of searches by meaning as a hostile client sends them (issue 42): what one
costs the web front, and whether /api/ping keeps answering while addresses send the
costliest questions by meaning back to back.

Runs the web front as production does (gunicorn, 2 workers, `subsearch serve`) over a
small synthetic index and a temporary SQLite database, Redis at BENCH_REDIS_URL for the
rate limits. Prints:
- the CPU of the front's workers per search (ms), each kind asked --requests times with
  a question never asked before (the model's cache does not help): keyword, a short
  question by meaning, a 190-character one, 150 ffi ligatures, and U+FDFA 64 times;
  target: the 190-character question at most 3x the short one;
- for each phase, /api/ping p50 and p95 and an ordinary keyword search from another
  client while N addresses loop the 190-character question (answers counted by status):
  with the rate limits on (each address its own allowance, sent as X-Forwarded-For
  behind one trusted proxy) and with them off (as many addresses as it takes); target:
  ping p95 under 1 s. Loopback only; it stops by itself.

    .venv/bin/python bench/meaning_load.py [--addresses 8] [--seconds 20] [--requests 30]
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import redis
import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.search import build  # noqa: E402
from bench.search_load import answering, free_port, run_together  # noqa: E402
from models import migrations  # noqa: E402
from models.db import db, init_db  # noqa: E402
from models.search.embedded import EmbeddedEngine  # noqa: E402

REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
SEGMENTS = 20_000
LONG = (
    "奈良公園の鹿が観光客に向かってお辞儀をするのはなぜなのか、鹿せんべいをもらうために"
    "覚えた行動なのか、それとも昔からの習性なのか、地元のガイドさんが丁寧に説明していた"
    "動画を探しています。できれば英語の字幕がついていて、春の奈良公園の様子も映っている"
    "ものがいいです。鹿が何頭も並んでお辞儀をしている場面や、子どもがせんべいをあげる"
    "場面があれば最高です。よろしくお願いします。"
)[:190]
KINDS = {
    "keyword": lambda n: f"/api/search?q=大阪+{n}",
    "meaning, short": lambda n: f"/api/search?q=鹿+おじぎ+{n}&semantic=1",
    "meaning, 190 characters": lambda n: f"/api/search?q={n}+{LONG}&semantic=1",
    "meaning, 150 ffi ligatures": lambda n: f"/api/search?q={n}+{chr(0xFB03) * 150}&semantic=1",
    "meaning, U+FDFA x 64": lambda n: f"/api/search?q={n}+{chr(0xFDFA) * 64}&semantic=1",
}
ORDINARY = "/api/search?q=大阪&groupBy=video"
PROBE_EVERY = 0.2


def start_front(folder: Path, limits: bool) -> tuple[subprocess.Popen[bytes], str]:
    database = f"sqlite:///{folder / 'subsearch.db'}"
    port = free_port()
    env = {
        **os.environ,
        "APP_ENV": "production",
        "SECRET_KEY": "bench-meaning-load",
        "PAYMENT_BACKEND": "stripe",
        "PAYMENT_API_KEY": "sk_test_bench",
        "SUPPORT_EMAIL": "ads@example.jp",
        "DATABASE_URL": database,
        "REDIS_URL": REDIS_URL,
        "SEARCH_BACKEND": "embedded",
        "SEARCH_EMBEDDED_PATH": str(folder / "search.db"),
        "UPLOAD_DIR": str(folder / "uploads"),
        "RATE_LIMITS_ENABLED": "on" if limits else "off",
        "TRUSTED_PROXY_HOPS": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("SEARCH_HOST", None)
    log = (folder / f"serve-{port}.log").open("w")
    command = [sys.executable, "-m", "web.cli", "serve", "--host", "127.0.0.1", "--port"]
    server = subprocess.Popen(
        [*command, str(port), "--workers", "2"],
        cwd=folder,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log_path = folder / f"serve-{port}.log"
    return server, answering(server, f"http://127.0.0.1:{port}", log_path)


def workers_cpu(server: subprocess.Popen[bytes]) -> float:
    """CPU seconds of the front's processes (gunicorn's master and its workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    children = subprocess.run(
        ["pgrep", "-P", str(server.pid)], capture_output=True, text=True
    ).stdout.split()
    total = 0.0
    for pid in [str(server.pid), *children]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def costs(server: subprocess.Popen[bytes], base: str, count: int) -> dict[str, float]:
    """CPU ms of the front per search of each kind, asked one at a time."""
    session = requests.Session()
    found = {}
    for offset, (name, path) in enumerate(KINDS.items()):
        session.get(base + path(-1 - offset))  # each worker's model loads on first use
        session.get(base + path(-100 - offset))
        statuses: Counter[int] = Counter()
        before = workers_cpu(server)
        for n in range(count):
            statuses[session.get(base + path(offset * 10_000 + n)).status_code] += 1
        found[name] = (workers_cpu(server) - before) / count * 1000
        answered = ", ".join(f"{c}x HTTP {s}" for s, c in sorted(statuses.items()))
        print(f"  {name:<28} {found[name]:7.1f} ms CPU a search  ({answered})", flush=True)
    return found


def phase(base: str, addresses: int, seconds: float, label: str) -> float:
    """Ping's p95 (s) while `addresses` loop the long question by meaning."""
    stop = threading.Event()
    statuses: Counter[int] = Counter()
    lock = threading.Lock()

    def abuse(number: int) -> None:
        session = requests.Session()
        session.headers["X-Forwarded-For"] = f"198.51.100.{number + 1}"
        asked = 0
        while not stop.is_set():
            asked += 1
            path = KINDS["meaning, 190 characters"](number * 1_000_000 + asked)
            try:
                status = session.get(base + path, timeout=10).status_code
            except requests.RequestException:
                status = 0
            with lock:
                statuses[status] += 1

    probes: dict[str, list[float]] = {"ping": [], "ordinary search": []}

    def probe() -> None:
        session = requests.Session()
        asked = 0
        while not stop.is_set():
            started = time.monotonic()
            asked += 1  # a visitor of its own each time: the probe is nobody's abuse
            session.headers["X-Forwarded-For"] = f"203.0.113.{asked % 250 + 1}"
            for name, path in (("ping", "/api/ping"), ("ordinary search", ORDINARY)):
                began = time.perf_counter()
                try:
                    ok = session.get(base + path, timeout=10).status_code == 200
                except requests.RequestException:
                    ok = False
                probes[name].append(time.perf_counter() - began if ok else float("inf"))
            stop.wait(max(0.0, PROBE_EVERY - (time.monotonic() - started)))

    abusers = [functools.partial(abuse, n) for n in range(addresses)]
    run_together([*abusers, probe], seconds, stop)
    parts = []
    for name, times in probes.items():
        ordered = sorted(times)
        p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
        parts.append(
            f"{name} p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
            f" ({len(times)} asked)"
        )
    answered = ", ".join(f"{c}x HTTP {s}" for s, c in sorted(statuses.items()))
    print(f"{label}, {addresses} addresses: " + "; ".join(parts), flush=True)
    print(f"  the addresses' questions: {answered}", flush=True)
    ping = sorted(probes["ping"])
    return ping[max(0, round(0.95 * len(ping)) - 1)]


def prepare(folder: Path) -> None:
    init_db(f"sqlite:///{folder / 'subsearch.db'}")
    migrations.upgrade()
    db.close()
    engine = EmbeddedEngine(str(folder / "search.db"))
    engine.apply_settings()
    build(engine, SEGMENTS, random.Random(42), [f"UC{n:022d}" for n in range(20)], None)
    engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--addresses", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--requests", type=int, default=30, help="searches of each kind")
    args = parser.parse_args()
    redis.Redis.from_url(REDIS_URL).flushdb()
    with tempfile.TemporaryDirectory(prefix="subsearch-meaning-") as name:
        folder = Path(name)
        prepare(folder)
        server, base = start_front(folder, limits=False)
        try:
            print("CPU of the front per search, one at a time:", flush=True)
            found = costs(server, base, args.requests)
            ratio = found["meaning, 190 characters"] / found["meaning, short"]
            print(f"  190 characters / short: {ratio:.2f}x (target <= 3x)", flush=True)
            off = phase(base, args.addresses, args.seconds, "rate limits off")
        finally:
            server.terminate()
            server.wait(timeout=30)
        server, base = start_front(folder, limits=True)
        try:
            on = phase(base, args.addresses, args.seconds, "rate limits on")
        finally:
            server.terminate()
            server.wait(timeout=30)
        met = ratio <= 3 and off < 1 and on < 1
        print(f"targets: {'met' if met else 'NOT met'} (ping p95 {on:.2f} s / {off:.2f} s)")
    redis.Redis.from_url(REDIS_URL).flushdb()


if __name__ == "__main__":
    main()
