"""The queue: the broker and its set-up, actors declared before it exists, sending from a
request (and for the outbox), per-message middleware, queue maintenance, dead letters, and
a local Redis for development."""
