/* The embedded engine's document score, computed inside SQLite (issue 50).

   scoring.py's Scorer.parts, ported line by line: a SQL function

       subsearch_score(plan, c0, c1, ..., c9)

   over a document's token columns (documents_fts_content, in FTS_COLUMNS order) returns
   its score, tiers plus bm25, as the Python code computes it, bit for bit (the same
   operations on doubles in the same order; a test compares the two on every document of
   the relevance set). A page scores a few hundred candidates: read and scored here, their
   columns never become Python strings.

   `plan` is the query's Scorer, serialised by scoring.Scorer.plan_text (the format is
   described there); it is the same for every row of a statement, so it is parsed once per
   statement (sqlite3_set_auxdata).

   Below it, subsearch_rank scores the rows of a full-text query the same way from what
   the index holds (see there).

   The module's one Python function, register(connection), adds both functions to an
   open sqlite3.Connection. The standard library does not give the connection's sqlite3
   handle, so it is read from the object: in CPython 3.8 to 3.14 a sqlite3.Connection
   starts with PyObject_HEAD then `sqlite3 *db`. register() checks the type by name and
   that the handle answers as a live database before it uses it. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define COLUMNS 10
#define MAX_TERMS 64
#define MAX_NEEDLES 64

typedef struct {
    const char *text; /* into the plan's buffer */
    int length;
    int overlaps; /* may overlap itself: count every start (scoring._occurrences) */
} Needle;

typedef struct {
    int count;
    Needle items[MAX_NEEDLES];
} Needles;

typedef struct {
    int group;
    Needle pairs;
    Needles words;
    double weight;
    Needles readings;
    double scale;
    Needles spellings;
} Term;

typedef struct {
    int count;
    int columns[COLUMNS];
    double weights[COLUMNS];
} Columns;

typedef struct {
    char *buffer; /* the plan's bytes: every needle points into it */
    double norm_base, norm_per_token;
    double word_bonus, phrase_bonus, pair_phrase_bonus, k1;
    Needle inner_break;
    int length_count, length_columns[COLUMNS];
    Columns pairs, words, readings;
    int any_words;
    int term_count;
    Term terms[MAX_TERMS];
    int has_phrase;
    Needle phrase_pairs;
    Needles phrase_words, phrase_readings;
} Plan;

/* -- the plan ---------------------------------------------------------------------------
   A sequence of fields, each "<hex>;" for a number (the 64 bits of its IEEE 754 double,
   in hexadecimal: exact, and read alike in any locale) or "<bytes>:<text>" for a text,
   read in the order parse_plan reads them. */

typedef struct {
    const char *at, *end;
    int failed;
} Reader;

