"""`rulepress lsp` spoken to over stdio as an editor speaks to it: its diagnostics are
validate's, and completion, hover, definition, references and rename find the game's ids."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_client import Client

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")


@pytest.fixture()
def server(tmp_path):
    """A server forked from this process (lsp_client.Forked)."""
    yield from _server(tmp_path, fork=True)


@pytest.fixture()
def spawned(tmp_path):
    """A server started as an editor starts it: `python -m rulepress lsp`, a process of its own."""
    yield from _server(tmp_path, fork=False)


def _server(tmp_path, fork):
    shutil.copytree(DUEL, tmp_path / "duel")
    # its phase named, so the rulebook prints no id (W019 would come once the typing pauses)
    manifest = tmp_path / "duel" / "game.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        "    - id: main\n", "    - id: main\n      name: {en: Duel, ru: Поединок}\n", 1), encoding="utf-8")
    client = Client(str(tmp_path), fork=fork)
    client.root = tmp_path
    client.game = tmp_path / "duel" / "game.yaml"
    client.uri = client.game.as_uri()
    client.text = client.game.read_text(encoding="utf-8")
    yield client
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()


def opened(c: Client):
    c.start(str(c.root))
    c.notify("textDocument/didOpen", {"textDocument": {"uri": c.uri, "languageId": "yaml", "version": 1, "text": c.text}})
    return c.diagnostics(c.uri)


def change(c: Client, text: str, version=2):
    c.notify("textDocument/didChange", {"textDocument": {"uri": c.uri, "version": version},
                                        "contentChanges": [{"text": text}]})
    return c.diagnostics(c.uri)


def at(text: str, needle: str, offset=0, nth=0) -> dict:
    """The LSP position (0-based) of the nth `needle` in the text, plus `offset` characters."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    return {"line": line, "character": i - (text.rfind("\n", 0, i) + 1)}


def validate_json(folder) -> list:
    out = subprocess.run([sys.executable, "-m", "rulepress", "validate", "--no-cache", "--format", "json", str(folder)],
                         capture_output=True, text=True, cwd=folder.parent)
    return json.loads(out.stdout)["diagnostics"]


