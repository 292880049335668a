"""Names from one file's text (scree.index.vocab): only from name positions, manifests read whole, the stoplist."""

from __future__ import annotations

import pytest

from scree.search.route import named_identifiers
from scree.index.vocab import STOPLIST, Vocabulary, extract_names, file_kind, plain_word, query_words


def test_python_names_come_from_declarations_never_from_strings_comments_or_docstrings() -> None:
    code = '''
"""Module docstring naming class DocstringOnly and def docstring_function."""
import httpcore
import numpy as np_alias
from httpx._models import Headers as HeaderMap, Limits
from . import sibling_module
from typing import Optional
from collections import OrderedDict

MAX_RETRY_BUDGET = 3
lowercase_variable = "class StringOnly: pass"

class PageFetcher(Base):
    """def docstring_method"""
    DEFAULT_BATCH = 10

    def fetch_page_batch(self):
        # def commented_function
        return "def string_function"

    async def aclose(self):
        pass

def top_level_helper():
    def nested_inner():
        pass

if TYPE_CHECKING:
    from wsgiref.types import WSGIApplication
try:
    import brotlicffi
except ImportError:
    brotlicffi = None
'''
    names = extract_names("python", code)
    assert {"httpcore", "np_alias", "headermap", "limits", "max_retry_budget", "pagefetcher", "default_batch",
            "fetch_page_batch", "aclose", "top_level_helper", "nested_inner", "brotlicffi", "sibling_module"} <= names
    for absent in ("docstringonly", "docstring_function", "docstring_method", "commented_function",
                   "string_function", "stringonly", "lowercase_variable", "base"):
        assert absent not in names
    # Python's own modules and what is imported from them are the language's names, not the repo's.
    assert not {"typing", "optional", "collections", "ordereddict", "wsgiref", "wsgiapplication"} & names


def test_python_that_does_not_parse_gives_no_names() -> None:
    assert extract_names("python", "class Broken(:\n    def fetch_page_batch(self) pass\n") == set()


def test_python_in_newer_syntax_gives_its_names_whatever_python_reads_it() -> None:
    # a `type` alias or a generic made the whole module unreadable on Python 3.11: none of its names were found
    code = "type Batch = list[int]\n\ndef fetch_page_batch[T](pages: list[T]) -> Batch:\n    pass\n\n" \
           "class PageCursor[T]:\n    def advance_cursor(self) -> None:\n        pass\n"
    assert {"fetch_page_batch", "pagecursor", "advance_cursor"} <= extract_names("python", code)  # folded


def test_js_and_ts_names_come_from_declarations_and_package_imports_only() -> None:
    code = '''
import React, { useState as useLocalState, type Props } from "react";
import * as lodashNs from 'lodash/fp';
import "./styles.css";
import { helper } from "./local-helper";
const fs = require("node:fs");
const axiosLib = require('axios');
// export function commentedOut() {}
/* class BlockCommented {}
   export const alsoCommented = 1; */
const message = "export const inString = 1";
const tpl = `
export function inTemplate() {}
`;
export const useThing = () => 1;
export default async function fetchPageBatch(url) {}
export class PageFetcher extends Base {
  static async loadMany(items) {
    if (items) { return 1; }
  }
}
export interface FetchOptions { retries: number }
export type PageId = string;
enum Colour { Red }
let notExported = 2;
export { internalName as publicName };
'''
    names = extract_names("js", code)
    assert {"react", "uselocalstate", "props", "lodash", "lodashns", "axios", "usething", "fetchpagebatch",
            "pagefetcher", "loadmany", "fetchoptions", "pageid", "colour", "notexported", "publicname"} <= names
    for absent in ("commentedout", "blockcommented", "alsocommented", "instring", "intemplate", "node:fs",
                   "./local-helper", "local-helper", "styles.css"):
        assert absent not in names


def test_go_names_include_full_module_paths_never_their_last_element() -> None:
    code = '''package server

import (
	"fmt"
	"net/http"
	errgrp "golang.org/x/sync/errgroup"
	"github.com/jackc/pgx/v5"
)
import "golang.org/x/sync"

// func CommentedOut() {}
const (
	DefaultPort = 8080
	maxConns    = 10
)
var ErrClosed = errors.New("func InString() {}")
var raw = `
func InRawString() {}
`

type Crawler struct{ addr string }
type Fetcher interface{ Serve() }

func NewCrawler(addr string) *Crawler { return nil }
func (s *Crawler) ListenAndServeTLS() error { return nil }
'''
    names = extract_names("go", code)
    assert {"golang.org/x/sync", "golang.org/x/sync/errgroup", "errgrp", "github.com/jackc/pgx/v5", "defaultport",
            "maxconns", "errclosed", "crawler", "fetcher", "newcrawler", "listenandservetls"} <= names
    for absent in ("sync", "errgroup", "pgx", "fmt", "net/http", "commentedout", "instring", "inrawstring"):
        assert absent not in names


def test_pyproject_gives_the_project_its_dependencies_extras_and_scripts() -> None:
    text = '''
[project]
name = "my-service"
dependencies = ["httpx[http2]>=0.27", "psycopg[binary]; python_version >= '3.10'", "certifi"]
[project.optional-dependencies]
brotli = ["brotlicffi>=1.0"]
[project.scripts]
my-service-cli = "my_service:main"
[dependency-groups]
dev = ["pytest-asyncio"]
[build-system]
requires = ["hatchling"]
'''
    assert extract_names("pyproject", text) == {"my-service", "httpx", "psycopg", "certifi", "brotlicffi",
                                               "my-service-cli", "pytest-asyncio", "hatchling"}
    assert extract_names("pyproject", "this is [not toml") == set()


