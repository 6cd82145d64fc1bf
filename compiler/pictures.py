"""A game's pictures: card art in `art/<card id>.<ext>` and icon images in
`art/icons/<icon id>.<ext>` (png, jpg or svg), as data: URLs, so a rulebook or a card
sheet holds them and needs no file beside it. Only regular files of the game folder, of a
picture's size, are read."""
from __future__ import annotations

import base64
import os
import re

from .source import NotReadable, read_bytes

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}
MAX_IMAGE_BYTES = 4 * 1024 * 1024


def _data_url(path: str, folder: str) -> str | None:
    """A picture of the game folder as a data: URL (the sheet then needs no file beside it).
    A link that leads out of the game folder is no picture of it: the user's other files
    must not end up in a printed sheet."""
    kind = IMAGE_TYPES.get(os.path.splitext(path)[1].lower())
    if kind is None or not os.path.isfile(path):
        return None
    try:
        data = read_bytes(path, MAX_IMAGE_BYTES, within=folder)
    except NotReadable:
        return None
    return f"data:{kind};base64," + base64.b64encode(data).decode("ascii")


class Pictures:
    """Art and icon images of a game folder: `art/<card id>.<ext>`, `art/icons/<icon id>.<ext>`."""

    def __init__(self, game_folder: str | None):
        self.folder = game_folder
        self._found: dict[str, str | None] = {}

    def _find(self, stem: str) -> str | None:
        if stem not in self._found:
            url = None
            if self.folder and re.fullmatch(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)?", stem):
                for ext in IMAGE_TYPES:
                    url = _data_url(os.path.join(self.folder, "art", *stem.split("/")) + ext, self.folder)
                    if url:
                        break
            self._found[stem] = url
        return self._found[stem]

    def art(self, card_id: str) -> str | None:
        return self._find(card_id)

    def icon(self, icon_id: str) -> str | None:
        return self._find("icons/" + icon_id)

    def icons(self, icon_ids) -> dict:
        """Icon id -> image, for the icons that have one."""
        return {i: self.icon(i) for i in icon_ids if self.icon(i)}
