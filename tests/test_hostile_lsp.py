"""The language server reads what an editor sends as untrusted input: frames that are not
JSON, messages that are not requests, parameters that do not fit, URIs no file has. Each is
answered as JSON-RPC says (an error of one line, no traceback in its data), nothing is
printed as a traceback, and the server keeps serving; Ctrl-C ends it with 130."""
import json
import os
import select
import signal
import subprocess
import sys

import pytest

pytest.importorskip("pygls")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(rid, method, params) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode())


def responses(stdout: bytes) -> list:
    out, rest = [], stdout
    while rest:
        head, _, rest = rest.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        out.append(json.loads(rest[:length]))
        rest = rest[length:]
    return out


def test_malformed_frames_and_odd_uris_are_answered_as_lsp_errors_without_a_traceback(tmp_path):
    hover = {"textDocument": {"uri": "file:///tmp/a%00b.yaml"}, "position": {"line": 0, "character": 0}}
    sent = b"".join([
        request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}),
        frame(b"{not json"),
        request(2, "textDocument/hover", hover),
        request(3, "textDocument/hover", {"textDocument": {}, "position": {"line": "x"}}),
        frame(b"[1, 2]"),
        frame(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "file:///tmp/x%00.yaml", "languageId": "yaml", "version": 1, "text": "a: 1"}}}).encode()),
        request(4, "textDocument/rename", {"textDocument": {"uri": "file:///tmp/%00"}, "newName": "Bad Name",
                                           "position": {"line": 0, "character": 0}}),
        request(5, "textDocument/completion", {"textDocument": {"uri": "untitled:%00"}, "position": {"line": 0, "character": 0}}),
        frame(b"\xff\xfe"),
        request(6, "shutdown", None),
        frame(json.dumps({"jsonrpc": "2.0", "method": "exit"}).encode()),
    ])
    got = subprocess.run([RULEPRESS, "lsp"], input=sent, capture_output=True, timeout=120, cwd=tmp_path)
    assert b"Traceback" not in got.stderr and b"Traceback" not in got.stdout, got.stderr[-3000:]
    by_id = {}
    for msg in responses(got.stdout):
        assert "traceback" not in json.dumps(msg).lower(), msg
        by_id.setdefault(msg.get("id"), []).append(msg)
    assert by_id[2][0]["result"] is None  # a URI no file has: nothing there
    assert by_id[3][0]["error"]["code"] == -32602
    assert by_id[4][0]["error"]["code"] == -32803 and "\n" not in by_id[4][0]["error"]["message"]
    assert "error" not in by_id[5][0]
    assert "result" in by_id[6][0]
    parse_errors = [m for m in by_id.get(None, []) if m.get("error", {}).get("code") == -32700]
    invalid = [m for m in by_id.get(None, []) if m.get("error", {}).get("code") == -32600]
    assert len(parse_errors) == 2 and len(invalid) == 1, by_id.get(None)
    assert got.returncode == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups")
def test_ctrl_c_ends_the_language_server_with_130(tmp_path):
    proc = subprocess.Popen([RULEPRESS, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=tmp_path)
    try:
        proc.stdin.write(request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}))
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 120)  # it answers: it is serving
        assert ready and os.read(proc.stdout.fileno(), 65536).startswith(b"Content-Length:")
        os.killpg(proc.pid, signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert b"Traceback" not in err and err.strip().splitlines()[-1] == b"rulepress: interrupted"
