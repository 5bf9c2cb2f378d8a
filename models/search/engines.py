"""Which engine and embedder a process searches with: built from the settings
(SEARCH_BACKEND, SEARCH_EMBEDDER) by the services the composition root installs.

Apart from the package's interface (base.py) so that a process that only searches an
embedded index it opened itself (a benchmark, a script) never loads what choosing needs:
the settings, Redis, and the Meilisearch client."""

from __future__ import annotations

from contextlib import AbstractContextManager

from models.redis_client import get_redis
from models.search.base import SearchEngine
from models.search.embedded import EmbeddedEngine
from models.search.embedder import Embedder, Questions, embedder_for
from models.search.meili import MeilisearchEngine
from models.services import Service
from models.settings import Settings

_cache: dict[tuple[str, str | None, str, int, str, str | None, int], SearchEngine] = {}


# The Meilisearch engine's write lock, shared by every process of the deployment (the
# embedded engine's is its file's own). A holder that dies frees it after WRITE_LOCK_TTL.
WRITE_LOCK = "subsearch:search:writing"
WRITE_LOCK_TTL = 300
WRITE_LOCK_WAIT = 600


def redis_write_lock() -> AbstractContextManager[object]:
    lock: AbstractContextManager[object] = get_redis().lock(
        WRITE_LOCK, timeout=WRITE_LOCK_TTL, blocking_timeout=WRITE_LOCK_WAIT
    )
    return lock


def build_embedder(settings: Settings) -> Embedder:
    """The embedder SEARCH_EMBEDDER names (loaded on first use, one a process)."""
    return embedder_for(settings.search_embedder, settings.search_embedder_path)


def build_engine(settings: Settings) -> SearchEngine:
    """The engine SEARCH_BACKEND names, one a configuration: settings that differ only
    elsewhere share it, and so its connections and memory maps."""
    key = (
        settings.search_backend,
        settings.search_host,
        settings.search_path,
        settings.search_time_budget_ms,
        settings.search_embedder,
        settings.search_embedder_path,
        settings.search_meaning_concurrency,
    )
    if key not in _cache:
        _cache[key] = _new_engine(settings)
    return _cache[key]


def _new_engine(settings: Settings) -> SearchEngine:
    embedder = get_embedder()
    questions = Questions(settings.search_meaning_concurrency)
    if settings.search_backend == "meilisearch":
        return MeilisearchEngine(
            settings.search_host or "",
            settings.search_api_key,
            settings.search_master_key,
            lock=redis_write_lock,
            time_budget_ms=settings.search_time_budget_ms,
            embedder=embedder,
            questions=questions,
        )
    return EmbeddedEngine(
        settings.search_path,
        time_budget_ms=settings.search_time_budget_ms,
        embedder=embedder,
        questions=questions,
    )


# Built by the composition root from the settings in use (models/services.py).
engine_service: Service[SearchEngine] = Service("the search engine")
embedder_service: Service[Embedder] = Service("the embedder")


def get_embedder() -> Embedder:
    """The process's embedder, as the composition root builds it (SEARCH_EMBEDDER)."""
    return embedder_service()


def get_engine() -> SearchEngine:
    """The process's search engine, as the composition root builds it (SEARCH_BACKEND)."""
    return engine_service()
