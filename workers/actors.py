"""Actors declared before any broker exists, bound to it when a process sets it up.

`dramatiq.actor` binds an actor to the global broker when the module that declares it
is imported, so actor modules could only be imported once the broker was built (and
importing one too early quietly built Dramatiq's default broker). `actor` here takes
the same arguments but declares a LazyActor: a dramatiq.Actor that joins the broker
when `workers.broker.setup()` builds it, or at once when that has happened already.
Until then calling it runs the function here; sending raises BrokerNotSetUp.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import dramatiq
from dramatiq.logging import get_logger

P = ParamSpec("P")
R = TypeVar("R")

# Dramatiq's own rule for queue names, checked at declaration as dramatiq.actor does.
QUEUE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9._-]*")

_lock = threading.Lock()
_declared: dict[str, LazyActor[Any, Any]] = {}
_bound_to: dramatiq.Broker | None = None


class BrokerNotSetUp(RuntimeError):
    """An actor was sent a message before the process set its broker up."""


class LazyActor(dramatiq.Actor[P, R]):
    """A dramatiq.Actor whose declaration on a broker waits for `bind`."""

    def __init__(
        self,
        fn: Callable[P, R],
        *,
        actor_name: str,
        queue_name: str,
        priority: int,
        options: dict[str, Any],
    ) -> None:
        # dramatiq.Actor.__init__ declares the actor on a broker: bind() runs it later.
        self._broker: dramatiq.Broker | None = None
        self.logger = get_logger(fn.__module__ or "_", actor_name)
        self.fn = fn
        self.actor_name = actor_name
        self.queue_name = queue_name
        self.priority = priority
        self.options = options

    @property
    def broker(self) -> dramatiq.Broker:
        if self._broker is None:
            raise BrokerNotSetUp(
                f"{self.actor_name}: no broker yet; the process calls tasks.setup() first"
            )
        return self._broker

    @broker.setter
    def broker(self, broker: dramatiq.Broker) -> None:
        self._broker = broker

    @property
    def is_bound(self) -> bool:
        return self._broker is not None

    def bind(self, broker: dramatiq.Broker) -> None:
        """Declare this actor on `broker` (once: a second call with it does nothing)."""
        if self._broker is broker:
            return
        unknown = set(self.options) - broker.actor_options
        if unknown:
            raise ValueError(
                f"{self.actor_name}: no middleware of the broker takes {', '.join(sorted(unknown))}"
            )
        super().__init__(
            self.fn,
            broker=broker,
            actor_name=self.actor_name,
            queue_name=self.queue_name,
            priority=self.priority,
            options=self.options,
        )


def actor(
    *,
    queue_name: str = "default",
    actor_name: str | None = None,
    priority: int = 0,
    **options: Any,
) -> Callable[[Callable[P, R]], LazyActor[P, R]]:
    """Declare an actor, as `dramatiq.actor(...)` does, without needing the broker yet."""
    if not QUEUE_NAME.fullmatch(queue_name):
        raise ValueError(f"{queue_name!r} is not a queue name Dramatiq accepts")

    def declare(fn: Callable[P, R]) -> LazyActor[P, R]:
        declared = LazyActor(
            fn,
            actor_name=actor_name or fn.__name__,
            queue_name=queue_name,
            priority=priority,
            options=options,
        )
        with _lock:
            if declared.actor_name in _declared:
                raise ValueError(f"an actor named {declared.actor_name!r} is declared already")
            _declared[declared.actor_name] = declared
            if _bound_to is not None:
                declared.bind(_bound_to)
        return declared

    return declare


def bind_all(broker: dramatiq.Broker) -> None:
    """Declare every actor on `broker`, and those declared from now on as they come."""
    global _bound_to
    with _lock:
        _bound_to = broker
        for declared in _declared.values():
            declared.bind(broker)


def declared() -> list[LazyActor[Any, Any]]:
    """Every actor declared with `actor` in this process so far."""
    with _lock:
        return list(_declared.values())
