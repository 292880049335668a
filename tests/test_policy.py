"""NotesPolicy: which paths are notes. Real files, real git repositories, real symlinks and FIFOs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from scree.errors import PathRefused
from scree.notes.policy import NotesPolicy, SkipCode
from scree.notes.walk import walk_notes


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def git_init(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)


def git_visible_markdown(repo: Path) -> set[str]:
    """What git itself considers untracked-and-not-ignored, restricted to non-hidden Markdown."""
    out = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
    ).stdout.decode()
    paths = {p for p in out.split("\0") if p}
    return {
        p
        for p in paths
        if p.lower().endswith((".md", ".mdx", ".markdown")) and not any(s.startswith(".") for s in p.split("/"))
    }


def admitted(policy: NotesPolicy) -> set[str]:
    return {item for item in walk_notes(policy) if isinstance(item, str)}


def test_ignore_rules_match_git_on_tricky_patterns(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(
        tmp_path,
        {
            ".gitignore": "\n".join(
                [
                    "*.log.md",
                    "build/",
                    "/top-only.md",
                    "docs/*",
                    "!docs/keep/",
                    "secret*.md",
                    "!secret-ok.md",
                    "drafts",
                    "!drafts/keep.md",
                    "**/tmp/",
                    "a/**/deep.md",
                    "notes-*.md",
                    "# a comment",
                    "\\#hash.md",
                ]
            ),
            "sub/.gitignore": "*.md\n!keep*.md\n/local.md\nx/\n",
            "sub/deeper/.gitignore": "!*.md\n",
            "sub2/.gitignore": "!notes-keep.md\n",
            "cache/.gitignore": "!*.md\n",
        },
    )
    (tmp_path / ".git/info/exclude").write_text("excluded-by-info.md\n")
    for rel in [
        "ok.md", "x.log.md", "build/b.md", "top-only.md", "q/top-only.md", "docs/a.md",
        "docs/keep/k.md", "secret1.md", "secret-ok.md", "drafts/keep.md", "other/drafts/d.md",
        "tmp/t.md", "q/tmp/t.md", "a/deep.md", "a/b/c/deep.md", "b/deep.md", "notes-x.md",
        "sub2/notes-keep.md", "sub2/notes-other.md", "#hash.md", "sub/plain.md", "sub/keep1.md",
        "sub/local.md", "sub/deeper/local.md", "sub/deeper/any.md", "sub/x/y.md", "x/y.md",
        "cache/c.md", "excluded-by-info.md", "deep/excluded-by-info.md", "upper.MD", "long.markdown",
    ]:
        write(tmp_path, {rel: "# note\n"})
    (tmp_path / "cache/.gitignore").write_text("!*.md\n")
    (tmp_path / ".gitignore").write_text((tmp_path / ".gitignore").read_text() + "\ncache/\n")

    ours = admitted(NotesPolicy.load(tmp_path))
    expected = git_visible_markdown(tmp_path)

    assert ours == expected
    # Spot-check the cases the fixture exists for, so a git change cannot hollow the test out.
    assert "sub2/notes-keep.md" in ours and "notes-x.md" not in ours  # deeper negation wins
    assert "drafts/keep.md" not in ours  # cannot re-include under an excluded folder
    assert "docs/keep/k.md" in ours and "docs/a.md" not in ours
    assert "q/top-only.md" in ours and "top-only.md" not in ours  # anchored pattern
    assert "sub/local.md" not in ours and "sub/deeper/local.md" in ours  # nested file is relative
    assert "excluded-by-info.md" not in ours and "deep/excluded-by-info.md" not in ours
    assert "cache/c.md" not in ours  # an ignored folder's own .gitignore is never read


def test_whitelist_idiom_matches_git(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(
        tmp_path,
        {
            ".gitignore": "*\n!*/\n!*.md\nlogs/\n/generated/**\n!/generated/keep.md\n",
            "team/.gitignore": "*.md\n!/README.md\n",
        },
    )
    for rel in [
        "a.md", "b.txt.md", "x/y/z.md", "logs/l.md", "generated/g.md", "generated/keep.md",
        "generated/sub/keep.md", "team/README.md", "team/other.md", "team/sub/README.md",
    ]:
        write(tmp_path, {rel: "# n\n"})

    ours = admitted(NotesPolicy.load(tmp_path))

    assert ours == git_visible_markdown(tmp_path)
    assert {"a.md", "x/y/z.md", "generated/keep.md", "team/README.md"} <= ours


def test_double_star_folder_patterns_match_git(tmp_path: Path) -> None:
    # pathspec compiles `x/**/` like `x/`; git means "the folders under x/", which these rules test.
    git_init(tmp_path)
    write(
        tmp_path,
        {
            ".gitignore": "b/**/\n**/c/**/\n!c/keep/\nd/**\n!d/*.md\n",
            "sub/.gitignore": "e/**/\n",
        },
    )
    for folder in ["", "b", "b/b", "b/b/b", "c", "c/c", "c/keep", "x/c/y", "d", "d/d", "sub/e", "sub/e/f", "e/f"]:
        write(tmp_path, {f"{folder}/n.md".lstrip("/"): "n"})

    ours = admitted(NotesPolicy.load(tmp_path))

    assert ours == git_visible_markdown(tmp_path)
    assert {"b/n.md", "c/n.md", "c/keep/n.md", "d/n.md", "sub/e/n.md", "e/f/n.md"} <= ours


def test_negation_reincludes_a_file(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.md\n!keep.md\n", "keep.md": "k", "drop.md": "d"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.file_skip_reason("keep.md") is None
    reason = policy.file_skip_reason("drop.md")
    assert reason is not None and "gitignored" in reason and "'*.md' in .gitignore" in reason


def test_file_under_excluded_folder_cannot_be_reincluded(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "private/\n!private/ok.md\n", "private/ok.md": "x"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("private/ok.md").code is SkipCode.GITIGNORED
    assert policy.dir_skip_reason("private") is not None


def test_nested_gitignore_patterns_are_relative_to_their_folder(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "notes/.gitignore": "/scratch.md\ndrafts/\n",
            "notes/scratch.md": "s",
            "notes/inner/scratch.md": "s",
            "scratch.md": "s",
            "notes/drafts/d.md": "d",
            "drafts/d.md": "d",
        },
    )
    policy = NotesPolicy.load(tmp_path)

    assert policy.file_skip_reason("notes/scratch.md") is not None
    assert policy.file_skip_reason("notes/inner/scratch.md") is None
    assert policy.file_skip_reason("scratch.md") is None
    assert policy.file_skip_reason("notes/drafts/d.md") is not None
    assert policy.file_skip_reason("drafts/d.md") is None
    assert "notes/.gitignore" in (policy.file_skip_reason("notes/scratch.md") or "")


def test_git_info_exclude_of_the_repository_applies(tmp_path: Path) -> None:
    git_init(tmp_path)
    (tmp_path / ".git/info/exclude").write_text("local-only.md\n")
    write(tmp_path, {"local-only.md": "x", "shared.md": "y"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("local-only.md").code is SkipCode.GITIGNORED
    assert ".git/info/exclude" in (policy.file_skip_reason("local-only.md") or "")
    assert policy.file_skip_reason("shared.md") is None


def test_git_file_pointing_elsewhere_uses_that_info_exclude(tmp_path: Path) -> None:
    gitdir = tmp_path / "gitdir"
    (gitdir / "info").mkdir(parents=True)
    (gitdir / "info/exclude").write_text("hidden-by-gitdir.md\n")
    root = tmp_path / "work"
    write(root, {".git": f"gitdir: {gitdir}\n", "hidden-by-gitdir.md": "x", "kept.md": "y"})
    policy = NotesPolicy.load(root)

    assert policy.inspect("hidden-by-gitdir.md").code is SkipCode.GITIGNORED
    assert policy.file_skip_reason("kept.md") is None


def test_screeignore_excludes_at_any_level(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".screeignore": "archive/\n",
            "team/.screeignore": "*.draft.md\n!keep.draft.md\n",
            "archive/old.md": "o",
            "team/a.draft.md": "d",
            "team/keep.draft.md": "k",
            "team/b.md": "b",
        },
    )
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("archive/old.md").code is SkipCode.SCREEIGNORED
    assert policy.inspect("team/a.draft.md").code is SkipCode.SCREEIGNORED
    assert policy.file_skip_reason("team/keep.draft.md") is None
    assert policy.file_skip_reason("team/b.md") is None


def test_screeignore_negation_cannot_bring_back_a_gitignored_file(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "private.md\n", ".screeignore": "!private.md\n", "private.md": "p"})

    assert NotesPolicy.load(tmp_path).inspect("private.md").code is SkipCode.GITIGNORED


def test_extra_ignore_patterns_exclude_and_win_over_screeignore(tmp_path: Path) -> None:
    write(tmp_path, {".screeignore": "!wip.md\n", "wip.md": "w", "done.md": "d"})
    policy = NotesPolicy.load(tmp_path, extra_ignore=["wip.md"])

    assert policy.inspect("wip.md").code is SkipCode.SCREEIGNORED
    assert policy.file_skip_reason("done.md") is None


def test_hidden_files_and_folders_are_refused(tmp_path: Path) -> None:
    write(tmp_path, {".secret.md": "s", ".github/notes.md": "g", "a/.obsidian/x.md": "o", "ok.md": "k"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect(".secret.md").code is SkipCode.HIDDEN
    assert policy.inspect(".github/notes.md").code is SkipCode.HIDDEN
    assert policy.inspect("a/.obsidian/x.md").code is SkipCode.HIDDEN
    assert admitted(policy) == {"ok.md"}


def test_nested_git_repository_is_refused_whole(tmp_path: Path) -> None:
    git_init(tmp_path)
    git_init(tmp_path / "libs/lib")
    write(tmp_path, {"libs/lib/README.md": "r", "libs/lib/docs/x.md": "x", "libs/own.md": "o"})
    write(tmp_path, {"sub/.git": "gitdir: /nowhere\n", "sub/y.md": "y"})  # a submodule's .git file
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("libs/lib/docs/x.md").code is SkipCode.NESTED_REPO
    assert policy.inspect("sub/y.md").code is SkipCode.NESTED_REPO
    assert policy.file_skip_reason("libs/own.md") is None


def test_note_suffixes_are_case_insensitive_and_mdx_is_a_note(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "", "b.MD": "", "c.markdown": "", "d.Markdown": "", "e.mdx": "", "f.txt": "",
                     "g.qmd": ""})
    policy = NotesPolicy.load(tmp_path)

    assert [n for n in "abcdefg" if policy.file_skip_reason(next(tmp_path.glob(n + ".*")).name) is None] == [
        "a", "b", "c", "d", "e",
    ]
    assert policy.inspect("g.qmd").code is SkipCode.NOT_MARKDOWN
    assert "SCREE_NOTE_EXTENSIONS" in (policy.file_skip_reason("f.txt") or "")


def test_configured_note_extensions_decide_the_walk_and_each_check(tmp_path: Path) -> None:
    from scree.config import load_config
    from scree.notes.walk import walk_notes

    write(tmp_path, {"a.md": "", "b.mdx": "", "c.qmd": "", "d/e.QMD": ""})
    suffixes = load_config({"SCREE_NOTE_EXTENSIONS": "qmd, .md"}).note_suffixes
    policy = NotesPolicy.load(tmp_path, suffixes=suffixes)

    assert suffixes == (".qmd", ".md")
    assert [p for p in walk_notes(policy) if isinstance(p, str)] == ["a.md", "c.qmd", "d/e.QMD"]
    assert policy.inspect("b.mdx").code is SkipCode.NOT_MARKDOWN


@pytest.mark.parametrize("raw", ["", ",", "*.md", "docs/x.md", ".a.b.c"])
def test_bad_note_extensions_are_a_config_error_naming_the_setting(raw: str) -> None:
    from scree.config import load_config
    from scree.errors import ConfigError

    if not raw:
        assert load_config({"SCREE_NOTE_EXTENSIONS": raw}).note_suffixes == (".md", ".mdx", ".markdown", ".rst", ".adoc", ".asciidoc", ".org", ".pod", ".texi", ".texinfo", ".rdoc", ".docbook", ".pdf")
        return
    with pytest.raises(ConfigError, match="SCREE_NOTE_EXTENSIONS"):
        load_config({"SCREE_NOTE_EXTENSIONS": raw})


def test_symlink_to_a_note_inside_the_folder_is_admitted_as_an_alias_of_it(tmp_path: Path) -> None:
    write(tmp_path, {"real/target.md": "t"})
    (tmp_path / "alias.md").symlink_to("real/target.md")
    policy = NotesPolicy.load(tmp_path)
    verdict = policy.inspect("alias.md")

    assert verdict.admitted
    assert verdict.path == str(tmp_path / "real/target.md")
    assert verdict.alias_of == "real/target.md"
    assert policy.inspect("real/target.md").alias_of is None


def test_symlink_to_a_python_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, {"secret.py": "KEY = 1"})
    (tmp_path / "notes.md").symlink_to("secret.py")
    verdict = NotesPolicy.load(tmp_path).inspect("notes.md")

    assert verdict.code is SkipCode.SYMLINK_NOT_MARKDOWN
    assert "a file scree does not read" in (verdict.reason or "")


def test_symlink_outside_the_folder_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    write(tmp_path, {"outside.md": "o", "notes/in.md": "i"})
    (root / "escape.md").symlink_to(tmp_path / "outside.md")
    (root / "passwd.md").symlink_to("/etc/passwd")
    policy = NotesPolicy.load(root)

    assert policy.inspect("escape.md").code is SkipCode.SYMLINK_OUTSIDE
    assert policy.inspect("passwd.md").code is SkipCode.SYMLINK_OUTSIDE


def test_symlink_cannot_smuggle_in_a_hidden_or_ignored_note(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "private/\n", "private/p.md": "p", ".hidden/h.md": "h"})
    (tmp_path / "p.md").symlink_to("private/p.md")
    (tmp_path / "h.md").symlink_to(".hidden/h.md")
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("p.md").code is SkipCode.SYMLINK_REFUSED
    assert "gitignored" in (policy.file_skip_reason("p.md") or "")
    assert policy.inspect("h.md").code is SkipCode.SYMLINK_REFUSED


def test_symlink_loop_gives_a_reason(tmp_path: Path) -> None:
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    (tmp_path / "self").symlink_to("self")
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("a.md").code is SkipCode.SYMLINK_LOOP
    assert policy.inspect_dir("self").code is SkipCode.SYMLINK_LOOP
    assert policy.inspect("self/x.md").code is SkipCode.SYMLINK_LOOP


def test_paths_through_a_symlinked_folder_are_refused(tmp_path: Path) -> None:
    write(tmp_path, {"real/n.md": "n"})
    (tmp_path / "linked").symlink_to("real")
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("linked/n.md").code is SkipCode.SYMLINK_DIR
    assert policy.inspect_dir("linked").code is SkipCode.SYMLINK_DIR
    assert policy.file_skip_reason("real/n.md") is None


def test_fifo_and_folder_named_like_notes_are_not_regular_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "folder.md").mkdir()
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("pipe.md").code is SkipCode.NOT_REGULAR
    assert "FIFO" in (policy.file_skip_reason("pipe.md") or "")
    assert policy.inspect("folder.md").code is SkipCode.IS_A_FOLDER


def test_missing_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    assert NotesPolicy.load(tmp_path).inspect("gone.md").code is SkipCode.MISSING


def test_resolve_refuses_paths_leaving_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    write(tmp_path, {"x.md": "x", "notes/a.md": "a"})
    policy = NotesPolicy.load(root)

    for bad in ["../x.md", "/etc/passwd", str(tmp_path / "x.md"), "a/../../x.md", ".", "", "a.md\0"]:
        with pytest.raises(PathRefused) as caught:
            policy.resolve(bad)
        assert caught.value.path == bad
        assert caught.value.reason


def test_resolve_normalises_relative_and_absolute_paths_inside(tmp_path: Path) -> None:
    write(tmp_path, {"dir/a.md": "a"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.resolve("dir/a.md") == "dir/a.md"
    assert policy.resolve("./dir/../dir/a.md") == "dir/a.md"
    assert policy.resolve(str(tmp_path / "dir/a.md")) == "dir/a.md"


def test_resolve_accepts_an_absolute_path_through_an_alias_of_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "real"
    write(root, {"a.md": "a"})
    (tmp_path / "alias").symlink_to(root)

    assert NotesPolicy.load(root).resolve(str(tmp_path / "alias/a.md")) == "a.md"


def test_resolve_refuses_inside_paths_the_policy_refuses(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "node_modules/\n", "node_modules/pkg/README.md": "r", "code.py": ""})
    policy = NotesPolicy.load(tmp_path)

    with pytest.raises(PathRefused, match="gitignored"):
        policy.resolve("node_modules/pkg/README.md")
    with pytest.raises(PathRefused, match="not a document scree reads"):
        policy.resolve("code.py")


def test_outer_repository_rules_apply_to_a_notes_subfolder(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(tmp_path, {".gitignore": "docs/drafts/\n*.tmp.md\n", "docs/a.md": "a", "docs/drafts/d.md": "d"})
    write(tmp_path, {"docs/x.tmp.md": "t"})
    (tmp_path / ".git/info/exclude").write_text("docs/mine.md\n")
    write(tmp_path, {"docs/mine.md": "m"})
    policy = NotesPolicy.load(tmp_path / "docs")

    assert admitted(policy) == {"a.md"}
    assert policy.is_ignore_file(str(tmp_path / ".gitignore"))
    assert policy.is_ignore_file("../.gitignore")


def test_notes_folder_ignored_by_its_repository_is_still_indexed(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(tmp_path, {".gitignore": "private-notes/\n", "private-notes/a.md": "a"})

    assert admitted(NotesPolicy.load(tmp_path / "private-notes")) == {"a.md"}


def test_is_ignore_file_recognises_rule_files(tmp_path: Path) -> None:
    policy = NotesPolicy.load(tmp_path)

    assert policy.is_ignore_file(".gitignore")
    assert policy.is_ignore_file("a/b/.screeignore")
    assert policy.is_ignore_file(".git/info/exclude")
    assert policy.is_ignore_file(str(tmp_path / "x/.gitignore"))
    assert not policy.is_ignore_file("notes.md")
    assert not policy.is_ignore_file("../elsewhere/.gitignore")


def test_a_new_policy_picks_up_an_edited_gitignore(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "a"})
    before = NotesPolicy.load(tmp_path)
    assert before.file_skip_reason("a.md") is None

    (tmp_path / ".gitignore").write_text("a.md\n")

    assert NotesPolicy.load(tmp_path).file_skip_reason("a.md") is not None


def test_invalid_ignore_line_is_dropped_and_the_rest_still_apply(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "!\nfoo\\\nbad.md\n", "bad.md": "b", "good.md": "g"})
    policy = NotesPolicy.load(tmp_path)

    assert policy.inspect("bad.md").code is SkipCode.GITIGNORED
    assert policy.file_skip_reason("good.md") is None


def test_fifo_named_gitignore_does_not_block_loading(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".gitignore")
    write(tmp_path, {"a.md": "a"})

    assert NotesPolicy.load(tmp_path).file_skip_reason("a.md") is None


def test_file_skip_reason_is_stable_on_repeated_calls(tmp_path: Path) -> None:
    git_init(tmp_path)
    rules = "\n".join(f"pattern{i}/\n*.ext{i}\n!keep{i}.md" for i in range(30))
    write(tmp_path, {".gitignore": rules, "a/.gitignore": rules, "a/b/c/note.md": "n"})
    policy = NotesPolicy.load(tmp_path)
    assert policy.file_skip_reason("a/b/c/note.md") is None

    # Speed is measured in benchmarks; here: the cached answer stays right as the disk changes.
    assert all(policy.file_skip_reason("a/b/c/note.md") is None for _ in range(50))
    (tmp_path / "a" / "b" / "c" / "note.md").unlink()
    assert policy.file_skip_reason("a/b/c/note.md") is not None


# ----- vendored folders -------------------------------------------------------------------------

VENDORED_TREE = {
    "README.md": "r",
    "docs/guide.md": "g",
    "node_modules/left-pad/README.md": "third party",
    "web/node_modules/react/README.md": "third party",
    "vendor/github.com/x/y/README.md": "go module",
    "venv/lib/python3.11/site-packages/pkg/README.md": "installed",
    "lib/site-packages/pkg/README.md": "installed",
    "src/__pycache__/notes.md": "cache",
    "target/doc/README.md": "cargo",
    "dist/README.md": "built",
    "docs/build/html/index.md": "sphinx output",
    "docs/building.md": "a note whose name only starts like a vendored folder",
}


def test_vendored_folders_are_skipped_in_a_folder_without_git(tmp_path: Path) -> None:
    write(tmp_path, VENDORED_TREE)
    policy = NotesPolicy.load(tmp_path)
    found = admitted(policy)
    assert found == {"README.md", "docs/guide.md", "docs/building.md"}
    verdict = policy.inspect("vendor/github.com/x/y/README.md")
    assert verdict.code is SkipCode.SCREEIGNORED and "'!vendor/'" in verdict.reason  # says how to get it back


def test_vendored_folders_are_skipped_in_a_repo_that_does_not_ignore_them(tmp_path: Path) -> None:
    git_init(tmp_path)
    write(tmp_path, {**VENDORED_TREE, ".gitignore": "*.log\n"})
    found = admitted(NotesPolicy.load(tmp_path))
    assert found == {"README.md", "docs/guide.md", "docs/building.md"}


def test_screeignore_can_re_include_a_vendored_folder(tmp_path: Path) -> None:
    write(tmp_path, {**VENDORED_TREE, ".screeignore": "!vendor/\n", "docs/.screeignore": "!build/\n"})
    policy = NotesPolicy.load(tmp_path)
    found = admitted(policy)
    assert found == {"README.md", "docs/guide.md", "docs/building.md", "vendor/github.com/x/y/README.md",
                     "docs/build/html/index.md"}
    assert policy.inspect("dist/README.md").code is SkipCode.SCREEIGNORED  # the others stay out


def test_a_build_folder_holding_a_conf_py_is_a_sphinx_source_and_indexed(tmp_path: Path) -> None:
    write(tmp_path, {"docs/build/conf.py": "extensions = []\n", "docs/build/index.rst": "Index\n=====\n",
                     "build/lib/pkg/README.md": "a copy", "docs/dist/conf.py": "", "docs/dist/page.md": "p",
                     "node_modules/conf.py": "", "node_modules/README.md": "installed"})
    policy = NotesPolicy.load(tmp_path)
    assert admitted(policy) == {"docs/build/index.rst", "docs/dist/page.md"}  # installed code never is
    assert policy.inspect("build/lib/pkg/README.md").code is SkipCode.SCREEIGNORED  # no conf.py: build output


def test_a_notes_folder_named_like_a_vendored_folder_is_still_indexed(tmp_path: Path) -> None:
    root = tmp_path / "build"
    write(root, {"plan.md": "p"})
    assert admitted(NotesPolicy.load(root)) == {"plan.md"}
