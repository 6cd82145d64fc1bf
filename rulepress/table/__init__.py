"""The online table (`rulepress serve`, docs/table.md): rooms where people in different
places play any compiled game in the browser, each seat sent only what it may see.

limits (what a client may send), store (SQLite), rooms (seats, moves, the host, bots),
messages (the WebSocket's frames, each made for one seat), app (Starlette and uvicorn).
The runtime never imports this package.
"""
