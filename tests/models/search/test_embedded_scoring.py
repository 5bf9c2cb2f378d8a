"""Results by video are scored from the indexed tokens (scoring.py), not by FTS5 in each
query: the score's bm25 must be FTS5's (weights, lengths, averages) with every term weighed
alike, above it the tiers (words, phrase), and the token columns read must be what FTS5
holds."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from models.search import SearchQuery
from models.search.embedded import EmbeddedEngine, layout
from models.search.embedded.columns import index_text
from models.search.embedded.fts import fts_match
from models.search.embedded.matching import phrase_term
from models.search.embedded.scoring import PAIR_PHRASE_BONUS, PHRASE_BONUS, WORD_BONUS, Scorer
from models.search.query import parse_query, parse_search
from tests.models.search.test_conformance import channel, index

pytestmark = pytest.mark.database_independent

COLUMNS = ("text", "title", "description")


@pytest.fixture
def engine(embedded):
    # Segments of different lengths and term counts, titles and descriptions: every part
    # of bm25 (frequency, document length, column weights) tells them apart.
    index(embedded, "short000001", [(0, 3, "ramen")], title="ramen tour")
    index(embedded, "long0000001", [(0, 3, "ramen is good and ramen is cheap and warm")])
    index(embedded, "desc0000001", [(0, 3, "udon")], description="best ramen noodles")
    index(embedded, "phrase00001", [(0, 3, "spicy ramen noodles tonight")])
    index(embedded, "repeat00001", [(0, 3, "ramen ramen ramen and udon udon")])
    index(embedded, "japan000001", [(0, 3, "大阪のラーメンと東京のラーメン")], title="ラーメン旅")
    for n in range(12):  # documents without the words, so their IDF is positive
        index(embedded, f"other{n:06d}", [(0, 3, f"nothing here {n}"), (4, 7, "別の話です")])
    return embedded


@pytest.mark.parametrize(
    "q", ["ramen", "ramen noodles", "ラーメン", '"ramen is"', '"ramen ramen"', "udon ramen"]
)
def test_scores_are_fts5_bm25_given_the_same_idf(engine, q):
    conn = engine._db()
    # A document's length leaves its readings out (layout.LENGTH_COLUMNS), which FTS5
    # cannot: pinned on documents without readings (test_readings_leave_scores_unchanged).
    conn.execute(
        "UPDATE documents_fts SET text_reading = '', title_reading = '', description_reading = ''"
    )
    # FTS5 ranks an OR of a term's pairs and words as two phrases; bm25 is pinned on the
    # pairs alone, where FTS5 and the scorer count the same tokens.
    terms = [replace(term, words=(), readings=()) for term in parse_query(q)]
    match = fts_match(tuple((term,) for term in terms), COLUMNS)
    fts5 = dict(
        conn.execute(
            "SELECT rowid, -rank FROM documents_fts WHERE documents_fts MATCH ?", (match,)
        ).fetchall()
    )
    assert fts5
    # FTS5's IDF of each term, from how many documents hold it
    total = conn.execute("SELECT count(*) FROM documents_fts").fetchone()[0]
    idf = []
    for term in terms:
        held = conn.execute(
            "SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?",
            (fts_match(((term,),), COLUMNS),),
        ).fetchone()[0]
        idf.append(max(math.log((total - held + 0.5) / (held + 0.5)), 1e-6))
    ours = bm25s(conn, terms, COLUMNS, list(fts5), idf=idf)
    assert ours.keys() == fts5.keys()
    for rowid, expected in fts5.items():
        assert ours[rowid] == pytest.approx(expected, rel=1e-9)


def scores(conn, terms, columns, rowids, phrase=None, idf=None):
    """Scores of the documents at `rowids`, by rowid."""
    scorer = Scorer(terms, columns, phrase, layout.token_averages(conn), idf)
    return {
        rowid: scorer.score(found) for rowid, found in layout.token_columns(conn, rowids).items()
    }


def bm25s(conn, terms, columns, rowids, idf=None):
    """The bm25 part of the scores of the documents at `rowids`, by rowid."""
    scorer = Scorer(terms, columns, None, layout.token_averages(conn), idf)
    return {
        rowid: scorer.parts(found)[1] for rowid, found in layout.token_columns(conn, rowids).items()
    }


def test_the_token_columns_read_are_the_full_text_tables(engine):
    conn = engine._db()
    through_fts = {
        row[0]: tuple(row[1:])
        for row in conn.execute(f"SELECT rowid, {', '.join(layout.FTS_COLUMNS)} FROM documents_fts")
    }
    content = {
        row[0]: tuple(row[1:]) for row in conn.execute("SELECT * FROM documents_fts_content")
    }
    assert content == through_fts
    assert len(through_fts) == engine.document_count()


def test_the_average_length_is_fts5s(engine):
    conn = engine._db()
    rows = conn.execute(
        "SELECT text, title, description, scope, text_words, title_words, description_words"
        " FROM documents_fts"
    ).fetchall()
    expected = sum(len(" ".join(row).split()) for row in rows) / len(rows)
    assert layout.token_averages(conn) == pytest.approx(expected)


def test_an_empty_index_has_an_average_length_of_one(tmp_path):
    engine = EmbeddedEngine(str(tmp_path / "empty.db"))
    engine.apply_settings()
    assert layout.token_averages(engine._db()) == 1.0
    engine.close()


def index_tokens(engine, text="", title="", description="", text_words=""):
    """A document with these token columns, straight into the index; its rowid."""
    conn = engine._db()
    rowid = 1 + conn.execute("SELECT coalesce(max(rowid), 0) FROM documents_fts").fetchone()[0]
    conn.execute(
        "INSERT INTO documents_fts (rowid, text, title, description, scope, text_words)"
        " VALUES (?, ?, ?, ?, 'c1', ?)",
        (rowid, text, title, description, text_words),
    )
    return rowid


def said(engine, text):
    """A segment saying `text`, indexed as the engine indexes it; its rowid."""
    pairs, words, _readings = index_text(text)
    return index_tokens(engine, text=pairs, text_words=words)


def scores_of(engine, q, columns=COLUMNS, *rowids):
    terms = parse_query(q)
    return scores(engine._db(), terms, columns, list(rowids), phrase_term(parse_search(q)))


def test_the_whole_phrase_earns_the_bonus_once(engine):
    together = index_tokens(engine, text="spicy ramen noodles tonight")
    apart = index_tokens(engine, text="noodles then ramen")
    found = scores_of(engine, "ramen noodles", COLUMNS, together, apart)
    # both words found as words in both; the phrase only in one
    assert PHRASE_BONUS + 2 * WORD_BONUS < found[together] < PHRASE_BONUS + 3 * WORD_BONUS
    assert 2 * WORD_BONUS < found[apart] < 3 * WORD_BONUS


def test_a_word_outranks_the_same_characters_across_a_word_boundary(engine):
    said_ = said(engine, "京都に行きました")
    inside = said(engine, "東京都庁の前で")
    found = scores_of(engine, "京都", COLUMNS, said_, inside)
    assert WORD_BONUS < found[said_] < 2 * WORD_BONUS
    assert 0 < found[inside] < WORD_BONUS


def test_a_spelling_variant_is_found_as_the_word(engine):
    other = said(engine, "シュミレーションゲームです")
    found = scores_of(engine, "シミュレーション", COLUMNS, other)
    assert WORD_BONUS < found[other] < 2 * WORD_BONUS


def test_the_phrase_of_words_outranks_its_characters_in_a_row(engine):
    words = said(engine, "京都抹茶のお店")
    pairs = said(engine, "東京都抹茶のお店")
    apart = said(engine, "京都で抹茶を飲む")
    found = scores_of(engine, "京都 抹茶", COLUMNS, words, pairs, apart)
    assert found[words] > PHRASE_BONUS
    # 東京都抹茶: one word (抹茶) and the characters of the phrase
    assert WORD_BONUS + PAIR_PHRASE_BONUS < found[pairs] < 2 * WORD_BONUS
    assert found[apart] > 2 * WORD_BONUS > found[pairs]


def test_every_repeat_of_a_word_counts(engine):
    once = index_tokens(engine, text="ramen x x")
    thrice = index_tokens(engine, text="ramen ramen ramen")
    found = scores_of(engine, "ramen", COLUMNS, once, thrice)
    assert found[thrice] > found[once] > 0


def test_a_term_counts_only_in_the_columns_searched(engine):
    titled = index_tokens(engine, title="ramen tour")
    assert scores_of(engine, "ramen", COLUMNS, titled)[titled] > 0
    assert scores_of(engine, "ramen", ("text",), titled)[titled] == 0


def test_grouped_scores_follow_the_scorer(engine):
    # Then a title match (weight 3) with a segment comes first, a description match
    # (weight 0.5) alone last, and the scores say so
    # (weight 0.5) alone last of those that say ramen; after them ラーメン, found by the
    # romaji's reading (ラメン) only
    videos = engine.search_videos(SearchQuery(q="ramen")).videos
    ids = [video.video_id for video in videos]
    assert [ids[0], ids[-2], ids[-1]] == ["short000001", "desc0000001", "japan000001"]
    assert [v.score for v in videos] == sorted((v.score for v in videos), reverse=True)
    assert videos[-1].score < videos[-2].score * 1e-6


def test_a_channels_documents_are_updated_and_counted(engine):
    other = channel("UCbbbbbbbbbbbbbbbbbbbbbb", title="別")
    index(engine, "chan0000001", [(0, 3, "ラーメン")], ch=other)
    assert engine.update_channel_documents(other.id, {"channel_title": "新しい名前"}) == 2
    [video] = engine.search_videos(SearchQuery(q="ラーメン", channels=(other.id,))).videos
    assert video.channel_title == "新しい名前"
