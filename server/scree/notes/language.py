"""Which language a note is written in, and which other notes are its translations (issue 27).

Decided once per file when it is indexed, from three kinds of evidence, strongest first:

1. Its front matter: `lang:`, `language:` or `locale:` holding a language code (`ja`, `pt-BR`). The
   author said so; nothing overrides it.
2. Its path: a language-code folder segment (`docs/ja/`, `i18n/ko/`, `content/fr/`, `locale/de/`, MkDocs'
   `docs/<lang>/`), Docusaurus' `i18n/<lang>/docusaurus-plugin-content-docs/current/`, or a language
   suffix on the file name (`setup.ja.md`, `README.zh-CN.md`, `README_ko.md`). Two-letter folder names
   are common words too (`de/` for data engineering, `id/`, `it/`, `ml/`), so a marker counts only with
   a second piece of evidence: the layout (the folder's parent is an i18n folder such as `i18n/` or
   `locale/`, or holds another language-code folder beside it; a suffixed file has its base or another
   language's file beside it) or the text agreeing. And it never counts when the text says clearly that
   the note is in another language (an English prompt file under `docs/de/` is English).
3. Its text, where the path says nothing: the prose (code blocks, inline code, link targets, tags and
   `{ #anchor }` markers taken out) read by py3langid, a Naive Bayes identifier whose model ships inside
   the PyPI package (nothing is downloaded). Clear cases need no model: a note whose words are at least
   a fifth English function words is English (measured on the FastAPI translations: no translation
   above 11%, English pages from 12% to 51%). Below 90% confidence, or with too little prose, the
   language is `und` (undetermined), which every reader treats as readable.

A note's page key is its path with the accepted language marker taken out (`docs/ja/docs/cors.md` and
`docs/en/docs/cors.md` are both `docs/docs/cors.md`; Docusaurus' translation folder maps back to
`docs/`); its front matter's `translationKey` (Hugo) or `permalink` (Jekyll Polyglot) names its page too.
Notes of different languages that share either are copies of one page.

Everything here is pure except the identifier, loaded once per process on first use.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

# ISO 639-1: the two-letter codes a folder, a suffix or front matter may name.
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik
io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi
vo wa wo xh yi yo za zh zu""".split())

UNDETERMINED = "und"

# Folders that hold one folder per language (Docusaurus `i18n/`, Sphinx and gettext `locale/`, ...).
I18N_FOLDERS = frozenset({"i18n", "l10n", "locale", "locales", "translations", "translated", "lang", "langs",
                          "languages", "intl"})

# Language codes the identifier answers with that name the same written language as a shorter code.
_FAMILY = {"yue": "zh", "nb": "no", "nn": "no"}

# Front-matter keys that declare the note's language, and keys that name its page across translations.
LANGUAGE_KEYS = ("lang", "language", "locale")
PAGE_KEYS = ("translationKey", "translation_key", "permalink")

# Text evidence: the identifier's answer counts at this confidence, on at least this many letters of prose.
MIN_CONFIDENCE = 0.9
MIN_LETTERS = 40
# Characters of prose read (the first 2,000 decide every FastAPI page as the whole page does, 3x faster).
PROSE_CHARS = 2000
# English function words: prose with at least ENGLISH_SHARE of them among at least ENGLISH_MIN_WORDS words
# is English without asking the identifier.
ENGLISH_WORDS = frozenset(
    "the of and to a in is that for it with as on be this are by or you your can not an at from will if which "
    "have has use we".split())
ENGLISH_SHARE = 0.2
ENGLISH_MIN_WORDS = 20
ENGLISH_LATIN_SHARE = 0.9


# The ISO 15924 scripts a locale tag names (`zh-Hant`, `sr-Latn`, `uz-Cyrl`): a second subtag of four letters is one of
# these or no script, so a constant's name is no language (shadow's `SYSLOG_SG_ENAB.xml` is not Sango in script "Enab").
SCRIPTS = frozenset(
    "adlm arab armn beng bopo brai cans cher cyrl deva ethi geor grek gujr guru hang hani hans hant hebr hira jpan kana "
    "khmr knda kore laoo latn mlym mong mtei mymr nkoo olck orya rohg sinh sund syrc taml telu tfng thaa thai tibt vaii "
    "yiii".split())


