"""A local HTTP proxy that refuses every request, as a proxy whose address the platform
has blocked answers (or a proxy that is down): it notes what each client asked for
(`CONNECT www.youtube.com:443`) and answers 403."""

from __future__ import annotations

import socket
import threading
from contextlib import contextmanager


@contextmanager
def refusing_proxy():
    """Yield (url, requests): the proxy's address and the request lines it has seen."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    seen: list[str] = []
    stopping = threading.Event()

    def serve():
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            with connection:
                connection.settimeout(2)
                try:
                    head = connection.recv(4096).decode("latin-1")
                except OSError:
                    continue
                seen.append(head.split("\r\n", 1)[0])
                connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", seen
    finally:
        stopping.set()
        thread.join()
        listener.close()
