"""The embedded engine's vectors: stored in the index file beside the documents, found
through an approximate nearest-neighbour index (usearch's HNSW).

The table `vectors` holds one float16 vector per document that has one, keyed by the
document's rowid (its video's key and place, layout.py), with the sequence number of
the write that stored it. The file is the truth; the nearest-neighbour index is made
from it in two parts:

- a snapshot: usearch files (segments and video documents apart) of every vector up to
  a sequence number, built by `compact` (the scheduler's maintenance, or a reindex) and
  opened by each process as a memory map, so processes share its pages;
- the delta: the vectors written since, which each process reads as they come (by
  sequence number) and searches exactly, with numpy.

A vector found either way counts only if the file still holds it as it was found (same
sequence number: neither rewritten nor gone), read in the search's own transaction, so
a search never answers with a deleted or replaced document's vector.
"""

from __future__ import annotations

import functools
import logging
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from models.search.embedded.filters import VideoFilter
from models.search.embedded.layout import PLACES, VIDEO_SHIFT, bounds

if TYPE_CHECKING:
    # usearch (with its OpenMP runtime, about 15 MB) is imported where a snapshot is
    # built or opened: a process that never searches by meaning never loads it.
    from usearch.index import Index

log = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]
Rowids = npt.NDArray[np.int64]
# Which documents a search looks at: subtitle segments, video documents (title and
# description), or both.
SEGMENTS = "segments"
VIDEOS = "videos"
KINDS = (SEGMENTS, VIDEOS)
# HNSW's graph: links per node and how far a search looks. Measured by bench/search.py
# (recall@10 against exact search).
# float16 vectors: int8 lost a fifth of the true neighbours (recall@10 0.80 against 0.96
# at 100k e5 vectors), float16 loses nothing measurable against float32 at half its size.
# How deep a search looks: recall@10 against exact search at 1M e5-like vectors was
# 0.91 at 128, 0.945 at 256 and 0.963 at 384, for about 1.5 ms more (bench/search.py).
# Vectors centred by language (issue 45) spread wider and a graph built as carefully
# as before found fewer of their neighbours (1M: 0.911 at 384, 0.947 at 1536, or 0.931 at
# 384 with 32 links); built looking twice as deep it finds 0.973 at 384, searching as
# fast, for a build about as long as the uncentred vectors' took (their recall: 0.966).
CONNECTIVITY = 16
EXPANSION_ADD = 256
EXPANSION_SEARCH = 384
# A snapshot is updated in place (the vectors since added, the gone ones removed) unless
# this share of it went: HNSW searches worse around many removed nodes, so then it is
# built anew. A build adds about 2,000 vectors a second on one core.
REBUILD_SHARE = 0.25
# The delta a process searches exactly before the maintenance folds it into a snapshot.
DELTA_LIMIT = 20_000
# A channel filter covering at most this many documents is searched exactly, the
# channels' vectors read from the file; a wider one asks the snapshot for more
# neighbours and keeps the channels'.
EXACT_LIMIT = 20_000
OVERSAMPLE = 8


def pack(vector: Vector) -> bytes:
    return np.asarray(vector, dtype="<f2").tobytes()


