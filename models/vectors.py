"""Passage vectors for search by meaning (issue 29): what each search document is
embedded from, the vectors kept in the database (`video_vectors`), and putting them on
the documents the index is written with.

The database keeps them as it keeps the subtitle tracks: a reindex, a new index or
another engine gets them back without embedding again. Each vector is stored with a
digest of its passage, so a video whose texts changed keeps the vectors of the texts
that did not, and a row of another model counts as none (a change of model embeds
everything anew). Embedding runs on its own queue after a video is indexed
(tasks/search.py): keyword search never waits for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from models.clock import now_iso
from models.search import Document
from models.search.embedder import Embedder, Vectors
from models.tables import VideoVectors

# A video document is embedded from its title and the start of its description: e5-small
# reads 512 tokens at most, and a description's first lines say what the video is.
DESCRIPTION_CHARS = 600
DIGEST_BYTES = 8


def passage_text(document: Document) -> str:
    """What a document is embedded from."""
    if document.kind == "video":
        description = (document.description or "").strip()[:DESCRIPTION_CHARS]
        return f"{document.title or document.video_title}\n{description}".strip()
    return document.text or ""


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=DIGEST_BYTES).digest()


def pack(vectors: Vectors) -> bytes:
    return np.asarray(vectors, dtype="<f2").tobytes()


def unpack(data: bytes, dims: int) -> Vectors:
    return np.frombuffer(data, dtype="<f2").reshape(-1, dims).astype(np.float32)


def stored(video_ids: Iterable[str], model: str) -> dict[str, dict[bytes, Vectors]]:
    """For each video with vectors of `model`: its vectors by passage digest."""
    ids = list(dict.fromkeys(video_ids))
    found: dict[str, dict[bytes, Vectors]] = {}
    if not model or not ids:
        return found
    rows = VideoVectors.select().where(VideoVectors.video.in_(ids) & (VideoVectors.model == model))
    for row in rows:
        digests = bytes(row.digests)
        vectors = unpack(bytes(row.vectors), row.dims)
        found[row.video_id] = {
            digests[i * DIGEST_BYTES : (i + 1) * DIGEST_BYTES]: vectors[i]
            for i in range(len(vectors))
        }
    return found


def attach(replaced: Mapping[str, list[Document]], embedder: Embedder) -> dict[str, list[Document]]:
    """The documents with the stored vector of each passage as it is now (none where
    there is none yet), the video document's fingerprint telling which have one, so
    `search verify` finds an index that holds other vectors than the database."""
    if not embedder.loaded:
        return dict(replaced)
    vectors = stored((video_id for video_id, docs in replaced.items() if docs), embedder.model)
    out: dict[str, list[Document]] = {}
    for video_id, documents in replaced.items():
        held = vectors.get(video_id, {})
        with_vectors = [
            replace(doc, vector=held.get(digest(passage_text(doc)))) for doc in documents
        ]
        out[video_id] = _fingerprinted(with_vectors, embedder.model)
    return out


def _fingerprinted(documents: list[Document], model: str) -> list[Document]:
    present = "".join("1" if doc.vector is not None else "0" for doc in documents)
    marked = []
    for doc in documents:
        if doc.kind == "video" and doc.fingerprint is not None:
            mark = hashlib.blake2b(f"{model}:{present}".encode(), digest_size=4).hexdigest()
            doc = replace(doc, fingerprint=f"{doc.fingerprint}.{mark}")
        marked.append(doc)
    return marked


def unembedded(replaced: Mapping[str, list[Document]], embedder: Embedder) -> list[str]:
    """The videos some of whose documents (as `attach` gave them) have no vector yet."""
    if not embedder.loaded:
        return []
    return [
        video_id
        for video_id, documents in replaced.items()
        if any(doc.vector is None for doc in documents)
    ]


@dataclass(frozen=True)
class Embedded:
    videos: int
    passages: int  # passages of those videos
    new: int  # passages embedded now (the others kept their stored vectors)


def embed(replaced: Mapping[str, list[Document]], embedder: Embedder) -> Embedded:
    """Embed the passages of these videos' documents (as `attach` gave them) that have
    no vector, and store every video's vectors in one statement each (a rerun finds them
    stored and embeds nothing)."""
    pending = [(video_id, documents) for video_id, documents in replaced.items() if documents]
    texts = [
        passage_text(doc) for _, documents in pending for doc in documents if doc.vector is None
    ]
    new = iter(embedder.passages(texts)) if texts else iter(())
    passages = 0
    for video_id, documents in pending:
        rows = [doc.vector if doc.vector is not None else next(new) for doc in documents]
        passages += len(rows)
        save(video_id, [passage_text(doc) for doc in documents], np.vstack(rows), embedder)
    return Embedded(len(pending), passages, len(texts))


def save(video_id: str, texts: list[str], vectors: Vectors, embedder: Embedder) -> None:
    """Make these the video's vectors (one statement: a concurrent embedding of the same
    video writes the same row, whichever comes last)."""
    values = {
        VideoVectors.model: embedder.model,
        VideoVectors.dims: embedder.dims,
        VideoVectors.digests: b"".join(digest(text) for text in texts),
        VideoVectors.vectors: pack(vectors),
        VideoVectors.embedded_at: now_iso(),
    }
    (
        VideoVectors.insert({VideoVectors.video: video_id, **values})
        .on_conflict(conflict_target=[VideoVectors.video], update=values)
        .execute()
    )


def counts(model: str) -> tuple[int, int]:
    """(videos with vectors of `model`, videos with vectors of another model)."""
    current = VideoVectors.select().where(VideoVectors.model == model).count()
    other = VideoVectors.select().where(VideoVectors.model != model).count()
    return current, other
