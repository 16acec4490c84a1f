"""Raw attacks on the process wall: tool code holding the real builtins tries to get out.

Each :class:`Probe` is a tool run under ``walls="process"`` (plain CPython: ``open``, ``os``,
``ctypes``, ``socket``) against :class:`Targets` the host sets up for it on loopback and in a
temporary folder of its own: a world-readable secret file and session database, listeners of
every socket family, a sacrificial process with a secret on its command line. A probe is
judged by what the tool saw *and* by what the host finds afterwards (the files unchanged, no
connection accepted, no IPC object left, the sacrificial process untouched), so a tool that
lies about its results gains nothing. Kernel interfaces are called with invalid arguments: a
permitted call fails harmlessly (``EINVAL``, ``EFAULT``, ``EBADF``, ...), only ``EPERM`` or
``ENOSYS`` count as refused. No destructive call is made with valid arguments, and signals go
only to the sacrificial process.

``tests/attacks/process/`` runs every probe and asserts each is refused; ``toolpen doctor
--probe`` runs them on the machine at hand.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.pool import WorkerPool, WorkerReply
from runtime.store import open_store
from sandbox.limits import Limits, MiB

UNPRIVILEGED_ID = 65534  # the user a worker runs as when the host is root: the victim runs as it too
REFUSED_ERRNOS = ("EPERM", "ENOSYS")
"""What a blocked kernel interface answers; anything else means the call reached the kernel."""
PROBE_LIMITS = Limits(wall_time=15.0, cpu_time=10.0, memory=256 * MiB, open_files=64)
DISK_CAP = 16 * MiB  # more than this written anywhere is a disk exhaustion that got through

# Kernel interfaces, each with arguments a permitted call refuses harmlessly.
KERNEL_CALLS: dict[str, tuple[int, ...]] = {
    "keyctl": (0xDEAD, 0, 0, 0, 0),  # unknown command: EOPNOTSUPP
    "add_key": (0, 0, 0, 0, 0),  # NULL type: EFAULT
    "request_key": (0, 0, 0, 0),  # NULL type: EFAULT
    "bpf": (0xDEAD, 0, 0),  # unknown command: EINVAL
    "perf_event_open": (0, 0, -1, -1, 0),  # NULL attr: EFAULT
    "userfaultfd": (0xFFFF,),  # unknown flags: EINVAL
    "io_uring_setup": (0, 0),  # zero entries, NULL params: EINVAL / EFAULT
    "unshare": (0x1,),  # not a namespace flag: EINVAL
    "setns": (-1, 0),  # no descriptor: EBADF
    "mount": (0, 0, 0, 0, 0),  # NULL target: EFAULT
    "umount2": (0, 0xFFFF),  # NULL target, bad flags: EINVAL / EFAULT
    "pivot_root": (0, 0),  # NULL paths: EFAULT
    "chroot": (0,),  # NULL path: EFAULT
    "setuid": (-1,),  # not a user id: EINVAL
    "setgid": (-1,),  # not a group id: EINVAL
    "capset": (0, 0),  # NULL header: EFAULT
    "ptrace": (0xDEAD, -1, 0, 0),  # unknown request, no process: EIO / ESRCH
    "process_vm_readv": (-1, 0, 0, 0, 0, 0),  # no process: ESRCH
    "execve": (0, 0, 0),  # NULL path: EFAULT
    "clone3": (0, 0),  # NULL args: EINVAL
    "init_module": (0, 0, 0),  # NULL image
    "finit_module": (-1, 0, 0),  # no descriptor: EBADF
    "kexec_load": (0, 0, 0, 0xFFFFFFFF),  # bad flags
    "open_by_handle_at": (-1, 0, 0),  # no descriptor: EBADF
    "name_to_handle_at": (-1, 0, 0, 0, 0),  # NULL path: EFAULT
    "fanotify_init": (0xFFFFFFFF, 0),  # unknown flags: EINVAL
    "syslog": (0xDEAD, 0, 0),  # unknown action: EINVAL
    "personality": (0xFFFFFFFE,),  # an unknown persona: EINVAL
}
# x86-64 numbers, for a machine without libseccomp to resolve the names
X86_64_NUMBERS = {
    "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "io_uring_setup": 425, "unshare": 272, "setns": 308, "mount": 165,
    "umount2": 166, "pivot_root": 155, "chroot": 161, "setuid": 105, "setgid": 106, "capset": 126,
    "ptrace": 101, "process_vm_readv": 310, "execve": 59, "clone3": 435, "init_module": 175,
    "finit_module": 313, "kexec_load": 246, "open_by_handle_at": 304, "name_to_handle_at": 303,
    "fanotify_init": 300, "syslog": 103, "personality": 135,
}  # fmt: skip

PRELUDE = '''
import ctypes
import errno
import os
import socket


def attempt(results, label, action):
    """Run one attack; record "ok" or the errno name it failed with."""
    try:
        value = action()
    except OSError as error:
        results[label] = errno.errorcode.get(error.errno, str(error.errno)) if error.errno else str(error)
        return None
    results[label] = "ok"
    return value


def libc():
    return ctypes.CDLL(None, use_errno=True)
'''


Judge = Callable[[WorkerReply, "Targets"], str | None]
"""What got through (a short sentence), or None when the attack was refused."""


@dataclass(frozen=True)
class Probe:
    """One raw attack: a tool ``probe(t)`` (``t``: the targets) and how to judge its run."""

    name: str
    subject: str
    source: str
    judge: Judge
    limits: Limits = PROBE_LIMITS


@dataclass(frozen=True)
class ProbeResult:
    name: str
    subject: str
    refused: bool
    detail: str


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
        with open_store(f"sqlite:///{self.database}") as store:
            store.get_or_create_session("probe", "user", "other-session", {"api_key": self.secret})
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
            "syscalls": _syscall_numbers(),
            "memory": PROBE_LIMITS.memory,
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
    root = Path(__file__).resolve().parents[1]
    for candidate in ("pyproject.toml", ".git/config", "README.md"):
        if (root / candidate).exists():
            return root / candidate
    return Path(__file__).resolve()


def _syscall_numbers() -> dict[str, int]:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        numbers = {name: lib.seccomp_syscall_resolve_name(name.encode()) for name in KERNEL_CALLS}
        return {name: number for name, number in numbers.items() if number >= 0}
    except OSError:
        return dict(X86_64_NUMBERS) if os.uname().machine == "x86_64" else {}


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


# -- judges -------------------------------------------------------------------------------


def _attempts(reply: WorkerReply) -> dict[str, str] | str:
    """The tool's record of its attempts, or why there is none."""
    if reply.error is not None:
        return f"the probe did not finish ({reply.error.kind}: {reply.error.message})"
    if not isinstance(reply.output, dict):
        return "the probe returned no record"
    return {str(k): str(v) for k, v in reply.output.items()}


