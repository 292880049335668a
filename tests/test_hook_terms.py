"""The hooks' re-free copies of shared logic agree with the originals: query terms and stopwords with
scree.search.ftsquery (which the server's search uses), loads/dumps with the json module."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from scree.search import ftsquery
from scree.hookkit import jsonio, terms

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hooks"


def _samples() -> list[str]:
    searches = json.loads((FIXTURES / "agent_searches.json").read_text())
    out = [e["input"].get("command") or e["input"].get("pattern") or "" for e in searches]
    out += ["max-depth", "os.path", "__init__", "_private_x", "a__b", "__", "_-x", "x_-_y", "foo::bar", "v1.2.3",
            "--locked", "café-crème", "日本語テキスト", "a/b/c", "x.", ".x", "x-", "_", "1_000", "snake_case_name_",
            "how do we rotate the keys", "the and of", "", "  ", "é_ü", "x\u00b2", "ⅷ roman", "tab\there"]
    rng = random.Random(10)
    alphabet = "ab_-.:/ é1\u00b2_x"
    out += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    return out


def test_stopwords_are_the_same() -> None:
    assert terms.STOPWORDS == ftsquery.STOPWORDS


@pytest.mark.parametrize("chunk", range(4))
def test_terms_match_ftsquery_exactly(chunk: int) -> None:
    samples = _samples()[chunk::4]
    for s in samples:
        assert terms.iter_terms(s) == [m.group(0) for m in ftsquery._TERM.finditer(s)], s
        assert terms.query_terms(s) == ftsquery.query_terms(s), s
        assert terms.to_match(s) == ftsquery.to_match(s), s


@pytest.mark.parametrize("text", [
    '{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "x\\u00e9\\n\\"q\\""}}', "  [] ", '"s"', "12", "-0.5",
    '{"tool_input": {"command": "grep -rn \\"x\\" . | head"}}', "NaN", "[Infinity]",
])
def test_loads_matches_json(text: str) -> None:
    got = jsonio.loads(text)
    want = json.loads(text)
    assert json.dumps(got) == json.dumps(want)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "{} {}", "nul", '"\x01"', "\xff", "{'a': 1}", '{"a": 1', '{"a": [1, 2',
                                  '{"tool_name": "Bash", "tool_input": {"command": "grep -rn x ."'])
def test_loads_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        jsonio.loads(text)


@pytest.mark.parametrize("value", [{"a": [1, 2.5, True, None, "é\n"], "b": {}}, [], "plain", {"k": "日本"}])
@pytest.mark.parametrize("kwargs", [{}, {"separators": (",", ":")}, {"ensure_ascii": False}])
def test_dumps_matches_json(value: object, kwargs: dict) -> None:
    assert jsonio.dumps(value, **kwargs) == json.dumps(value, **kwargs)


def test_dumps_uses_default_or_refuses() -> None:
    assert jsonio.dumps({"x": Path("/a")}, default=str) == json.dumps({"x": Path("/a")}, default=str)
    with pytest.raises(TypeError):
        jsonio.dumps({"x": object()})


def test_the_hint_path_imports_neither_json_nor_re() -> None:
    import subprocess

    code = ("import sys; sys.path.insert(0, %r); from scree.hookkit import runtime, grepparse, decide, state, project, "
            "usagelog; print(sorted(m for m in ('json', 're', 'enum', 'datetime', 'sqlite3', 'typing') if m in sys.modules))"
            % str(Path(__file__).resolve().parents[1] / "server"))
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_hint_and_search_share_one_definition_of_titled_defining_and_list_sections() -> None:
    # One module, imported by both, instead of a copy in the hook that could drift.
    from scree.search import ranking
    from scree.notes import sectiontext
    from scree.hookkit import hint

    for name in ("titled_by", "defines", "mostly_list"):
        assert getattr(hint, name) is getattr(sectiontext, name) is getattr(ranking, name)
