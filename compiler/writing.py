"""Writing a build's files, only ever inside the output folder.

Every file is named from validated ids (a game's id, a language) and checked again here:
a name is one plain path component, never `..`, a separator or a line break. Names that come
from outside (the paths of a git tree) are relative paths, each part checked the same way
(put_under). What is found at a path about to be written is never followed nor replaced: a
link planted there (say to a file of the user's, outside the output folder, or /dev/stdout)
or a pipe, device or socket is refused (Refused), and a file is written beside its place and
renamed onto it, so a link planted meanwhile is replaced, not written through. The output
folder itself is the user's choice, link or not.
"""
from __future__ import annotations

import errno
import os
import re
import secrets
import stat

from .content import UsageError

# names made in an output folder: a game's id, `game.json`, `rulebook.en.md`, `race.cards.ru.pdf`
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")


class UnsafeName(UsageError):
    """A name for an output that could lead outside the output folder (never a validated
    id: this is the last guard, not the check)."""


class Refused(OSError):
    """A link or a special file where a file or folder is to be written: never written
    through, nor replaced (it may name any file of the user's; as root, replacing
    /dev/stdout turned it into a regular file). An OSError, so whoever reports a failed
    write reports this one too, on one line with the path."""

    def __init__(self, path: str, what: str):
        super().__init__(errno.EEXIST, f"{what} is in the way; refusing to write through it or over it (remove it first)", path)


def _in_the_way(path: str, folder: bool = False) -> os.stat_result | None:
    """What is at `path` (not followed), or None; a link, or anything but a regular file
    (a folder, with `folder`), is Refused."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, path) from None
    if stat.S_ISLNK(info.st_mode):
        raise Refused(path, "a link")
    if stat.S_ISDIR(info.st_mode) and not folder:
        raise Refused(path, "a folder")
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        raise Refused(path, "a pipe, device or socket")
    return info


def check_output_folder(out_dir: str) -> None:
    """-o names a folder, or a path to make one at: anything else is a usage error."""
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        what = "a link to nowhere" if os.path.islink(out_dir) else "not a folder"
        raise UsageError(f"{out_dir}: {what}; -o names the output folder")


def make_output_folder(out_dir: str) -> None:
    """-o made if missing (a usage error where it cannot be)."""
    check_output_folder(out_dir)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{out_dir}: cannot make the output folder: {exc.strerror or exc}") from None


def folder_in(out_dir: str, name: str) -> str:
    """The folder `name` inside the output folder, made if missing; a file in its place is
    removed first (the output's place), a link or a special file is Refused."""
    make_output_folder(out_dir)
    path = os.path.join(out_dir, _checked(name))
    info = _in_the_way(path, folder=True)
    try:
        if info is not None and not stat.S_ISDIR(info.st_mode):
            os.unlink(path)  # (a regular file: the output's place)
            info = None
        if info is None:
            os.mkdir(path)
    except OSError as exc:
        raise UsageError(f"{path}: cannot make the folder: {exc.strerror or exc}") from None
    return path


def path_in(folder: str, name: str) -> str:
    """The path of the file `name` in `folder` (a folder folder_in made): one plain name."""
    return os.path.join(folder, _checked(name))


def put(path: str, data: bytes) -> None:
    """Write `data` at `path` (in a folder that folder_in made), leaving a regular file
    that already holds exactly these bytes untouched, so rebuilds keep timestamps."""
    _checked(os.path.basename(path))
    _put(path, data)


def _put(path: str, data: bytes) -> None:
    folder, name = os.path.split(path)
    info = _in_the_way(path)
    if info is not None and info.st_size == len(data) and _holds(path, data):
        return
    _write_beside(folder or ".", name, path, data)


def _holds(path: str, data: bytes) -> bool:
    """Whether the regular file at `path` holds exactly `data` (opened without following a
    link or blocking on a pipe put there since lstat looked)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as fh:
        return stat.S_ISREG(os.fstat(fh.fileno()).st_mode) and fh.read(len(data) + 1) == data


def put_chosen(path: str, data: bytes) -> None:
    """Write a file whose path the user chose (`-o report.html`): any name they like, written
    beside and renamed onto it like every other output; a link or a special file there is Refused."""
    folder, name = os.path.split(os.path.abspath(path))
    _in_the_way(path)
    _write_beside(folder, name, path, data)


def put_under(root: str, name: str, data: bytes) -> str:
    """Write `data` at `name`, a relative path from outside (a git tree's), inside the folder
    `root`; returns the path written. Every part of `name` is a plain name (never empty, `.`,
    `..`, absolute or holding a NUL); the folders on the way are made, and one that is a
    link or not a folder is Refused, so nothing is written outside `root`."""
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") or "\0" in p or (os.altsep and os.altsep in p)
                                               for p in parts):
        raise UnsafeName(f"refusing to write a file named {name[:200]!r}: not a relative path inside its folder")
    at = root
    for part in parts[:-1]:
        at = os.path.join(at, part)
        if _in_the_way(at, folder=True) is None:
            os.mkdir(at)
        elif not os.path.isdir(at):
            raise Refused(at, "a file")
    path = os.path.join(at, parts[-1])
    _put(path, data)
    return path


def _write_beside(folder: str, name: str, path: str, data: bytes) -> None:
    fd, tmp = _new_file(folder, name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def _new_file(folder: str, name: str):
    """(descriptor, path) of a file made anew beside `name`: with the permissions open()
    gives (mkstemp's are the owner's only), and never one that was there before."""
    for _ in range(100):
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free name beside {name} in {folder}")


def put_text(path: str, text: str) -> None:
    """put() of a text, its line ends written as they are."""
    put(path, text.encode("utf-8"))


def _checked(name: str) -> str:
    if not _NAME.fullmatch(name) or ".." in name:
        raise UnsafeName(f"refusing to write an output named {name!r}: not a plain file name")
    return name
