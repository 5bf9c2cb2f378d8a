"""Actors declared before any broker exists, built on it when a process sets it up.

`dramatiq.actor` binds an actor to the global broker when the module that declares it
is imported, so actor modules could only be imported once the broker was built (and
importing one too early quietly built Dramatiq's default broker). `actor` here takes
the same arguments but only records them in a DeclaredActor. `workers.broker.setup()`
then declares each one with Dramatiq's own `dramatiq.actor(...)` on the broker it
built (an actor declared later is declared at once), and the DeclaredActor hands every
call to that dramatiq.Actor. Until then calling it runs the function here; sending
raises BrokerNotSetUp.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Generic, ParamSpec, TypeVar

import dramatiq
from dramatiq.errors import ActorNotFound

P = ParamSpec("P")
R = TypeVar("R")

# Dramatiq's own rule for queue names, checked at declaration as dramatiq.actor does.
QUEUE_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9._-]*")

_lock = threading.Lock()
_declared: dict[str, DeclaredActor[Any, Any]] = {}
_bound_to: dramatiq.Broker | None = None


class BrokerNotSetUp(RuntimeError):
    """An actor was sent a message before the process set its broker up."""


class DeclaredActor(Generic[P, R]):
    """An actor as `actor` declared it, and, once `bind` has declared it on a broker,
    the dramatiq.Actor built there, which does its sending and running. The worker
    finds that dramatiq.Actor by name on the broker; code that imported the actor
    calls this object, so a test may replace its `send` or `broker`."""

    def __init__(
        self,
        fn: Callable[P, R],
        *,
        actor_name: str,
        queue_name: str,
        priority: int,
        options: dict[str, Any],
    ) -> None:
        self._fn = fn
        self._actor_name = actor_name
        self._queue_name = queue_name
        self._priority = priority
        self._options = options
        self._actor: dramatiq.Actor[P, R] | None = None

    def bind(self, broker: dramatiq.Broker) -> None:
        """Declare this actor on `broker` (once: a second call with it does nothing).
        Dramatiq refuses an option no middleware of the broker takes."""
        if self._actor is not None and self._actor.broker is broker:
            return
        declare = dramatiq.actor(
            actor_name=self._actor_name,
            queue_name=self._queue_name,
            priority=self._priority,
            broker=broker,
            **self._options,
        )
        self._actor = declare(self._fn)

    @property
    def dramatiq_actor(self) -> dramatiq.Actor[P, R]:
        """The dramatiq.Actor declared on the process's broker; BrokerNotSetUp before."""
        if self._actor is None:
            raise BrokerNotSetUp(
                f"{self._actor_name}: no broker yet; the process calls tasks.setup() first"
            )
        return self._actor

    @property
    def broker(self) -> dramatiq.Broker:
        return self.dramatiq_actor.broker

    @broker.setter
    def broker(self, broker: dramatiq.Broker) -> None:
        # Dramatiq's Actor sends through its `broker` attribute: a test points it elsewhere.
        self.dramatiq_actor.broker = broker

    # What the dramatiq.Actor is built from, and so what it holds too.
    @property
    def fn(self) -> Callable[P, R]:
        return self._fn

    @property
    def actor_name(self) -> str:
        return self._actor_name

    @property
    def queue_name(self) -> str:
        return self._queue_name

    @property
    def priority(self) -> int:
        return self._priority

    @property
    def options(self) -> dict[str, Any]:
        return self._options

    def message(self, *args: P.args, **kwargs: P.kwargs) -> dramatiq.Message[R]:
        return self.dramatiq_actor.message(*args, **kwargs)

    def message_with_options(
        self, *, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, **options: Any
    ) -> dramatiq.Message[R]:
        return self.dramatiq_actor.message_with_options(args=args, kwargs=kwargs, **options)

    def send(self, *args: P.args, **kwargs: P.kwargs) -> dramatiq.Message[R]:
        return self.dramatiq_actor.send(*args, **kwargs)

    def send_with_options(
        self,
        *,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
        delay: timedelta | int | None = None,
        **options: Any,
    ) -> dramatiq.Message[R]:
        return self.dramatiq_actor.send_with_options(
            args=args, kwargs=kwargs, delay=delay, **options
        )

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if self._actor is None:
            return self._fn(*args, **kwargs)
        return self._actor(*args, **kwargs)

    def __repr__(self) -> str:
        return f"DeclaredActor({self._actor_name!r}, queue_name={self._queue_name!r})"


def actor(
    *,
    queue_name: str = "default",
    actor_name: str | None = None,
    priority: int = 0,
    **options: Any,
) -> Callable[[Callable[P, R]], DeclaredActor[P, R]]:
    """Declare an actor, as `dramatiq.actor(...)` does, without needing the broker yet."""
    if not QUEUE_NAME.fullmatch(queue_name):
        raise ValueError(f"{queue_name!r} is not a queue name Dramatiq accepts")

    def declare(fn: Callable[P, R]) -> DeclaredActor[P, R]:
        declared = DeclaredActor(
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


def declared() -> list[DeclaredActor[Any, Any]]:
    """Every actor declared with `actor` in this process so far."""
    with _lock:
        return list(_declared.values())


def named(actor_name: str) -> DeclaredActor[Any, Any]:
    """The actor declared as `actor_name`; ActorNotFound, as a broker says, if none is."""
    with _lock:
        found = _declared.get(actor_name)
    if found is None:
        raise ActorNotFound(actor_name)
    return found
