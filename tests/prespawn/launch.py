"""The process a test starts in place of ``python -m MODULE ARGS``: it hands its standard streams,
argv, environment and working folder to the pre-imported spawner (``tests/prespawn/zygote.py``),
which forks the real ``MODULE`` main with them, and then stands for that child:

- it exits with the child's status, or dies of the child's signal (SIGKILL included);
- a signal sent to it (TERM, INT, HUP, QUIT, USR1, USR2) is sent on to the child;
- when it dies (``kill -9`` of what the test holds) the spawner kills the child at once;
- when the spawner dies, it kills the child and exits 70 (EX_SOFTWARE).

Every fd it inherited (the three streams and any ``pass_fds``) goes to the child under the same
number. Run as ``python -S -E launch.py SOCKET MODULE ARGS...``: the standard library only, no site, so
that it starts in a few milliseconds. It keeps none of the streams it handed over, so that the
test sees their ends when the child closes them, as with a cold process.
"""

import json
import os
import signal
import socket
import struct
import sys

EX_SOFTWARE = 70  # sysexits.h: an internal error (here: of the spawner, not the child)
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _read(conn: socket.socket, size: int, child: int = 0) -> bytes:
    """``size`` bytes from the spawner; if it died first (its traceback is on the test run's
    stderr), kill ``child`` and exit 70."""
    data = b""
    while len(data) < size:
        try:
            chunk = conn.recv(size - len(data))
        except InterruptedError:
            continue
        if not chunk:
            if child:
                try:
                    os.kill(child, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os._exit(EX_SOFTWARE)
        data += chunk
    return data


def main() -> None:
    path, module, *args = sys.argv[1:]
    inherited = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    inherited = [fd for fd in inherited if _is_open(fd)]  # (less the listing's own, closed by now)
    pending: list[int] = []  # signals that came before the child was there to get them
    told = False
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def forward(signum: int, _frame: object) -> None:
        if told:
            conn.sendall(struct.pack("!i", signum))
        else:
            pending.append(signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    conn.connect(path)
    request = {
        "module": module,
        "argv": args,
        "env": dict(os.environ),
        "cwd": os.getcwd(),
        "fds": inherited,
    }
    payload = json.dumps(request).encode()
    # The length first, with the fds; then the request: the spawner reads exactly that much.
    socket.send_fds(conn, [struct.pack("!I", len(payload))], inherited)
    conn.sendall(payload)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in inherited:  # the child holds them now: their ends are its to close
        if fd <= 2:
            os.dup2(null, fd)
        else:
            os.close(fd)
    os.close(null)
    told = True
    for signum in pending:
        conn.sendall(struct.pack("!i", signum))
    child = struct.unpack("!i", _read(conn, 4))[0]
    kind, value = struct.unpack("!ii", _read(conn, 8, child))
    if kind == 1:  # killed by signal ``value``: die of it, as the child did
        if value in FORWARDED:
            signal.signal(value, signal.SIG_DFL)
        os.kill(os.getpid(), value)
    os._exit(value)


main()