def same_as_validate(c: Client, text: str, diags: list, tmp_path) -> None:
    """The server's diagnostics are the ones validate gives for the same text, at the same places."""
    other = tmp_path / "saved" / "duel"
    shutil.copytree(c.game.parent, other)
    (other / "game.yaml").write_text(text, encoding="utf-8")
    want = sorted((d["line"], d["col"], d["code"], d["message"]) for d in validate_json(other))
    got = sorted((d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"], d["message"]) for d in diags)
    assert got == want and want


def test_initialize_offers_the_features(spawned):
    caps = spawned.start(str(spawned.root))["capabilities"]
    for name in ("completionProvider", "hoverProvider", "definitionProvider", "referencesProvider", "renameProvider"):
        assert caps.get(name), name
    assert spawned.close() == 0


def test_diagnostics_as_you_type_are_validates(server, tmp_path):
    assert opened(server) == []
    typo = server.text.replace("deck: blades, count: 6, attrs: {power: 3}", "deck: bladez, count: 6, attrs: {power: 3}")
    diags = change(server, typo)
    assert [d["code"] for d in diags] == ["R002"] and "did you mean `blades`" in diags[0]["message"]
    same_as_validate(server, typo, diags, tmp_path)
    # the unsaved text is checked; the file on disk is left as it was
    assert server.game.read_text(encoding="utf-8") == server.text
    assert change(server, server.text, 3) == []  # fixed: the diagnostics are cleared
    assert server.close() == 0


def test_effect_errors_point_into_the_effect(server, tmp_path):
    opened(server)
    bad = server.text.replace("      gain 1 tension\n", "      gain 1 tensoin\n")
    diags = change(server, bad)
    assert diags and all(d["code"].startswith("D") or d["code"].startswith("W") for d in diags)
    same_as_validate(server, bad, diags, tmp_path)
    assert diags[0]["range"]["start"]["line"] == at(bad, "tensoin")["line"]
    server.close()


def test_yaml_and_schema_errors(server, tmp_path):
    opened(server)
    for version, bad, code in ((2, server.text.replace("  rounds: 8", "  rounds: [8"), "Y001"),
                               (3, server.text.replace("    max_actions: 1", "    max_actoins: 1"), "S001"),
                               (4, server.text.replace("  tie: no_winner", "  tie: !!python/object:os.system no_winner"), "Y004")):
        diags = change(server, bad, version)
        assert code in [d["code"] for d in diags], (code, diags)
    got = server.request("textDocument/hover", {"textDocument": {"uri": server.uri}, "position": {"line": 0, "character": 0}})
    assert "error" not in got  # still serving
    server.close()


def complete(c: Client, pos) -> set:
    got = c.request("textDocument/completion", {"textDocument": {"uri": c.uri}, "position": pos})["result"]
    return {i["label"] for i in got["items"]}


def test_completion_in_an_effect_offers_what_the_grammar_accepts_there(server):
    opened(server)
    # where an amount is written: any expression, so ids, built-in names and functions, no statement
    labels = complete(server, at(server.text, "gain 1 tension", len("gain ")))
    assert {"tension", "vp", "blades", "sabre", "count", "max", "player"} <= labels and "draw" not in labels
    # after the amount: the counter gained, and nothing else that is a name
    labels = complete(server, at(server.text, "gain 1 tension", len("gain 1 ")))
    assert {"tension", "vp", "gold"} <= labels and not {"blades", "sabre", "count", "player", "draw"} & labels
    # where a statement starts: the statements
    text = server.text.replace("      gain 1 tension\n", "      gain 1 tension\n      \n")
    change(server, text)
    labels = complete(server, at(text, "gain 1 tension\n      \n", len("gain 1 tension\n      ")))
    assert {"draw", "gain", "if", "for", "choose"} <= labels
    server.close()


def test_completion_after_a_players_dot_offers_what_players_have(server):
    opened(server)
    text = server.text.replace("      gain 1 tension\n", "      gain 1 tension\n      log player.\n")
    change(server, text)
    labels = complete(server, at(text, "log player.", len("log player.")))
    assert {"vp", "gold", "hand", "seat"} <= labels and not {"power", "value", "sabre"} & labels
    server.close()


def test_a_blank_line_inside_an_entry_offers_its_keys_not_the_sections(server):
    opened(server)
    text = server.text.replace("  - id: dig\n", "  - id: dig\n    \n")
    change(server, text)
    labels = complete(server, at(text, "  - id: dig\n    \n", len("  - id: dig\n    ")))
    assert {"effect", "cost", "name"} <= labels and "cards" not in labels
    server.close()


def test_completion_after_a_dot_offers_attributes(server):
    opened(server)
    text = server.text.replace("      gain 1 tension\n", "      gain 1 tension\n      log x.\n")
    change(server, text)
    pos = at(text, "log x.", len("log x."))  # (x: a name whose kind the text does not say)
    got = server.request("textDocument/completion", {"textDocument": {"uri": server.uri}, "position": pos})["result"]
    labels = {i["label"] for i in got["items"]}
    assert {"power", "value", "owner", "seat"} <= labels and "sabre" not in labels
    server.close()


def test_completion_of_keys(server):
    opened(server)
    text = server.text.replace("  - id: dig\n", "  - id: dig\n    ef\n")
    pos = at(text, "    ef\n", len("    ef"))
    change(server, text)
    got = server.request("textDocument/completion", {"textDocument": {"uri": server.uri}, "position": pos})["result"]
    labels = {i["label"] for i in got["items"]}
    assert {"effect", "cost", "if", "name"} <= labels and "tokens" not in labels
    server.close()


def test_hover_shows_rules_text_and_built_in_docs(server):
    opened(server)
    got = server.request("textDocument/hover", {"textDocument": {"uri": server.uri},
                                                "position": at(server.text, "draw 1 from blades", len("draw 1 from "))})["result"]
    assert "Blades" in got["contents"]["value"] and "deck" in got["contents"]["value"]
    got = server.request("textDocument/hover", {"textDocument": {"uri": server.uri},
                                                "position": at(server.text, "- id: dig", len("- id: "))})["result"]
    value = got["contents"]["value"]
    assert "**Dig**" in value and "gold" in value.lower()  # its cost and effect in words
    got = server.request("textDocument/hover", {"textDocument": {"uri": server.uri},
                                                "position": at(server.text, "max(w[p]", 1)})["result"]
    assert "the largest of" in got["contents"]["value"]
    server.close()


def test_definition_and_references_of_an_id(server):
    opened(server)
    got = server.request("textDocument/definition", {"textDocument": {"uri": server.uri},
                                                     "position": at(server.text, "deck: blades", len("deck: "))})["result"]
    decl = at(server.text, "- id: blades", len("- id: "))
    assert got["uri"] == server.uri and got["range"]["start"] == decl
    got = server.request("textDocument/references", {"textDocument": {"uri": server.uri}, "context": {"includeDeclaration": True},
                                                     "position": at(server.text, "pay 1 gold", len("pay 1 "))})["result"]
    assert sorted((r["range"]["start"]["line"], r["range"]["start"]["character"]) for r in got) == sorted(
        (p["line"], p["character"]) for p in (at(server.text, "id: gold", 4), at(server.text, "pay 1 gold", 6)))
    server.close()


def test_rename_changes_every_mention_and_the_game_stays_valid(server, tmp_path):
    opened(server)
    got = server.request("textDocument/rename", {"textDocument": {"uri": server.uri}, "newName": "blade_deck",
                                                 "position": at(server.text, "id: blades", 4)})["result"]
    edits = got["changes"][server.uri]
    lines = server.text.split("\n")
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], -e["range"]["start"]["character"]), reverse=False)[::-1]:
        s, t = e["range"]["start"], e["range"]["end"]
        ln = lines[s["line"]]
        assert ln[s["character"]:t["character"]] == "blades"
        lines[s["line"]] = ln[:s["character"]] + e["newText"] + ln[t["character"]:]
    renamed = "\n".join(lines)
    assert len(edits) == server.text.count("blades") and "blades" not in renamed
    assert change(server, renamed) == []
    bad = server.request("textDocument/rename", {"textDocument": {"uri": server.uri}, "newName": "Not An Id",
                                                 "position": at(renamed, "id: gold", 4)})
    assert "error" in bad
    server.close()


