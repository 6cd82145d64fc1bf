"""Checks of a command's arguments made before any work starts: a game is never played,
nor a folder half written, only to fail on an argument that was wrong from the start.

Each check raises BadArgument with the one line the command prints (exit 2).
"""
from __future__ import annotations

import os
import re

MAX_GAMES = 100_000  # games one `simulate` plays: every result is kept in memory until the summary


class BadArgument(Exception):
    """An argument that cannot be used; the message names the option and what it accepts."""


def worker_cap() -> int:
    """The most worker processes `simulate` starts: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int) -> None:
    cap = worker_cap()
    if not 1 <= workers <= cap:
        raise BadArgument(f"--workers must be from 1 to {cap} (the cores this machine gives), not {workers}")


BACKENDS = ("local", "ray")
CLUSTER_WORKERS = 4096  # workers on a Ray cluster: its own CPUs bound them (checked once joined)
ADDRESS_WAIT = 5  # seconds a cluster's address is given to answer before the run starts
_ADDRESS = re.compile(r"(?P<client>ray://)?(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\]):(?P<port>\d{1,5})")


def check_backend(backend: str, address: str | None, workers: int) -> None:
    """--backend, --address and --workers together: Ray installed when asked for, an address a
    Ray cluster could have and something answering there, workers the machine (or the cluster) has."""
    if backend not in BACKENDS:
        raise BadArgument(f"--backend: {', '.join(BACKENDS)}, not `{backend[:60]}`")
    if backend == "local":
        if address is not None:
            raise BadArgument("--address is the Ray cluster's: give it with --backend ray")
        check_workers(workers)
        return
    import importlib.util
    if importlib.util.find_spec("ray") is None:
        raise BadArgument("ray is not installed: pip install 'rulepress[ray]'")
    if address is None:  # a Ray started here: one CPU of this machine per worker
        check_workers(workers)
        return
    if not 1 <= workers <= CLUSTER_WORKERS:
        raise BadArgument(f"--workers must be from 1 to {CLUSTER_WORKERS} on a Ray cluster, not {workers}")
    check_address(address)


def check_address(address: str) -> None:
    """`auto` (the cluster this machine is part of, as `ray start` left word of it), HOST:PORT
    (the cluster's head, as `ray start --head` prints it) or ray://HOST:PORT (Ray's client);
    anything else, or an address where nothing answers, is refused before a game is played."""
    if address == "auto":
        return
    found = _ADDRESS.fullmatch(address)
    if not found or not 1 <= int(found["port"]) <= 65535:
        raise BadArgument(f"--address: HOST:PORT of a Ray cluster's head, ray://HOST:PORT or auto, not `{address[:80]}`")
    if found["client"]:
        import importlib.util
        if importlib.util.find_spec("grpc") is None:
            raise BadArgument("--address ray://...: Ray's client is not installed: pip install 'ray[client]'")
    import socket
    host = found["host"].strip("[]")
    try:
        socket.create_connection((host, int(found["port"])), timeout=ADDRESS_WAIT).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise BadArgument(f"--address: nothing answers at {address[:80]} ({why}); "
                          "a cluster's head is started with `ray start --head`") from None


def check_players(game, players) -> None:
    if players is not None and not game.players_min <= players <= game.players_max:
        raise BadArgument(f"--players: {game.id} is for {game.players_min} to {game.players_max} players, not {players}")


def seats(players: int) -> list[str]:
    return [f"p{i + 1}" for i in range(players)]


def check_agents(spec: str, players: int, option: str, bare_is_seat: bool = False) -> None:
    """`greedy`, or a mix like `p1=greedy,random`: every agent known, every seat in the game.
    A bare word names the agent of the other seats (`--agent`), or a seat a random bot plays (`--bots`)."""
    from .runtime.agents import AGENTS, check
    known = ", ".join(sorted(AGENTS))
    parts = list(filter(None, (x.strip() for x in spec.split(","))))
    if not parts and not bare_is_seat:  # (no bots is what an empty --bots means)
        raise BadArgument(f"{option}: name an agent: {known}, or a mix like p1=greedy,random")
    named, default = set(), None
    for part in parts:
        seat, eq, kind = part.partition("=")
        if not eq:
            seat, kind = None, seat
        if bare_is_seat:
            seat, kind = (part, "random") if seat is None else (seat, kind or "random")
        if seat is not None and seat not in seats(players):
            raise BadArgument(f"{option}: no seat `{seat}` in a {players}-player game (seats p1 to p{players})")
        try:
            check(kind)  # the agent, and its budget where it takes one (`mcts:200`)
        except ValueError as exc:
            raise BadArgument(f"{option}: {exc}") from None
        # a seat given twice, or two agents for the other seats: which was meant is a guess
        if seat is None:
            if default is not None:
                raise BadArgument(f"{option}: `{default}` and `{kind}` both name the agent of the other seats; give one")
            default = kind
        elif seat in named:
            raise BadArgument(f"{option}: seat `{seat}` is given twice")
        else:
            named.add(seat)


MAX_SEED = 100  # characters: a seed is printed back, and no game needs a longer one


def check_seed(seed, option: str = "--seed") -> None:
    if seed is not None and len(str(seed)) > MAX_SEED:
        raise BadArgument(f"{option}: a seed of at most {MAX_SEED} characters, not {len(str(seed))}")


def game_options(game, pairs) -> dict:
    """`--option name=value`, repeated: each a game option, its value read as its default's
    kind (a number, true/false or a text)."""
    known = game.options
    out = {}
    for pair in pairs:
        name, eq, text = pair.partition("=")
        name, text = name.strip(), text.strip()
        if not eq or not name:
            raise BadArgument(f"--option: write name=value, not `{pair[:60]}`")
        if name not in known:
            names = ", ".join(sorted(known)[:20]) or "none"
            raise BadArgument(f"--option: {game.id} has no option `{name[:60]}`; its options: {names}")
        default = known[name]  # the tables keep each option's default alone
        out[name] = _option_value(name, text, default)
    return out


def _option_value(name, text, default):
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise BadArgument(f"--option {name}: true or false, not `{text[:60]}`")
        return text.lower() == "true"
    if isinstance(default, (int, float)):
        try:
            value = int(text) if re.fullmatch(r"-?\d{1,12}", text) else float(text) if len(text) <= 24 else None
        except ValueError:
            value = None
        if value is None or value != value or value in (float("inf"), float("-inf")):
            raise BadArgument(f"--option {name}: a number, not `{text[:60]}`")
        return value
    return text[:200]


def _nearest_existing(path: str) -> str:
    """The path itself or the nearest folder above it that exists (bounded by the path's depth)."""
    path = os.path.abspath(path)
    for _ in range(path.count(os.sep) + 1):
        if os.path.lexists(path):
            return path
        path = os.path.dirname(path)
    return path


def _can_create_in(folder: str) -> bool:
    """Whether a file can be made in the folder, tried (and taken away again): the system's
    answer, which permission bits alone do not give (root, read-only mounts, /proc)."""
    import tempfile
    try:
        fd, probe = tempfile.mkstemp(prefix=".rulepress-probe-", dir=folder)
    except (OSError, ValueError):
        return False
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def check_out_folder(path: str, option: str) -> None:
    """An output folder: a writable folder, or one that can be made under a writable folder."""
    if not path or "\x00" in path:
        raise BadArgument(f"{option}: an output folder needs a name")
    at = _nearest_existing(path)
    if not os.path.isdir(at):
        what = "is" if at == os.path.abspath(path) else f"lies under {at}, which is"
        raise BadArgument(f"{option}: {path} {what} not a folder")
    if not os.access(at, os.W_OK | os.X_OK) or not _can_create_in(at):
        raise BadArgument(f"{option}: {at} cannot be written to")


def check_log_file(path: str, option: str) -> None:
    """A file the game log can be written to when the game ends: checked before it starts."""
    if not path or "\x00" in path:
        raise BadArgument(f"{option}: the log file needs a name")
    if os.path.islink(path):  # (never written through nor replaced: see compiler/writing.py)
        raise BadArgument(f"{option}: {path} is a link; name the file itself")
    if os.path.isdir(path):
        raise BadArgument(f"{option}: {path} is a folder, not a file")
    parent = os.path.dirname(os.path.abspath(path))
    if os.path.lexists(path):
        if not os.path.isfile(path) or not os.access(path, os.W_OK) or not _can_create_in(parent):
            raise BadArgument(f"{option}: {path} cannot be written to")
        return
    if not os.path.isdir(parent):
        raise BadArgument(f"{option}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or not _can_create_in(parent):
        raise BadArgument(f"{option}: the folder {parent} cannot be written to")


def check_utf8_path(path: str, option: str) -> None:
    """A folder the PDF printer reads: it addresses files by URL, and a URL is UTF-8."""
    try:
        os.path.abspath(path).encode("utf-8")
    except UnicodeEncodeError:
        raise BadArgument(f"{option}: {path!a} is not a UTF-8 path, which printing needs; rename the folder") from None


_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]{0,199}")


def check_revision(ref: str, option: str) -> None:
    """A git revision as a name, never something git would read as an option of its own."""
    if not _REVISION.fullmatch(ref) or ".." in ref:
        raise BadArgument(f"{option}: `{ref[:60]}` is not a git revision name (like HEAD~3, main or a commit id)")


_HOST = re.compile(r"[A-Za-z0-9:\[][A-Za-z0-9.:\-\]]{0,252}")


def check_listen(host: str, port: int) -> None:
    """An address this machine has and a port free on it: found out by taking it for a moment,
    so the server never starts only to print a bind error."""
    import socket
    if not _HOST.fullmatch(host):
        raise BadArgument(f"--host: an address like 127.0.0.1, 0.0.0.0 or ::1, not `{host[:60]}`")
    if not 0 <= port <= 65535:
        raise BadArgument(f"--port: a port from 0 to 65535, not {port}")
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError):
        raise BadArgument(f"--host: {host} is not an address of this machine") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind(address)
        except OSError as exc:
            raise BadArgument(f"--port: cannot listen on {host}:{port} ({exc.strerror or exc})") from None


