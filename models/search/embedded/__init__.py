"""The `embedded` engine: SQLite FTS5 in its own file, the default.

layout.py holds the file's tables and shared reads, engine.py the engine (writes, hits
one by one), videos.py results by video with scoring.py's scores, scan.py the scan for
what the index cannot find alone.
"""

from models.search.embedded.engine import EmbeddedEngine

__all__ = ["EmbeddedEngine"]
