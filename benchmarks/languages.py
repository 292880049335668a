"""How well and how fast a note's language is told (issue 27), on FastAPI's translated docs.

    uv run --frozen python benchmarks/languages.py /tmp/fastapi     # a clone at c3f316b7e814667e8ee81e03a7330d00ee61e45c

Every Markdown file under `docs/<lang>/` is labelled by its folder. The script reports, per language, how
many notes the text alone (`language.text_language`, what decides a note whose path says nothing) calls
right, wrong or undetermined, and what the whole decision (`language.decide`: front matter, path confirmed
by the layout or the text, else the text) makes of them, with every disagreement listed; then the time per
note (the identifier's model load counted apart) and the English benchmark corpora's notes that the text
would call anything but English. A note the folder calls `de` whose text is English (FastAPI's
`llm-prompt.md` files are English prompts for the translator) is a disagreement that is right.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from scree.notes import language

HERE = Path(__file__).resolve().parent
ENGLISH = [HERE.parent.parent / "shared" / "bench" / "corpus", HERE.parent.parent / "shared" / "bench" / "repos"]


def notes_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".md", ".mdx", ".markdown") and p.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("checkout", type=Path)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    language.identify("load the model")
    print(f"model load: {time.perf_counter() - t:.2f} s")
    files = notes_under(args.checkout)
    rel = [p.relative_to(args.checkout).as_posix() for p in files]
    layout = language.Layout.of(rel)
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    by_text: dict[str, Counter[str]] = {}
    by_decision: dict[str, Counter[str]] = {}
    wrong: list[str] = []
    t_text = t_decide = 0.0
    for path, text in zip(rel, texts):
        parts = path.split("/")
        truth = parts[1] if parts[0] == "docs" and len(parts) > 2 else None
        t = time.perf_counter()
        said, p = language.text_language(text)
        t_text += time.perf_counter() - t
        t = time.perf_counter()
        decided = language.decide(path, text, layout=layout)
        t_decide += time.perf_counter() - t
        if truth is None:
            continue
        verdict = "undetermined" if said == "und" else "right" if language.same_language(said, truth) else "wrong"
        by_text.setdefault(truth, Counter())[verdict] += 1
        ok = decided.lang == truth or language.same_language(decided.lang, truth)
        by_decision.setdefault(truth, Counter())["right" if ok else "other"] += 1
        if not ok or verdict == "wrong":
            wrong.append(f"  {path}: folder {truth}, text {said} ({p:.2f}), decided {decided.lang} by {decided.by}")
    n = len(files)
    print(f"{n} notes: text alone {1000 * t_text / n:.2f} ms per note, whole decision {1000 * t_decide / n:.2f} ms "
          f"per note (total {t_decide:.1f} s)")
    print(f"{'folder':8} {'notes':>6} {'text right':>11} {'wrong':>6} {'undet.':>7} {'decided right':>14}")
    for lang in sorted(by_text):
        c, d = by_text[lang], by_decision[lang]
        print(f"{lang:8} {sum(c.values()):6} {c['right']:11} {c['wrong']:6} {c['undetermined']:7} {d['right']:14}")
    print("disagreements:\n" + ("\n".join(wrong) or "  none"))
    for root in ENGLISH:
        english = notes_under(root)
        said = Counter(language.text_language(p.read_text(encoding="utf-8", errors="replace"))[0] for p in english)
        print(f"{root}: {len(english)} notes, text says {dict(said)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