def all_failed(reply: WorkerReply, targets: Targets) -> str | None:
    """Every attempt raised; and nothing outside changed."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [label for label, outcome in attempts.items() if outcome == "ok"]
    return _outside(targets, through)


def kernel_refused(reply: WorkerReply, targets: Targets) -> str | None:
    """Every call answered EPERM or ENOSYS (anything else reached the kernel)."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [f"{label} ({outcome})" for label, outcome in attempts.items() if outcome not in REFUSED_ERRNOS]
    return _outside(targets, through)


def no_secret(reply: WorkerReply, targets: Targets) -> str | None:
    """Every attempt failed, and nothing read holds the secret or the host's command line."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [label for label, outcome in attempts.items() if outcome == "ok"]
    return _outside(targets, through + _host_data(attempts, targets))


def nothing_of_the_host(reply: WorkerReply, targets: Targets) -> str | None:
    """Nothing read holds the secret or the host's command line (the jail's own processes may be read)."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    return _outside(targets, _host_data(attempts, targets))


def _host_data(attempts: dict[str, str], targets: Targets) -> list[str]:
    found = []
    if any(targets.secret in value or targets.token in value for value in attempts.values()):
        found.append("the secret was read")
    for what, text in (("command line", targets.host_cmdline), ("environment", targets.host_environ)):
        if text.strip() and any(text.strip() in value for value in attempts.values()):
            found.append(f"the host's {what} was read")
    return found


def ipc_left(reply: WorkerReply, targets: Targets) -> str | None:
    """No IPC object the tool created is there after the call (they are removed if they are)."""
    left = remove_ipc(targets.ipc_key, targets.shm_name)
    return _outside(targets, [f"{kind} outlived the worker" for kind in left])