def normalize_code(raw: object) -> str | None:
    """`raw` as a language code (`ja`, `pt-br`, `zh-hant`), or None when it is not one. Lowercase, `_` as `-`;
    the primary subtag must be ISO 639-1, a second subtag a region (2 letters or 3 digits) or a script (`SCRIPTS`)."""
    if not isinstance(raw, str):
        return None
    code = raw.strip().lower().replace("_", "-")
    parts = code.split("-")
    if not 1 <= len(parts) <= 2 or parts[0] not in ISO_639_1:
        return None
    if len(parts) == 2 and not (re.fullmatch(r"[a-z]{2}|\d{3}", parts[1]) or parts[1] in SCRIPTS):
        return None
    return code


def family(code: str) -> str:
    """The written language a code names, for comparing two codes (`zh-hant` and `yue` are both `zh`)."""
    primary = code.split("-", 1)[0]
    return _FAMILY.get(primary, primary)


def same_language(a: str, b: str) -> bool:
    return family(a) == family(b)


# ----- the prose of a note ---------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
# The fence run is atomic: on a line of nothing but backticks a backtracking run retried every shorter run.
_FENCE = re.compile(r"^[ \t]*((?>`{3,}|~{3,}))[^\n]*\n.*?^[ \t]*\1[^\n]*$", re.S | re.M)
# Each pattern is linear on any input (issue 36: `<[^>\n]*>` on one 100 KB line of `<` retried the whole line
# from every `<` and stalled the writer for 27 s): a span's inner class also stops at the character that
# opens the next span, so the scan from one opener never crosses another and every character is read a
# bounded number of times. `benchmarks/regex_linear.py` times them all.
_NOISE = [re.compile(p, f) for p, f in (
    (r"`[^`\n]*`", 0),  # inline code
    (r"\]\([^()\]\n]*\)", 0),  # link targets (the link text stays)
    (r"<[^<>\n]*>", 0),  # tags
    (r"https?://\S+", 0),
    (r"\{[ \t]*#[^{}\n]*\}", 0),  # heading ids: `{ #middleware }`
    (r"\{\*[^{\n]*?\*\}", 0),  # FastAPI's code includes
    (r"^[ \t]*(?:///|!!!|\?\?\?|:::|===).*$", re.M),  # admonition, tab and directive lines
)]
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")


def prose_of(text: str) -> str:
    """The words a reader of the rendered page reads as prose: front matter, fenced code, inline code,
    link targets, tags, URLs and heading ids taken out (they stay English in any translation)."""
    text = _FRONT_MATTER.sub(" ", text, count=1)
    text = _FENCE.sub(" ", text)
    for pattern in _NOISE:
        text = pattern.sub(" ", text)
    return text


def letters(text: str) -> int:
    return len(_LETTER.findall(text))


def clearly_english(prose: str) -> bool:
    """At least ENGLISH_SHARE of at least ENGLISH_MIN_WORDS words are English function words, in a text whose
    letters are nearly all Latin (ENGLISH_LATIN_SHARE). Without the second rule a Japanese page about search
    operators was English: its `AND`, `OR` and `NOT` were most of its words, since Japanese runs on without
    spaces and each run counts as one word (issue 36)."""
    words = _WORD.findall(prose.lower())
    if len(words) < ENGLISH_MIN_WORDS or sum(w in ENGLISH_WORDS for w in words) < ENGLISH_SHARE * len(words):
        return False
    return len(_LATIN_LETTER.findall(prose)) >= ENGLISH_LATIN_SHARE * letters(prose)


# ----- scripts (the clear cases) -----------------------------------------------------------------------

