"""A TCP server that accepts connections and never answers: Redis frozen by SIGSTOP,
or a half-dead network path, as a client sees it."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager


@contextmanager
def frozen_server():
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    held = []
    stopping = threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)  # read nothing, answer nothing

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stopping.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()
