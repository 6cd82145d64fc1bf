"""A throwaway PostgreSQL cluster for the tests and the load benchmark: initdb in a temporary
folder, pg_ctl start on a unix socket in it (no TCP port), stopped and removed after.

The system's PostgreSQL (`make postgres` installs it where it is missing; Debian keeps its
programs in /usr/lib/postgresql/VERSION/bin). PostgreSQL refuses to run as root: as root the
cluster runs as the `postgres` user (or `nobody`), which owns the folder.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile

START_SECONDS = 60


def programs() -> str | None:
    """The folder of initdb and pg_ctl, or None where PostgreSQL is not installed."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return os.path.dirname(os.path.realpath(found))
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: _version(p), reverse=True):
        if os.path.exists(os.path.join(folder, "pg_ctl")) and os.path.exists(os.path.join(folder, "initdb")):
            return folder
    return None


def _version(folder: str) -> int:
    v = os.path.basename(os.path.dirname(folder))
    return int(v) if v.isdigit() else 0


def missing() -> str | None:
    """Why no cluster can be started here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'rulepress[table]')"
    if programs() is None:
        return "PostgreSQL is not installed (as root, `make postgres` installs it)"
    if os.geteuid() == 0 and _user() is None:
        return "as root PostgreSQL runs as another user, and there is none (postgres, nobody)"
    return None


def _user():
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


class Cluster:
    """`with Cluster() as url:` a PostgreSQL URL of a fresh, empty cluster."""

    def __init__(self, durable: bool = False):
        self.durable = durable  # fsync as a deployment has it (the benchmark); off for the tests' speed
        self.folder = None

    def _run(self, args, **kw):
        user = _user() if os.geteuid() == 0 else None
        return subprocess.run(args, check=True, capture_output=True, text=True, timeout=START_SECONDS,
                              cwd=self.folder, **({"user": user.pw_uid, "group": user.pw_gid} if user else {}), **kw)

    def __enter__(self) -> str:
        bin_ = programs()
        # /tmp: a short path (a unix socket's is at most 107 bytes) that the postgres user can
        # reach when the tests run as root with a TMPDIR of root's own
        self.folder = tempfile.mkdtemp(prefix="rulepress-pg-", dir="/tmp" if os.path.isdir("/tmp") else None)
        user = _user() if os.geteuid() == 0 else None
        if user is not None:
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        data = os.path.join(self.folder, "data")
        try:
            self._run([os.path.join(bin_, "initdb"), "-D", data, "-U", "rulepress", "--auth=trust", "-E", "UTF8",
                       "--no-sync", "--locale=C"])
            opts = f"-k {self.folder} -c listen_addresses='' -c max_connections=100 -c shared_buffers=32MB"
            if not self.durable:
                opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            self._run([os.path.join(bin_, "pg_ctl"), "-D", data, "-l", os.path.join(self.folder, "log"),
                       "-w", "-t", str(START_SECONDS), "-o", opts, "start"])
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            log = ""
            if os.path.exists(os.path.join(self.folder, "log")):
                with open(os.path.join(self.folder, "log"), encoding="utf-8", errors="replace") as fh:
                    log = fh.read()[-2000:]
            self.__exit__(None, None, None)
            raise RuntimeError(f"PostgreSQL did not start: {getattr(exc, 'stderr', '')} {log}") from None
        return f"postgresql:///postgres?host={self.folder}&user=rulepress"

    def __exit__(self, *exc) -> None:
        if self.folder is None:
            return
        data = os.path.join(self.folder, "data")
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            try:
                self._run([os.path.join(programs(), "pg_ctl"), "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"])
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None