# The script a language is written in, for the codes whose script decides among an index's languages.
SCRIPT_OF = {
    "ja": "Jpan", "ko": "Hang", "zh": "Hani", "ru": "Cyrl", "uk": "Cyrl", "bg": "Cyrl", "be": "Cyrl", "mk": "Cyrl",
    "sr": "Cyrl", "kk": "Cyrl", "ky": "Cyrl", "mn": "Cyrl", "tg": "Cyrl", "hi": "Deva", "mr": "Deva", "ne": "Deva",
    "sa": "Deva", "ar": "Arab", "fa": "Arab", "ur": "Arab", "ps": "Arab", "he": "Hebr", "yi": "Hebr", "el": "Grek",
    "th": "Thai", "ka": "Geor", "hy": "Armn", "bn": "Beng", "ta": "Taml", "te": "Telu", "km": "Khmr", "lo": "Laoo",
    "my": "Mymr", "am": "Ethi", "si": "Sinh", "gu": "Gujr", "kn": "Knda", "ml": "Mlym", "pa": "Guru",
}
_SCRIPT_NAMES = (
    ("HIRAGANA", "Jpan"), ("KATAKANA", "Jpan"), ("HANGUL", "Hang"), ("CJK", "Hani"), ("CYRILLIC", "Cyrl"),
    ("DEVANAGARI", "Deva"), ("ARABIC", "Arab"), ("HEBREW", "Hebr"), ("GREEK", "Grek"), ("THAI", "Thai"),
    ("GEORGIAN", "Geor"), ("ARMENIAN", "Armn"), ("BENGALI", "Beng"), ("TAMIL", "Taml"), ("TELUGU", "Telu"),
    ("KHMER", "Khmr"), ("LAO", "Laoo"), ("MYANMAR", "Mymr"), ("ETHIOPIC", "Ethi"), ("SINHALA", "Sinh"),
    ("GUJARATI", "Gujr"), ("KANNADA", "Knda"), ("MALAYALAM", "Mlym"), ("GURMUKHI", "Guru"), ("LATIN", "Latn"),
)


def script_of(code: str) -> str:
    return SCRIPT_OF.get(family(code), "Latn")


def text_script(text: str) -> str | None:
    """The script most of `text`'s letters are in, Latin only when no other is there; Japanese when it has
    any kana (kanji alone read as Han)."""
    counts: dict[str, int] = {}
    for ch in text:
        if not ch.isalpha():
            continue
        name = unicodedata.name(ch, "")
        for prefix, script in _SCRIPT_NAMES:
            if name.startswith(prefix):
                counts[script] = counts.get(script, 0) + 1
                break
    if not counts:
        return None
    if counts.get("Jpan"):
        return "Jpan"
    # Names in code are Latin in every language (`RateLimiter 미들웨어`): another script present decides.
    native = {s: n for s, n in counts.items() if s != "Latn"}
    return max(native, key=lambda s: native[s]) if native else "Latn"


# ----- the identifier ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's model, loaded once per process (about 1 s: it is stored xz-compressed in the package)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def release_identifier() -> None:
    """Drop the identifier's model (the next `identify` loads it again): after a sync of many notes."""
    _identifier.cache_clear()


def identify(text: str, among: Iterable[str] | None = None) -> tuple[str, float]:
    """(language, probability) of `text` by the identifier; with `among`, only those languages' families
    compete (probabilities renormalised over them)."""
    ranked = _identifier().rank(text)
    if among is not None:
        wanted = {family(c) for c in among}
        ranked = [(lang, p) for lang, p in ranked if family(lang) in wanted]
        total = sum(p for _, p in ranked)
        if not ranked or total <= 0:
            return UNDETERMINED, 0.0
        ranked = [(lang, p / total) for lang, p in ranked]
    lang, p = ranked[0]
    return lang, float(p)


# The identifier's labels that are not two-letter codes but name a written language that has one.
_IDENTIFIED = {"yue": "zh"}


def text_language(text: str) -> tuple[str, float]:
    """The language of a note's text and how sure that is (0 when it cannot tell: `und`)."""
    prose = prose_of(text)[:PROSE_CHARS]
    if letters(prose) < MIN_LETTERS:
        return UNDETERMINED, 0.0
    if clearly_english(prose):
        return "en", 1.0
    lang, p = identify(prose)
    code = normalize_code(_IDENTIFIED.get(lang, lang))  # `zxx` (no language: names, numbers) is none
    return (code, p) if code is not None and p >= MIN_CONFIDENCE else (UNDETERMINED, p)


# ----- path markers and the layout that confirms them --------------------------------------------------

_DOCUSAURUS = re.compile(r"(?P<prefix>(?:.*/)?)i18n/(?P<code>[^/]+)/docusaurus-plugin-content-(?P<plugin>[^/]+)/(?P<rest>.+)")