def test_a_file_outside_any_game_is_left_alone(server, tmp_path):
    server.start(str(server.root))
    stray = tmp_path / "notes.yaml"
    stray.write_text("a: [\n", encoding="utf-8")
    server.notify("textDocument/didOpen", {"textDocument": {"uri": stray.as_uri(), "languageId": "yaml", "version": 1, "text": "a: [\n"}})
    got = server.request("textDocument/hover", {"textDocument": {"uri": stray.as_uri()}, "position": {"line": 0, "character": 0}})
    assert got.get("result") is None and "error" not in got
    assert server.close() == 0


def test_hostile_buffers_and_requests_get_answers_not_crashes(server):
    """Text typed into an editor is untrusted content: each gets a diagnostic at its place,
    odd requests get empty answers, and the server keeps serving."""
    opened(server)
    cases = (("a: " + "[" * 5000 + "\n", {"Y001", "Y006"}),
             ("game: {id: duel}\n" + "# " + "x" * (16 * 1024 * 1024) + "\n", {"Y008"}),
             ("a: &a [*a]\n", {"Y001", "Y005"}),
             ("x: \"\\ud800\"\n" + server.text, {"S001", "Y001"}),
             ("\0\0\0", {"Y001"}))
    for version, (text, codes) in enumerate(cases, 2):
        diags = change(server, text, version)
        assert codes & {d["code"] for d in diags}, (text[:40], diags)
    change(server, server.text, 10)
    uri = {"uri": server.uri}
    for method, extra in (("textDocument/hover", {"position": {"line": 9999, "character": 9999}}),
                          ("textDocument/definition", {"position": {"line": 0, "character": 500}}),
                          ("textDocument/completion", {"position": {"line": 9999, "character": 0}}),
                          ("textDocument/references", {"position": {"line": 9999, "character": 0}, "context": {"includeDeclaration": True}})):
        got = server.request(method, dict(textDocument=uri, **extra))
        assert "error" not in got, (method, got)
    for name in ("gold", "player", "count"):  # already the name of something: refused
        got = server.request("textDocument/rename", {"textDocument": uri, "newName": name,
                                                     "position": at(server.text, "id: blades", 4)})
        assert "error" in got
    untitled = {"uri": "untitled:Untitled-1"}
    server.notify("textDocument/didOpen", {"textDocument": dict(untitled, languageId="yaml", version=1, text="cards: [")})
    assert "error" not in server.request("textDocument/completion", {"textDocument": untitled, "position": {"line": 0, "character": 1}})
    assert server.close() == 0


