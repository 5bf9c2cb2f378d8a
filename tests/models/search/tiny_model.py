"""A sentence-transformers model small enough to build in a test: a two-layer BERT with
random weights, a WordPiece vocabulary of a few hundred tokens (English words, the
letters, kana and some kanji) and mean pooling, saved as a model folder the way an
operator's larger model is (SentenceTransformer.save). Nothing is downloaded.

Its vectors mean nothing, but they are a real model's: the same text always gives the
same vector, and texts with other tokens give other vectors.
"""

from __future__ import annotations

from pathlib import Path

DIMS = 32
MAX_TOKENS = 64

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# What the tests' texts say in English, and the e5 prefixes: a word not in the vocabulary
# is [UNK], so `query: ` and `passage: ` would give the same tokens.
WORDS = (
    "query passage the a of to in and is on for with my how i office router network"
    " configure configuring talk video search meaning bought six takoyaki cat dog"
)
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
PUNCTUATION = list(":.,!?'-")
# BERT's tokenizer splits kanji one by one but keeps a run of kana as one word, which
# WordPiece then cuts into its first character and `##` continuations.
HIRAGANA = [chr(c) for c in range(ord("ぁ"), ord("ゖ") + 1)]
KANA = HIRAGANA + list("アイウエオカキクケコタトネルワーッ")
KANJI = list("関西粉料理設定機器買六個猫犬意味探京都東本当日")


def vocabulary() -> list[str]:
    """Each token once, the special ones first (the ids BERT's tokenizer expects)."""
    starts = WORDS.split() + LETTERS + PUNCTUATION + KANA + KANJI
    continued = [f"##{token}" for token in LETTERS + KANA]
    return list(dict.fromkeys(SPECIAL + starts + continued))


def build_tiny_model(folder: Path, *, seed: int = 0) -> Path:
    """Build the model into `folder` (made if missing) and return it. The same seed gives
    the same weights; the random state of the caller's torch is left as it was."""
    # Imported here, not on import: torch and sentence-transformers take seconds to load,
    # and every test process collects this module.
    import torch  # noqa: PLC0415
    from sentence_transformers import SentenceTransformer  # noqa: PLC0415
    from sentence_transformers.sentence_transformer.modules import (  # noqa: PLC0415
        Pooling,
        Transformer,
    )
    from transformers import BertConfig, BertModel, BertTokenizer  # noqa: PLC0415

    parts = folder.parent / f"{folder.name}.parts"
    vocab = {token: index for index, token in enumerate(vocabulary())}
    # strip_accents=False: lower-casing would otherwise take the dakuten off が and ば.
    tokenizer = BertTokenizer(vocab=vocab, do_lower_case=True, strip_accents=False)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=DIMS,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=2 * DIMS,
        max_position_embeddings=MAX_TOKENS,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        bert = BertModel(config)
    bert.save_pretrained(parts)
    tokenizer.save_pretrained(parts)
    words = Transformer(str(parts), max_seq_length=MAX_TOKENS)
    pooling = Pooling(words.get_embedding_dimension(), "mean")
    SentenceTransformer(modules=[words, pooling], device="cpu").save(str(folder))
    return folder
