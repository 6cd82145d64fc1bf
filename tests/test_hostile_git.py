"""Hostile repositories under `balance --against REV` and `print --changed-since REF`: a
repository is as untrusted as its content. Its own config runs nothing (smudge and textconv
filters, hooks), a crafted tree writes nothing outside the temporary folder, links in it are
left out, a huge folder is refused while it is read, and a revision that does not exist is
said so on one line."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from conftest import one_line, rulepress
from rulepress.compiler import printing, revisions
from rulepress.compiler.revisions import RevisionError, export

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="no git")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")


def git(cwd, *args, stdin: bytes | None = None) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, input=stdin)
    return done.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path):
    """A repository holding the duel game at HEAD, and the game's folder in it."""
    top = tmp_path / "repo"
    top.mkdir()
    shutil.copytree(DUEL, top / "duel")
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "duel")
    return top


def tree(top, entries: dict) -> str:
    """A tree object made from {name: bytes | dict | ("link", target)}, whatever the names
    (git mktree takes `..` as a name, as a crafted repository may)."""
    lines = []
    for name, value in entries.items():
        if isinstance(value, dict):
            lines.append(f"040000 tree {tree(top, value)}\t{name}")
        elif isinstance(value, tuple):
            oid = git(top, "hash-object", "-w", "--stdin", stdin=value[1].encode())
            lines.append(f"120000 blob {oid}\t{name}")
        else:
            oid = git(top, "hash-object", "-w", "--stdin", stdin=value)
            lines.append(f"100644 blob {oid}\t{name}")
    return git(top, "mktree", stdin=("\n".join(lines) + "\n").encode())


def commit(top, entries: dict) -> str:
    oid = git(top, "commit-tree", tree(top, entries), "-m", "crafted")
    git(top, "branch", "-f", "crafted", oid)
    return "crafted"


def duel_files() -> dict:
    return {name: open(os.path.join(DUEL, name), "rb").read() for name in os.listdir(DUEL)}


def test_a_smudge_filter_and_textconv_in_the_repositorys_config_never_run(repo, tmp_path):
    sentinel = tmp_path / "ran"
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    for key in ("filter.evil.smudge", "filter.evil.process", "diff.evil.textconv", "core.fsmonitor"):
        git(repo, "config", key, f"touch {sentinel}")
    git(repo, "config", "filter.evil.required", "true")
    hooks = repo / ".git" / "hooks"
    for hook in ("post-checkout", "reference-transaction", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {sentinel}\n")
        (hooks / hook).chmod(0o755)
    with revisions.temporary() as tmp:
        old = export(str(repo / "duel"), "HEAD", tmp)
        assert open(os.path.join(old, "game.yaml"), "rb").read() == (repo / "duel" / "game.yaml").read_bytes()
    assert printing.tables_at(str(repo / "duel"), "HEAD")["game"]["id"] == "duel"
    assert not sentinel.exists()


def test_a_tree_with_dotdot_names_writes_nothing_outside(repo, tmp_path):
    # duel/../../.. up to the root, then down to tmp_path/escaped.yaml
    down: dict = {"escaped.yaml": b"game: {id: x}\n"}
    for part in reversed(str(tmp_path).strip("/").split("/")):
        down = {part: down}
    up = down
    for _ in range(len(str(tmp_path).split("/")) + 8):
        up = {"..": up}
    ref = commit(repo, {"duel": dict(duel_files(), **up)})
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="outside its folder"):
        export(str(repo / "duel"), ref, tmp)
    with pytest.raises(printing.PrintError, match="outside its folder"):
        printing.tables_at(str(repo / "duel"), ref)
    assert not (tmp_path / "escaped.yaml").exists()


def test_a_tree_entry_named_dotdot_is_refused_by_balance_in_one_line(repo, capsys, monkeypatch):
    ref = commit(repo, {"duel": dict(duel_files(), **{"..": b"x"})})
    code, _out, err = rulepress(capsys, monkeypatch, "balance", repo / "duel", "--against", ref, "-n", 1)
    assert code == 1 and "names a path outside its folder" in one_line(err)


def test_links_in_the_tree_are_left_out(repo, tmp_path):
    ref = commit(repo, {"duel": dict(duel_files(), **{"secret.yaml": ("link", "/etc/passwd"),
                                                     "rules": ("link", "/etc")})})
    with revisions.temporary() as tmp:
        old = export(str(repo / "duel"), ref, tmp)
        assert sorted(os.listdir(old)) == ["game.yaml"]


