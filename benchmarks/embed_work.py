"""The work a first sync hands the local model, counted exactly (no timing, so a busy machine cannot blur it).

    uv run --frozen python benchmarks/embed_work.py [--corpus ../shared/bench/corpus] [--pieces-only-chars N]

Prints the windows and tokens embedded, whole-chunk windows and piece windows apart, and the padding the
length-sorted batches add for several embed-call sizes. The model's time is close to linear in tokens
(attention, the quadratic part, is a small share at 256 tokens), so tokens compare two settings where
wall time on a shared box cannot.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import scree.embed.pieces as pieces
from scree.embed.local import BATCH_SIZE, LocalMiniLM, plan_windows
from scree.notes.policy import NotesPolicy
from scree.index.embedstage import EMBED_BATCH_PASSAGES
from scree.index.sync import chunk_passages
from scree.notes.walk import walk_notes

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "corpus"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--pieces-only-chars", type=int, help="override embed.pieces.PIECES_ONLY_CHARS (0: whole text too)")
    args = ap.parse_args()
    if args.pieces_only_chars is not None:
        pieces.PIECES_ONLY_CHARS = args.pieces_only_chars
    runtime = LocalMiniLM()._ensure_loaded()
    policy = NotesPolicy.load(args.corpus)
    per_chunk: list[list[int]] = []  # window lengths of each chunk, in sync order
    whole = piece = 0
    for rel in sorted(p for p in walk_notes(policy) if isinstance(p, str)):
        text = (args.corpus / rel).read_text(encoding="utf-8", errors="replace")
        for passage in chunk_passages(rel, text):
            lengths: list[int] = []
            for i, part in enumerate(pieces.with_pieces(passage)):
                header = runtime.tokenizer.encode(part.header, add_special_tokens=False).ids
                body = runtime.tokenizer.encode(part.body, add_special_tokens=False).ids
                windows = [len(w) for w in plan_windows(header, body, cls_id=runtime.cls_id, sep_id=runtime.sep_id)]
                if i == 0 and part == passage:
                    whole += sum(windows)
                else:
                    piece += sum(windows)
                lengths += windows
            per_chunk.append(lengths)
    n_windows = sum(len(w) for w in per_chunk)
    print(f"PIECES_ONLY_CHARS={pieces.PIECES_ONLY_CHARS}: {len(per_chunk)} chunks, {n_windows} windows, "
          f"{whole + piece} tokens ({whole} in whole-chunk windows, {piece} in pieces)")
    for call in (EMBED_BATCH_PASSAGES, 256, len(per_chunk)):
        padded = 0
        for start in range(0, len(per_chunk), call):
            ordered = sorted(n for lengths in per_chunk[start : start + call] for n in lengths)
            padded += sum(max(ordered[i : i + BATCH_SIZE]) * len(ordered[i : i + BATCH_SIZE])
                          for i in range(0, len(ordered), BATCH_SIZE))
        print(f"  {call} chunks per embed call, batches of {BATCH_SIZE}: {padded} tokens with padding "
              f"(+{100 * (padded - whole - piece) / (whole + piece):.1f}%)")


if __name__ == "__main__":
    main()
