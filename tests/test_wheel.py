"""The package as a user gets it: a wheel with one top-level package, installed into a fresh
virtual environment, runs every command on a game in a folder outside the repository.

Slow (a wheel build and an install, from the pip cache or PyPI): RULEPRESS_SKIP_WHEEL=1
leaves it out of a quick run."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "rulepress", "compiler", "runtime", "schemas")
# The smallest game that prints every kind of sheet (rulebook, components, cards) with the
# package's own templates: Study in Emerald (its own card template, 42 cards) took 6 s of CPU
# more to print and read no more of the installed package.
GAME = "love-letter"

pytestmark = pytest.mark.skipif(os.environ.get("RULEPRESS_SKIP_WHEEL") == "1", reason="RULEPRESS_SKIP_WHEEL=1")


def run(cmd, cwd, env=None, timeout=300):
    got = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert got.returncode == 0, f"{' '.join(map(str, cmd))} exited {got.returncode}:\n{got.stdout[-3000:]}\n{got.stderr[-3000:]}"
    return got


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(the wheel, the fresh environment's bin folder). The wheel is built from a copy of the
    package's sources, so that nothing the build makes lands in the repository (its build/
    folder is the games' committed output). Built and installed once a session: under
    pytest-xdist the first worker to ask makes it in the run's shared folder, and a worker
    that asks meanwhile waits for it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # (each worker's folder is in the run's)
    tmp = base / "wheel"
    with open(base / "wheel.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (let go as the file closes)
        made = tmp / "installed"
        if not made.exists():
            shutil.rmtree(tmp, ignore_errors=True)  # (what a build that failed left)
            _build_and_install(tmp)
            made.write_text("yes")
    (wheel,) = (tmp / "dist").glob("rulepress-*.whl")
    return wheel, tmp / "venv" / "bin"


def _build_and_install(tmp):
    src = tmp / "src"
    src.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        path = os.path.join(ROOT, name)
        if os.path.isdir(path):
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy(path, src / name)
    pip_env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)], tmp, pip_env)
    (wheel,) = (tmp / "dist").glob("rulepress-*.whl")
    venv = tmp / "venv"
    # (installed by this pip, not one of its own: the same install, less the time ensurepip
    # and byte-compiling every dependency take; the modules run are compiled as they load)
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-compile", str(wheel)],
        tmp, pip_env, timeout=600)


def test_the_wheel_holds_one_package_with_its_data_and_nothing_made(installed):
    wheel, _bin = installed
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode("utf-8")
    assert {n.split("/")[0] for n in names} == {"rulepress", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}
    for data in ("rulepress/compiler/dsl.lark", "rulepress/compiler/templates/rulebook.md.j2",
                 "rulepress/compiler/templates/cards.css", "rulepress/compiler/messages/ru.yaml",
                 "rulepress/compiler/dsl.tables.json", "rulepress/schemas/content-file.json",
                 "rulepress/table/static/table.js", "rulepress/table/static/table.html"):
        assert data in names
    assert not [n for n in names if "/_schemas/" in n or "/_templates/" in n or n.endswith(".pyc")]
    assert "License: MIT" in meta or "License-Expression: MIT" in meta
    assert "Project-URL: Source" in meta and "Classifier: Programming Language :: Python :: 3.11" in meta
    assert "Description-Content-Type: text/markdown" in meta and "## Commands" in meta  # the readme


def test_every_command_works_on_a_game_outside_the_repository(installed, tmp_path):
    _wheel, bin_dir = installed
    work = tmp_path / "elsewhere"
    shutil.copytree(os.path.join(ROOT, "docs", "examples", GAME), work / GAME)
    site = run([str(bin_dir / "python"), "-c", "import rulepress, os; print(os.path.dirname(rulepress.__file__))"], work).stdout.strip()
    assert not site.startswith(ROOT), site  # the installed package, not the repository's
    before = sorted(os.path.join(d, f) for d, _s, fs in os.walk(site) for f in fs if not f.endswith(".pyc"))
    env = {**os.environ, "RULEPRESS_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": ""}
    rp = str(bin_dir / "rulepress")
    assert "checked: 0 errors" in run([rp, "validate", GAME], work, env).stdout
    run([rp, "build", GAME, "-o", "out"], work, env)
    assert (work / "out").is_dir() and any((work / "out").rglob("game.json"))
    run([rp, "test", GAME], work, env)
    run([rp, "simulate", GAME, "-n", "2", "--seed", "1"], work, env)
    run([rp, "print", GAME, "-o", "pdf"], work, env, timeout=600)
    assert {p.name for p in (work / "pdf").rglob("*.pdf")} >= {f"{GAME}.{kind}.en.pdf" for kind in ("rulebook", "components", "cards")}
    version = run([str(bin_dir / "python"), "-m", "rulepress", "--version"], work, env).stdout
    assert "rulepress" in version and "0.1.0" in version
    after = sorted(os.path.join(d, f) for d, _s, fs in os.walk(site) for f in fs if not f.endswith(".pyc"))
    assert after == before  # nothing written into the installed package
