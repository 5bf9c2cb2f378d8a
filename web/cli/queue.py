"""`subsearch queue`: what waits in the queues, and dead letters sent back to work."""

from __future__ import annotations

import click
from dramatiq.brokers.redis import RedisBroker

from models import outbox
from web.cli.group import open_db
from workers import deadletters
from workers.broker import get_broker


def _broker() -> RedisBroker:
    broker = get_broker()
    if not isinstance(broker, RedisBroker):
        raise click.ClickException("the queue is not Redis (QUEUE_BROKER=stub)")
    return broker


@click.group()
def queue() -> None:
    """Queues and dead letters."""


@queue.command("status")
def queue_status() -> None:
    """Messages ready, delayed and dead-lettered per queue, each dead letter, and what
    waits in the database outbox."""
    broker = get_broker()
    if isinstance(broker, RedisBroker):
        _show_queues(broker)
    else:
        click.echo("the queue is not Redis (QUEUE_BROKER=stub): no queues to show")
    open_db()
    waiting = outbox.waiting()
    oldest = "-" if waiting.oldest_seconds is None else f"{waiting.oldest_seconds:.0f}s"
    click.echo(f"outbox: {waiting.count} waiting to be processed, oldest {oldest}")


def _show_queues(broker: RedisBroker) -> None:
    rows = deadletters.status(broker)
    click.echo(f"{'queue':<20} {'ready':>7} {'delayed':>8} {'dead':>6}")
    for row in rows:
        click.echo(f"{row.queue:<20} {row.ready:>7} {row.delayed:>8} {row.dead:>6}")
    for row in rows:
        for _, message in deadletters.dead_messages(broker, row.queue):
            why = deadletters.reason(message) or "none recorded (the worker log has its error)"
            click.echo(
                f"dead {row.queue} {message.message_id} {message.actor_name}"
                f" args={list(message.args)} kwargs={message.kwargs} reason: {why}"
            )


@queue.command("requeue")
@click.option("--queue", "queue_name", help="Only this queue.")
@click.option("--actor", help="Only messages for this actor.")
def queue_requeue(queue_name: str | None, actor: str | None) -> None:
    """Send dead-lettered messages again, with their retry count and deaths reset."""
    sent = deadletters.requeue(_broker(), queue=queue_name, actor=actor)
    click.echo(f"requeued {len(sent)} message(s)")
