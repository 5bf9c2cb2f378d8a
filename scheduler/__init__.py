"""The periodic schedule (data) and the process that enqueues it (and does nothing else)."""