def check_expire_hours(hours: float) -> None:
    if not (0 < hours <= 24 * 365) or hours != hours:
        raise BadArgument(f"--expire-hours: more than 0 and at most {24 * 365}, not {hours}")


def check_db_file(path: str, option: str = "--db") -> None:
    """The table store: an SQLite file that exists and can be written, or can be made."""
    if not path or "\x00" in path:
        raise BadArgument(f"{option}: the store needs a file name")
    if os.path.islink(path):  # (never written through nor replaced: see compiler/writing.py)
        raise BadArgument(f"{option}: {path} is a link; name the file itself")
    if os.path.isdir(path):
        raise BadArgument(f"{option}: {path} is a folder, not a file")
    if os.path.lexists(path):
        if not os.path.isfile(path) or not os.access(path, os.R_OK | os.W_OK):
            raise BadArgument(f"{option}: {path} cannot be read and written")
        with open(path, "rb") as fh:
            head = fh.read(16)
        if head and head != b"SQLite format 3\x00":
            raise BadArgument(f"{option}: {path} is not an SQLite database")
        return
    at = _nearest_existing(os.path.dirname(os.path.abspath(path)))
    if not os.path.isdir(at):
        raise BadArgument(f"{option}: {path} lies under {at}, which is not a folder")
    if not os.access(at, os.W_OK | os.X_OK) or not _can_create_in(at):
        raise BadArgument(f"{option}: {at} cannot be written to")
    try:  # the store's folder is made now: a place that only looks writable (/proc) is found out here
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    except OSError as exc:
        raise BadArgument(f"{option}: cannot make the folder of {path} ({exc.strerror or exc})") from None


MANIFEST = "game.yaml"  # (compiler/content.py's: a folder with one is a game)


def game_here(game: str | None) -> str:
    """A command's game: the one named, else the game of the current folder."""
    if game is not None:
        return game
    if os.path.isfile(MANIFEST):
        return "."
    raise BadArgument(f"no game given, and this folder is not a game (no {MANIFEST} here): "
                      "name one, a folder, a game.json or a game of content/")


def paths_here(paths) -> list[str]:
    """The folders a command checks: those named, else the game of the current folder, else content/."""
    if paths:
        return list(paths)
    return ["."] if os.path.isfile(MANIFEST) else ["content"]
