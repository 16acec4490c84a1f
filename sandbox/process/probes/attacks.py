"""The raw attacks, as tool sources: ``probe(t)`` gets the targets and records each attempt.

Each attempt is recorded as ``"ok"`` or the name of the errno it failed with. Kernel
interfaces are called through ``syscall()`` with arguments a permitted call refuses
harmlessly (the comment says which error it would give), so that only ``EPERM`` or ``ENOSYS``
means the wall refused it. Signals go only to the sacrificial process; nothing destructive is
called with valid arguments.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Iterable
from dataclasses import dataclass

from sandbox.common.limits import Limits, MiB
from sandbox.messages import DONE, KIND
from sandbox.process.jail import SYSCALLS
from sandbox.process.probes.judges import (
    PROBE_LIMITS,
    Judge,
    all_failed,
    descriptors_capped,
    disk_capped,
    ended_with,
    ipc_left,
    kernel_refused,
    killed_or_refused,
    no_secret,
    nothing_of_the_host,
    worker_gone,
)

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


def syscall_numbers(names: Iterable[str]) -> dict[str, int]:
    """The numbers of these system calls on this machine (libseccomp resolves them)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        numbers = {name: lib.seccomp_syscall_resolve_name(name.encode()) for name in names}
        return {name: number for name, number in numbers.items() if number >= 0}
    except OSError:
        return dict(X86_64_NUMBERS) if os.uname().machine == "x86_64" else {}


SWEEP_TOP = 600
"""System call numbers ``0 .. SWEEP_TOP - 1`` are swept: every one the allowlist does not hold must
answer EPERM or ENOSYS (x86-64 has about 460, aarch64 about 450)."""


def allowed_numbers() -> list[int]:
    """The numbers of the allowlist's system calls (empty where libseccomp cannot resolve them)."""
    names = [call.name for call in SYSCALLS]
    numbers = syscall_numbers(names)
    return sorted(numbers.values()) if len(numbers) == len(set(names)) else []


def int80(number: int, *args: int) -> str:
    """x86-64 machine code making the i386 system call ``number`` (``int 0x80``, at most three
    arguments): the i386 ABI has numbers of its own, so a filter that did not check the ABI
    would let ``socketcall`` (102) through as x86-64's ``getuid`` (102)."""
    a, b, c = (*args, 0, 0, 0)[:3]
    code = b"\x53\xb8" + number.to_bytes(4, "little")  # push rbx; mov eax, number
    for opcode, value in ((b"\xbb", a), (b"\xb9", b), (b"\xba", c)):  # ebx, ecx, edx
        code += opcode + (value & 0xFFFFFFFF).to_bytes(4, "little")
    return (code + b"\xcd\x80\x48\x63\xc0\x5b\xc3").hex()  # int 0x80; movsxd rax, eax; pop rbx; ret


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


@dataclass(frozen=True)
class Probe:
    """One raw attack: a tool ``probe(t)`` (``t``: the targets) and how to judge its run."""

    name: str
    subject: str
    source: str
    judge: Judge
    limits: Limits = PROBE_LIMITS


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
        "leave files behind for the next call",
        "files",
        """
def probe(t):
    results = {}
    name = "toolpen-probe-" + t["token"]
    for folder in ("/tmp", ".", "/", "/var/tmp", "/dev/shm"):
        attempt(results, "create in " + folder, lambda folder=folder: open(folder + "/" + name, "x").close())
        attempt(results, "mkdir in " + folder, lambda folder=folder: os.mkdir(folder + "/" + name + "-dir"))
    attempt(results, "write /proc/sys", lambda: open("/proc/sys/kernel/hostname", "w").write("changed"))
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
    Probe(
        "signal every process it can see",
        "processes",
        """
def probe(t):
    results = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            attempt(results, "signal 0 to pid " + name, lambda pid=int(name): os.kill(pid, 0))
    return results
""",
        all_failed,
    ),
    Probe(
        "outlive the call: send its own done, then sleep",
        "processes",
        """