def test_files_not_edited_keep_their_findings_and_changes_on_disk_are_seen(server):
    """Only the edited buffer is loaded again at a keystroke; a file saved by another program
    is loaded again too, and every finding stays until its cause is gone."""
    cards_at = server.text.index("cards:\n")
    cards_end = server.text.index("actions:\n")
    cards = server.text[cards_at:cards_end]
    server.text = server.text[:cards_at] + server.text[cards_end:]
    server.game.write_text(server.text, encoding="utf-8")
    other = server.game.parent / "cards.yaml"
    other.write_text(cards.replace("attrs: {power: 1}", "attrs: {power: 1"), encoding="utf-8")  # a YAML error there
    opened(server)
    other_uri = other.as_uri()
    for version in (2, 3):  # typing in game.yaml: the other file's error stays
        server.notify("textDocument/didChange", {"textDocument": {"uri": server.uri, "version": version},
                                                 "contentChanges": [{"text": server.text + f"# {version}\n"}]})
        assert [d["code"] for d in server.diagnostics(other_uri)] == ["Y001"]
    other.write_text(cards.replace("deck: blades, count: 6, attrs: {power: 3}", "deck: bladez, count: 6, attrs: {power: 3}"), encoding="utf-8")
    server.drain()
    server.notify("textDocument/didChange", {"textDocument": {"uri": server.uri, "version": 4},
                                             "contentChanges": [{"text": server.text}]})
    assert [d["code"] for d in server.diagnostics(other_uri)] == ["R002"]
    other.write_text(cards, encoding="utf-8")
    server.drain()
    server.notify("textDocument/didChange", {"textDocument": {"uri": server.uri, "version": 5},
                                             "contentChanges": [{"text": server.text + "\n"}]})
    assert server.diagnostics(other_uri) == []
    assert server.close() == 0


def test_a_burst_of_keys_is_checked_in_its_final_state(server):
    opened(server)
    word = "blades"
    for version in range(2, 14):  # typing `bladez` over `blades`, a key at a time, and back
        typed = word[:max(0, 8 - version)] if version < 8 else word[:version - 8]
        text = server.text.replace("draw 1 from blades", f"draw 1 from {typed}")
        server.notify("textDocument/didChange", {"textDocument": {"uri": server.uri, "version": version},
                                                 "contentChanges": [{"text": text}]})
    server.notify("textDocument/didChange", {"textDocument": {"uri": server.uri, "version": 14},
                                             "contentChanges": [{"text": server.text.replace("draw 1 from blades", "draw 1 from bladez")}]})
    final = server.request("textDocument/hover", {"textDocument": {"uri": server.uri}, "position": {"line": 0, "character": 0}})
    assert "error" not in final
    published = []
    while True:
        try:
            published.append(server.diagnostics(server.uri, timeout=1.0))
        except Exception:
            break
    assert [(d["code"], d["message"]) for d in published[-1]] == [("D013", "unknown name `bladez`; did you mean `blades`?")]
    assert len(published) < 13  # not one check per key
    server.close()


def test_columns_are_in_the_editors_units_past_characters_outside_the_bmp(server):
    """LSP counts columns in UTF-16 units; the compiler in characters. A sword before a deck's
    name moves the name by two units, not one."""
    opened(server)
    text = server.text.replace("name: {en: Sabre, ru: Сабля}, deck: blades", "name: {en: \"\U0001F5E1 Sabre\", ru: Сабля}, deck: bladez")
    diags = change(server, text)
    line = text.split("\n")[at(text, "bladez")["line"]]
    utf16 = len(line[:line.index("bladez")].encode("utf-16-le")) // 2
    assert [d["code"] for d in diags] == ["R002"]
    assert diags[0]["range"]["start"] == {"line": at(text, "bladez")["line"], "character": utf16}
    assert diags[0]["range"]["end"]["character"] == utf16 + len("bladez")
    fixed = text.replace("deck: bladez", "deck: blades")
    assert change(server, fixed, 3) == []
    pos = {"line": at(fixed, "deck: blades")["line"], "character": utf16 + 1}
    got = server.request("textDocument/definition", {"textDocument": {"uri": server.uri}, "position": pos})["result"]
    assert got["range"]["start"] == at(fixed, "- id: blades", len("- id: "))
    server.close()


def test_completion_of_a_triggers_event(server):
    opened(server)
    text = server.text.replace("flow:\n", "triggers:\n  - id: greet\n    \"on\": turn_\n    effect: |\n      emit greeted\n\nflow:\n")
    change(server, text)
    pos = at(text, "\"on\": turn_", len("\"on\": turn_"))
    got = server.request("textDocument/completion", {"textDocument": {"uri": server.uri}, "position": pos})["result"]
    labels = {i["label"] for i in got["items"]}
    assert {"turn_start", "turn_end", "round_start", "greeted"} <= labels and "sabre" not in labels
    server.close()


