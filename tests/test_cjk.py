"""Questions in Chinese, Japanese and Korean (issue 27): their runs are matched by overlapping bigrams in a
second keyword row (`chunks_cjk`), the English-only model's vectors never rank them, and English search
does not move. Real SQLite files; the fake embedder, except where the English half needs the real model."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from conftest import write
from scree.config import load_config
from scree.db import cjk, invariants, queries, schema
from scree.db.connect import connect
from scree.index.store import open_index
from scree.index.sync import sync
from scree.locate import index_location
from scree.notes.policy import NotesPolicy
from scree.search import ftsquery
from scree.search.languages import query_languages, unmatched_note, unread_language
from scree.search.search import Query
from scree.search.vocabsearch import search_with_names

# Three pages, each in English, Japanese, Chinese and Korean (MkDocs' docs/<lang>/ layout).
PAGES = {
    "auth.md": {
        "en": "# Authentication tokens\n\nEvery request carries a bearer token in its Authorization header. Tokens "
              "expire after one hour, and the client library refreshes them before they run out.\n",
        "ja": "# 認証トークン\n\nすべてのリクエストは Authorization ヘッダーにベアラートークンを含みます。トークンは 1 時間で"
              "期限切れになり、クライアントライブラリが期限の前に更新します。\n",
        "zh": "# 身份验证令牌\n\n每个请求都在 Authorization 头中携带一个持有者令牌。令牌在一小时后过期，客户端库会在过期之前"
              "刷新它们。\n",
        "ko": "# 인증 토큰\n\n모든 요청은 Authorization 헤더에 베어러 토큰을 담습니다. 토큰은 한 시간 후에 만료되며, "
              "클라이언트 라이브러리가 만료되기 전에 갱신합니다.\n",
    },
    "deploy.md": {
        "en": "# Deploying behind a reverse proxy\n\nRun the application behind a reverse proxy such as nginx and let the "
              "proxy terminate TLS. Point the proxy's upstream at the port the server listens on, and forward the "
              "original host header.\n",
        "ja": "# リバースプロキシの背後へのデプロイ\n\nアプリケーションは nginx などのリバースプロキシの背後で実行し、TLS の終端は"
              "プロキシに任せます。プロキシの転送先をサーバーが待ち受けるポートに向け、元のホストヘッダーを転送してください。\n",
        "zh": "# 在反向代理后面部署\n\n在 nginx 等反向代理后面运行应用程序，并让代理终止 TLS。将代理的上游指向服务器监听的"
              "端口，并转发原始的主机头。\n",
        "ko": "# 리버스 프록시 뒤에 배포하기\n\n애플리케이션은 nginx 같은 리버스 프록시 뒤에서 실행하고 TLS 종료는 프록시에 "
              "맡기세요. 프록시의 업스트림을 서버가 수신하는 포트로 지정하고 원래 호스트 헤더를 전달하세요.\n",
    },
    "limits.md": {
        "en": "# Rate limits\n\nThe rate limiter protects the API from clients that send too many requests. A client "
              "over the limit gets status 429 and a Retry-After header saying when it may try again.\n",
        "ja": "# レート制限\n\nレートリミッターは、リクエストを送りすぎるクライアントから API を守ります。上限を超えた"
              "クライアントにはステータス 429 と、再試行できる時刻を伝える Retry-After ヘッダーが返されます。\n",
        "zh": "# 速率限制\n\n速率限制器保护 API，防止客户端发送过多的请求。超过限制的客户端会收到状态码 429 和一个"
              " Retry-After 头，告诉它何时可以重试。\n",
        "ko": "# 속도 제한\n\n속도 제한기는 너무 많은 요청을 보내는 클라이언트로부터 API를 보호합니다. 한도를 넘은 "
              "클라이언트는 상태 429와 다시 시도할 수 있는 시점을 알려 주는 Retry-After 헤더를 받습니다.\n",
    },
}
# Sentences a reader of each translation would ask, never a word of the page's heading alone: one run of
# characters with no space for Japanese and Chinese (so unicode61 saw one token), particles glued to the
# words for Korean (토큰이 where the page says 토큰은).
QUESTIONS = {
    "ja": [("トークンの期限が切れたらどうなりますか？", "auth.md"),
           ("リバースプロキシの後ろでアプリケーションを実行するには", "deploy.md")],
    "zh": [("令牌过期以后会怎么样？", "auth.md"), ("如何在反向代理后面运行应用程序？", "deploy.md")],
    "ko": [("토큰이 만료되면 어떻게 되나요?", "auth.md"), ("리버스 프록시 뒤에서 애플리케이션을 실행하려면?", "deploy.md")],
}


def _repo(root: Path, languages=("en", "ja", "zh", "ko")) -> Path:
    for page, copies in PAGES.items():
        for lang in languages:
            write(root, f"docs/{lang}/{page}", copies[lang])
    return root


def _index(root: Path, embedder):
    index = open_index(index_location(root, load_config()), root)
    sync(index, NotesPolicy.load(root), embedder)
    return index


def _ask(root: Path, index, embedder, text: str, **kw):
    return search_with_names(index, NotesPolicy.load(root), embedder, Query(text, **kw))


# ----- the pure parts ------------------------------------------------------------------------------------


def test_a_run_of_cjk_characters_is_cut_into_overlapping_bigrams_and_a_lone_character_stays_whole():
    assert cjk.bigrams("ミドルウェア") == ["ミド", "ドル", "ルウ", "ウェ", "ェア"]
    assert cjk.bigrams("値") == ["値"] and cjk.bigrams("") == []
    assert [m.group(0) for m in cjk.runs("中间件 middleware 미들웨어를")] == ["中间件", "미들웨어를"]
    # the katakana middle dot and ASCII punctuation end a run, as unicode61 ends a token there
    assert [m.group(0) for m in cjk.runs("ミドル・ウェア、設定。")] == ["ミドル", "ウェア", "設定"]
    # the prolonged sound mark and the iteration mark belong to their words
    assert cjk.bigrams("サーバー") == ["サー", "ーバ", "バー"] and cjk.bigrams("時々") == ["時々"]


def test_a_chunk_has_a_cjk_row_only_when_it_holds_cjk_text_and_glued_words_are_split_off():
    assert cjk.row("Setup", "Run `scree index` once.", "") is None
    heading, text, names = cjk.row("設定", "FastAPIはミドルウェアを使う", "")
    assert heading.split() == ["設定"]
    assert text.split() == ["FastAPI", "はミ", "ミド", "ドル", "ルウ", "ウェ", "ェア", "アを", "を使", "使う"]
    assert cjk.row("Setup", "plain", "レート制限") is not None  # a name in CJK is enough
    assert cjk.split("RateLimiter 미들웨어 설정") == ("RateLimiter    ", ["미들웨어", "설정"])
    assert cjk.split("rate limits") == ("rate limits", [])


def test_a_cjk_query_is_matched_by_its_bigrams_or_ed_with_its_other_words():
    assert ftsquery.cjk_match("rate limits") is None  # no CJK: search_match alone, as before
    assert ftsquery.cjk_match("ミドルウェアの追加") == '"ミド" OR "ドル" OR "ルウ" OR "ウェ" OR "ェア" OR "アの" OR "の追" OR "追加"'
    # other words as search_match writes them (stopwords dropped), each bigram once, FTS syntax inert
    assert ftsquery.cjk_match('how to use RateLimiter "ミドル" ミドル* NEAR 値') == (
        '"RateLimiter" OR "NEAR" OR "ミド" OR "ドル" OR "値"')
    assert ftsquery.other_words_match("FastAPIのミドルウェア") == '"FastAPI"'
    assert ftsquery.other_words_match("ミドルウェアの追加方法") is None
    assert ftsquery.other_words_match("how do I ミドルウェア") is None  # function words beside a run say nothing


def test_the_query_language_the_model_cannot_read_is_told_by_its_script_or_its_language():
    english = frozenset({"en"})
    assert unread_language("ミドルウェアの追加方法", english) == "ja"
    assert unread_language("如何添加中间件", english) == "zh"
    assert unread_language("RateLimiter 미들웨어", english) == "ko"  # half its words in Hangul
    assert unread_language("Как добавить middleware?", english) == "Cyrl"
    assert unread_language("what does λ mean in this formula", english) is None
    assert unread_language("how do I add middleware", english) is None
    assert unread_language("ミドルウェアの追加方法", None) is None  # a multilingual model reads it
    assert unread_language("ミドルウェアの追加方法", frozenset({"en", "ja"})) is None
    assert unread_language("Comment ajouter un middleware", english, asked="fr") == "fr"
    assert unread_language("how do I add middleware", english, asked="en") is None
    # kanji alone: Japanese or Chinese, both searched first unless the identifier is sure
    langs = {"en": 3, "ja": 3, "zh": 3, "ko": 3}
    assert query_languages("量子力学", langs, identify=lambda text, among: ("zh", 0.6)) == ["ja", "zh"]
    assert query_languages("量子力学", langs, identify=lambda text, among: ("zh", 0.95)) == ["zh"]
    assert query_languages("ミドルウェアの追加方法", langs) == ["ja"]
    assert query_languages("rate limits", {"en": 3, "de": 3}, identify=lambda text, among: ("de", 0.5)) == ["en"]
    note = unmatched_note(["ja"], {"en": 3, "ja": 3, "und": 1}, english)
    assert note.startswith("no Japanese note matches this query (3 Japanese notes are indexed)")
    assert "ask in English" in note
    assert "no note is in Japanese" in unmatched_note(["ja"], {"en": 3}, english)
    assert unmatched_note(["ja", "zh"], {"en": 3, "ja": 3, "zh-hant": 2}, english).startswith(
        "no Japanese or Chinese note matches this query (5 Japanese or Chinese notes are indexed)")


# ----- search over an index ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(QUESTIONS))
def test_a_question_in_japanese_chinese_or_korean_ranks_its_own_page_first(tmp_path, embedder, lang):
    root = _repo(tmp_path / "repo")
    index = _index(root, embedder)
    for text, page in QUESTIONS[lang]:
        result = _ask(root, index, embedder, text, k=5)
        assert [h.path for h in result.hits][:1] == [f"docs/{lang}/{page}"], (text, [h.path for h in result.hits])
        assert result.mode == "keyword", text  # never the English-only model's vectors
        others = sorted({"en", "ja", "zh", "ko"} - {lang})
        assert result.hits[0].also_in == tuple(others), text  # the copies folded in
    index.close()


@pytest.mark.real_model
def test_english_questions_and_lookups_are_answered_as_before_with_cjk_notes_beside_them(tmp_path, real_embedder):
    root = _repo(tmp_path / "repo")
    index = _index(root, real_embedder)
    asked = [("what happens when a token expires?", "docs/en/auth.md"), ("nginx", "docs/en/deploy.md"),
             ("how do I run the app behind a reverse proxy?", "docs/en/deploy.md"),
             ("Retry-After", "docs/en/limits.md")]
    before = {}
    for text, path in asked:
        result = _ask(root, index, real_embedder, text, k=5)
        assert result.hits[0].path == path, (text, [h.path for h in result.hits])
        before[text] = [(h.path, h.heading, h.score) for h in result.hits]
    # An English query never reads the CJK rows: without any, every answer is the same, scores included.
    index.conn.execute("insert into chunks_cjk(chunks_cjk) values('delete-all')")
    for text, _ in asked:
        assert [(h.path, h.heading, h.score) for h in _ask(root, index, real_embedder, text, k=5).hits] == before[text]
    index.close()


def test_a_japanese_question_in_an_english_repository_says_so_instead_of_answering_by_noise(tmp_path, embedder):
    root = _repo(tmp_path / "repo", languages=("en",))
    index = _index(root, embedder)
    result = _ask(root, index, embedder, "トークンの期限が切れたらどうなりますか？", k=5)
    assert result.hits == [] and result.mode == "keyword"
    assert result.notes == ["no note matches this query, and no note is in Japanese: a query in Japanese is matched "
                            "by its words only (the embedding model reads English); ask in English to search the "
                            "English notes, or try other words"]
    # An English question in the same repository still reaches the vectors.
    assert _ask(root, index, embedder, "what happens when a token expires?", k=5).mode == "hybrid"
    index.close()


def test_nothing_in_the_query_language_matches_and_no_other_language_fills_the_places(tmp_path, embedder):
    root = _repo(tmp_path / "repo")
    index = _index(root, embedder)
    # No Japanese note shares a bigram with it; the Chinese token page spells 令牌, yet is not offered instead.
    assert _ask(root, index, embedder, "令牌", k=5, mode="keyword").hits[0].path == "docs/zh/auth.md"
    result = _ask(root, index, embedder, "令牌の計算方法", k=5)
    assert result.hits == [], [h.path for h in result.hits]
    assert result.notes and result.notes[0].startswith("no Japanese note matches this query (3 Japanese notes")
    # An explicit vector mode is honoured, and told what it is worth.
    semantic = _ask(root, index, embedder, "トークンの期限が切れたら", k=5, mode="semantic")
    assert any("does not read the query's language" in n for n in semantic.notes), semantic.notes
    index.close()


def test_edited_and_deleted_cjk_notes_leave_no_stale_bigram_row(tmp_path, embedder):
    root = _repo(tmp_path / "repo")
    index = _index(root, embedder)
    policy = NotesPolicy.load(root)
    write(root, "docs/ja/auth.md", "# 認証\n\nセッションはクッキーに保存されます。\n")
    (root / "docs/zh/auth.md").unlink()
    sync(index, policy, embedder)
    assert _ask(root, index, embedder, "トークンの期限", k=5).hits == []  # the old Japanese text is gone
    assert [h.path for h in _ask(root, index, embedder, "クッキーに保存", k=5).hits] == ["docs/ja/auth.md"]
    assert invariants.problems(index.conn) == []
    assert invariants.fts_check(index.conn) is None
    marked = index.conn.execute("select count(*) from chunks where cjk = 1").fetchone()[0]
    rows = index.conn.execute("select count(*) from chunks_cjk_docsize").fetchone()[0]
    english = index.conn.execute("select count(*) from chunks c join files f on f.id = c.file_id "
                                 "where f.path like 'docs/en/%' and c.cjk = 1").fetchone()[0]
    assert marked == rows == queries.counts(index.conn).chunks - 3 and english == 0
    index.close()


def test_an_index_from_before_the_cjk_rows_gets_them_on_its_next_sync(tmp_path, embedder):
    root = _repo(tmp_path / "repo")
    index = _index(root, embedder)
    db = index.location.db
    index.close()
    # What a schema 6 file holds: no CJK table, no flag, no rules in meta.
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute("drop table chunks_literal")  # what migration 8 (the literal rows) added
        conn.execute("delete from meta where key = 'literal'")
        conn.execute("drop table chunks_cjk")
        conn.execute("drop index chunks_with_cjk")
        conn.execute("alter table chunks drop column cjk")
        conn.execute("delete from meta where key = 'cjk'")
        conn.execute("pragma user_version = 6")
    index = open_index(index_location(root, load_config()), root)
    assert schema.current_version(index.conn) == schema.SCHEMA_VERSION
    report = sync(index, NotesPolicy.load(root), embedder)
    assert not report.changed  # nothing re-read, nothing re-embedded: the rows are made from the chunks
    hits = _ask(root, index, embedder, "トークンの期限が切れたらどうなりますか？", k=5).hits
    assert hits[0].path == "docs/ja/auth.md"
    assert invariants.problems(index.conn) == [] and index.meta()["cjk"] == cjk.version()
    index.close()


CJK_DAMAGES = {
    "a CJK row deleted": ["delete from chunks_cjk_docsize where id = (select min(id) from chunks where cjk = 1)"],
    "a chunk's CJK mark cleared": ["update chunks set cjk = 0 where id = (select min(id) from chunks where cjk = 1)"],
}


@pytest.mark.parametrize("kind", CJK_DAMAGES)
def test_cjk_rows_out_of_step_by_hand_are_damage_that_a_reindex_rebuilds(tmp_path, embedder, kind):
    root = _repo(tmp_path / "repo")
    index = _index(root, embedder)
    db = index.location.db
    index.close()
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        for stmt in CJK_DAMAGES[kind]:
            conn.execute(stmt)
        assert "CJK keyword index is out of step" in (invariants.out_of_step(conn) or "")
    out = subprocess.run([sys.executable, "-m", "scree.cli", "reindex", "--json", "--notes", str(root)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "was damaged" in out.stderr, out.stderr
    assert len(json.loads(out.stdout)["added"]) == 12
    with closing(connect(db, readonly=True)) as conn:
        assert invariants.out_of_step(conn) is None and invariants.problems(conn, embedder.max_windows) == []


def test_the_schema_check_knows_the_cjk_table(tmp_path):
    db = tmp_path / "index.db"
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        schema.migrate(conn)
        assert schema.untrusted_parts(conn, sqlite3) == []
        conn.execute("drop table chunks_cjk")
        assert any("table chunks_cjk" in p for p in schema.untrusted_parts(conn, sqlite3))
