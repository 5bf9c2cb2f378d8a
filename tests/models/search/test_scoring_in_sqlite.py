"""Documents are scored inside SQLite by the C scorer (_score.c, issue 50): its figures
must be the Python scorer's, bit for bit, whether it reads a document's columns
(subsearch_score) or the full-text index's instances (subsearch_rank), and every answer
the same with it as without it."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from models.search import SearchQuery
from models.search.base import Document
from models.search.embedded import EmbeddedEngine, layout, matching, scoring
from models.search.embedded.fts import phrases
from models.search.embedded.matching import RANKED, Matching
from models.search.embedded.scan import TARGET_COLUMNS, needs_scan
from tests.models.search.engines import embedded_engine
from tests.relevance import measure

pytestmark = pytest.mark.database_independent

# Sentences whose words many segments share, so a common word, a phrase or a reading has
# more than RANKED matches (the candidates' narrower lists, the count by the pairs).
SENTENCES = [
    "大阪の串カツは二度づけ禁止です",
    "東京都庁から京都へ行きました",
    "おおさかのラーメンを食べました",
    "京都の抹茶はおいしいです",
    "the network is down again today",
    "新大阪駅で新幹線に乗りました",
    "ビールを飲みながら野球を見ました",
    "シミュレーションの結果です",
    "らーめんとぎょうざを注文しました",
    "it works on my network at home",
]
QUERIES = [
    "です",
    "大阪",
    "京都",
    "おおさか",
    "osaka",
    "ラーメン",
    '"ビールを"',
    '"料理です"',
    "network",
    '"the network"',
    "大阪 ラーメン",
    "京都 OR 東京",
    "大阪 -東京",
    "ネット*",
    "シュミレーション",
    "新大阪",
]


def _documents(videos: int, segments: int) -> dict[str, list[Document]]:
    found = {}
    for n in range(videos):
        video_id = f"vid{n:08d}"
        common = {
            "video_id": video_id,
            "channel_id": f"UC{n % 3:022d}",
            "video_title": SENTENCES[(n * 7) % len(SENTENCES)][:12],
            "channel_title": "ch",
            "published_at": f"2026-{n % 12 + 1:02d}-01T00:00:00Z",
            "thumbnail_url": "",
            "view_count": n,
            "subscriber_count": 1,
        }
        documents = [
            Document(
                id=f"{video_id}-v",
                kind="video",
                title=common["video_title"],
                description=SENTENCES[n % len(SENTENCES)],
                **common,
            )
        ]
        for place in range(segments):
            text = SENTENCES[(n + place) % len(SENTENCES)]
            if place % 4 == 0:
                text += " " + SENTENCES[(n * place) % len(SENTENCES)]
            documents.append(
                Document(
                    id=f"{video_id}-{place}",
                    kind="subtitle",
                    text=text,
                    start=place * 5.0,
                    end=place * 5.0 + 4.0,
                    **common,
                )
            )
        found[video_id] = documents
    return found


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """An index where common words match far more than RANKED documents."""
    path = tmp_path_factory.mktemp("busy") / "search.db"
    for engine in embedded_engine(path):
        engine.replace_videos(_documents(videos=90, segments=24))
        yield engine


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The relevance set's corpus."""
    path = tmp_path_factory.mktemp("judged") / "search.db"
    for engine in embedded_engine(path):
        measure.index_corpus(engine)
        yield engine


def _queries(engine: EmbeddedEngine) -> list[str]:
    return QUERIES + [judged.q for judged in measure.judgements()]


def _matchings(engine: EmbeddedEngine, queries: list[str]):
    conn = engine._db()
    for q in queries:
        query = SearchQuery(q=q)
        if not query.read.terms or needs_scan(query.read):
            continue
        columns = tuple(TARGET_COLUMNS[target] for target in query.targets)
        yield q, Matching(conn, query.read, columns, ())


