"""SEARCH_EMBEDDER=sentence-transformers: a model folder on this machine, loaded by the
`sentence-transformers` package (the `embeddings` extra) and never fetched. The model is
one the tests build (tiny_model.py): its vectors mean nothing, but they are a real
model's, so everything but their meaning is tested here."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from models.search import SearchQuery
from models.search import embedder as embedders
from models.search.embedded import EmbeddedEngine
from models.search.embedder import (
    PASSAGE_PREFIX,
    QUERY_PREFIX,
    NoEmbedder,
    SentenceTransformerEmbedder,
    embedder_for,
)
from models.search.meaning_floor import floor_for
from models.search.model_text import QUERY_TOKENS
from models.settings import ConfigError, load_settings
from models.vectors import passage_text
from tests.models.search.test_conformance import documents
from tests.models.search.tiny_model import DIMS, build_tiny_model

pytestmark = pytest.mark.database_independent

REPO = Path(__file__).resolve().parents[3]


def refuse_connections(*args, **kwargs):
    raise OSError("nothing may be fetched: the model is on this machine")


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny")


@pytest.fixture(scope="module")
def st(model_folder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse_connections)
        return SentenceTransformerEmbedder(str(model_folder))


@pytest.fixture
def fresh_cache(monkeypatch):
    """embedder_for's per-process cache, empty for this test and forgotten after it."""
    monkeypatch.setattr(embedders, "_cache", {})