def test_requirements_files_give_distribution_names_only() -> None:
    text = "# pinned\nhttpcore==1.0.5  # the transport\n-r base.txt\n--index-url https://x\n" \
           "psycopg_pool>=3 ; sys_platform == 'linux'\ngit+https://github.com/a/b\n\nuvicorn[standard]\n"
    assert extract_names("requirements", text) == {"httpcore", "psycopg_pool", "uvicorn"}


def test_package_json_gives_the_package_and_every_kind_of_dependency() -> None:
    text = '{"name": "@acme/web-app", "dependencies": {"react": "^18", "@tanstack/query": "5"},' \
           ' "devDependencies": {"vitest": "1"}, "peerDependencies": {"zustand": "4"}, "bin": {"acme-cli": "x.js"}}'
    assert extract_names("package.json", text) == {"@acme/web-app", "react", "@tanstack/query", "vitest",
                                                   "zustand", "acme-cli"}
    assert extract_names("package.json", "[1, 2") == set()


def test_go_mod_gives_full_module_paths() -> None:
    text = "module github.com/acme/crawler\n\ngo 1.22\n\nrequire golang.org/x/sync v0.7.0\nrequire (\n" \
           "\tgithub.com/jackc/pgx/v5 v5.6.0 // indirect\n\tgolang.org/x/net v0.25.0\n)\n"
    names = extract_names("go.mod", text)
    assert names == {"github.com/acme/crawler", "golang.org/x/sync", "github.com/jackc/pgx/v5", "golang.org/x/net"}
    assert "sync" not in names and "net" not in names


def test_cargo_toml_gives_crates_by_their_real_names() -> None:
    text = '[package]\nname = "ripsearch"\n[dependencies]\nserde_json = "1"\nregex-lite = { version = "0.1" }\n' \
           'tokio_rt = { package = "tokio", version = "1" }\n[dev-dependencies]\ninsta = "1"\n' \
           '[target.\'cfg(unix)\'.dependencies]\nnix = "0.28"\n'
    assert extract_names("cargo", text) == {"ripsearch", "serde_json", "regex-lite", "tokio", "insta", "nix"}


@pytest.mark.parametrize("word", ["sync", "text", "http", "json", "requests", "config", "utils", "next", "client",
                                  "test", "the", "with"])
def test_stoplisted_words_are_never_names(word: str) -> None:
    assert word in STOPLIST
    code = f"import {word}\nclass {word.capitalize()}:\n    pass\ndef {word}():\n    pass\n"
    assert extract_names("python", code) == set()
    assert extract_names("requirements", word + "\n") == set()


def test_names_of_one_or_two_letters_are_dropped() -> None:
    assert extract_names("python", "class DB:\n    pass\ndef f():\n    pass\ndef fx(): pass\n") == set()


def test_a_common_word_in_one_case_is_prose_but_its_capwords_class_is_a_name() -> None:
    words = frozenset({"raw", "closed", "found", "limits"})
    code = "FOUND = 302\nclass Limits:\n    def raw(self): ...\n    def closed(self): ...\n    def aclose(self): ...\n"
    assert extract_names("python", code, words) == {"limits", "aclose"}
    assert plain_word("raw", words) and plain_word("FOUND", words)
    assert not plain_word("Limits", words) and not plain_word("iter_raw", words)


def test_file_kinds() -> None:
    kinds = {n: file_kind(n) for n in ("pyproject.toml", "requirements-dev.txt", "package.json", "go.mod",
                                      "Cargo.toml", "a.py", "b.tsx", "c.go", "notes.md", "app.min.js", "x.d.ts")}
    assert kinds == {"pyproject.toml": "pyproject", "requirements-dev.txt": "requirements",
                     "package.json": "package.json", "go.mod": "go.mod", "Cargo.toml": "cargo", "a.py": "python",
                     "b.tsx": "js", "c.go": "go", "notes.md": None, "app.min.js": None, "x.d.ts": None}


def test_vocabulary_matches_query_words_as_typed_and_common_words_only_capitalised() -> None:
    v = Vocabulary({"httpcore", "proxy"}, common={"proxy"})
    assert "HTTPCore" in v and "httpcore" in v
    assert "Proxy" in v and "proxy" not in v
    assert named_identifiers("is httpcore behind a proxy", v) == ["httpcore"]
    assert named_identifiers("How do I configure Proxy?", v) == ["proxy"]
    assert query_words("Is `httpcore` used by sync() here?") == ["httpcore", "used", "sync", "here"]


@pytest.mark.parametrize(("pattern", "name"), [("fetch_page_batch", "fetch_page_batch"),
                                               ("\\bPageFetcher\\b", "pagefetcher"), ("^os\\.path$", "os.path"),
                                               ("\\<x_y\\>", "x_y"), ("rotate.*keys", None), ("two words", None),
                                               ("--locked", None)])
def test_the_hook_takes_only_a_single_literal_name_from_a_pattern(pattern: str, name: str | None) -> None:
    from scree.hookkit.vocabcheck import pattern_name, spells

    assert pattern_name([pattern]) == name
    assert spells("call pre, then", "pre") and not spells("call pre_stop", "pre") and not spells("x-pre", "pre")