def test_the_c_scorer_is_built_here():
    # CI compiles it (setup.py); without it every search scores in Python, slower.
    assert scoring.IN_SQLITE


@pytest.mark.parametrize("corpus", ["busy", "judged"])
def test_scores_in_sqlite_are_the_python_scores(corpus, request):
    engine = request.getfixturevalue(corpus)
    conn = engine._db()
    compared = 0
    for q, found in _matchings(engine, _queries(engine)):
        rowids = [row[0] for row in conn.execute(*found.matches("documents_fts.rowid"))]
        columns = layout.token_columns(conn, rowids)
        in_sqlite = scoring.scores_in_sqlite(conn, found.plan, rowids)
        python = {rowid: found.scorer.score(tokens) for rowid, tokens in columns.items()}
        assert in_sqlite == python, q
        compared += len(python)
    assert compared > 1_000


@pytest.mark.parametrize("corpus", ["busy", "judged"])
def test_the_ranking_function_gives_the_python_scores(corpus, request):
    # In the query's own expression and in its narrower lists' (as written, as words),
    # whose phrases are fewer: a document needing one they lack is scored from its
    # columns.
    engine = request.getfixturevalue(corpus)
    conn = engine._db()
    ranked_queries = by_columns = 0
    for q, found in _matchings(engine, _queries(engine)):
        if found.ranking is None:
            assert found.scorer.phrase is not None, q  # only a query with its phrase
            continue
        ranked_queries += 1
        for match in (found.match, found.written, found.words):
            if match is None:
                continue
            ranking = found.scorer.phrase_numbers(phrases(match))
            sql, params = found.matches(
                "documents_fts.rowid, subsearch_rank(documents_fts, ?, ?)", match=match
            )
            ranked = dict(conn.execute(sql, [found.plan, ranking, *params]).fetchall())
            columns = layout.token_columns(conn, list(ranked))
            python = {rowid: found.scorer.score(tokens) for rowid, tokens in columns.items()}
            assert ranked == python, q
            # Scaled scores: documents found by reading, ranked from their columns.
            by_columns += sum(score < scoring.WRITTEN_FLOOR for score in python.values())
    assert ranked_queries > 100
    assert by_columns > 0


def _answers(engine: EmbeddedEngine, queries: list[str]) -> dict[str, object]:
    answers: dict[str, object] = {}
    for q in queries:
        for options in ({}, {"page": 2}, {"sort": "newest"}, {"per_page": 5}):
            query = SearchQuery(q=q, **options)
            answers[f"{q} {options}"] = dataclasses.asdict(engine.search_videos(query))
        answers[f"{q} flat"] = dataclasses.asdict(engine.search(SearchQuery(q=q)))
    return answers


@pytest.mark.parametrize("corpus", ["busy", "judged"])
def test_every_answer_is_the_same_scored_in_python(corpus, request, monkeypatch):
    engine = request.getfixturevalue(corpus)
    queries = _queries(engine)[:: 1 if corpus == "busy" else 4]
    in_sqlite = _answers(engine, queries)
    monkeypatch.setattr(matching, "IN_SQLITE", False)
    assert _answers(engine, queries) == in_sqlite


def test_a_busy_index_skips_only_lists_the_latest_matches_already_hold(busy):
    # です in almost every segment: the latest RANKED are all found as words, so the
    # words' list would be the same documents; the count goes by the pairs.
    conn = busy._db()
    found = next(found for _, found in _matchings(busy, ["です"]))
    candidates = found.candidates()
    assert len(found.latest or []) == RANKED
    assert min(found.scored[rowid] for rowid in found.latest or []) >= scoring.WORD_BONUS
    every = [row[0] for row in conn.execute(*found.matches("documents_fts.rowid"))]
    assert set(found.latest or []) <= set(candidates) <= set(every)
    counted = len({rowid >> layout.VIDEO_SHIFT for rowid in every})
    assert found.videos(1000) == counted