def probe(t):
    import json, struct, time
    host = None
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + name).startswith("socket:"):
                host = int(name)
        except OSError:
            pass
    start = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]
    done = {KIND_KEY: DONE_KIND, "success": True, "output": {"pid": os.getpid(), "start": start},
            "state_delta": {"set": {}, "deleted": []}, "logs": ""}
    body = json.dumps(done).encode()
    os.write(host, struct.pack(">I", len(body)) + body)
    while True:
        time.sleep(0.1)
""".replace("DONE_KIND", repr(DONE)).replace("KIND_KEY", repr(KIND)),
        worker_gone,
        Limits(wall_time=5.0, cpu_time=2.0, memory=256 * MiB, open_files=64),
    ),
    *(
        Probe(
            f"{name}() with invalid arguments", "kernel", KERNEL_SOURCE.replace("NAME", name), kernel_refused
        )
        for name in KERNEL_CALLS
    ),
    Probe(
        "every system call outside the allowlist, with invalid arguments",
        "kernel",
        f"""
def probe(t):
    allowed = set(t["allowed"]) | set(t["platform"])  # the platform's own numbers pass any filter
    if not t["allowed"]:
        return {{"sweep": "the allowlist's numbers are unknown on this machine"}}
    c = libc()
    c.syscall.restype = ctypes.c_long
    results = {{}}
    for number in range({SWEEP_TOP}):
        if number in allowed:
            continue
        ctypes.set_errno(0)
        value = c.syscall(ctypes.c_long(number), *[ctypes.c_long(-1)] * 6)
        code = ctypes.get_errno()
        results[str(number)] = "ok" if value >= 0 else errno.errorcode.get(code, str(code))
    return results
""",
        kernel_refused,
    ),
    *(
        Probe(
            f"the {abi} ABI: {name}",
            "kernel",
            f"""
import mmap


def probe(t):
    c = libc()
    c.syscall.restype = ctypes.c_long
    if {code!r} == "x32":
        ctypes.set_errno(0)
        value = c.syscall(ctypes.c_long(0x40000000 | {number}), *[ctypes.c_long(a) for a in {args!r}])
        code = ctypes.get_errno()
        return {{"{name}": "ok" if value >= 0 else errno.errorcode.get(code, str(code))}}
    if os.uname().machine != "x86_64":
        return {{"{name}": "ENOSYS"}}  # no i386 ABI to try
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(bytes.fromhex({code!r}))
    value = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
    return {{"{name}": "ok" if value >= 0 else errno.errorcode.get(-value, str(-value))}}
""",
            killed_or_refused,
        )
        for abi, name, code, number, args in (
            ("x32", "socket(AF_INET, SOCK_STREAM)", "x32", 41, (2, 1, 0)),
            ("x32", "getuid, allowed in the x86-64 ABI", "x32", 102, ()),
            ("i386", "socketcall(SYS_SOCKET, NULL) through int 0x80", int80(102, 1, 0), 0, ()),
            ("i386", "socket(AF_INET, SOCK_STREAM) through int 0x80", int80(359, 2, 1, 0), 0, ()),
            ("i386", "unshare(CLONE_NEWUSER) through int 0x80", int80(310, 0x10000000), 0, ()),
        )
    ),
    Probe(
        "raise its own limits",
        "exhaustion",
        """
import resource


def probe(t):
    results = {}
    for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CORE"):
        which = getattr(resource, name)
        soft, hard = resource.getrlimit(which)
        higher = resource.RLIM_INFINITY if hard == resource.RLIM_INFINITY else hard + 1 << 20
        try:
            resource.setrlimit(which, (higher, higher))
            results[name] = "ok"
        except (OSError, ValueError) as error:  # ValueError: "not allowed to raise maximum limit"
            results[name] = type(error).__name__
    return results
""",
        all_failed,
    ),
    Probe(
        "CPU exhaustion with SIGXCPU ignored",
        "exhaustion",
        """
import signal


def probe(t):
    signal.signal(signal.SIGXCPU, signal.SIG_IGN)
    while True:
        pass
""",
        ended_with("timeout"),
        Limits(wall_time=10.0, cpu_time=1.0, memory=256 * MiB, open_files=64),
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