def test_ids_are_still_offered_while_the_only_file_cannot_be_read(server):
    opened(server)
    broken = server.text.replace("      gain 1 tension\n", "      gain 1 \n  - [\n")
    assert "Y001" in [d["code"] for d in change(server, broken)]
    pos = at(broken, "      gain 1 \n", len("      gain 1 "))
    got = server.request("textDocument/completion", {"textDocument": {"uri": server.uri}, "position": pos})["result"]
    assert {"tension", "gold"} <= {i["label"] for i in got["items"]}  # (the counters gain takes)
    server.close()


SCENARIO = """scenario:
  name: the pressure rises by one
  players: 2
  setup: |
    gain 1 tension
    move sabre to p1.hand
  expect:
    - tension == 1
    - count(p1.hand) >= 1
"""


def with_scenario(c: Client, text: str = SCENARIO):
    folder = c.game.parent / "scenarios"
    folder.mkdir(exist_ok=True)
    path = folder / "tension.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_scenario_files_diagnostics_are_validates(server, tmp_path):
    path = with_scenario(server)
    opened(server)
    uri = path.as_uri()
    typo = SCENARIO.replace("  expect:", "  exepct:").replace("gain 1 tension", "gain 1 tensoin")
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": typo}})
    diags = server.diagnostics(uri)
    path.write_text(typo, encoding="utf-8")
    want = sorted((d["line"], d["col"], d["code"], d["message"]) for d in validate_json(server.game.parent)
                  if d["file"].endswith("tension.yaml"))
    got = sorted((d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"], d["message"]) for d in diags)
    assert got == want and {"S001"} <= {w[2] for w in want}
    # a quick fix for each "did you mean"
    for d in diags:
        if "did you mean" not in d["message"]:
            continue
        actions = server.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                             "context": {"diagnostics": [d]}})["result"]
        (edit,) = actions[0]["edit"]["changes"][uri]
        typo = apply(typo, [edit])
    assert typo == SCENARIO  # every typo fixed by its quick fix
    server.close()


def apply(text: str, edits: list) -> str:
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        s, t = e["range"]["start"], e["range"]["end"]
        ln = lines[s["line"]]
        lines[s["line"]] = ln[:s["character"]] + e["newText"] + ln[t["character"]:]
    return "\n".join(lines)


def test_rename_reaches_the_scenarios_and_the_game_stays_valid_and_its_tests_pass(server):
    path = with_scenario(server)
    opened(server)
    prepared = server.request("textDocument/prepareRename", {"textDocument": {"uri": server.uri},
                                                             "position": at(server.text, "id: tension", 4)})["result"]
    assert prepared["placeholder"] == "tension"
    got = server.request("textDocument/rename", {"textDocument": {"uri": server.uri}, "newName": "stress",
                                                 "position": at(server.text, "id: tension", 4)})["result"]
    changes = got["changes"]
    assert set(changes) == {server.uri, path.as_uri()}
    server.game.write_text(apply(server.text, changes[server.uri]), encoding="utf-8")
    path.write_text(apply(SCENARIO, changes[path.as_uri()]), encoding="utf-8")
    assert "tension" not in path.read_text(encoding="utf-8") + server.game.read_text(encoding="utf-8")
    assert validate_json(server.game.parent) == []
    ran = subprocess.run([sys.executable, "-m", "rulepress", "test", str(server.game.parent)], capture_output=True, text=True)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
    # references from the scenario find the declaration too
    refs = server.request("textDocument/references", {"textDocument": {"uri": path.as_uri()}, "context": {"includeDeclaration": True},
                                                      "position": at(SCENARIO, "move sabre", 5)})["result"]
    assert server.uri in {r["uri"] for r in refs} and path.as_uri() in {r["uri"] for r in refs}
    server.close()


