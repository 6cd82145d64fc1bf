"""What a page laid out from a game's templates may fetch: its own files and `data:` URLs."""
from __future__ import annotations

from .source import NotReadable, read_bytes


def game_files(folder: str):
    """What a printed page may fetch (images, style sheets): regular files inside the game
    folder and `data:` URLs, nothing else. A game's template is content, and must not put
    the user's other files, or what some server answers, into a PDF."""
    import mimetypes
    from urllib.parse import unquote, urlsplit
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class GameFiles(URLFetcher):
        def fetch(self, url, headers=None):
            if url.startswith("file:"):  # (read as every file of a game is: source.read_bytes)
                path = unquote(urlsplit(url).path)
                try:
                    body = read_bytes(path, within=folder)
                except NotReadable as exc:
                    raise ValueError(f"not a file of the game: {url}: {exc}") from None
                kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
                return URLFetcherResponse(url, body=body, headers={"Content-Type": kind})
            return super().fetch(url, headers)
    return GameFiles(allowed_protocols=("file", "data"))