def test_the_count_of_a_phrase_in_few_videos_is_exact(tmp_path):
    # More than RANKED matches, all in 5 of 60 videos: the estimate sends the count to
    # the query alone, which must still count every video.
    documents = _documents(videos=60, segments=4)
    for n in range(5):
        video_id = f"vid{n:08d}"
        base = documents[video_id][0]
        documents[video_id] += [
            dataclasses.replace(
                base, id=f"{video_id}-p{m}", kind="subtitle", text="まれな言葉です", start=m
            )
            for m in range(100)
        ]
    for engine in embedded_engine(tmp_path / "search.db"):
        engine.replace_videos(documents)
        found = next(found for _, found in _matchings(engine, ['"まれな言葉"']))
        found.candidates()
        assert not found._many_videos(1000)
        assert found.videos(1000) == 5
        assert engine.search_videos(SearchQuery(q='"まれな言葉"')).total_videos == 5


def test_phrases_are_numbered_as_fts5_numbers_them():
    expression = (
        '({text title} : ("大阪" OR "大 阪" *) OR {text_words} : ("he said ""hi""")) '
        'AND {scope} : (c0123abc OR c4567def) NOT {text} : ("東京")'
    )
    assert phrases(expression) == [
        ("大阪", False),
        ("大 阪", True),
        ('he said "hi"', False),
        ("c0123abc", False),
        ("c4567def", False),
        ("東京", False),
    ]


def test_a_plan_the_scorer_cannot_read_is_an_error(embedded):
    conn = embedded._db()
    columns = ", ".join("''" for _ in layout.FTS_COLUMNS)
    with pytest.raises(sqlite3.OperationalError, match="cannot read"):
        conn.execute(f"SELECT subsearch_score('1;2;', {columns})").fetchone()


def test_only_an_open_connection_takes_the_scorer():
    with pytest.raises(TypeError):
        scoring._score.register(object())
    conn = sqlite3.connect(":memory:")
    conn.close()
    with pytest.raises(sqlite3.ProgrammingError):
        scoring._score.register(conn)


def test_a_title_is_found_however_many_newer_segments_say_its_word(tmp_path, monkeypatch):
    # Few candidates, so the newer segments crowd the latest matches: the oldest video,
    # whose title alone holds the word, is found among the video documents' own matches
    # (video_fts), and follows its title when it changes.
    monkeypatch.setattr(matching, "RANKED", 8)
    documents = _documents(videos=12, segments=6)
    documents["vid00000000"] = [
        dataclasses.replace(doc, title="蜃気楼の旅", video_title="蜃気楼の旅")
        if doc.kind == "video"
        else dataclasses.replace(doc, text="ここには何もない")
        for doc in documents["vid00000000"]
    ]
    for n in range(1, 12):
        documents[f"vid{n:08d}"] = [
            dataclasses.replace(doc, text=doc.text + " 蜃気楼が見えました")
            if doc.kind == "subtitle"
            else doc
            for doc in documents[f"vid{n:08d}"]
        ]
    for engine in embedded_engine(tmp_path / "search.db"):
        for video_id in sorted(documents):  # the titled video first: the oldest key
            engine.replace_video_documents(video_id, documents[video_id])
        found = engine.search_videos(SearchQuery(q="蜃気楼", per_page=5))
        first = {video.video_id: video for video in found.videos}
        assert "vid00000000" in first
        assert first["vid00000000"].matched_in == ("title",)
        engine.update_video_documents("vid00000000", {"title": "ただの旅"})
        found = engine.search_videos(SearchQuery(q="蜃気楼", per_page=20))
        assert "vid00000000" not in {video.video_id for video in found.videos}
        engine.update_video_documents("vid00000000", {"title": "蜃気楼ふたたび"})
        found = engine.search_videos(SearchQuery(q="蜃気楼", per_page=5))
        assert "vid00000000" in {video.video_id for video in found.videos}