def ended_with(*kinds: str) -> Judge:
    """The call ended with one of ``kinds`` (the limit held) and nothing outside changed."""

    def judge(reply: WorkerReply, targets: Targets) -> str | None:
        if reply.error is None:
            return _outside(targets, [f"the call finished: {reply.output}"])
        if reply.error.kind not in kinds:
            return _outside(targets, [f"ended with {reply.error.kind}: {reply.error.message}"])
        return _outside(targets, [])

    return judge


def descriptors_capped(reply: WorkerReply, targets: Targets) -> str | None:
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    count = int(attempts.get("opened", "0"))
    through = [f"{count} descriptors opened"] if count > PROBE_LIMITS.open_files else []
    return _outside(targets, through)


def disk_capped(reply: WorkerReply, targets: Targets) -> str | None:
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    written = sum(int(v) for k, v in attempts.items() if k.startswith("bytes ") and v.isdigit())
    through = [f"{written} bytes written"] if written > DISK_CAP else []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        for leftover in Path(folder).glob(f"*{targets.token}*"):
            through.append(f"{leftover} left on the host")
            with contextlib.suppress(OSError):
                leftover.unlink()
    return _outside(targets, through)


def _outside(targets: Targets, through: list[str]) -> str | None:
    through = [*through, *targets.files_changed(), *(f"{n} listener reached" for n in targets.reached())]
    if touched := targets.victim_touched():
        through.append(touched)
    return "; ".join(through) or None


# -- the probes ---------------------------------------------------------------------------


KERNEL_SOURCE = """
def probe(t):
    number = t["syscalls"].get("NAME")
    if number is None:
        return {"NAME": "ENOSYS"}  # not a system call of this machine
    c = libc()
    c.syscall.restype = ctypes.c_long
    ctypes.set_errno(0)
    value = c.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in t["kernel_args"]["NAME"]])
    code = ctypes.get_errno()
    return {"NAME": "ok" if value >= 0 else errno.errorcode.get(code, str(code))}
"""