@dataclass(frozen=True)
class Marker:
    """A language named by a note's path: the code, where (`folder`, `docusaurus`, `suffix`), the page key
    without it, and what in the layout would confirm it."""

    code: str
    kind: str
    page: str
    folder: str = ""  # folder kind: the parent folder (a POSIX path, "" at the top) of the code segment
    base: str = ""  # suffix kind: the file's folder and name without the code (`docs/setup.md`)


def _docusaurus_page(prefix: str, plugin: str, rest: str) -> str:
    """Where Docusaurus keeps the source of a translated file (`i18n/ja/docusaurus-plugin-content-docs/current/x.md`
    translates `docs/x.md`)."""
    if plugin.startswith("docs"):
        head, _, version = rest.partition("/")
        base = "docs" if plugin == "docs" else plugin[len("docs-"):] or "docs"
        if head == "current":
            return f"{prefix}{base}/{version}"
        return f"{prefix}versioned_{base}/{head}/{version}" if version else f"{prefix}{base}/{rest}"
    if plugin == "blog":
        return f"{prefix}blog/{rest}"
    if plugin == "pages":
        return f"{prefix}src/pages/{rest}"
    return f"{prefix}{plugin}/{rest}"


def path_markers(path: str) -> list[Marker]:
    """Every language marker `path` carries, outermost first (a note's file name included)."""
    out: list[Marker] = []
    m = _DOCUSAURUS.fullmatch(path)
    if m and normalize_code(m["code"]):
        out.append(Marker(normalize_code(m["code"]) or "", "docusaurus",
                          _docusaurus_page(m["prefix"], m["plugin"], m["rest"])))
    parts = path.split("/")
    for i, seg in enumerate(parts[:-1]):
        code = normalize_code(seg)
        if code is not None:
            out.append(Marker(code, "folder", "/".join(parts[:i] + parts[i + 1:]), folder="/".join(parts[:i])))
    suffixed = _suffix_parse(parts[-1])
    if suffixed is not None:
        base = "/".join(parts[:-1] + [suffixed[0]])
        out.append(Marker(suffixed[1], "suffix", base, base=base))
    return out


def _suffix_parse(name: str) -> tuple[str, str] | None:
    """(base name, code) when `name` ends in a language code before its extension (`README.zh-CN.md`,
    `README_ko.md`): the longest code a separator leaves (`zh-CN`, not `CN`)."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return None
    for m in re.finditer(r"[._-]", stem):
        code = normalize_code(stem[m.end():])
        if code is not None and m.start() > 0:
            return stem[:m.start()] + "." + ext, code
    return None


@dataclass(frozen=True)
class Layout:
    """What the folder's notes say about its language markers: each folder's child folders and files."""

    children: Mapping[str, frozenset[str]]  # folder ("" = top) -> names of its child folders
    files: frozenset[str]  # every note path
    suffixed: Mapping[str, frozenset[str]]  # base path -> the language codes suffixed to it (`a.md` -> ja, ko)

    @classmethod
    def of(cls, paths: Iterable[str]) -> "Layout":
        kids: dict[str, set[str]] = {}
        suffixed: dict[str, set[str]] = {}
        files = set()
        for p in paths:
            files.add(p)
            parts = p.split("/")
            for i in range(len(parts) - 1):
                kids.setdefault("/".join(parts[:i]), set()).add(parts[i])
            found = _suffix_parse(parts[-1])
            if found is not None:
                suffixed.setdefault("/".join(parts[:-1] + [found[0]]), set()).add(found[1])
        return cls({k: frozenset(v) for k, v in kids.items()}, frozenset(files),
                   {k: frozenset(v) for k, v in suffixed.items()})

    def confirms(self, marker: Marker) -> bool:
        """True when the layout around `marker` is a translation layout, not a folder or file that happens
        to have a two-letter name."""
        if marker.kind == "docusaurus":
            return True
        if marker.kind == "folder":
            parent = marker.folder.rsplit("/", 1)[-1]
            if parent.lower() in I18N_FOLDERS:
                return True
            siblings = self.children.get(marker.folder, frozenset())
            return sum(normalize_code(s) is not None for s in siblings) >= 2
        # suffix: the base note, or the same base in another language, lies beside it
        return marker.base in self.files or len(self.suffixed.get(marker.base, frozenset()) | {marker.code}) >= 2


# ----- the decision -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NoteLanguage:
    """A note's language (a code, or `und`), what decided it, and its page key (see the module doc)."""

    lang: str
    by: str  # "front matter" | "path" | "text" | "unknown"
    page: str  # the path without its accepted language marker
    alias: str = ""  # the page its front matter names (`translationKey`, `permalink`), "" when none


