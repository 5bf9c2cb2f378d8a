"""The queue: the broker and its set-up, actors declared before it exists, sending from a
request, per-message middleware, dead letters, and a local Redis for development."""
