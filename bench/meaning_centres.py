"""Make models/search/e5_small_centres.npy: the means that centre multilingual-e5-small's
vectors by language (models/search/centres.py, issue 45).

Its texts are what the service embeds of the bundled sample (models/platform/sample) and
of the relevance corpus (tests/relevance/platform): every subtitle segment, and each
video's title with the start of its description (1,234 texts, 897 Japanese). Each is
embedded by the model as it ships, as a passage and as a question (cut as questions are
cut), and the rows are the mean of each language's passages, then of its questions, in
the order centres.ROWS names. Another file is another model's name (centres.label), so
every stored vector is made anew with it: run this only to change what centring means.

    .venv/bin/python bench/meaning_centres.py [--check]

`--check` makes the means again and says whether they are the file's.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.platform.base import Cue
from models.search.centres import CENTRES, ROWS, language_of
from models.search.embedder import E5SmallEmbedder
from models.search.segments import build_segments
from models.vectors import DESCRIPTION_CHARS, passage_text
from tests.relevance import measure

SAMPLE = Path(__file__).resolve().parents[1] / "models" / "platform" / "sample" / "videos"


def sample_texts() -> list[str]:
    texts = []
    for path in sorted(SAMPLE.glob("*.json")):
        video = json.loads(path.read_text(encoding="utf-8"))
        track = video.get("subtitles")
        if isinstance(track, dict) and track.get("cues"):
            cues = [Cue(c["start"], c["end"], c["text"]) for c in track["cues"]]
            texts += [s.text for s in build_segments(cues, auto=track.get("type") == "auto")]
        description = (video.get("description") or "").strip()[:DESCRIPTION_CHARS]
        texts.append(f"{video.get('title', '')}\n{description}".strip())
    return texts


def corpus_texts() -> list[str]:
    return [passage_text(doc) for docs in measure.corpus_documents().values() for doc in docs]


def means() -> np.ndarray:
    texts = sample_texts() + corpus_texts()
    model = measure.CachedEmbedder(E5SmallEmbedder(centre=False))
    sides = {"passage": model.passages(texts)}
    sides["query"] = model._cached("query", texts, model._embed_queries)
    languages = np.array([language_of(text) for text in texts])
    print(f"{len(texts)} texts, {int((languages == 'ja').sum())} Japanese")
    return np.vstack([sides[side][languages == language].mean(0) for side, language in ROWS])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file")
    args = parser.parse_args()
    made = means().astype(np.float32)
    if args.check:
        held = np.load(CENTRES)
        same = held.shape == made.shape and bool(np.allclose(held, made, atol=1e-5))
        print(f"{CENTRES.name}: {'the same' if same else 'different'}")
        raise SystemExit(0 if same else 1)
    np.save(CENTRES, made)
    print(f"wrote {CENTRES}")


if __name__ == "__main__":
    main()
