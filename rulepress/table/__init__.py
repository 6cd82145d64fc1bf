"""The online table (`rulepress serve`, docs/table.md): rooms where people in different
places play any compiled game in the browser, each seat sent only what it may see.

limits (what a client may send), store (SQLite) and pgstore (PostgreSQL, several processes),
rooms (seats, moves, the host, bots), engine (where the games run: worker processes or a
thread per room), messages (the WebSocket's frames, each made for one seat), app (Starlette
and uvicorn), processes (several server processes on one port).
The runtime never imports this package.
"""