def unpack(blobs: Sequence[bytes], dims: int) -> npt.NDArray[np.float32]:
    if not blobs:
        return np.zeros((0, dims), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f2").reshape(-1, dims).astype(np.float32)


def kind_of(rowid: int) -> str:
    return SEGMENTS if rowid & PLACES else VIDEOS


# -- the state in the file ------------------------------------------------------------


@dataclass(frozen=True)
class State:
    seq: int  # the last write's sequence number
    model: str  # the model the vectors are of ("" before any)
    dims: int
    snapshot: int  # vectors up to this sequence number are in the snapshot files (0: none)
    # The snapshot files' name (their sequence number and a random part, so a file laid
    # out anew never meets an older file of the same number).
    snapshot_name: str
    # Made anew whenever the vectors start over (a file laid out anew, another model):
    # a process that read up to some sequence number of another generation starts over
    # too, however far the new one's numbers went meanwhile.
    generation: str = ""


def state(conn: sqlite3.Connection) -> State:
    values = dict(conn.execute("SELECT name, value FROM vector_state").fetchall())
    return State(
        int(values.get("seq", 0)),
        values.get("model", ""),
        int(values.get("dims", 0)),
        int(values.get("snapshot", 0)),
        values.get("snapshot_name", ""),
        values.get("generation", ""),
    )


def _set(conn: sqlite3.Connection, **values: object) -> None:
    conn.executemany(
        "INSERT INTO vector_state (name, value) VALUES (?, ?)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [(name, str(value)) for name, value in values.items()],
    )


# -- writes (in the engine's write transaction) -----------------------------------------


def write(
    conn: sqlite3.Connection, key: int, vectors: dict[int, Vector], model: str, dims: int
) -> None:
    """Make `vectors` (by place) the video's vectors. A vector that did not change keeps
    its sequence number (a reindex writes nothing new); vectors of another model than the
    file's replace them all (a change of model: everything is embedded anew)."""
    found = state(conn)
    if vectors and ((found.model, found.dims) != (model, dims) or not found.generation):
        conn.execute("DELETE FROM vectors")
        _set(
            conn,
            model=model,
            dims=dims,
            snapshot=0,
            snapshot_name="",
            generation=secrets.token_hex(8),
        )
    base = key << VIDEO_SHIFT
    held = dict(
        conn.execute("SELECT rowid, vector FROM vectors WHERE rowid BETWEEN ? AND ?", bounds(key))
    )
    wanted = {base + place: pack(vector) for place, vector in vectors.items()}
    gone = [rowid for rowid in held if rowid not in wanted]
    changed = [(rowid, blob) for rowid, blob in wanted.items() if held.get(rowid) != blob]
    if gone:
        conn.executemany("DELETE FROM vectors WHERE rowid = ?", [(rowid,) for rowid in gone])
    if changed:
        seq = found.seq + 1
        _set(conn, seq=seq)
        conn.executemany(
            "INSERT INTO vectors (rowid, seq, vector) VALUES (?, ?, ?) ON CONFLICT (rowid)"
            " DO UPDATE SET seq = excluded.seq, vector = excluded.vector",
            [(rowid, seq, blob) for rowid, blob in changed],
        )


def delete(conn: sqlite3.Connection, key: int) -> None:
    conn.execute("DELETE FROM vectors WHERE rowid BETWEEN ? AND ?", bounds(key))


def prune_orphans(conn: sqlite3.Connection) -> int:
    removed: int = conn.execute(
        f"DELETE FROM vectors WHERE rowid >> {VIDEO_SHIFT} NOT IN (SELECT key FROM videos)"
    ).rowcount
    return removed


def count(conn: sqlite3.Connection) -> int:
    found: int = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    return found


# -- the snapshot files -------------------------------------------------------------------


def snapshot_path(folder: Path, name: str, kind: str) -> Path:
    return folder / f"{name}.{kind}.usearch"


def new_index(dims: int) -> Index:
    from usearch.index import Index  # noqa: PLC0415 (on first use: see the imports)

    return Index(
        ndim=dims,
        metric="cos",
        dtype="f16",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


def build_snapshot(
    conn: sqlite3.Connection,
    folder: Path,
    name: str,
    upto: int,
    dims: int,
    previous: State | None = None,
    batch: int = 50_000,
) -> int:
    """Write the snapshot files `name` of every vector up to `upto` (read in the caller's
    transaction), each first to a temporary name: a process never opens half a file.
    From the `previous` snapshot when there is one and little of it went (the vectors
    written since it are added, those gone removed), else from scratch. Returns how many
    vectors it holds."""
    folder.mkdir(parents=True, exist_ok=True)
    indexes = _updated(conn, folder, previous, upto, dims) if previous else None
    if indexes is None:
        indexes = {kind: new_index(dims) for kind in KINDS}
        _add_rows(conn, indexes, "seq <= ?", (upto,), dims, batch)
    for kind, index in indexes.items():
        path = snapshot_path(folder, name, kind)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        index.save(str(temporary))
        temporary.replace(path)
    return sum(len(index) for index in indexes.values())


def _updated(
    conn: sqlite3.Connection, folder: Path, previous: State, upto: int, dims: int
) -> dict[str, Index] | None:
    """The previous snapshot brought up to `upto`, or None when it cannot be read or
    too much of it went (a build from scratch is better then)."""
    from usearch.index import Index  # noqa: PLC0415 (on first use: see the imports)

    indexes: dict[str, Index] = {}
    for kind in KINDS:
        path = snapshot_path(folder, previous.snapshot_name, kind)
        loaded = Index.restore(str(path)) if path.exists() else None
        if loaded is None or loaded.ndim != dims:
            return None
        indexes[kind] = loaded
    held = np.fromiter((row[0] for row in conn.execute("SELECT rowid FROM vectors")), np.int64)
    rewritten = np.fromiter(
        (
            row[0]
            for row in conn.execute("SELECT rowid FROM vectors WHERE seq > ?", (previous.snapshot,))
        ),
        np.int64,
    )
    for index in indexes.values():
        keys: Rowids = np.asarray(index.keys[0 : len(index)], dtype=np.int64)
        gone = np.union1d(np.setdiff1d(keys, held), np.intersect1d(keys, rewritten))
        if len(keys) and len(gone) > REBUILD_SHARE * len(keys):
            return None
        if len(gone):
            index.remove(gone.astype(np.uint64))
    _add_rows(conn, indexes, "seq > ? AND seq <= ?", (previous.snapshot, upto), dims, 50_000)
    return indexes


def _add_rows(
    conn: sqlite3.Connection,
    indexes: dict[str, Index],
    where: str,
    params: tuple[int, ...],
    dims: int,
    batch: int,
) -> None:
    last = -1
    while True:
        rows = conn.execute(
            f"SELECT rowid, vector FROM vectors WHERE rowid > ? AND {where} ORDER BY rowid LIMIT ?",
            (last, *params, batch),
        ).fetchall()
        if not rows:
            return
        rowids = np.array([row[0] for row in rows], dtype=np.int64)
        vectors = unpack([row[1] for row in rows], dims)
        segment = (rowids & PLACES) != 0
        for kind, chosen in ((SEGMENTS, segment), (VIDEOS, ~segment)):
            if chosen.any():
                indexes[kind].add(rowids[chosen].astype(np.uint64), vectors[chosen])
        last = int(rowids[-1])


def remove_old_snapshots(folder: Path, keep: Iterable[str], only: str | None = None) -> None:
    """Snapshot files but those named in `keep` (the current one and the one before,
    which a process may be about to open), or only those named `only`. A process that
    has one mapped keeps its pages."""
    kept = set(keep)
    for path in folder.glob("*.usearch"):
        name = path.name.split(".", 1)[0]
        if name not in kept and (only is None or name == only):
            path.unlink(missing_ok=True)


# -- searching ----------------------------------------------------------------------------


@dataclass
class _Delta:
    """Vectors written since the snapshot, as one process has read them."""

    rowids: Rowids
    seqs: npt.NDArray[np.int64]
    vectors: npt.NDArray[np.float32]

    @functools.cached_property
    def seq_of(self) -> dict[int, int]:
        """Each rowid's sequence number (made once per delta: searches share it)."""
        return dict(zip(self.rowids.tolist(), self.seqs.tolist(), strict=True))

    @classmethod
    def empty(cls, dims: int) -> _Delta:
        return cls(
            np.zeros(0, dtype=np.int64),
            np.zeros(0, dtype=np.int64),
            np.zeros((0, dims), dtype=np.float32),
        )

    def merged(self, rowids: Rowids, seqs: npt.NDArray[np.int64], vectors: Vector) -> _Delta:
        """This delta with rows read since: a rowid written again keeps only its last row."""
        keep = ~np.isin(self.rowids, rowids)
        return _Delta(
            np.concatenate([self.rowids[keep], rowids]),
            np.concatenate([self.seqs[keep], seqs]),
            np.vstack([self.vectors[keep], vectors]),
        )

    def after(self, seq: int) -> _Delta:
        keep = self.seqs > seq
        return _Delta(self.rowids[keep], self.seqs[keep], self.vectors[keep])


class NearestIndex:
    """One process's view of the file's vectors: the snapshot's memory-mapped files and
    the delta read so far. Threads share it; catching up swaps in new arrays under a
    lock, and a search uses the ones it took."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._generation = ""
        self._model = ""
        self._dims = 0
        self._snapshot = 0
        self._snapshot_name = ""
        self._snapshots: dict[str, Index] = {}
        self._seen = 0  # the last sequence number read into the delta
        self._delta = _Delta.empty(0)

    def catch_up(self, conn: sqlite3.Connection) -> State:
        """Read what was written since this process last looked (in the caller's
        transaction)."""
        found = state(conn)
        with self._lock:
            if (found.generation, found.model, found.dims) != (
                self._generation,
                self._model,
                self._dims,
            ) or found.seq < self._seen:
                # Another model, or a file laid out anew: start over.
                self._generation, self._model, self._dims = (
                    found.generation,
                    found.model,
                    found.dims,
                )
                self._snapshot, self._snapshot_name, self._snapshots, self._seen = 0, "", {}, 0
                self._delta = _Delta.empty(found.dims)
            if found.snapshot_name != self._snapshot_name:
                self._open_snapshot(found.snapshot_name, found.snapshot)
            if found.seq > self._seen:
                rows = conn.execute(
                    "SELECT rowid, seq, vector FROM vectors WHERE seq > ? AND seq > ?",
                    (self._seen, self._snapshot),
                ).fetchall()
                if rows:
                    self._delta = self._delta.merged(
                        np.array([row[0] for row in rows], dtype=np.int64),
                        np.array([row[1] for row in rows], dtype=np.int64),
                        unpack([row[2] for row in rows], self._dims),
                    )
                self._seen = found.seq
        return found

    def _open_snapshot(self, name: str, seq: int) -> None:
        from usearch.index import Index  # noqa: PLC0415 (on first use: see the imports)

        opened: dict[str, Index] = {}
        if name:
            try:
                for kind in KINDS:
                    path = snapshot_path(self.folder, name, kind)
                    index = Index.restore(str(path), view=True, expansion_search=EXPANSION_SEARCH)
                    if index is None:
                        raise ValueError(f"{path} is not a usearch index")
                    opened[kind] = index
            except (OSError, RuntimeError, ValueError) as error:
                # Gone already (a newer one replaced it): the delta from the last one
                # opened still holds everything since; the next search opens the newer.
                log.warning("vector snapshot %s could not be opened: %s", seq, error)
                return
        self._snapshots, self._snapshot, self._snapshot_name = opened, seq, name
        self._delta = self._delta.after(seq)

    @property
    def delta_size(self) -> int:
        return len(self._delta.rowids)

    def nearest(
        self,
        conn: sqlite3.Connection,
        vector: Vector,
        model: str,
        count: int,
        kinds: tuple[str, ...],
        channels: tuple[str, ...] = (),
        passing: VideoFilter | None = None,
    ) -> list[tuple[int, float]]:
        """The `count` documents of `kinds` (of `channels`, of videos `passing` the
        query's filters, when given) nearest to `vector` (of `model`), as (rowid, cosine
        similarity), nearest first. None while the file holds vectors of another model
        (until they are embedded again)."""
        found = self.catch_up(conn)
        if found.model != model or found.dims != len(vector):
            return []
        within = _within(channels, passing)
        if within is not None:
            scope = _scope_size(conn, within, kinds)
            if scope <= EXACT_LIMIT:
                return _exact_within(conn, vector, count, kinds, within, found.dims)
            total = max(_scope_size(conn, None, kinds), 1)
            asked = min(count * max(OVERSAMPLE, total // max(scope, 1) * 2), 4096)
        else:
            asked = count + 16  # a few over, for any found replaced or gone
        with self._lock:
            snapshots, snapshot, delta = self._snapshots, self._snapshot, self._delta
        candidates: dict[int, float] = {}
        for kind in kinds:
            index = snapshots.get(kind)
            if index is not None and len(index):
                matches = index.search(vector, min(asked, len(index)))
                for key, distance in zip(matches.keys, matches.distances, strict=True):
                    candidates[int(key)] = 1.0 - float(distance)
        exact = _in_delta(delta, vector, kinds, asked)
        valid = _still_held(conn, [*candidates, *exact], snapshot, delta)
        scored = {rowid: sim for rowid, sim in candidates.items() if valid.get(rowid) == "snapshot"}
        scored.update({rowid: sim for rowid, sim in exact.items() if valid.get(rowid) == "delta"})
        if within is not None:
            scored = _kept_within(conn, scored, within)
        return sorted(scored.items(), key=lambda item: -item[1])[:count]


def _in_delta(
    delta: _Delta, vector: Vector, kinds: tuple[str, ...], count: int
) -> dict[int, float]:
    if not len(delta.rowids):
        return {}
    chosen = np.ones(len(delta.rowids), dtype=bool)
    if kinds == (SEGMENTS,):
        chosen = (delta.rowids & PLACES) != 0
    elif kinds == (VIDEOS,):
        chosen = (delta.rowids & PLACES) == 0
    rowids, vectors = delta.rowids[chosen], delta.vectors[chosen]
    if not len(rowids):
        return {}
    sims = vectors @ vector
    top = np.argsort(-sims)[:count]
    return {int(rowids[i]): float(sims[i]) for i in top}


def _still_held(
    conn: sqlite3.Connection, rowids: list[int], snapshot: int, delta: _Delta
) -> dict[int, str]:
    """Which of `rowids` the file holds as found: "snapshot" when its row is no newer than
    the snapshot, "delta" when it is the row the delta read."""
    if not rowids:
        return {}
    in_delta = delta.seq_of
    rows = conn.execute(
        "SELECT x.rowid, x.seq FROM json_each(?) AS f JOIN vectors x ON x.rowid = f.value",
        (_json_ints(rowids),),
    )
    held: dict[int, str] = {}
    for rowid, seq in rows:
        if in_delta.get(rowid) == seq:
            held[rowid] = "delta"
        elif seq <= snapshot:
            held[rowid] = "snapshot"
    return held


def _json_ints(values: Iterable[int]) -> str:
    return "[" + ",".join(str(int(value)) for value in values) + "]"


def _kind_sql(kinds: tuple[str, ...], column: str) -> str:
    if kinds == (SEGMENTS,):
        return f" AND {column} & {PLACES} != 0"
    if kinds == (VIDEOS,):
        return f" AND {column} & {PLACES} = 0"
    return ""


# Which videos a search by meaning keeps: a condition on `videos v` and its parameters.
Within = tuple[str, tuple[object, ...]]


def _within(channels: tuple[str, ...], passing: VideoFilter | None) -> Within | None:
    """The channels' and the filters' condition on `videos v`; None for every video."""
    parts, params = [], list[object]()
    if channels:
        parts.append(f"v.channel_id IN ({', '.join('?' for _ in channels)})")
        params.extend(channels)
    if passing is not None:
        parts.append(passing.condition)
        params.extend(passing.params)
    return (" AND ".join(parts), tuple(params)) if parts else None


def _scope_size(conn: sqlite3.Connection, within: Within | None, kinds: tuple[str, ...]) -> int:
    """How many documents of `kinds` the videos `within` hold (None: every video)."""
    column = "count(*)" if kinds == (VIDEOS,) else "coalesce(sum(documents), 0)"
    condition, params = within if within is not None else ("1", ())
    found: int = conn.execute(
        f"SELECT {column} FROM videos v WHERE {condition}", params
    ).fetchone()[0]
    return found


def _exact_within(
    conn: sqlite3.Connection,
    vector: Vector,
    count: int,
    kinds: tuple[str, ...],
    within: Within,
    dims: int,
) -> list[tuple[int, float]]:
    condition, params = within
    rows = conn.execute(
        "SELECT x.rowid, x.vector FROM videos v JOIN vectors x ON x.rowid BETWEEN"
        f" v.key << {VIDEO_SHIFT} AND (v.key << {VIDEO_SHIFT}) | {PLACES}"
        f" WHERE {condition}{_kind_sql(kinds, 'x.rowid')}",
        params,
    ).fetchall()
    if not rows:
        return []
    sims = unpack([row[1] for row in rows], dims) @ vector
    top = np.argsort(-sims)[:count]
    return [(int(rows[i][0]), float(sims[i])) for i in top]


def _kept_within(
    conn: sqlite3.Connection, scored: dict[int, float], within: Within
) -> dict[int, float]:
    keys = {rowid >> VIDEO_SHIFT for rowid in scored}
    condition, params = within
    kept = {
        row[0]
        for row in conn.execute(
            f"SELECT v.key FROM json_each(?) AS f JOIN videos v ON v.key = f.value"
            f" WHERE {condition}",
            (_json_ints(keys), *params),
        )
    }
    return {rowid: sim for rowid, sim in scored.items() if rowid >> VIDEO_SHIFT in kept}
