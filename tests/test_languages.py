"""Repositories with translated docs (issue 27): each note's language, keyword-only notes the model cannot
read, the query's language first and copies of one page folded into one result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import write
from scree.config import load_config
from scree.db import queries
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes import language
from scree.notes.policy import NotesPolicy
from scree.search.languages import fold, query_language
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

EN = """---
permalink: /setup/
---
# Setting up the rate limiter

The rate limiter protects your API from clients that send too many requests. Add the `RateLimiter`
middleware to the application and choose how many requests each client may send per minute.

## Configuration

Set `max_requests` to the number of requests a client may send in one window, and `window_seconds` to the
length of that window. When a client goes over the limit, the middleware answers with status 429 and a
`Retry-After` header that tells the client when it may try again.
"""
JA = """# レートリミッターの設定

レートリミッターは、リクエストを送りすぎるクライアントから API を守ります。アプリケーションに `RateLimiter`
ミドルウェアを追加し、各クライアントが 1 分間に送信できるリクエストの数を選びます。

## 設定

`max_requests` には、クライアントが 1 つのウィンドウで送信できるリクエストの数を設定し、`window_seconds` にはその
ウィンドウの長さを設定します。クライアントが上限を超えると、ミドルウェアはステータス 429 と、再試行できる時刻を伝える
`Retry-After` ヘッダーで応答します。
"""
KO = """# 속도 제한기 설정

속도 제한기는 너무 많은 요청을 보내는 클라이언트로부터 API를 보호합니다. 애플리케이션에 `RateLimiter` 미들웨어를
추가하고 각 클라이언트가 1분에 보낼 수 있는 요청 수를 선택하세요.

## 구성

`max_requests`는 클라이언트가 한 창에서 보낼 수 있는 요청 수로, `window_seconds`는 그 창의 길이로 설정합니다.
클라이언트가 한도를 넘으면 미들웨어는 상태 429와 다시 시도할 수 있는 시점을 알려 주는 `Retry-After` 헤더로 응답합니다.
"""
ZH = """# 设置速率限制器

速率限制器可以保护你的 API，防止客户端发送过多的请求。将 `RateLimiter` 中间件添加到应用程序中，并选择每个客户端每分钟可以发送多少个请求。

## 配置

将 `max_requests` 设置为客户端在一个窗口内可以发送的请求数，将 `window_seconds` 设置为该窗口的长度。当客户端超过限制时，
中间件会返回状态码 429 和一个 `Retry-After` 头，告诉客户端何时可以重试。
"""
DE = """---
lang: de
permalink: /setup/
---
# Den Ratenbegrenzer einrichten

Der Ratenbegrenzer schützt Ihre API vor Clients, die zu viele Anfragen senden. Fügen Sie der Anwendung die
`RateLimiter`-Middleware hinzu und legen Sie fest, wie viele Anfragen jeder Client pro Minute senden darf.

## Konfiguration