def run_python(code: str, *args: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_model_loads_from_its_folder_with_the_hub_offline_and_no_network(model_folder):
    # Given a process that may not reach the hub, nor open any connection
    code = (
        "import socket, sys\n"
        "def refuse(*args, **kwargs):\n"
        "    raise OSError('no network')\n"
        "socket.socket.connect = refuse\n"
        "from models.search.embedder import SentenceTransformerEmbedder\n"
        "st = SentenceTransformerEmbedder(sys.argv[1])\n"
        "print(st.model, st.dims, st.loaded, st.query('関西の粉もの料理').shape)\n"
    )
    # When it loads the model folder and embeds a query
    out = run_python(code, str(model_folder), HF_HUB_OFFLINE="1")
    # Then the folder's model answered
    assert out.splitlines()[-1] == f"st:tiny {DIMS} True ({DIMS},)"


def test_vectors_have_the_models_dimensions_and_unit_length(st):
    assert st.loaded is True
    assert st.dims == DIMS
    passages = st.passages(["ネットワーク機器の設定", "configuring the office router", "猫"])
    query = st.query("関西の粉もの料理")
    assert passages.shape == (3, DIMS)
    assert query.shape == (DIMS,)
    assert passages.dtype == query.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    assert np.isclose(np.linalg.norm(query), 1.0, atol=1e-5)


def test_no_passages_give_no_vectors(st):
    assert st.passages([]).shape == (0, DIMS)


def test_a_query_and_a_passage_of_one_text_differ_by_the_e5_prefixes(st, model_folder):
    text = "たこ焼きを六個買いました"
    query, [passage] = st.query(text), st.passages([text])
    assert not np.allclose(query, passage)
    # They are the model's vectors of the prefixed texts, made unit length
    # Seconds to import, so here, not in every test process that collects this module
    from sentence_transformers import SentenceTransformer  # noqa: PLC0415

    model = SentenceTransformer(str(model_folder), device="cpu", local_files_only=True)
    raw = model.encode([QUERY_PREFIX + text, PASSAGE_PREFIX + text], show_progress_bar=False)
    expected = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    assert np.allclose(query, expected[0], atol=1e-5)
    assert np.allclose(passage, expected[1], atol=1e-5)


def test_a_long_question_is_cut_to_what_the_model_reads(st, model_folder):
    long = " ".join(["the cat and the dog"] * 40)
    cut = st.question(long)
    tokens = st._st.tokenizer(QUERY_PREFIX + cut)["input_ids"]
    assert long.startswith(cut) and len(tokens) <= QUERY_TOKENS < len(
        st._st.tokenizer(QUERY_PREFIX + long)["input_ids"]
    )
    # and its vector is the vector of what was kept
    assert np.allclose(st.query(long), st.query(cut), atol=1e-6)
    assert st.question("the cat") == "the cat"


def test_the_same_text_gives_the_same_vector_alone_or_in_a_batch(st):
    texts = [f"the cat and the dog {n}" for n in range(40)]  # more than one batch
    together = st.passages(texts)
    assert np.allclose(together[37], st.passages([texts[37]])[0], atol=1e-5)


def test_a_models_name_is_its_folders(st, model_folder, tmp_path):
    # Given the same model copied into a folder of another name
    other = Path(shutil.copytree(model_folder, tmp_path / "multilingual-e5-large"))
    moved = SentenceTransformerEmbedder(str(other))
    # Then it is another model to the stored vectors (they are all made anew)...
    assert st.model == "st:tiny"
    assert moved.model == "st:multilingual-e5-large"
    # ...though its vectors are the same
    assert np.allclose(moved.query("設定"), st.query("設定"), atol=1e-5)


def test_embedder_for_builds_one_per_configuration(model_folder, fresh_cache):
    first = embedder_for("sentence-transformers", str(model_folder))
    assert isinstance(first, SentenceTransformerEmbedder)
    assert embedder_for("sentence-transformers", str(model_folder)) is first
    assert embedder_for("none") is not first


def test_a_missing_folder_answers_as_none_and_says_so(tmp_path, fresh_cache, caplog):
    missing = tmp_path / "not-there"
    with caplog.at_level(logging.ERROR, logger="models.search.embedder"):
        embedder = embedder_for("sentence-transformers", str(missing))
    assert isinstance(embedder, NoEmbedder)
    assert embedder.loaded is False
    assert f"search by meaning is off: SEARCH_EMBEDDER_PATH '{missing}' is not a directory" in (
        caplog.messages
    )


def test_a_folder_that_holds_no_model_answers_as_none_and_says_so(tmp_path, fresh_cache, caplog):
    (tmp_path / "notes.txt").write_text("not a model\n")
    with caplog.at_level(logging.ERROR, logger="models.search.embedder"):
        embedder = embedder_for("sentence-transformers", str(tmp_path))
    assert isinstance(embedder, NoEmbedder)
    [message] = caplog.messages
    assert "holds no model sentence-transformers can load" in message


def test_a_model_folder_without_its_weights_answers_as_none(model_folder, tmp_path, fresh_cache):
    broken = Path(shutil.copytree(model_folder, tmp_path / "broken"))
    (broken / "model.safetensors").unlink()
    assert isinstance(embedder_for("sentence-transformers", str(broken)), NoEmbedder)


def test_without_the_embeddings_extra_it_answers_as_none_and_says_how_to_install(
    model_folder, fresh_cache, monkeypatch, caplog
):
    # Given an installation without sentence-transformers (None in sys.modules: an
    # import of it fails as if it were not installed)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with caplog.at_level(logging.ERROR, logger="models.search.embedder"):
        embedder = embedder_for("sentence-transformers", str(model_folder))
    assert isinstance(embedder, NoEmbedder)
    [message] = caplog.messages
    assert "needs the `embeddings` extra" in message


def test_importing_the_embedders_loads_neither_torch_nor_sentence_transformers():
    # Only building a sentence-transformers embedder may pay for them (seconds)
    out = run_python(
        "import sys\n"
        "import models.search.embedder\n"
        "print(sorted({'torch', 'sentence_transformers', 'transformers'} & set(sys.modules)))\n"
    )
    assert out.splitlines()[-1] == "[]"


def test_settings_refuse_sentence_transformers_without_a_model_folder():
    env = {**os.environ, "SEARCH_EMBEDDER": "sentence-transformers"}
    env.pop("SEARCH_EMBEDDER_PATH", None)
    with pytest.raises(ConfigError, match="SEARCH_EMBEDDER_PATH"):
        load_settings(env, read_dotenv=False)


def test_settings_take_the_model_folder(model_folder):
    env = {
        **os.environ,
        "SEARCH_EMBEDDER": "sentence-transformers",
        "SEARCH_EMBEDDER_PATH": str(model_folder),
    }
    settings = load_settings(env, read_dotenv=False)
    assert (settings.search_embedder, settings.search_embedder_path) == (
        "sentence-transformers",
        str(model_folder),
    )


def embedded_with(st, vid, cues, title):
    docs = documents(vid, cues, title=title)
    vectors = st.passages([passage_text(doc) for doc in docs])
    return [replace(doc, vector=vector) for doc, vector in zip(docs, vectors, strict=True)]


def test_its_vectors_rank_the_moments_of_a_search_by_meaning_on_the_embedded_engine(st, tmp_path):
    # Given an engine searching with the tiny model, and videos indexed with its vectors
    engine = EmbeddedEngine(str(tmp_path / "search.db"), embedder=st)
    engine.apply_settings()
    said = {
        "animals0001": "the cat and the dog",
        "kansai00001": "関西の粉もの料理",
        "router00001": "configuring the office router",
        "network0001": "ネットワーク機器の設定",
    }
    for vid, text in said.items():
        engine.replace_video_documents(vid, embedded_with(st, vid, [(5, 8, text)], title=vid))
    # ...and a query none of them says: the tiny model knows no meaning, so only its
    # vectors can rank them
    q = "猫"
    similarity = dict(zip(said, st.passages(list(said.values())) @ st.query(q), strict=True))
    nearest_first = sorted(
        (vid for vid, sim in similarity.items() if sim >= floor_for(st.model).least),
        key=lambda vid: -similarity[vid],
    )
    assert nearest_first, "the tiny model should find some moment similar enough"
    # When a person searches by words, then by meaning only
    by_words = engine.search(SearchQuery(q=q, targets=("subtitle",)))
    by_meaning = engine.search(SearchQuery(q=q, targets=("subtitle",), semantic=True, sr=1.0))
    engine.close()
    # Then the words find nothing, and the meaning lists the moments nearest first
    assert by_words.hits == []
    assert by_meaning.semantic_applied is True
    assert [(hit.video_id, hit.start) for hit in by_meaning.hits] == [
        (vid, 5) for vid in nearest_first
    ]
    assert {hit.matched_in for hit in by_meaning.hits} == {"subtitle"}