def test_rename_refuses_an_edit_through_a_link_leaving_the_workspace(server, tmp_path):
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "tension.yaml").write_text(SCENARIO, encoding="utf-8")
    (server.game.parent / "scenarios").mkdir()
    os.symlink(outside / "tension.yaml", server.game.parent / "scenarios" / "tension.yaml")
    opened(server)
    got = server.request("textDocument/rename", {"textDocument": {"uri": server.uri}, "newName": "stress",
                                                 "position": at(server.text, "id: tension", 4)})
    # refused, or (the linked scenario being no file of the game's: its reader refuses it) an
    # edit that leaves it alone: never an edit of the file outside
    if "error" in got:
        assert got["error"]["code"] == -32803 and "outside the workspace" in got["error"]["message"]
        assert "data" not in got["error"] or not got["error"]["data"]
    else:
        edited = json.dumps(got["result"])
        assert "tension.yaml" not in edited and outside.name not in edited, edited
    bad = server.request("textDocument/rename", {"textDocument": {"uri": server.uri}, "newName": "Bad Name",
                                                 "position": at(server.text, "id: gold", 4)})
    assert bad["error"]["code"] == -32803 and "not an id" in bad["error"]["message"] and not bad["error"].get("data")
    assert (outside / "tension.yaml").read_text(encoding="utf-8") == SCENARIO
    server.close()
    assert b"Traceback" not in server.proc.stderr.read()


def test_document_symbols_hover_on_attributes_and_a_translation_quick_fix(server):
    opened(server)
    got = server.request("textDocument/documentSymbol", {"textDocument": {"uri": server.uri}})["result"]
    sections = {s["name"]: {c["name"] for c in s.get("children") or ()} for s in got}
    assert {"sabre", "dagger"} <= sections["cards"] and "vp" in sections["counters"] and "game" in sections
    hover = server.request("textDocument/hover", {"textDocument": {"uri": server.uri},
                                                  "position": at(server.text, "w[p].power", len("w[p].p"))})["result"]
    assert "attribute" in hover["contents"]["value"] and "sabre (3)" in hover["contents"]["value"]
    text = server.text.replace("name: {en: Sabre, ru: Сабля}", "name: {en: Sabre}")
    diags = [d for d in change(server, text) if d["code"] == "S101"]
    assert diags, "no missing translation found"
    actions = server.request("textDocument/codeAction", {"textDocument": {"uri": server.uri}, "range": diags[0]["range"],
                                                         "context": {"diagnostics": diags[:1]}})["result"]
    fixed = apply(text, actions[0]["edit"]["changes"][server.uri])
    assert [d["code"] for d in change(server, fixed, 3) if d["code"] == "S101"] == []
    server.close()


def _w019(c: Client) -> list:
    """The W019 finding published for game.yaml once the typing pauses (it comes after the check)."""
    for _ in range(5):
        diags = [d for d in c.diagnostics(c.uri) if d["code"] == "W019"]
        if diags:
            return diags
    return []


@pytest.mark.parametrize("terms", ["flow", "block", "none"])
def test_an_id_the_rulebook_would_print_is_found_while_typing_and_its_quick_fix_names_it(server, terms):
    """W019 (as `build` finds it) in the editor, and a quick fix that gives the id words in
    `game: terms:`, whatever way the game writes its terms: afterwards the rulebook has none."""
    text = server.text.replace("      name: {en: Duel, ru: Поединок}\n", "")
    block = "  terms:\n    power: {en: Power, ru: Сила}\n    value: {en: Value, ru: Ценность}\n"
    flow = "  terms: {power: {en: Power, ru: Сила}, value: {en: Value, ru: Ценность}}\n"
    assert flow in text
    text = text.replace(flow, {"flow": flow, "block": block, "none": ""}[terms])
    server.game.write_text(text, encoding="utf-8")
    server.text = text
    opened(server)
    (d,) = _w019(server)
    assert "`main`" in d["message"] and d["severity"] == 2
    actions = server.request("textDocument/codeAction", {"textDocument": {"uri": server.uri}, "range": d["range"],
                                                         "context": {"diagnostics": [d]}})["result"]
    title = "Give the 3 ids words in `game: terms:`" if terms == "none" else "Give `main` words in `game: terms:`"
    assert actions and actions[0]["title"] == title
    fixed = apply(text, actions[0]["edit"]["changes"][server.uri])
    assert 'main: {en: "main", ru: "main"}' in fixed
    server.close()
    server.game.write_text(fixed, encoding="utf-8")
    assert validate_json(server.game.parent) == []
    from rulepress.compiler.pipeline import compile_game
    from rulepress.compiler.rulebook import unnamed_terms
    built, _gid, _report = compile_game(str(server.game.parent))
    assert unnamed_terms(json.loads(built)) == []
