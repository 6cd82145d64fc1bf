"""A small LSP client for the tests: JSON-RPC over the server's stdin and stdout, as an editor speaks it."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


class Forked:
    """`rulepress lsp` forked from this process, which imports the server once, instead of a
    Python started afresh for each: that start (the LSP types alone take 0.7 s to import)
    was most of the CPU a test of the server took. The child runs the command as the
    console script does, on pipes of its own; the tests read it through what Popen offers
    them (stdin, stdout, stderr, poll, wait, kill, returncode)."""

    def __init__(self, cwd: str):
        import rulepress.cli
        import rulepress.lsp  # noqa: F401 - (imported here once: each child has it)
        pipes = [os.pipe() for _ in range(3)]  # stdin, stdout, stderr
        self.pid = os.fork()
        if self.pid == 0:  # the server: nothing of the test process's but what it imported
            code = 1
            try:
                os.chdir(cwd)
                for fd, (r, w) in enumerate(pipes):
                    os.dup2(r if fd == 0 else w, fd)
                os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
                sys.stdin = open(0, "r", closefd=False)
                sys.stdout = open(1, "w", closefd=False)
                sys.stderr = open(2, "w", closefd=False)
                sys.argv = ["rulepress", "lsp"]
                rulepress.cli.run()
            except SystemExit as end:
                code = end.code if isinstance(end.code, int) else 0
            finally:
                for f in (sys.stdout, sys.stderr):
                    try:
                        f.flush()
                    except Exception:  # noqa: BLE001 - (the pipe's reader gone)
                        pass
                os._exit(code)
        os.close(pipes[0][0]), os.close(pipes[1][1]), os.close(pipes[2][1])
        self.stdin = os.fdopen(pipes[0][1], "wb")
        self.stdout = os.fdopen(pipes[1][0], "rb")
        self.stderr = os.fdopen(pipes[2][0], "rb")
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout=None):
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(["rulepress", "lsp"], timeout)
            time.sleep(0.01)
        return self.returncode

    def kill(self):
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


class Client:
    def __init__(self, cwd: str, fork: bool = True):
        """fork=False: the command started as an editor starts it (a Python of its own)."""
        self.proc = Forked(cwd) if fork else subprocess.Popen(
            [sys.executable, "-m", "rulepress", "lsp"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
