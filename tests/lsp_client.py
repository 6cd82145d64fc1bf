"""A small LSP client for the tests: JSON-RPC over the server's stdin and stdout, as an editor speaks it."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path


class Client:
    def __init__(self, cwd: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "rulepress", "lsp"], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        self.notes: list = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params, timeout=30.0):
        """The response's whole message (result or error); notifications meanwhile are kept."""
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        end = time.monotonic() + timeout
        while True:
            msg = self.messages.get(timeout=max(end - time.monotonic(), 0.01))
            if msg.get("id") == rid and "method" not in msg:
                return msg
            self._keep(msg)

    def _keep(self, msg):
        if "method" in msg and "id" in msg:  # a request from the server: answer it
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        else:
            self.notes.append(msg)

    def diagnostics(self, uri: str, timeout=30.0) -> list:
        """The next diagnostics published for `uri` (those already received first)."""
        end = time.monotonic() + timeout
        while True:
            for i, n in enumerate(self.notes):
                if n.get("method") == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri:
                    del self.notes[i]
                    return n["params"]["diagnostics"]
            self._keep(self.messages.get(timeout=max(end - time.monotonic(), 0.01)))

    def drain(self) -> None:
        """Forget what was published so far."""
        while not self.messages.empty():
            self._keep(self.messages.get())
        self.notes.clear()

    def start(self, root: str) -> dict:
        got = self.request("initialize", {"processId": None, "rootUri": Path(root).as_uri(), "capabilities": {}})
        self.notify("initialized", {})
        return got["result"]

    def close(self) -> int:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            return self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
