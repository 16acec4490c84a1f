"""What the probes attack: a temporary folder, loopback listeners, a sacrificial process, IPC names.

Everything is made by the host for one run of the probes and removed by ``close()``; the folder
and its files are readable and writable by anyone, so that only the process wall stands
between a worker and them. ``files_changed``, ``reached``, ``victim_touched`` and ``remove_ipc``
are how the host looks for what an attack left behind.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

UNPRIVILEGED_ID = 65534  # the user a worker runs as when the host is root: the victim runs as it too


class Targets:
    """What the probes attack, on loopback and in a temporary folder; ``close()`` removes it all."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.secret = f"toolpen-probe-secret-{self.token}"
        self.root = Path(tempfile.mkdtemp(prefix="toolpen-probe-"))
        self.root.chmod(0o777)  # readable and writable by anyone: only the wall stands in the way
        self.secret_file = self._file("secret.txt", self.secret)
        self.victim_file = self._file("victim.txt", "unchanged")
        self.database = self.root / "sessions.db"
        self._session_database(self.database)
        self.database.chmod(0o666)
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = self.root / "listener.sock"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(str(self.unix_path))
        self.unix_path.chmod(0o777)
        self.abstract_name = f"\0toolpen-probe-{self.token}"
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind(self.abstract_name)
        for listener in (self.unix, self.abstract):
            listener.listen()
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.setblocking(False)
        self.signal_marker = self.root / "signalled"
        self.victim = self._start_victim()
        self.host_cmdline = _as_reported(Path("/proc/self/cmdline").read_bytes())
        self.host_environ = _as_reported(Path("/proc/self/environ").read_bytes())
        self.ipc_key = int(self.token[:7], 16)
        self.shm_name = f"toolpen-probe-{self.token}"

    def _session_database(self, path: Path) -> None:
        """A session database holding another session's secret (as a store keeps state: JSON text)."""
        with contextlib.closing(sqlite3.connect(path)) as database, database:
            database.execute("CREATE TABLE sessions (app TEXT, user TEXT, id TEXT, state TEXT)")
            state = json.dumps({"api_key": self.secret})
            database.execute("INSERT INTO sessions VALUES ('probe', 'user', 'other-session', ?)", (state,))

    def args(self) -> dict[str, Any]:
        """The targets as the tool gets them (its one argument, ``t``)."""
        return {
            "token": self.token,
            "root": str(self.root),
            "secret_file": str(self.secret_file),
            "victim_file": str(self.victim_file),
            "database": str(self.database),
            "repo_file": str(_repository_file()),
            "tcp_port": self.tcp.getsockname()[1],
            "udp_port": self.udp.getsockname()[1],
            "unix_path": str(self.unix_path),
            "abstract_name": self.abstract_name,
            "host_pid": os.getpid(),
            "victim_pid": self.victim.pid,
            "ipc_key": self.ipc_key,
            "shm_name": self.shm_name,
        }

    def reached(self) -> list[str]:
        """The listeners something connected or sent to (emptied as they are read)."""
        reached = []
        for name, listener in (("TCP", self.tcp), ("UNIX", self.unix), ("abstract UNIX", self.abstract)):
            with contextlib.suppress(BlockingIOError):
                listener.accept()[0].close()
                reached.append(name)
        with contextlib.suppress(BlockingIOError):
            self.udp.recv(65536)
            reached.append("UDP")
        return reached

    def victim_touched(self) -> str | None:
        """How the sacrificial process was reached, if it was; a fresh one replaces a dead one."""
        time.sleep(0.05)  # a trap runs as soon as the shell sees the signal
        if self.signal_marker.exists():
            self.signal_marker.unlink()
            return "the sacrificial process received a signal"
        if self.victim.poll() is not None:
            self.victim = self._start_victim()
            return "the sacrificial process died"
        state = Path(f"/proc/{self.victim.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        if state in ("T", "t"):
            _kill_group(self.victim)
            self.victim = self._start_victim()
            return "the sacrificial process was stopped or traced"
        return None

    def files_changed(self) -> list[str]:
        """What changed in the temporary folder besides the listeners' own files."""
        changes = []
        expected = {"secret.txt", "victim.txt", "listener.sock", "signalled"}
        names = {p.name for p in self.root.iterdir() if not p.name.startswith("sessions.db")}
        for extra in sorted(names - expected):
            changes.append(f"{extra} was created")
            path = self.root / extra
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        if not self.victim_file.exists():
            changes.append("victim.txt was removed")
            self.victim_file = self._file("victim.txt", "unchanged")
        elif self.victim_file.read_text() != "unchanged" or self.victim_file.stat().st_mode & 0o777 != 0o666:
            changes.append("victim.txt was changed")
            self.victim_file.unlink()
            self.victim_file = self._file("victim.txt", "unchanged")
        if self.secret_file.read_text() != self.secret:
            changes.append("secret.txt was changed")
        return changes

    def close(self) -> None:
        _kill_group(self.victim)
        for sock in (self.tcp, self.udp, self.unix, self.abstract):
            sock.close()
        remove_ipc(self.ipc_key, self.shm_name)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Targets:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _file(self, name: str, text: str) -> Path:
        path = self.root / name
        path.write_text(text)
        path.chmod(0o666)
        return path

    def _start_victim(self) -> subprocess.Popen[bytes]:
        """A shell, as the user workers run as, that notes any signal it gets; the secret is on its command line."""
        script = f"trap 'echo hit > {self.signal_marker}' USR1 USR2 TERM HUP INT; while :; do sleep 3600 & wait $!; done"
        user = UNPRIVILEGED_ID if os.geteuid() == 0 else None
        victim = subprocess.Popen(
            ["/bin/sh", "-c", script, "victim", "--auth", f"crm={self.secret}"],
            user=user,
            group=user,
            extra_groups=[] if user is not None else None,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )
        time.sleep(0.1)  # its traps are set before any probe signals it
        return victim


def _as_reported(data: bytes) -> str:
    """/proc text as the probes report it: NULs as spaces, bytes as latin-1."""
    return data.replace(b"\0", b" ").decode("latin-1")


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _repository_file() -> Path:
    """A file of the host's own installation that no worker needs."""
    root = Path(__file__).resolve().parents[3]
    for candidate in ("pyproject.toml", ".git/config", "README.md"):
        if (root / candidate).exists():
            return root / candidate
    return Path(__file__).resolve()


def remove_ipc(key: int, shm_name: str) -> list[str]:
    """Remove (on the host) the IPC objects a probe named; which ones existed."""
    found = []
    libc = ctypes.CDLL(None, use_errno=True)
    ipc_rmid = 0
    for kind, get, control, args in (
        ("SysV shared memory", libc.shmget, libc.shmctl, (0, 0)),
        ("SysV message queue", libc.msgget, libc.msgctl, (0,)),
        ("SysV semaphore set", libc.semget, libc.semctl, (0, 0)),
    ):
        ident = get(key, *args)
        if ident >= 0:
            found.append(kind)
            if kind == "SysV semaphore set":
                control(ident, 0, ipc_rmid)
            else:
                control(ident, ipc_rmid, None)
    shm = Path("/dev/shm") / shm_name
    if shm.exists():
        found.append("POSIX shared memory")
        shm.unlink()
    with contextlib.suppress(OSError):
        rt = ctypes.CDLL(ctypes.util.find_library("rt") or "librt.so.1", use_errno=True)
        rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
        queue = rt.mq_open(f"/{shm_name}".encode(), os.O_RDONLY)
        if queue >= 0:
            found.append("POSIX message queue")
            rt.mq_close(queue)
            rt.mq_unlink(f"/{shm_name}".encode())
    return found
