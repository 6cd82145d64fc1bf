"""Printed PDFs: every game's rulebook and card sheets, checked as page images (pdftoppm)."""
import fcntl
import json
import math
import os
import shutil
import subprocess
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest
from click.testing import CliRunner

from rulepress.compiler.cards import BLEED, CARD_H, CARD_W, PAPER, _slots, card_faces
from rulepress.compiler.printing import changed_cards, game_tables, print_game
from tests.conftest import ROOT

pytest.importorskip("weasyprint")
if not shutil.which("pdftoppm"):
    pytest.skip("pdftoppm is missing: `make setup` installs poppler-utils", allow_module_level=True)

DPI = 20  # enough to see ink and measure pages, cheap to make


def _games():
    base = os.path.join(ROOT, "content")
    names = sorted(d for d in os.listdir(base) if os.path.isfile(os.path.join(base, d, "game.yaml"))) if os.path.isdir(base) else []
    return [os.path.join(base, n) for n in names] or [os.path.join(ROOT, "docs/tutorial/race")]


# The rulebooks laid out here: Night City's (in English) and Study in Emerald's (in Russian)
# hold every section and every kind of picture of the content's rulebooks (the map, the turn,
# icons drawn as images); Android's and Arkham's, 190 kB of HTML each against 80, are more
# pages of the same (8 s of CPU of this module's 20). Every game's card sheet is printed.
# (`make sheets` prints every rulebook in both languages: test_committed_card_sheets_...)
RULEBOOKS = ("night-city", "study-in-emerald")


def _with_rulebook(folder) -> bool:
    games = [os.path.basename(g) for g in _games()]
    return os.path.basename(folder) in RULEBOOKS or not set(RULEBOOKS) & set(games)


def _cached_pdf(html, base, path, cache):
    """A PDF of this exact HTML was made before: copy it (unchanged content costs no layout)."""
    import hashlib
    from rulepress.compiler.printing import _pdf
    key = hashlib.sha256(html.encode("utf-8")).hexdigest()[:20]
    stored = os.path.join(cache, key + ".pdf") if cache else None
    if stored and os.path.exists(stored):
        shutil.copyfile(stored, path)
        os.utime(stored)  # still in use: kept by the pruning below
        return path
    _pdf(html, base, path)
    if stored:
        shutil.copyfile(path, stored)
    return path


def _two_of_each_kind(t, ids) -> list:
    """Two cards of each deck and kind: every back and every card template of the game on the
    sheets, which lay every card out alike (each card's own face is laid out and measured in
    test_cards); sheets of all 260 distinct cards of the content took a third of this module's time."""
    taken: Counter = Counter()
    out = []
    for c in ids:
        kind = (t["protos"][c].get("deck"), t["protos"][c].get("kind"))
        taken[kind] += 1
        if taken[kind] <= 2:
            out.append(c)
    return out


def _print_one(job):
    folder, lang, out, cache = job
    from rulepress.compiler import cards as card_module
    from rulepress.compiler.printing import game_tables as tables_of
    from rulepress.compiler.rulebook import render_rulebook
    t = tables_of(folder)
    gid = t["game"]["id"]
    written = []
    if _with_rulebook(folder):
        written.append(_cached_pdf(render_rulebook(t, lang, "html", folder), folder, os.path.join(out, f"{gid}.rulebook.{lang}.pdf"), cache))
    other = "ru" if lang == "en" else "en"
    every = card_module.card_ids(t)
    ids = _two_of_each_kind(t, every)
    if ids:
        # one copy of each: copies are checked on the small game, not laid out 288 times
        t = dict(t, protos={k: dict(p, count=int(k in ids)) if k in every else p for k, p in t["protos"].items()})
        html = card_module.render_cards(t, other, "a4", folder)
        written.append(_cached_pdf(html, folder, os.path.join(out, f"{gid}.cards.{other}.pdf"), cache))
    return [(p, folder, len(ids)) for p in written]