PROBES: tuple[Probe, ...] = (
    Probe(
        "read the host's files",
        "files",
        """
def probe(t):
    results = {}
    for label, path in (("secret", t["secret_file"]), ("session database", t["database"]),
                        ("repository", t["repo_file"]), ("/etc/shadow", "/etc/shadow"),
                        ("host root", "/proc/%d/root%s" % (t["host_pid"], t["secret_file"]))):
        data = attempt(results, label, lambda path=path: open(path, "rb").read())
        if data is not None:
            results[label + " bytes"] = data[:200].decode("latin-1")
    return results
""",
        no_secret,
    ),
    Probe(
        "write a host file",
        "files",
        """
def probe(t):
    results = {}
    def write():
        with open(t["victim_file"], "r+") as f:
            f.write("changed")
    attempt(results, "write", write)
    attempt(results, "append", lambda: os.write(os.open(t["victim_file"], os.O_WRONLY | os.O_APPEND), b"x"))
    return results
""",
        all_failed,
    ),
    Probe(
        "create files and folders",
        "files",
        """
def probe(t):
    results = {}
    attempt(results, "create", lambda: open(t["root"] + "/created.txt", "x").close())
    attempt(results, "mkdir", lambda: os.mkdir(t["root"] + "/folder"))
    attempt(results, "mknod", lambda: os.mkfifo(t["root"] + "/fifo"))
    return results
""",
        all_failed,
    ),
    Probe(
        "link, rename and remove host files",
        "files",
        """
def probe(t):
    results = {}
    attempt(results, "hard link", lambda: os.link(t["secret_file"], t["root"] + "/hard"))
    attempt(results, "symlink", lambda: os.symlink(t["secret_file"], t["root"] + "/soft"))
    attempt(results, "rename", lambda: os.rename(t["victim_file"], t["root"] + "/renamed"))
    attempt(results, "unlink", lambda: os.unlink(t["victim_file"]))
    return results
""",
        all_failed,
    ),
    Probe(
        "truncate and chmod host files",
        "files",
        """
def probe(t):
    results = {}
    attempt(results, "truncate", lambda: os.truncate(t["victim_file"], 0))
    attempt(results, "chmod", lambda: os.chmod(t["victim_file"], 0o600))
    attempt(results, "utime", lambda: os.utime(t["victim_file"], (0, 0)))
    return results
""",
        all_failed,
    ),
    Probe(
        "read /proc of the host and of other processes",
        "proc",
        """
def probe(t):
    results = {}
    for label, path in (("host cmdline", "/proc/%d/cmdline" % t["host_pid"]),
                        ("host environ", "/proc/%d/environ" % t["host_pid"]),
                        ("sacrificial cmdline", "/proc/%d/cmdline" % t["victim_pid"])):
        data = attempt(results, label, lambda path=path: open(path, "rb").read())
        if data is not None:
            results[label + " bytes"] = data.replace(b"\\0", b" ").decode("latin-1")
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            for part in ("cmdline", "environ"):
                try:
                    with open("/proc/%s/%s" % (name, part), "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                if t["token"].encode() in data:
                    found.append(name + "/" + part)
    if found:
        results["secret found in"] = " ".join(found) + " " + t["token"]
    return results
""",
        nothing_of_the_host,
    ),
    Probe(
        "read the memory of other workers and the zygote",
        "proc",
        """
def probe(t):
    results = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        def read_memory(pid=name):
            with open("/proc/%s/maps" % pid) as maps:
                readable = [int(line.split("-")[0], 16) for line in maps if line.split()[1].startswith("r")]
            if not readable:
                raise OSError(errno.EACCES, "no readable mapping listed")
            start = readable[0]
            with open("/proc/%s/mem" % pid, "rb", buffering=0) as mem:
                mem.seek(start)
                return mem.read(16)
        if attempt(results, "memory of pid " + name, read_memory) is not None:
            results["command of pid " + name] = open("/proc/%s/cmdline" % name, "rb").read()[:80].decode("latin-1")
    return results
""",
        all_failed,
    ),
    Probe(
        "sockets to loopback listeners",
        "sockets",
        """
def probe(t):
    results = {}
    def tcp():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:  # no getaddrinfo: nothing to resolve
            s.settimeout(2)
            s.connect(("127.0.0.1", t["tcp_port"]))
    def udp():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"x", ("127.0.0.1", t["udp_port"]))
    def unix(address):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(address)
    attempt(results, "TCP", tcp)
    attempt(results, "UDP", udp)
    attempt(results, "UNIX", lambda: unix(t["unix_path"]))
    attempt(results, "abstract UNIX", lambda: unix(t["abstract_name"]))
    return results
""",
        all_failed,
    ),
    Probe(
        "sockets of every family",
        "sockets",
        """
def probe(t):
    results = {}
    families = {
        "inet stream": (socket.AF_INET, socket.SOCK_STREAM, 0),
        "inet6 stream": (socket.AF_INET6, socket.SOCK_STREAM, 0),
        "inet raw": (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
        "unix": (socket.AF_UNIX, socket.SOCK_STREAM, 0),
        "netlink route": (socket.AF_NETLINK, socket.SOCK_RAW, 0),
        "netlink audit": (socket.AF_NETLINK, socket.SOCK_RAW, 9),
        "packet": (socket.AF_PACKET, socket.SOCK_RAW, 0),
        "alg": (38, socket.SOCK_SEQPACKET, 0),
        "vsock": (40, socket.SOCK_STREAM, 0),
        "bluetooth": (31, socket.SOCK_RAW, 0),
        "socketpair": None,
    }
    for label, spec in families.items():
        if spec is None:
            attempt(results, label, lambda: [s.close() for s in socket.socketpair()])
        else:
            attempt(results, label, lambda spec=spec: socket.socket(*spec).close())
    return results
""",
        all_failed,
    ),
    Probe(
        "IPC objects that outlive the worker",
        "ipc",
        """
def probe(t):
    results = {}
    c = libc()
    key = t["ipc_key"]
    def call(function, *args):
        value = function(*args)
        if value < 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))
        return value
    attempt(results, "SysV shared memory", lambda: call(c.shmget, key, 4096, 0o1666))
    attempt(results, "SysV message queue", lambda: call(c.msgget, key, 0o1666))
    attempt(results, "SysV semaphore set", lambda: call(c.semget, key, 1, 0o1666))
    attempt(results, "POSIX shared memory",
            lambda: os.close(os.open("/dev/shm/" + t["shm_name"], os.O_CREAT | os.O_RDWR, 0o666)))
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    rt.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    attempt(results, "POSIX message queue",
            lambda: call(rt.mq_open, ("/" + t["shm_name"]).encode(), os.O_CREAT | os.O_RDWR, 0o666, None))
    return results
""",
        ipc_left,
    ),
    Probe(
        "fork, exec and spawn",
        "processes",
        """
import subprocess


def probe(t):
    results = {}
    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    attempt(results, "fork", fork)
    attempt(results, "posix_spawn", lambda: os.waitpid(os.posix_spawn("/bin/true", ["true"], {}), 0))
    attempt(results, "subprocess", lambda: subprocess.run(["/bin/true"], timeout=5))
    try:
        import threading
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        results["thread"] = "ok"
    except RuntimeError as error:
        results["thread"] = str(error)
    return results
""",
        all_failed,
    ),
    Probe(
        "signal and trace a sacrificial process",
        "processes",
        """
import signal


def probe(t):
    results = {}
    victim = t["victim_pid"]
    attempt(results, "kill", lambda: os.kill(victim, signal.SIGUSR1))
    attempt(results, "killpg", lambda: os.killpg(victim, signal.SIGUSR2))
    attempt(results, "kill the host (signal 0)", lambda: os.kill(t["host_pid"], 0))
    attempt(results, "pidfd_send_signal",
            lambda: signal.pidfd_send_signal(os.pidfd_open(victim), signal.SIGTERM))
    c = libc()
    def ptrace(request):
        if c.ptrace(request, victim, None, None) != 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))
        c.ptrace(17, victim, None, None)  # PTRACE_DETACH
    attempt(results, "ptrace attach", lambda: ptrace(16))
    attempt(results, "ptrace seize", lambda: ptrace(0x4206))
    return results
""",
        all_failed,
    ),
    *(
        Probe(
            f"{name}() with invalid arguments", "kernel", KERNEL_SOURCE.replace("NAME", name), kernel_refused
        )
        for name in KERNEL_CALLS
    ),
    Probe(
        "memory exhaustion",
        "exhaustion",
        """
def probe(t):
    hoard = []
    for _ in range(64):
        hoard.append(bytearray(t["memory"] // 8))
    return {"held": str(len(hoard) * (t["memory"] // 8))}
""",
        ended_with("memory", "worker_crashed"),
    ),
    Probe(
        "CPU exhaustion",
        "exhaustion",
        """
def probe(t):
    while True:
        pass
""",
        ended_with("timeout"),
        Limits(wall_time=10.0, cpu_time=1.0, memory=256 * MiB, open_files=64),
    ),
    Probe(
        "disk exhaustion",
        "exhaustion",
        """
def probe(t):
    results = {}
    chunk = b"x" * (1024 * 1024)
    for folder in (".", "/tmp", "/var/tmp", "/dev/shm", t["root"]):
        path = folder + "/toolpen-probe-" + t["token"]
        written = 0
        try:
            with open(path, "wb") as f:
                for _ in range(64):
                    written += f.write(chunk)
                    f.flush()
        except OSError as error:
            results[folder] = errno.errorcode.get(error.errno, str(error.errno))
        results["bytes " + folder] = str(written)
    return results
""",
        disk_capped,
    ),
    Probe(
        "descriptor exhaustion",
        "exhaustion",
        """
def probe(t):
    opened = []
    result = {}
    try:
        while len(opened) < 100000:
            opened.append(os.open("/dev/null", os.O_RDONLY))
    except OSError as error:
        result["stopped"] = errno.errorcode.get(error.errno, str(error.errno))
    result["opened"] = str(len(opened))
    return result
""",
        descriptors_capped,
    ),
)


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise PermissionError("probes call no host service")


def run_probe(pool: WorkerPool, probe: Probe, targets: Targets) -> ProbeResult:
    """Run one probe in a worker under ``walls="process"`` and judge it."""
    args = {"t": {**targets.args(), "kernel_args": KERNEL_CALLS}}
    job = {"source": PRELUDE + probe.source, "entry": "probe", "args": args, "context": {"state": {}}}
    reply = pool.run({**job, "walls": "process"}, probe.limits, _no_rpc)
    through = probe.judge(reply, targets)
    return ProbeResult(probe.name, probe.subject, through is None, through or "refused")


def run_probes(pool: WorkerPool, probes: tuple[Probe, ...] = PROBES) -> Iterator[ProbeResult]:
    """Every probe, each in its own worker, against one set of targets."""
    with Targets() as targets:
        for probe in probes:
            yield run_probe(pool, probe, targets)
