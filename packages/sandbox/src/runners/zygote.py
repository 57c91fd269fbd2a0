# Runs inside a sandbox and never runs user code itself: for each request it forks a child from this
# pristine interpreter (runner.py and the common modules already loaded), and the child runs the
# user's main once, exactly as runner.py does in a sandbox of its own. Between two children it kills
# every other process of the sandbox and empties /tmp and /dev/shm, so each node starts in a fresh
# process with nothing left by the one before.
#
# Protocol. In, on fd 0: "<length>\n" then <length> bytes of {"code", "input"}. Out, on fd 3: frames
# of one kind byte, a 4-byte big-endian length and that many bytes: "o" stdout, "e" stderr, "r" the
# child's result, then "x" {"status": N} once the child and everything it started are gone.
# The request and the output never pass through this process's memory: os.splice moves them between
# pipes inside the kernel, so no child can find an earlier child's data in a copy of this process.
import os

os.write(3, b"\n")

import ctypes
import json
import select
import shutil
import signal
import struct
import sys

sys.path.insert(0, "/sandbox")
import runner  # noqa: E402,F401  loaded once, before any fork

PR_SET_NAME = 15
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
FIONREAD = 0x541B
MAX_HEADER = 16

libc = ctypes.CDLL(None, use_errno=True)
# Children run as the same uid: not dumpable, this process's /proc/<pid>/mem, fd and environ stay closed to them.
libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
# Whatever a child leaves behind (daemons that double-forked) is re-parented here, to be reaped.
libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
# A child's kill(-1, SIGTERM) must not end the zygote (SIGKILL still can: that fails only that run).
SHIELDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
DEFAULT_HANDLERS = {number: signal.getsignal(number) for number in SHIELDED}
for number in SHIELDED:
    signal.signal(number, signal.SIG_IGN)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def splice_exact(source, target, count):
    while count > 0:
        moved = os.splice(source, target, count)
        if moved == 0:
            raise EOFError("the pipe closed early")
        count -= moved


def available(fd):
    size = ctypes.c_int(0)
    if libc.ioctl(fd, FIONREAD, ctypes.byref(size)) != 0:
        return 0
    return size.value


def read_header():
    header = b""
    while not header.endswith(b"\n"):
        byte = os.read(0, 1)
        if not byte:
            kill_the_rest()  # the next node's child, waiting
            os._exit(0)  # the host closed the session
        header += byte
        if len(header) > MAX_HEADER:
            os._exit(2)
    return int(header)


def kill_the_rest():
    # In the sandbox's pid namespace: every process but bwrap's init and this one.
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def empty(root):
    for path, directories, _files in os.walk(root):
        for name in directories:
            inner = os.path.join(path, name)
            if not os.path.islink(inner):
                try:
                    os.chmod(inner, 0o700)  # a child may have locked a directory to keep it
                except OSError:
                    pass
    for name in os.listdir(root):
        inner = os.path.join(root, name)
        if os.path.isdir(inner) and not os.path.islink(inner):
            shutil.rmtree(inner, ignore_errors=True)
        else:
            try:
                os.unlink(inner)
            except OSError:
                pass
    if os.listdir(root):
        os._exit(4)  # something stayed: the host starts a new sandbox instead


def child(stdin, stdout, stderr, result):
    try:
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        os.dup2(result, 3)
        # Nothing of the zygote's channels to the host stays open in the child.
        os.closerange(4, 65536)
        for number, handler in DEFAULT_HANDLERS.items():
            signal.signal(number, handler)
        # Named apart while it waits, so whoever lists the sandbox's processes can tell it from user code.
        libc.prctl(PR_SET_NAME, b"zygote-spare", 0, 0, 0)
        select.select([0], [], [])
        libc.prctl(PR_SET_NAME, b"python3", 0, 0, 0)
        runner.main()
    finally:
        os._exit(70)


def spawn():
    """Forks the next node's child, which waits on its stdin for the request."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        child(stdin_r, stdout_w, stderr_w, result_w)
    for fd in (stdin_r, stdout_w, stderr_w, result_w):
        os.close(fd)
    return pid, stdin_w, stdout_r, stderr_r, result_r


def serve(length, spawned):
    pid, stdin_w, stdout_r, stderr_r, result_r = spawned
    try:
        splice_exact(0, stdin_w, length)
    except (OSError, EOFError):
        os._exit(3)  # the child died before reading its input: out of step with the host, so stop
    os.close(stdin_w)

    kinds = {stdout_r: b"o", stderr_r: b"e", result_r: b"r"}
    poller = select.poll()
    for fd in kinds:
        poller.register(fd, select.POLLIN)
    exited = os.pidfd_open(pid)
    poller.register(exited, select.POLLIN)
    status = None
    while kinds or status is None:
        for fd, _event in poller.poll():
            if fd == exited:
                _, status = os.waitpid(pid, 0)
                poller.unregister(exited)
                os.close(exited)
                # Processes it left may hold its pipes open; the node is over when its main process is.
                kill_the_rest()
                continue
            if fd not in kinds:
                continue
            count = available(fd)
            if count == 0:
                poller.unregister(fd)
                os.close(fd)
                del kinds[fd]
                continue
            write_all(3, struct.pack(">cI", kinds[fd], count))
            splice_exact(fd, 3, count)
    kill_the_rest()
    empty("/tmp")
    empty("/dev/shm")
    code = os.waitstatus_to_exitcode(status)
    payload = json.dumps({"status": code if code >= 0 else 128 - code}).encode()
    write_all(3, struct.pack(">cI", b"x", len(payload)) + payload)


# A node's child is forked while the zygote waits for the node (a fork costs a few ms here), so the
# request finds it ready. It is forked only once everything of the node before is gone (kill_the_rest
# and empty above), from this pristine process, exactly as if forked when the request came.
spawned = spawn()
while True:
    length = read_header()
    serve(length, spawned)
    spawned = spawn()
