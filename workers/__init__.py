"""The queue: broker, per-message middleware, dead letters, and a local Redis for development."""
