"""The services the domain uses (the payment provider, the search engine, the embedder),
held in one place and built by one composition root.

The domain never decides which implementation it talks to: `web/wiring.py`, the
composition root every process starts from (the app factory, the command line, the
worker and the scheduler), installs how each service is built from the settings. The
domain asks its `Service` for the one that fits the settings in use; a change of
settings (`use_settings`, as tests and the app factory do) builds anew, and `swap` puts
a stand-in in for a test.

Nothing here imports an implementation: that is what keeps development stand-ins (the
local payment provider) out of the domain.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from models.settings import Settings, get_settings

T = TypeVar("T")


class NotWired(RuntimeError):
    """A service was asked for before the process's composition root installed it."""


class Service(Generic[T]):
    """One service of the process, built by the installed builder from the settings in
    use, once per settings object (the object itself is kept with what was built for it:
    a new one at a freed one's address must not get the old service)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._build: Callable[[Settings], T] | None = None
        self._built: tuple[Settings, T] | None = None
        self._swapped: list[T] = []
        self._lock = threading.Lock()

    def install(self, build: Callable[[Settings], T]) -> None:
        """How this service is built (the composition root calls this once a process;
        again with the same builder changes nothing)."""
        with self._lock:
            if build is not self._build:
                self._build, self._built = build, None

    @property
    def installed(self) -> bool:
        return self._build is not None

    def __call__(self) -> T:
        if self._swapped:
            return self._swapped[-1]
        settings = get_settings()
        built = self._built
        if built is not None and built[0] is settings:
            return built[1]
        with self._lock:
            if self._build is None:
                raise NotWired(
                    f"{self.name}: the process has not wired its services "
                    "(web.wiring.wire() runs first in every process)"
                )
            built = self._built
            if built is None or built[0] is not settings:
                built = self._built = (settings, self._build(settings))
            return built[1]

    def forget(self) -> None:
        """Build anew on the next call (tests that change what the builder reads)."""
        with self._lock:
            self._built = None

    @contextmanager
    def swap(self, stand_in: T) -> Iterator[T]:
        """Use `stand_in` for this service inside the block (tests)."""
        self._swapped.append(stand_in)
        try:
            yield stand_in
        finally:
            self._swapped.remove(stand_in)
