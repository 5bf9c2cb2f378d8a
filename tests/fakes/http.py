"""A local HTTP server for tests: a WSGI app on a loopback port, in a thread."""

from __future__ import annotations

import threading
from contextlib import contextmanager

from werkzeug.serving import make_server


@contextmanager
def serve(app, host="127.0.0.1"):
    server = make_server(host, 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://{host}:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