Setzen Sie `max_requests` auf die Zahl der Anfragen, die ein Client in einem Fenster senden darf, und
`window_seconds` auf die Länge dieses Fensters. Überschreitet ein Client die Grenze, antwortet die Middleware mit
dem Status 429 und einem `Retry-After`-Header, der dem Client sagt, wann er es erneut versuchen darf.
"""
# One page in English and four translations: Docusaurus (ja), an MkDocs language folder (ko), a language
# suffix on the name (zh-CN), and one whose language and page only its front matter names (de).
PAGES = {
    "docs/setup.md": EN,
    "i18n/ja/docusaurus-plugin-content-docs/current/setup.md": JA,
    "docs/ko/setup.md": KO,
    "docs/setup.zh-CN.md": ZH,
    "guides/einrichtung.md": DE,
}
COPIES = set(PAGES)
OTHERS = {
    "docs/deploy.md": "# Deploying\n\nRun the application behind a reverse proxy such as nginx, and let the proxy "
                      "terminate TLS. Point its upstream at the port the server listens on.\n",
    "docs/auth.md": "# Authentication\n\nEvery request carries a bearer token in its Authorization header. Tokens "
                    "expire after one hour and are refreshed by the client library.\n",
    "de/pipelines.md": "# Data engineering pipelines\n\nThe nightly pipeline loads the raw events into the warehouse, "
                       "cleans them and writes the daily tables that the dashboards read.\n",
}


def _build(root: Path, embedder, pages=PAGES, **policy):
    for rel, text in {**pages, **OTHERS}.items():
        write(root, rel, text)
    index = open_index(index_location(root, load_config()), root)
    report = sync(index, NotesPolicy.load(root, **policy), embedder)
    return index, report


def _ask(root: Path, index, embedder, text: str, **kw):
    return search_with_names(index, NotesPolicy.load(root), embedder, Query(text, **kw))


def _languages(index) -> dict[str, tuple[str, str]]:
    rows = index.conn.execute("select path, lang, lang_by from files").fetchall()
    return {p: (lang, by) for p, lang, by in rows}


def test_each_note_language_comes_from_its_front_matter_its_path_or_its_text(tmp_path, embedder):
    index, _ = _build(tmp_path / "repo", embedder)
    got = _languages(index)
    assert got["docs/setup.md"] == ("en", "text")
    assert got["i18n/ja/docusaurus-plugin-content-docs/current/setup.md"] == ("ja", "path")
    assert got["docs/ko/setup.md"] == ("ko", "path")
    assert got["docs/setup.zh-CN.md"] == ("zh-cn", "path")
    assert got["guides/einrichtung.md"] == ("de", "front matter")
    # `de/` here is data engineering: the English text outvotes the folder's name.
    assert got["de/pipelines.md"] == ("en", "text")
    index.close()


def test_notes_the_model_cannot_read_are_keyword_only_and_never_waited_for(tmp_path, embedder):
    index, report = _build(tmp_path / "repo", embedder)
    assert report.keyword_only == 4 and report.vectors_missing == 0
    windows = dict(index.conn.execute("select f.path, min(c.windows) from chunks c join files f on f.id = c.file_id "
                                      "group by f.path").fetchall())
    assert {p for p, w in windows.items() if w < 0} == COPIES - {"docs/setup.md"}
    assert all(w > 0 for p, w in windows.items() if p not in COPIES or p == "docs/setup.md")
    progress = queries.vector_progress(index.conn)
    assert progress.complete  # keyword-only chunks are not "missing vectors"
    by_lang = {c.lang: c for c in queries.language_counts(index.conn)}
    assert by_lang["en"].files == 4 and by_lang["en"].keyword_only == 0
    assert by_lang["ja"].files == 1 and by_lang["ja"].keyword_only == 1
    index.close()


def test_an_embedder_that_reads_every_language_embeds_the_translations_and_one_that_stops_drops_them(tmp_path, embedder):
    root = tmp_path / "repo"
    index, _ = _build(root, embedder)
    embedder.languages = None  # a multilingual API model (SCREE_MODEL_LANGUAGES=all)
    report = sync(index, NotesPolicy.load(root), embedder)
    assert report.chunks > 0 and queries.vector_progress(index.conn).complete
    assert index.conn.execute("select count(*) from chunks where windows <= 0").fetchone()[0] == 0
    embedder.languages = frozenset({"en"})
    sync(index, NotesPolicy.load(root), embedder)
    keyword_only = index.conn.execute("select count(distinct file_id) from chunks where windows < 0").fetchone()[0]
    assert keyword_only == 4
    assert queries.vector_progress(index.conn).complete
    index.close()


def test_scree_languages_leaves_the_other_languages_out(tmp_path, embedder):
    root = tmp_path / "repo"
    index, report = _build(root, embedder, languages=frozenset({"en"}))
    assert sorted(report.left_out) == sorted(COPIES - {"docs/setup.md"})
    counts = queries.counts(index.conn)
    assert counts.files == 4 and counts.left_out == 4
    hits = _ask(root, index, embedder, "RateLimiter", k=10).hits
    assert [h.path for h in hits] == ["docs/setup.md"] and hits[0].also_in == ()
    # All languages again: the notes left out are read again and indexed, without an edit.
    report = sync(index, NotesPolicy.load(root), embedder)
    assert sorted(report.updated) == sorted(COPIES - {"docs/setup.md"}) and queries.counts(index.conn).left_out == 0
    index.close()


@pytest.mark.real_model
def test_english_and_japanese_queries_get_their_own_page_first_with_the_copies_folded_in(tmp_path, real_embedder):
    root = tmp_path / "repo"
    index, _ = _build(root, real_embedder)
    folded = ("de", "ja", "ko", "zh-cn")
    for text in ("RateLimiter", "how do I stop one client from sending too many requests?"):
        result = _ask(root, index, real_embedder, text, k=5)
        assert result.hits[0].path == "docs/setup.md", text
        assert result.hits[0].also_in == folded, text
        assert len({h.path for h in result.hits} & COPIES) == 1, [h.path for h in result.hits]  # no two copies
    japanese = _ask(root, index, real_embedder, "RateLimiter の設定", k=5)
    assert japanese.hits[0].path == "i18n/ja/docusaurus-plugin-content-docs/current/setup.md"
    assert japanese.hits[0].also_in == ("de", "en", "ko", "zh-cn")
    assert len({h.path for h in japanese.hits} & COPIES) == 1
    index.close()


def test_copies_never_fill_the_top_k_and_other_languages_come_after_the_query_language(tmp_path, embedder):
    root = tmp_path / "repo"
    index, _ = _build(root, embedder)
    hits = _ask(root, index, embedder, "RateLimiter middleware", k=10).hits
    assert hits[0].path == "docs/setup.md" and len({h.path for h in hits} & COPIES) == 1
    # a Korean question: the Korean page first, the English page folded into it
    hits = _ask(root, index, embedder, "RateLimiter 미들웨어 설정", k=10).hits
    assert hits[0].path == "docs/ko/setup.md" and "en" in hits[0].also_in
    assert len({h.path for h in hits} & COPIES) == 1
    index.close()


def test_a_question_searched_in_two_passes_is_embedded_once(tmp_path, embedder):
    """The query language's pass and the other languages' pass embed the same question: once (with an
    API embedder, one request)."""
    root = tmp_path / "repo"
    index, _ = _build(root, embedder)

    class Counting:  # an embedder that reads every language (an API model): both passes rank by vectors
        languages = None

        def __init__(self, inner) -> None:
            self.inner, self.calls = inner, 0

        def embed_query(self, text):
            self.calls += 1
            return self.inner.embed_query(text)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    counting = Counting(embedder)
    hits = _ask(root, index, counting, "how do I set up the rate limiter middleware", k=10, mode="hybrid").hits
    assert {h.path for h in hits} - COPIES, hits  # the second pass ran: other notes than the page's copies
    assert counting.calls == 1
    index.close()


def test_search_json_lists_the_folded_languages(tmp_path, embedder):
    root = tmp_path / "repo"
    _build(root, embedder)[0].close()
    out = subprocess.run([sys.executable, "-m", "scree.cli", "search", "--notes", str(root), "--json", "RateLimiter"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    top = json.loads(out.stdout)["results"][0]
    assert top["path"] == "docs/setup.md" and top["also_in"] == ["de", "ja", "ko", "zh-cn"]
    plain = subprocess.run([sys.executable, "-m", "scree.cli", "search", "--notes", str(root), "RateLimiter"],
                           capture_output=True, text=True, timeout=120)
    assert "(also in: de, ja, ko, zh-cn)" in plain.stdout.splitlines()[0]


# ----- the pure parts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path,code,page", [
    ("docs/ja/docs/tutorial/cors.md", "ja", "docs/docs/tutorial/cors.md"),
    ("website/i18n/pt-BR/docusaurus-plugin-content-docs/current/intro.md", "pt-br", "website/docs/intro.md"),
    ("i18n/ko/docusaurus-plugin-content-docs/version-2.0/intro.md", "ko", "versioned_docs/version-2.0/intro.md"),
    ("i18n/fr/docusaurus-plugin-content-blog/2024-01-01-post.md", "fr", "blog/2024-01-01-post.md"),
    ("README.zh-CN.md", "zh-cn", "README.md"),
    ("README_ko.md", "ko", "README.md"),
    ("content/fr/about.md", "fr", "content/about.md"),
    ("README.zh-Hant.md", "zh-hant", "README.md"),
])
def test_path_markers_name_the_language_and_the_page(path, code, page):
    first = language.path_markers(path)[0]
    assert (first.code, first.page) == (code, page)


def test_a_constants_name_is_no_language_even_beside_a_sibling():
    # shadow's `SYSLOG_SG_ENAB.xml` and `SYSLOG_SU_ENAB.xml`: Sango and Sundanese in a script "Enab" that none is
    paths = ["man/login.defs.d/SYSLOG_SG_ENAB.xml", "man/login.defs.d/SYSLOG_SU_ENAB.xml"]
    assert language.path_markers(paths[0]) == []
    text = "Enable logging of sg(1) activity. If set to yes, sg logs every switch it makes to syslog for review."
    assert language.decide(paths[0], text, layout=language.Layout.of(paths)).lang == "en"


def test_a_two_letter_folder_alone_is_no_language_without_the_layout_or_the_text():
    layout = language.Layout.of(["docs/id/x.md", "docs/api/y.md"])
    # `id/` beside `api/`: no second language folder, and the text is too short to tell
    assert language.decide("docs/id/x.md", "# Ids\n\nShort.\n", layout=layout).lang == "und"
    both = language.Layout.of(["docs/en/x.md", "docs/ja/x.md"])
    assert language.decide("docs/ja/x.md", "# x\n\nShort.\n", layout=both) == language.NoteLanguage("ja", "path", "docs/x.md")
    # a declared value that is no language code (a code sample's language) is not a language
    assert language.decide("a.md", "---\nlanguage: python\n---\n# A\n", declared="python").by != "front matter"


def test_the_query_language_by_script_identifier_or_default():
    langs = {"en": 150, "ja": 120, "ko": 120, "de": 120, "es": 120, "zh": 100, "zh-hant": 100, "und": 3}
    assert query_language("ミドルウェアの作り方", langs) == "ja"
    assert query_language("미들웨어 만들기", langs) == "ko"
    assert query_language("How do I add a middleware to my app?", langs) == "en"
    assert query_language("Wie füge ich meiner Anwendung eine Middleware hinzu und was passiert dann?", langs) == "de"
    assert query_language("GH_REPO", langs) == "en"  # a name: no language, taken as English
    assert query_language("GH_REPO", {"de": 3, "fr": 1}) == "de"  # no English notes: the language with most


def test_fold_keeps_the_first_hit_of_a_page_and_lists_the_other_languages():
    from scree.db.queries import PageCopy
    from scree.records import Hit

    def hit(path):
        return Hit(path, "H", 1, 2, 1.0, "t")

    group = [PageCopy("en.md", "en", "p"), PageCopy("ja.md", "ja", "p"), PageCopy("de.md", "de", "fm")]
    copies = {"en.md": group[:2] + [group[2]], "ja.md": group[:2], "de.md": [group[2], group[0]],
              "x.md": [PageCopy("x.md", "en", "x.md")]}
    out = fold([hit("ja.md"), hit("en.md"), hit("x.md"), hit("de.md"), hit("ja.md")], copies, k=3)
    assert [(h.path, h.also_in) for h in out] == [("ja.md", ("de", "en")), ("x.md", ()), ("ja.md", ("de", "en"))]


def test_a_language_setting_that_names_no_language_is_refused_with_the_fix():
    from scree.config import load_config
    from scree.errors import ConfigError

    with pytest.raises(ConfigError, match=r"SCREE_LANGUAGES: 'english' is not a language code \(write e\.g\. en"):
        load_config({"SCREE_LANGUAGES": "english"})
    with pytest.raises(ConfigError, match="SCREE_MODEL_LANGUAGES"):
        load_config({"SCREE_MODEL_LANGUAGES": "everything"})
    cfg = load_config({"SCREE_LANGUAGES": "en, pt_BR", "SCREE_MODEL_LANGUAGES": "all"})
    assert cfg.indexed_languages == {"en", "pt-br"} and cfg.readable_languages is None
    assert language.admits(cfg.indexed_languages, "pt-br") and not language.admits(cfg.indexed_languages, "pt")
    assert language.admits({"zh"}, "zh-hant") and language.admits({"en"}, "und")


def test_doctor_shows_the_notes_per_language_and_what_the_vectors_cover(tmp_path, embedder):
    from scree.config import Config
    from scree.doctor import doctor
    from scree.workspace import Workspace

    root = tmp_path / "repo"
    for rel, text in {**PAGES, **OTHERS}.items():
        write(root, rel, text)
    ws = Workspace.from_config(Config(notes=root, data_dir=tmp_path / "data"))
    index = ws.open_index()
    sync(index, ws.policy(), embedder)
    index.close()
    check = doctor.check_index(ws, embedder.id, embedder.dimensions)
    assert check.status == "ok", check
    assert "notes per language: en 4, de 1, ja 1, ko 1, zh-cn 1" in check.summary
    assert "vectors: English notes; 4 notes in 4 other languages are keyword-only" in check.summary
    assert check.details["languages"]["ja"] == {"notes": 1, "keyword_only": 1, "left_out": 0}


def test_an_invalid_language_list_is_not_echoed_back_whole() -> None:
    from scree.config import load_config
    from scree.errors import ConfigError

    pasted = "x" * 10_000
    with pytest.raises(ConfigError) as caught:
        load_config({"SCREE_LANGUAGES": pasted})
    message = str(caught.value)
    assert "SCREE_LANGUAGES" in message and "is not a language code" in message
    assert len(message) < 200  # the first 40 characters of the bad entry, not 10 KB


def test_a_japanese_page_about_and_or_not_is_japanese_not_english():
    from scree.notes.language import text_language

    page = "# 検索演算子\n\n" + "検索では AND、OR、NOT を使って条件を組み合わせることができます。\n" * 12
    assert text_language(page)[0] == "ja"
    english = "# Search\n\n" + "Use AND, OR and NOT to combine the terms of a query in the search box.\n" * 12
    assert text_language(english)[0] == "en"