def decide(path: str, text: str, *, declared: object = None, page_key: object = None,
           layout: Layout | None = None) -> NoteLanguage:
    """The language of the note at `path` holding `text` (see the module doc for the rules). `declared`
    is its front matter's language value, `page_key` its `translationKey`/`permalink`, `layout` the notes
    around it (None: no layout evidence)."""
    layout = layout or Layout.of([path])
    explicit = normalize_code(declared)
    markers = path_markers(path)
    alias = str(page_key).strip() if isinstance(page_key, (str, int)) else ""
    if explicit is not None:
        # The declared language names the page's slot: a marker for the same language is its path marker.
        same = next((m for m in markers if same_language(m.code, explicit)), None)
        return NoteLanguage(explicit, "front matter", same.page if same else path, alias)
    said, _ = text_language(text)
    for marker in markers:
        if said != UNDETERMINED and not same_language(said, marker.code):
            continue  # the text says clearly it is another language: the name means something else
        if said != UNDETERMINED or layout.confirms(marker):
            return NoteLanguage(marker.code, "path", marker.page, alias)
    if said != UNDETERMINED:
        return NoteLanguage(said, "text", path, alias)
    return NoteLanguage(UNDETERMINED, "unknown", path, alias)


def front_matter_language(data: Mapping[object, object]) -> tuple[object, object]:
    """(declared language, page key) from a note's front matter (`lang:`/`language:`/`locale:`,
    `translationKey:`/`permalink:`); None where absent."""
    declared = next((data[k] for k in LANGUAGE_KEYS if normalize_code(data.get(k)) is not None), None)
    key = next((data[k] for k in PAGE_KEYS if isinstance(data.get(k), (str, int))), None)
    return declared, key


def reads(languages: Iterable[str] | None, lang: str | None) -> bool:
    """True when an embedder reading `languages` (None: any) can read a note in `lang`; a note whose
    language cannot be told (`und`) is read by every embedder."""
    if languages is None or lang in (None, UNDETERMINED):
        return True
    return family(lang) in {family(c) for c in languages}


def admits(chosen: Iterable[str], lang: str | None) -> bool:
    """True when SCREE_LANGUAGES (`chosen`; empty: all) lets a note in `lang` be indexed: the code itself,
    or any code of a language named without a region or script (`zh` admits `zh-hant`). A note whose
    language cannot be told is always indexed."""
    chosen = set(chosen)
    if not chosen or lang in (None, UNDETERMINED):
        return True
    return any(c == lang or ("-" not in c and family(c) == family(lang)) for c in chosen)


# For sentences people read; any other code is shown as it is.
NAMES = {
    "en": "English", "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "de": "German", "fr": "French",
    "es": "Spanish", "pt": "Portuguese", "it": "Italian", "ru": "Russian", "uk": "Ukrainian", "tr": "Turkish",
    "hi": "Hindi", "ar": "Arabic", "fa": "Persian", "he": "Hebrew", "pl": "Polish", "nl": "Dutch", "sv": "Swedish",
    "vi": "Vietnamese", "id": "Indonesian", "th": "Thai", "cs": "Czech", "el": "Greek", "bn": "Bengali",
}


def language_name(code: str) -> str:
    return NAMES.get(code, code)


def coverage(readable: str | None, keyword_only: Mapping[str, int]) -> str:
    """What the vectors cover, e.g. "English notes; 1,402 notes in 12 other languages are keyword-only".
    `readable` is the index's recorded `embed_languages` ("en", "en de" or "all"; None: not recorded),
    `keyword_only` the notes per language whose chunks are keyword-only."""
    codes = (readable or "all").split()
    covered = "notes in every language" if codes == ["all"] else (
        " and ".join(language_name(c) for c in codes) + " notes")
    notes = sum(keyword_only.values())
    if not notes:
        return covered
    langs = len(keyword_only)
    return (f"{covered}; {notes:,} note{'s' if notes != 1 else ''} in {langs} other language"
            f"{'s' if langs != 1 else ''} {'are' if notes != 1 else 'is'} keyword-only")
