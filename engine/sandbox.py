"""The box an outside engine runs in: what the process may read, write and reach, set by the kernel between
fork and exec, so it binds the program and everything it starts.

- **Files: Linux Landlock** (kernel 5.13+). The engine reads and runs only the system's programs and libraries
  (``/usr``, ``/bin``, ``/lib*``, a few files of ``/etc`` the loader needs), its own folder, and writes only a
  private temporary folder made for the run. Everything else — the project, ``var/`` with the database,
  ``secret_key`` and the backups, other engines' folders, ``/tmp``, ``/proc`` of other processes, ``/home`` —
  is refused, whatever user the server runs as (root included: Landlock does not care for the user id).
- **Network: a network namespace of its own** (no interface but a loopback that is down), so no TCP, UDP or
  socket to the server's ports; where the kernel has Landlock's network rules (ABI 4+), TCP ``bind`` and
  ``connect`` are refused by them as well.
- **Signals and abstract sockets** of processes outside the box are out of reach where Landlock scopes them
  (ABI 6+), and ``no_new_privs`` keeps a setuid program from gaining rights.

The box is made with plain system calls (``ctypes``): nothing to install. :func:`unavailable` says why it
cannot be made on this machine (an old kernel, Landlock switched off, no namespaces); the games app then
refuses to register an outside engine, with that reason. Our own built-in engine is not boxed (it is our code,
and runs in the worker's own process at full speed)."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

# System call numbers: the same on every architecture of the generic table (x86_64 and aarch64 alike).
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000

# Filesystem rights (include/uapi/linux/landlock.h), with the ABI that brought each.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | (1 << 14) | (1 << 15)  # the rights a rule on a file may hold
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ_ONLY = EXECUTE | READ_FILE | READ_DIR
# What a program and its loader read: the system's programs and libraries, and a few files of /etc (never the
# whole of it: /etc/shadow is readable by root, and the box must hold for a server run as root).
SYSTEM_PATHS = (
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/nsswitch.conf",
    "/sys/devices/system/cpu",  # a program that counts the cores (none of it says anything of the server)
)
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")


class RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where it has none (not Linux, too old, or switched off)."""
    if platform.system() != "Linux":
        return 0
    try:
        version = _libc().syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    except (AttributeError, OSError):
        return 0
    return max(0, int(version))


def _fs_rights(abi: int) -> int:
    return max((rights for version, rights in FS_BY_ABI.items() if version <= abi), default=0)


@dataclass(frozen=True)
class Box:
    """What an engine may use: ``read`` folders (read and run), ``write`` folders (its private space), and
    no network. :meth:`apply` is called in the child between fork and exec (``subprocess``'s
    ``preexec_fn``)."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()

    def apply(self) -> None:
        """Put the calling process in the box, or raise ``OSError`` (the engine then never starts)."""
        libc = _libc()
        _own_network(libc)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _fail("no_new_privs")
        abi = landlock_abi()
        if abi < 1:
            _fail("landlock", errno.ENOSYS)
        attr = RulesetAttr(_fs_rights(abi), NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0, 0)
        if abi >= 6:
            attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = ctypes.sizeof(RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
        ruleset = libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
        if ruleset < 0:
            _fail("landlock_create_ruleset")
        try:
            everything = _fs_rights(abi)
            for path in (*SYSTEM_PATHS, *self.read):
                _allow(libc, ruleset, path, READ_ONLY & everything)
            for path in DEVICES:
                _allow(libc, ruleset, path, READ_FILE | WRITE_FILE)
            _allow(libc, ruleset, f"/proc/{os.getpid()}", READ_FILE | READ_DIR)  # its own, and no other's
            for path in self.write:
                _allow(libc, ruleset, path, everything)
            if libc.syscall(SYS_RESTRICT_SELF, ruleset, 0) != 0:
                _fail("landlock_restrict_self")
        finally:
            os.close(ruleset)


def _fail(what: str, number: int | None = None) -> None:
    code = ctypes.get_errno() if number is None else number
    raise OSError(code, f"engine box: {what} failed: {os.strerror(code)}")


def _own_network(libc: ctypes.CDLL) -> None:
    """A network namespace of its own: as root directly, otherwise inside a user namespace of its own."""
    if libc.unshare(CLONE_NEWNET) == 0:
        return
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        _fail("unshare(CLONE_NEWNET)")


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    """Allow ``rights`` beneath ``path`` (a missing path is skipped: not every system has /lib32)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = PathBeneathAttr(rights, fd)
        if libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            _fail(f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def unavailable() -> str:
    """Why no box can be made here (empty when one can): checked by really boxing a program that then tries to
    list this folder, which the box must refuse."""
    if landlock_abi() < 1:
        return "this kernel has no Landlock (Linux 5.13 or later, with landlock among its security modules)"
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        tried = subprocess.run(
            ["/bin/ls", here],
            capture_output=True,
            text=True,
            timeout=10,
            env={"PATH": "/usr/bin:/bin", "LANG": "C"},
            preexec_fn=Box().apply,  # noqa: PLW1509 - system calls only, between fork and exec
        )
    except (subprocess.SubprocessError, OSError) as exc:
        return f"the box could not be made: {exc}"
    if tried.returncode == 0:
        return "the box did not hold: a boxed program could read the project"
    return "" if "ermission denied" in tried.stderr else f"the box could not be tested: {tried.stderr[:200]}"


def preexec(box: Box | None, then: Callable[[], None]) -> Callable[[], None]:
    """What runs in the child before exec: ``then`` (the resource limits), and the box when there is one."""

    def run() -> None:
        then()
        if box is not None:
            box.apply()

    return run