static double read_number(Reader *r) {
    char *stop;
    unsigned long long bits;
    double value;
    if (r->failed || r->at >= r->end) {
        r->failed = 1;
        return 0;
    }
    bits = strtoull(r->at, &stop, 16);
    if (stop == r->at || stop >= r->end || *stop != ';') {
        r->failed = 1;
        return 0;
    }
    r->at = stop + 1;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static int read_count(Reader *r, int limit) {
    double value = read_number(r);
    if (value < 0 || value > limit || value != (int)value) {
        r->failed = 1;
        return 0;
    }
    return (int)value;
}

static Needle read_text(Reader *r) {
    Needle needle = {NULL, 0, 0};
    char *stop;
    long length;
    if (r->failed || r->at >= r->end) {
        r->failed = 1;
        return needle;
    }
    length = strtol(r->at, &stop, 10);
    if (stop == r->at || stop >= r->end || *stop != ':' || length < 0 ||
        length > r->end - stop - 1) {
        r->failed = 1;
        return needle;
    }
    needle.text = stop + 1;
    needle.length = (int)length;
    r->at = stop + 1 + length;
    return needle;
}

static Needle read_needle(Reader *r) {
    Needle needle = read_text(r);
    needle.overlaps = read_count(r, 1);
    if (!needle.length) r->failed = 1; /* needles are tokens between spaces: never empty */
    return needle;
}

static void read_needles(Reader *r, Needles *needles) {
    int n;
    needles->count = read_count(r, MAX_NEEDLES);
    for (n = 0; n < needles->count; n++) needles->items[n] = read_needle(r);
}

static void read_columns(Reader *r, Columns *columns) {
    int n;
    columns->count = read_count(r, COLUMNS);
    for (n = 0; n < columns->count; n++) {
        columns->columns[n] = read_count(r, COLUMNS - 1);
        columns->weights[n] = read_number(r);
    }
}

static void free_plan(void *found) {
    Plan *plan = found;
    if (plan) {
        free(plan->buffer);
        free(plan);
    }
}

static Plan *parse_plan(const char *text, int length) {
    Plan *plan = calloc(1, sizeof(Plan));
    Reader r;
    int n;
    if (!plan) return NULL;
    plan->buffer = malloc(length + 1);
    if (!plan->buffer) {
        free(plan);
        return NULL;
    }
    memcpy(plan->buffer, text, length);
    plan->buffer[length] = 0;
    r.at = plan->buffer;
    r.end = plan->buffer + length;
    r.failed = 0;
    plan->norm_base = read_number(&r);
    plan->norm_per_token = read_number(&r);
    plan->k1 = read_number(&r);
    plan->word_bonus = read_number(&r);
    plan->phrase_bonus = read_number(&r);
    plan->pair_phrase_bonus = read_number(&r);
    plan->inner_break = read_text(&r);
    if (!plan->inner_break.length) r.failed = 1;
    plan->length_count = read_count(&r, COLUMNS);
    for (n = 0; n < plan->length_count; n++) plan->length_columns[n] = read_count(&r, COLUMNS - 1);
    read_columns(&r, &plan->pairs);
    read_columns(&r, &plan->words);
    read_columns(&r, &plan->readings);
    plan->any_words = read_count(&r, 1);
    plan->term_count = read_count(&r, MAX_TERMS);
    for (n = 0; n < plan->term_count; n++) {
        Term *term = &plan->terms[n];
        term->group = read_count(&r, 1 << 20);
        term->pairs = read_needle(&r);
        read_needles(&r, &term->words);
        term->weight = read_number(&r);
        read_needles(&r, &term->readings);
        term->scale = read_number(&r);
        read_needles(&r, &term->spellings);
    }
    plan->has_phrase = read_count(&r, 1);
    if (plan->has_phrase) {
        plan->phrase_pairs = read_needle(&r);
        read_needles(&r, &plan->phrase_words);
        read_needles(&r, &plan->phrase_readings);
    }
    if (r.failed || r.at != r.end) {
        free_plan(plan);
        return NULL;
    }
    return plan;
}

/* -- padded columns (scoring.Scorer.parts: every space doubled, the whole wrapped in
   spaces, so each token stands between its own two spaces) ---------------------------- */

typedef struct {
    char *text;
    int length;
    double weight;
} Padded;

typedef struct {
    int count;
    Padded items[COLUMNS];
} PaddedSet;

typedef struct {
    char *buffer;
    int used, size;
} Arena;

static char *arena_take(Arena *arena, int length) {
    char *taken;
    if (arena->used + length > arena->size) return NULL;
    taken = arena->buffer + arena->used;
    arena->used += length;
    return taken;
}

/* The non-empty columns of `columns` padded, with their weights; -1 when out of memory. */
static int pad(Arena *arena, const unsigned char **texts, const int *lengths,
               const Columns *columns, PaddedSet *out) {
    int n;
    out->count = 0;
    for (n = 0; n < columns->count; n++) {
        int column = columns->columns[n], length = lengths[column], i, spaces = 0, at = 0;
        const unsigned char *text = texts[column];
        char *padded;
        if (!text || !length) continue;
        for (i = 0; i < length; i++) spaces += text[i] == ' ';
        padded = arena_take(arena, length + spaces + 2);
        if (!padded) return -1;
        padded[at++] = ' ';
        for (i = 0; i < length; i++) {
            padded[at++] = (char)text[i];
            if (text[i] == ' ') padded[at++] = ' ';
        }
        padded[at++] = ' ';
        out->items[out->count].text = padded;
        out->items[out->count].length = at;
        out->items[out->count].weight = columns->weights[n];
        out->count++;
    }
    return 0;
}

static const char *find(const char *haystack, int length, const Needle *needle) {
    if (needle->length == 0) return haystack;
    if (needle->length > length) return NULL;
    return memmem(haystack, length, needle->text, needle->length);
}

/* str.count (non-overlapping), or every start for a needle that may overlap itself. */
static int occurrences(const Padded *padded, const Needle *needle) {
    const char *at = padded->text, *end = padded->text + padded->length, *found;
    int count = 0;
    while ((found = find(at, (int)(end - at), needle)) != NULL) {
        count++;
        at = found + (needle->overlaps ? 1 : needle->length);
    }
    return count;
}

static int contains(const Padded *padded, const Needle *needle) {
    return find(padded->text, padded->length, needle) != NULL;
}

/* scoring._frequency: the weighted count over the columns. */
static double frequency(const PaddedSet *set, const Needle *needle) {
    double found = 0.0;
    int n;
    for (n = 0; n < set->count; n++) {
        int count = occurrences(&set->items[n], needle);
        if (count) found += set->items[n].weight * count;
    }
    return found;
}

static double best_frequency(const PaddedSet *set, const Needles *needles) {
    double best = 0.0;
    int n;
    for (n = 0; n < needles->count; n++) {
        double found = frequency(set, &needles->items[n]);
        if (n == 0 || found > best) best = found;
    }
    return best;
}

static int any_in(const PaddedSet *set, const Needles *needles) {
    int n, m;
    for (n = 0; n < set->count; n++)
        for (m = 0; m < needles->count; m++)
            if (contains(&set->items[n], &needles->items[m])) return 1;
    return 0;
}

/* Whether a needle stands before the column's first INNER_BREAK (a word read whole). */
static int any_whole(const PaddedSet *set, const Needles *needles, const Needle *inner_break) {
    int n, m;
    for (n = 0; n < set->count; n++) {
        Padded head = set->items[n];
        const char *cut = find(head.text, head.length, inner_break);
        if (cut) head.length = (int)(cut - head.text);
        for (m = 0; m < needles->count; m++)
            if (contains(&head, &needles->items[m])) return 1;
    }
    return 0;
}

/* -- the score ------------------------------------------------------------------------ */

static int score(const Plan *plan, const unsigned char **texts, const int *lengths,
                 Arena *arena, double *result) {
    PaddedSet worded = {0}, searched = {0}, read = {0};
    int has_searched = 0, has_read = 0, length = 0, n, m;
    int written[MAX_TERMS];
    double by_readings[MAX_TERMS]; /* per term's group: the scale of its match by reading */
    int by_reading_groups[MAX_TERMS], by_reading_count = 0, written_count = 0;
    double norm, tiers = 0.0, bm25 = 0.0, scale = 1.0;

    for (n = 0; n < plan->length_count; n++) {
        int column = plan->length_columns[n], i, spaces = 0;
        const unsigned char *text = texts[column];
        if (!text || !lengths[column]) continue;
        for (i = 0; i < lengths[column]; i++) spaces += text[i] == ' ';
        length += spaces + (text[lengths[column] - 1] != ' ');
    }
    if (plan->any_words && pad(arena, texts, lengths, &plan->words, &worded)) return -1;
    norm = plan->norm_base + plan->norm_per_token * length;

    for (n = 0; n < plan->term_count; n++) {
        const Term *term = &plan->terms[n];
        double found = term->words.count ? best_frequency(&worded, &term->words) : 0.0;
        int reading_scaled = 0;
        if (found) {
            tiers += plan->word_bonus;
            written[written_count++] = term->group;
        } else {
            if (!has_searched) {
                if (pad(arena, texts, lengths, &plan->pairs, &searched)) return -1;
                has_searched = 1;
            }
            found = frequency(&searched, &term->pairs);
            tiers += found && !term->words.count ? plan->word_bonus : 0.0;
            if (found) {
                written[written_count++] = term->group;
            } else if (term->readings.count) {
                if (!has_read) {
                    if (pad(arena, texts, lengths, &plan->readings, &read)) return -1;
                    has_read = 1;
                }
                found = best_frequency(&read, &term->readings);
                if (found) {
                    tiers += any_whole(&read, &term->readings, &plan->inner_break)
                                 ? plan->word_bonus
                                 : 0.0;
                    reading_scaled = 1;
                }
            }
            if (!found && term->spellings.count) {
                found = best_frequency(&searched, &term->spellings);
                if (found) reading_scaled = 1;
            }
        }
        if (reading_scaled) {
            for (m = 0; m < by_reading_count; m++)
                if (by_reading_groups[m] == term->group) break;
            if (m == by_reading_count) {
                by_reading_groups[m] = term->group;
                by_readings[m] = 1.0;
                by_reading_count++;
            }
            if (term->scale < by_readings[m]) by_readings[m] = term->scale;
        }
        if (found) bm25 += term->weight * found * (plan->k1 + 1) / (found + norm);
    }
    for (n = 0; n < by_reading_count; n++) {
        int is_written = 0;
        for (m = 0; m < written_count; m++) is_written |= written[m] == by_reading_groups[n];
        if (!is_written && by_readings[n] < scale) scale = by_readings[n];
    }
    if (plan->has_phrase) {
        if (plan->phrase_words.count && any_in(&worded, &plan->phrase_words)) {
            tiers += plan->phrase_bonus;
        } else {
            if (!has_searched) {
                if (pad(arena, texts, lengths, &plan->pairs, &searched)) return -1;
                has_searched = 1;
            }
            for (m = 0; m < searched.count; m++)
                if (contains(&searched.items[m], &plan->phrase_pairs)) break;
            if (m < searched.count) {
                tiers += plan->phrase_words.count ? plan->pair_phrase_bonus : plan->phrase_bonus;
            } else if (scale < 1.0 && plan->phrase_readings.count) {
                if (!has_read) {
                    if (pad(arena, texts, lengths, &plan->readings, &read)) return -1;
                    has_read = 1;
                }
                if (any_in(&read, &plan->phrase_readings)) tiers += plan->phrase_bonus;
            }
        }
    }
    *result = tiers * scale + bm25 * scale;
    return 0;
}

/* The score of a document from its ten token columns: 0, or -1 when out of memory. */
static int score_texts(const Plan *plan, const unsigned char **texts, const int *lengths,
                       double *result) {
    Arena arena;
    int n, total = 0, failed;
    for (n = 0; n < COLUMNS; n++) total += lengths[n];
    /* Every padded column at most doubles, plus its two spaces. */
    arena.size = 2 * total + 2 * COLUMNS * 3 + 16;
    arena.used = 0;
    arena.buffer = malloc(arena.size);
    if (!arena.buffer) return -1;
    failed = score(plan, texts, lengths, &arena, result);
    free(arena.buffer);
    return failed;
}

/* The statement's plan, parsed at its first row (argument `n`); NULL after an error. */
static Plan *statement_plan(sqlite3_context *context, sqlite3_value **argv, int n) {
    Plan *plan = sqlite3_get_auxdata(context, n);
    if (plan) return plan;
    plan = parse_plan((const char *)sqlite3_value_text(argv[n]), sqlite3_value_bytes(argv[n]));
    if (!plan) {
        sqlite3_result_error(context, "subsearch: a plan it cannot read", -1);
        return NULL;
    }
    sqlite3_set_auxdata(context, n, plan, free_plan);
    plan = sqlite3_get_auxdata(context, n); /* SQLite may have freed it already */
    if (!plan) sqlite3_result_error_nomem(context);
    return plan;
}

static void score_function(sqlite3_context *context, int argc, sqlite3_value **argv) {
    Plan *plan;
    const unsigned char *texts[COLUMNS];
    int lengths[COLUMNS], n;
    double result = 0.0;
    if (argc != COLUMNS + 1) {
        sqlite3_result_error(context, "subsearch_score: a plan and 10 columns", -1);
        return;
    }
    plan = statement_plan(context, argv, 0);
    if (!plan) return;
    for (n = 0; n < COLUMNS; n++) {
        texts[n] = sqlite3_value_text(argv[n + 1]);
        lengths[n] = texts[n] ? sqlite3_value_bytes(argv[n + 1]) : 0;
    }
    if (score_texts(plan, texts, lengths, &result)) {
        sqlite3_result_error_nomem(context);
        return;
    }
    sqlite3_result_double(context, result);
}

/* -- the same score inside a full-text query ---------------------------------------------

   subsearch_rank(documents_fts, plan, phrases), an FTS5 auxiliary function, scores the
   row a MATCH found from what the full-text index already holds for it: the instances of
   the expression's phrases, column by column, and the row's column sizes (its length).
   No content row is read for a document that holds every term as written (as words, or
   as pairs); one that needs a term's readings or other spellings, or a phrase the
   expression does not hold, is scored from its columns as subsearch_score does.
   `phrases` gives, for each of the plan's terms, the number of its pairs' phrase in the
   MATCH expression and those of its word runs, each plus one (0: not there), as numbers
   of the plan's kind: scoring.Scorer.phrase_numbers makes it. A query
   with the phrase of all its words is not ranked here (its phrase is not in the
   expression). FTS5's extension interface is declared in sqlite3.h
   (https://sqlite.org/fts5.html, "Custom Auxiliary Functions"). */

typedef struct {
    int pairs;                /* the phrase of the term's pairs (-1: not in the query) */
    int word_count;
    int words[MAX_NEEDLES];   /* the phrases of its word runs, in Term.words order */
} TermPhrases;

typedef struct {
    Plan *plan;
    int term_count;
    TermPhrases terms[MAX_TERMS];
} Ranking;

static void free_ranking(void *found) {
    Ranking *ranking = found;
    if (ranking) {
        free_plan(ranking->plan);
        free(ranking);
    }
}

static Ranking *parse_ranking(sqlite3_value *plan_text, sqlite3_value *phrases_text) {
    Ranking *ranking = calloc(1, sizeof(Ranking));
    Reader r;
    int n, m;
    if (!ranking) return NULL;
    ranking->plan = parse_plan((const char *)sqlite3_value_text(plan_text),
                               sqlite3_value_bytes(plan_text));
    r.at = (const char *)sqlite3_value_text(phrases_text);
    r.end = r.at ? r.at + sqlite3_value_bytes(phrases_text) : NULL;
    r.failed = !ranking->plan || !r.at;
    ranking->term_count = read_count(&r, MAX_TERMS);
    for (n = 0; n < ranking->term_count; n++) {
        TermPhrases *term = &ranking->terms[n];
        term->pairs = read_count(&r, 1 << 20) - 1;
        term->word_count = read_count(&r, MAX_NEEDLES);
        for (m = 0; m < term->word_count; m++) term->words[m] = read_count(&r, 1 << 20) - 1;
    }
    if (r.failed || r.at != r.end || ranking->term_count != ranking->plan->term_count) {
        free_ranking(ranking);
        return NULL;
    }
    for (n = 0; n < ranking->term_count; n++)
        if (ranking->terms[n].word_count != ranking->plan->terms[n].words.count ||
            ranking->plan->has_phrase) {
            free_ranking(ranking);
            return NULL;
        }
    return ranking;
}

/* scoring._frequency over a phrase's instances in the row: the weighted count, column
   by column in the columns' order. */
static int phrase_frequency(const Fts5ExtensionApi *api, Fts5Context *fts, int phrase,
                            const Columns *columns, double *found) {
    Fts5PhraseIter iter;
    int counts[COLUMNS] = {0}, column = 0, offset = 0, n, rc;
    rc = api->xPhraseFirst(fts, phrase, &iter, &column, &offset);
    if (rc != SQLITE_OK) return rc;
    for (; column >= 0; api->xPhraseNext(fts, &iter, &column, &offset))
        if (column < COLUMNS) counts[column]++;
    *found = 0.0;
    for (n = 0; n < columns->count; n++) {
        int count = counts[columns->columns[n]];
        if (count) *found += columns->weights[n] * count;
    }
    return SQLITE_OK;
}

/* The row's score from its columns, read from the index's content. */
static int rank_from_columns(const Fts5ExtensionApi *api, Fts5Context *fts, const Plan *plan,
                             double *result) {
    const unsigned char *texts[COLUMNS];
    int lengths[COLUMNS], n, rc;
    for (n = 0; n < COLUMNS; n++) {
        const char *text = NULL;
        lengths[n] = 0;
        rc = api->xColumnText(fts, n, &text, &lengths[n]);
        if (rc != SQLITE_OK) return rc;
        texts[n] = (const unsigned char *)text;
    }
    return score_texts(plan, texts, lengths, result) ? SQLITE_NOMEM : SQLITE_OK;
}

/* Scorer.parts for a row whose every term is found as words or pairs (else the columns'
   score): the same operations in the same order, so the same double. */
static int rank_row(const Fts5ExtensionApi *api, Fts5Context *fts, const Ranking *ranking,
                    double *result) {
    const Plan *plan = ranking->plan;
    double tiers = 0.0, bm25 = 0.0, norm;
    int length = 0, n, m, rc, phrases_in_query = api->xPhraseCount(fts);
    for (n = 0; n < plan->length_count; n++) {
        int size = 0;
        rc = api->xColumnSize(fts, plan->length_columns[n], &size);
        if (rc != SQLITE_OK) return rc;
        length += size;
    }
    norm = plan->norm_base + plan->norm_per_token * length;
    for (n = 0; n < plan->term_count; n++) {
        const Term *term = &plan->terms[n];
        const TermPhrases *phrases = &ranking->terms[n];
        double found = 0.0;
        for (m = 0; m < phrases->word_count; m++) {
            double run = 0.0;
            if (phrases->words[m] < 0 || phrases->words[m] >= phrases_in_query)
                return rank_from_columns(api, fts, plan, result); /* not in the query */
            rc = phrase_frequency(api, fts, phrases->words[m], &plan->words, &run);
            if (rc != SQLITE_OK) return rc;
            if (m == 0 || run > found) found = run;
        }
        if (found) {
            tiers += plan->word_bonus;
        } else {
            if (phrases->pairs < 0 || phrases->pairs >= phrases_in_query)
                return rank_from_columns(api, fts, plan, result);
            rc = phrase_frequency(api, fts, phrases->pairs, &plan->pairs, &found);
            if (rc != SQLITE_OK) return rc;
            if (!found) return rank_from_columns(api, fts, plan, result); /* by reading */
            tiers += !term->words.count ? plan->word_bonus : 0.0;
        }
        bm25 += term->weight * found * (plan->k1 + 1) / (found + norm);
    }
    *result = tiers * 1.0 + bm25 * 1.0;
    return SQLITE_OK;
}

static void rank_function(const Fts5ExtensionApi *api, Fts5Context *fts,
                          sqlite3_context *context, int argc, sqlite3_value **argv) {
    Ranking *ranking;
    double result = 0.0;
    int rc;
    if (argc != 2) {
        sqlite3_result_error(context, "subsearch_rank: a plan and its phrases", -1);
        return;
    }
    ranking = api->xGetAuxdata(fts, 0);
    if (!ranking) {
        ranking = parse_ranking(argv[0], argv[1]);
        if (!ranking) {
            sqlite3_result_error(context, "subsearch_rank: a plan it cannot read", -1);
            return;
        }
        rc = api->xSetAuxdata(fts, ranking, free_ranking);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(context, rc);
            return;
        }
    }
    rc = rank_row(api, fts, ranking, &result);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    sqlite3_result_double(context, result);
}