@pytest.fixture(scope="session")
def pdfs(tmp_path_factory, request):
    """Each game's cards in one language and (for RULEBOOKS) its rulebook in the other, the
    languages alternating by game. Printed once a session: under pytest-xdist the first worker to ask
    prints them into the run's shared folder, and a worker that asks meanwhile waits."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # (each worker's folder is in the run's)
    with open(base / "pdf.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (let go as the file closes)
        made = base / "pdf.json"
        if not made.exists():
            shutil.rmtree(base / "pdf", ignore_errors=True)  # (what a run that failed left)
            os.mkdir(base / "pdf")
            made.write_text(json.dumps(_print_all(str(base / "pdf"), request)), encoding="utf-8")
        return {k: tuple(v) for k, v in json.loads(made.read_text(encoding="utf-8")).items()}


def _print_all(out, request):
    store = getattr(request.config, "cache", None)
    cache = str(store.mkdir("rulepress-pdf")) if store is not None else None
    started = time.time() - 1
    jobs = [(g, ("en", "ru")[i % 2], out, cache) for i, g in enumerate(_games())]
    with ProcessPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        made = [m for ms in pool.map(_print_one, jobs) for m in ms]
    for name in os.listdir(cache) if cache else []:  # PDFs of content that has since changed
        if os.path.getmtime(os.path.join(cache, name)) < started:
            os.remove(os.path.join(cache, name))
    return {os.path.basename(p): (p, folder, n_cards) for p, folder, n_cards in made}


def pages_of(pdf):
    """The pages as (width, height, gray bytes) at DPI."""
    prefix = pdf[:-4] + "-page"
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", pdf, prefix], check=True)
    out = []
    folder = os.path.dirname(pdf)
    for name in sorted(f for f in os.listdir(folder) if f.startswith(os.path.basename(prefix)) and f.endswith(".pgm")):
        with open(os.path.join(folder, name), "rb") as fh:
            data = fh.read()
        parts = data.split(maxsplit=4)  # P5 width height maxval pixels
        w, h = int(parts[1]), int(parts[2])
        out.append((w, h, parts[4][-w * h:]))
    return out


def _px(mm):
    return mm / 25.4 * DPI


_DARK = bytes(range(200))


def _ink(gray):
    """Share of the page that is printed on (darker than light grey)."""
    return (len(gray) - len(gray.translate(None, _DARK))) / len(gray)


def _pdfinfo_pages(pdf):
    info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, check=True).stdout
    return int(next(ln.split()[-1] for ln in info.splitlines() if ln.startswith("Pages:")))


def test_every_game_prints_a_rulebook_and_its_cards(pdfs):
    for folder in _games():
        made = [(n, n_cards) for n, (_p, f, n_cards) in pdfs.items() if f == folder]
        assert any(".rulebook." in n for n, _c in made) == _with_rulebook(folder), folder
        assert any(c for _n, c in made) == any(".cards." in n for n, _c in made), folder


def test_rulebook_pages_are_a4_and_none_is_blank(pdfs):
    for name, (pdf, _folder, _n) in pdfs.items():
        if ".rulebook." not in name:
            continue
        pages = pages_of(pdf)
        assert len(pages) == _pdfinfo_pages(pdf) >= 3
        for w, h, gray in pages:
            assert abs(w - _px(210)) <= 1.5 and abs(h - _px(297)) <= 1.5
            assert _ink(gray) > 0.0005, f"{name}: a blank page"


def test_card_sheets_hold_nine_cards_a_page_with_a_back_for_each_front(pdfs):
    for name, (pdf, _folder, distinct) in pdfs.items():
        if ".cards." not in name:
            continue
        pages = pages_of(pdf)
        assert len(pages) == 2 * math.ceil(distinct / 9)
        for w, h, gray in pages:
            assert abs(w - _px(210)) <= 1.5 and abs(h - _px(297)) <= 1.5
            assert _ink(gray) > 0.01


def _profile(w, h, gray, mirror=False):
    """Which columns and which rows of the page have ink: where the cards and their marks are."""
    cols = [any(gray[y * w + x] < 250 for y in range(h)) for x in range(w)]
    rows = [any(gray[y * w + x] < 250 for x in range(w)) for y in range(h)]
    return (cols[::-1] if mirror else cols), rows


def test_backs_line_up_with_fronts_when_printed_on_both_sides(pdfs):
    pdf = next(p for n, (p, _f, _n) in pdfs.items() if ".cards." in n)
    (w, h, front), (_w, _h, back) = pages_of(pdf)[-2:]  # the last sheet: often not full, so mirroring shows
    fc, fr = _profile(w, h, front)
    bc, br = _profile(w, h, back, mirror=True)
    assert _agree(fc, bc) > 0.98
    assert _agree(fr, br) > 0.98


def _agree(a, b):
    """Share of positions where two profiles agree, give or take a pixel of rounding."""
    return sum(a[i] in b[max(0, i - 1):i + 2] for i in range(len(a))) / len(a)


@pytest.mark.parametrize("paper", sorted(PAPER))
def test_slots_keep_the_card_size_the_bleed_and_mirror_for_duplex(paper):
    pw, ph = PAPER[paper]
    front, marks = _slots(paper, back=False)
    back, _ = _slots(paper, back=True)
    assert len(front) == 9 and marks
    for f in front:
        assert f["x"] >= 0 and f["y"] >= 0 and f["x"] + f["w"] <= pw and f["y"] + f["h"] <= ph
        trim_x, trim_y = f["x"] + f["tx"], f["y"] + f["ty"]
        assert trim_x >= 3 and trim_y >= 3 and trim_x + CARD_W <= pw - 3 and trim_y + CARD_H <= ph - 3
    outer = front[0]
    assert outer["tx"] == BLEED and outer["ty"] == BLEED  # full bleed at the sheet's edge
    for i, f in enumerate(front):
        r, c = divmod(i, 3)
        mirrored = back[r * 3 + c]
        # the back printed behind card (r, c) sits where the front's column is mirrored on the page
        assert abs((f["x"] + f["tx"]) - (pw - (mirrored["x"] + mirrored["tx"] + CARD_W))) < 1e-6
        assert abs((f["y"] + f["ty"]) - (mirrored["y"] + mirrored["ty"])) < 1e-6


def test_quantities_become_copies_with_id_and_version_on_each(race):
    faces = card_faces(race.data, "en")
    assert len(faces) == 10
    assert sum(f["id"] == "nitro" for f in faces) == 6
    assert all(f["stamp"].startswith(f"{f['id']} · v1 · ") for f in faces)


def test_print_command_writes_letter_pdfs_in_the_language_asked(tmp_path):
    from rulepress.cli import main
    race = os.path.join(ROOT, "docs/tutorial/race")
    res = CliRunner().invoke(main, ["print", race, "--lang", "ru", "--paper", "letter", "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert sorted(os.listdir(tmp_path)) == ["race.cards.ru.pdf", "race.components.ru.pdf", "race.rulebook.ru.pdf"]
    pages = pages_of(str(tmp_path / "race.cards.ru.pdf"))
    assert len(pages) == 4  # 10 cards: two sheets, each with its backs
    for w, h, gray in pages + pages_of(str(tmp_path / "race.rulebook.ru.pdf")) + pages_of(str(tmp_path / "race.components.ru.pdf")):
        assert abs(w - _px(215.9)) <= 1.5 and abs(h - _px(279.4)) <= 1.5
        assert _ink(gray) > 0.0005


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True, capture_output=True)


def test_changed_since_prints_only_cards_whose_definition_changed(tmp_path):
    repo = tmp_path / "repo"
    game = repo / "content" / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    src = (game / "game.yaml").read_text(encoding="utf-8")
    # a comment above the cards shifts every line: positions move, definitions do not
    src = src.replace("cards:\n", "# the boosts\ncards:\n").replace("attrs: {speed: 1}", "attrs: {speed: 2}")
    (game / "game.yaml").write_text(src, encoding="utf-8")
    assert changed_cards(str(game), "HEAD", game_tables(str(game))) == {"oil"}
    written = print_game(str(game), ("en",), "a4", "HEAD", str(tmp_path / "out"))
    assert [os.path.basename(p) for p in written] == ["race.cards.en.pdf"]
    assert len(pages_of(written[0])) == 2  # four copies of one card: one sheet and its backs


def test_print_writes_tokens_board_and_a_player_aid_for_each_gang(tmp_path):
    """Tokens as punch sheets (every copy), the board's locations as tiles, and a player aid
    for each gang (the faction the game scores by): its name, its text, its home and its
    pieces beside the turn summary, in each language."""
    from rulepress.compiler.components import render_components, tokens
    folder = os.path.join(ROOT, "content", "night-city")
    t = game_tables(folder)
    html = render_components(t, "en", "a4", folder)
    named = [p for k, p in t["protos"].items() if p.get("section") in ("tokens", "pieces") and p.get("name") != {"en": k}]
    assert len(tokens(t, "en")) == sum(p.get("count", 1) for p in named) == html.count('class="token"')
    assert html.count('class="tile"') == len(t["locations"])
    gangs = [k for k, p in t["protos"].items() if p.get("kind") == "gang"]
    aids = html.split('<div class="aid faction">')[1:]
    assert len(aids) == len(gangs) == 4
    for gang, aid in zip(sorted(gangs, key=lambda g: t["protos"][g]["name"]["en"]), aids):
        p = t["protos"][gang]
        assert p["name"]["en"] in aid and p["text"]["en"][:40] in aid
        assert t["protos"][p["attrs"]["home"]]["name"]["en"] in aid  # its home district, by name
        assert "Your pieces:" in aid and f'3 × {p["name"]["en"]} solo' in aid
        assert "two actions a turn" in aid and "Player aid" in aid and gang not in aid.replace(p["name"]["en"], "")
    ru = render_components(t, "ru", "a4", folder)
    assert ru.count('<div class="aid faction">') == 4 and "Памятка игрока" in ru and "два действия за ход" in ru
    assert "Ваши фишки:" in ru and "3 × Соло «Мальстрёма»" in ru
    out = tmp_path / "out"
    written = print_game(os.path.join(ROOT, "docs", "tutorial", "race"), out_dir=str(out))
    assert any(w.endswith("race.components.en.pdf") for w in written) or not any(
        p.get("section") in ("tokens", "pieces") for p in game_tables(os.path.join(ROOT, "docs", "tutorial", "race"))["protos"].values())


@pytest.mark.parametrize("game, kind", [("android", "detective"), ("arkham-horror", "investigator"),
                                        ("night-city", "gang"), ("study-in-emerald", "identity")])
def test_the_factions_are_the_things_the_scoring_faction_can_name(game, kind):
    """`faction: player.det` is followed to what the effects put in `det` (a detective, through a
    procedure's argument); `player.investigator`, to the cards drawn from the investigators'
    deck; `first([c.type for c in every identity ...])`, to the identity cards."""
    from rulepress.compiler.factions import factions
    t = game_tables(os.path.join(ROOT, "content", game))
    assert sorted(factions(t)) == sorted(k for k, p in t["protos"].items() if p.get("kind") == kind)


def test_sides_several_players_share_are_all_on_every_seats_aid():
    """A Study in Emerald's identities are secret sides (three cards of each): every seat's aid
    lists both, so the aid a player holds tells nothing."""
    from rulepress.compiler.components import render_components
    folder = os.path.join(ROOT, "content", "study-in-emerald")
    t = game_tables(folder)
    html = render_components(t, "en", "a4", folder)
    aids = html.split('<div class="aid faction">')[1:]
    assert len(aids) == t["game"]["players"]["max"]
    for aid in aids:
        assert "The sides" in aid and "Loyalist" in aid and "Restorationist" in aid
        assert "If you are revealed, the game ends at once." in aid


def test_a_game_without_factions_has_the_same_aid_for_each_seat():
    from rulepress.compiler.components import render_components
    folder = os.path.join(ROOT, "docs", "examples", "love-letter")
    t = game_tables(folder)
    html = render_components(t, "en", "a4", folder)
    if html is not None and "Player aid" in html:
        assert html.count('<div class="aid">') == t["game"]["players"]["max"]
        assert 'class="aid faction"' not in html


SHEETS = [os.path.join("content", g) for g in ("android", "study-in-emerald", "arkham-horror", "night-city")] + \
    [os.path.join("docs", "examples", g) for g in ("love-letter", "coup")]


@pytest.mark.parametrize("folder", SHEETS)
def test_committed_card_sheets_are_made_from_the_content_as_it_is(folder):
    """build/<game>/sheets/ (`make sheets`): both languages' printed rulebooks, card sheets and
    contact sheets, made from the content's present hash."""
    import json
    from rulepress.compiler.pipeline import compile_game
    text, gid, _report = compile_game(os.path.join(ROOT, folder))
    sheets = os.path.join(ROOT, "build", os.path.basename(folder), "sheets")
    with open(os.path.join(sheets, f"{gid}.sheets.json"), encoding="utf-8") as fh:
        made = json.load(fh)
    assert made["content_hash"] == json.loads(text)["content_hash"], f"{sheets} is stale: run `make sheets`"
    for lang in ("en", "ru"):
        assert os.path.isfile(os.path.join(sheets, f"{gid}.cards.{lang}.pdf"))
        assert os.path.isfile(os.path.join(sheets, f"{gid}.rulebook.{lang}.pdf"))
        assert os.path.isfile(os.path.join(sheets, f"{gid}.contact.{lang}-1.png"))
