"""The language server's side of the wire: what an editor sends is untrusted input.

A frame that is not JSON, a message that is not a request, a request whose parameters do not
fit its method, and a handler's own failure are each answered as JSON-RPC says (-32700,
-32600, -32602, -32603: a one-line message, no traceback in `data`), and logged as one line
on stderr, never as a traceback. A refusal the user should read (a rename to a name that is
not an id) is -32803, RequestFailed.
"""
from __future__ import annotations

import functools
import json
import logging
import sys

from lsprotocol import types as lsp
from pygls.exceptions import (JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams,
                              JsonRpcInvalidRequest, JsonRpcParseError)
from pygls.protocol import LanguageServerProtocol

MAX_LOGGED = 300  # characters of one logged line


class Refused(JsonRpcException):
    """A request understood and refused, with the reason for the user (LSP's RequestFailed)."""
    CODE = -32803


class _Unfit:
    """A request whose parameters did not fit its method: answered -32602 by its id."""

    def __init__(self, msg_id, method: str):
        self.id, self.method = msg_id, method


class Protocol(LanguageServerProtocol):
    def structure_message(self, data):
        if isinstance(data, dict) and "jsonrpc" in data and "method" in data and "id" in data:
            try:
                return super().structure_message(data)
            except JsonRpcException:
                msg_id = data.get("id")
                return _Unfit(msg_id if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) else None,
                              str(data.get("method"))[:100])
        return super().structure_message(data)

    def handle_message(self, message):
        if isinstance(message, _Unfit):
            self._send_response(message.id, error=JsonRpcInvalidParams(
                f"the parameters of {message.method} are not what LSP says").to_response_error())
        elif not hasattr(message, "jsonrpc"):  # a batch, a number, a string: no request of ours
            self._send_response(None, error=JsonRpcInvalidRequest("not a JSON-RPC message").to_response_error())
        else:
            super().handle_message(message)


def report_error(server, error: Exception) -> None:
    """An error out of band of any request: a frame that is not JSON is answered -32700 (with
    no id, since none could be read); others are only logged."""
    if isinstance(error, (json.JSONDecodeError, UnicodeDecodeError)):
        server.protocol._send_response(None, error=JsonRpcParseError(f"not JSON: {error}").to_response_error())


def answered(handler):
    """A feature's handler whose unexpected failure is an internal error of one line."""
    @functools.wraps(handler)
    def run(ls, params):
        try:
            return handler(ls, params)
        except JsonRpcException:
            raise
        except RecursionError:
            raise JsonRpcInternalError("too deeply nested to answer") from None
        except Exception as exc:
            raise JsonRpcInternalError(f"rulepress: {type(exc).__name__}: {str(exc)[:MAX_LOGGED]}") from None
    return run


class _OneLine(logging.Handler):
    """Log records as one line each on stderr: what happened, never the traceback."""

    def emit(self, record):
        try:
            text = record.getMessage().splitlines()[0] if record.getMessage() else record.levelname
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f": {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            sys.stderr.write(f"rulepress lsp: {text[:MAX_LOGGED]}\n")
            sys.stderr.flush()
        except Exception:  # a log line that cannot be written is not worth a crash
            pass


def quiet_logs() -> None:
    """pygls logs what it catches with its traceback: one line each instead."""
    for name in ("pygls", "rulepress", "asyncio"):
        log = logging.getLogger(name)
        log.handlers[:] = [_OneLine()]
        log.setLevel(logging.WARNING)
        log.propagate = False