def test_a_folder_over_the_cap_is_refused_as_it_is_read(repo, monkeypatch):
    monkeypatch.setattr(revisions, "MAX_FOLDER_BYTES", 50_000)
    ref = commit(repo, {"duel": dict(duel_files(), **{f"big{i}.bin": os.urandom(20_000) for i in range(4)})})
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="over .* files or 0 MB"):
        export(str(repo / "duel"), ref, tmp)


def test_a_file_over_a_content_files_size_is_left_out_unread(repo, monkeypatch):
    monkeypatch.setattr(revisions, "MAX_FILE_BYTES", 100_000)
    ref = commit(repo, {"duel": dict(duel_files(), **{"art.bin": b"\0" * 200_000})})
    with revisions.temporary() as tmp:
        assert os.listdir(export(str(repo / "duel"), ref, tmp)) == ["game.yaml"]


def test_a_listing_over_its_cap_is_refused(repo, monkeypatch):
    monkeypatch.setattr(revisions, "MAX_LISTING_BYTES", 2_000)
    ref = commit(repo, {"duel": dict(duel_files(), **{f"n{i:04}.yaml": b"x" for i in range(100)})})
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="lists over"):
        export(str(repo / "duel"), ref, tmp)


@pytest.mark.parametrize("rev", ["no-such-branch", "v9.9", "deadbeef", "HEAD~40"])
def test_an_unknown_revision_is_named_in_one_line(repo, capsys, monkeypatch, rev):
    code, _out, err = rulepress(capsys, monkeypatch, "balance", repo / "duel", "--against", rev, "-n", 1)
    line = one_line(err)
    assert code == 1 and f"--against: unknown git revision `{rev}`" in line and "rev-parse" not in line
    with pytest.raises(printing.PrintError, match=f"--changed-since: unknown git revision `{rev}`"):
        printing.tables_at(str(repo / "duel"), rev)


def test_a_folder_that_did_not_exist_then(repo, tmp_path, capsys, monkeypatch):
    shutil.copytree(DUEL, repo / "later")
    assert printing.tables_at(str(repo / "later"), "HEAD") is None  # every card counts as changed
    code, _out, err = rulepress(capsys, monkeypatch, "balance", repo / "later", "--against", "HEAD", "-n", 1)
    assert code == 1 and "does not exist at HEAD" in one_line(err)


def test_a_folder_whose_name_is_a_pathspec_is_read_literally(tmp_path):
    top = tmp_path / "repo"
    top.mkdir()
    shutil.copytree(DUEL, top / "[d]uel")
    shutil.copytree(DUEL, top / "d")
    (top / "d" / "extra.yaml").write_text("x: 1\n")
    git(top, "init", "-q")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "two")
    with revisions.temporary() as tmp:
        assert os.listdir(export(str(top / "[d]uel"), "HEAD", tmp)) == ["game.yaml"]


def test_a_folder_of_huge_blobs_is_refused_without_reading_them(repo, tmp_path):
    import resource
    big = b"\0" * (15 * 1024 * 1024)  # (one blob, named fifteen times: 225 MB in the tree, little in the pack)
    ref = commit(repo, {"duel": dict(duel_files(), **{f"big{i:02}.yaml": big for i in range(15)})})
    del big
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="200 MB: not a game's content"):
        export(str(repo / "duel"), ref, tmp)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # (KiB)


@pytest.mark.parametrize("rev, says", [("crafted", "names a path outside its folder"),
                                       ("no-such-branch", "--changed-since: unknown git revision `no-such-branch`")])
def test_print_changed_since_refuses_in_one_line(repo, tmp_path, capsys, monkeypatch, rev, says):
    if rev == "crafted":
        commit(repo, {"duel": dict(duel_files(), **{"..": {"escaped.yaml": b"x: 1\n"}})})
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    code, _out, err = rulepress(capsys, monkeypatch, "print", repo / "duel", "--changed-since", rev, "-o", tmp_path / "pdf")
    assert code == 1 and says in one_line(err)
    assert not (tmp_path / "pdf").exists()


def test_a_name_too_long_for_the_file_system_is_one_line(repo):
    ref = commit(repo, {"duel": dict(duel_files(), **{"x" * 300 + ".yaml": b"x: 1\n"})})
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="cannot copy 'duel/xxx.*' of crafted: File name too long"):
        export(str(repo / "duel"), ref, tmp)


def test_a_folder_that_was_a_file_then_did_not_exist_then(repo):
    ref = commit(repo, {"duel": b"game: {}\n"})
    with revisions.temporary() as tmp:
        assert export(str(repo / "duel"), ref, tmp) is None


def test_without_git_installed_it_says_so(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with revisions.temporary() as tmp, pytest.raises(RevisionError, match="^--changed-since needs git, which is not installed$"):
        export(str(repo / "duel"), "HEAD", tmp, "--changed-since")