/* FTS5's interface of the connection (its documented way: the pointer bound to
   "SELECT fts5(?1)"); NULL without FTS5. */
static fts5_api *fts5_of(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL) == SQLITE_OK) {
        sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
        sqlite3_step(statement);
    }
    sqlite3_finalize(statement);
    return api;
}

/* -- Python ----------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    sqlite3 *db;
} ConnectionHead;

/* Whether `connection` is a sqlite3.Connection (or of a subclass). */
static int is_connection(PyObject *connection) {
    PyObject *classes = PyObject_GetAttrString((PyObject *)Py_TYPE(connection), "__mro__");
    Py_ssize_t n;
    int found = 0;
    if (!classes) return -1;
    for (n = 0; n < PyTuple_Size(classes); n++)
        found |= strcmp(((PyTypeObject *)PyTuple_GetItem(classes, n))->tp_name,
                        "sqlite3.Connection") == 0;
    Py_DECREF(classes);
    return found;
}

static PyObject *register_function(PyObject *module, PyObject *connection) {
    PyObject *open;
    sqlite3 *db;
    int rc, found = is_connection(connection);
    (void)module;
    if (found < 0) return NULL;
    if (!found) {
        PyErr_SetString(PyExc_TypeError, "register() takes a sqlite3.Connection");
        return NULL;
    }
    /* A closed connection raises ProgrammingError here, before its handle is read. */
    open = PyObject_GetAttrString(connection, "in_transaction");
    if (!open) return NULL;
    Py_DECREF(open);
    db = ((ConnectionHead *)connection)->db;
    if (!db || sqlite3_db_readonly(db, "main") < 0) {
        PyErr_SetString(PyExc_RuntimeError, "register(): no database behind the connection");
        return NULL;
    }
    rc = sqlite3_create_function_v2(db, "subsearch_score", COLUMNS + 1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, score_function,
                                    NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        fts5_api *fts5 = fts5_of(db);
        rc = fts5 && fts5->iVersion >= 2
                 ? fts5->xCreateFunction(fts5, "subsearch_rank", NULL, rank_function, NULL)
                 : SQLITE_ERROR;
    }
    if (rc != SQLITE_OK) {
        PyErr_Format(PyExc_RuntimeError, "register(): %s", sqlite3_errstr(rc));
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"register", register_function, METH_O,
     "Add subsearch_score(plan, c0, ..., c9) to an open sqlite3.Connection."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_score",
    "The embedded engine's document score inside SQLite (see _score.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__score(void) { return PyModule_Create(&module); }
