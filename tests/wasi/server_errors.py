#!/usr/bin/env python3
"""Per-connection failures against examples/async-io/server.wat: each leaves
the server running, with a clear error line for that connection only.

  server_errors.py --weft WEFT --tier interp|jit --server examples/async-io/server.wat

Run 1 (7 connections, idle timeout 1 s), in order, while a steady client
keeps echoing on its own connection every 50 ms:
  killed     a client process killed (SIGKILL) mid-message, with echoed bytes
             it never read → its kernel resets the connection: "recv failed:
             connreset" (or "send failed: pipe|connreset")
  abortive   a client closing with SO_LINGER 0 mid-message (RST): same
  half-close a client that sends, shuts down its write side, and must still
             get every byte back and then EOF: no error line
  never-reads a client sending 32 MiB without reading (backpressure): the
             server's send blocks; after the idle timeout: "the peer stopped
             reading; send blocked for the idle timeout, closing: timedout"
  idle       a client that connects and sends nothing: "no data from the peer
             for the idle timeout, closing: timedout"
  steady + final: ordinary echoes, before and after all of the above
The server must then exit 0 with "7 connections served, … 4 ended with an error".

Run 2 (fd limit): the server runs under RLIMIT_NOFILE = 16; 24 clients
connect at once and each echoes one message, holding its connection 300 ms.
The server logs "out of file descriptors … mfile" once it runs out, parks its
acceptor until a connection closes, and serves all 24 (0 errors).
"""
import argparse
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

TIMEOUT = 60  # seconds for each server run; the test fails instead of hanging


def start_server(args, max_connections, idle_ms, fd_limit=None):
    def limit_fds():
        if fd_limit:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))
    server = subprocess.Popen([args.weft, "run", f"--tier={args.tier}", "--tcplisten", "127.0.0.1:0", args.server,
                               str(max_connections), str(idle_ms)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit_fds)
    line = server.stderr.readline().decode()
    match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
    if not match:
        server.kill()
        raise AssertionError(f"server did not start: {line!r}")
    return server, int(match.group(1))


def finish_server(server):
    try:
        out, err = server.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()
        out, err = server.communicate()
        raise AssertionError(f"the server did not stop; stderr so far:\n{err.decode()}")
    return server.returncode, out.decode(), err.decode()


def echo_on(sock, payload):
    """Sends `payload` and reads until it is all back; raises if it differs or the stream ends."""
    sock.sendall(payload)
    got = b""
    while len(got) < len(payload):
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"EOF after {len(got)} of {len(payload)} bytes")
        got += chunk
    if got != payload:
        raise AssertionError("echo differs")


def echo_once(port, payload, hold_seconds=0.0):
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
        echo_on(s, payload)
        time.sleep(hold_seconds)


def run_failures(args, check):
    server, port = start_server(args, max_connections=7, idle_ms=1000)
    try:
        # steady: connection 1, echoing every 50 ms from a thread throughout
        # (more often than the idle timeout, so only the failing clients time out)
        steady = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        steady_done = threading.Event()
        steady_rounds = []
        steady_failures = []

        def steady_echo():
            try:
                while not steady_done.is_set():
                    echo_on(steady, f"steady {len(steady_rounds)} ".encode() * 100)
                    steady_rounds.append(time.monotonic())
                    time.sleep(0.05)
            except Exception as e:  # noqa: BLE001 — reported below
                steady_failures.append(str(e))
        steady_thread = threading.Thread(target=steady_echo)
        steady_thread.start()

        # killed: a separate process, killed after the server echoed bytes it never read
        killed = subprocess.Popen([sys.executable, "-c", (
            "import socket,sys,time\n"
            f"s=socket.create_connection(('127.0.0.1',{port}))\n"
            "s.sendall(b'x'*3000)\n"
            "s.recv(1,socket.MSG_PEEK)\n"  # the echo has arrived, left unread
            "print('sent',flush=True)\n"
            "time.sleep(60)\n")], stdout=subprocess.PIPE)
        killed.stdout.readline()
        time.sleep(0.2)  # more of the echo arrives in the client's receive buffer, unread
        killed.send_signal(signal.SIGKILL)
        killed.wait()

        # abortive: RST in the middle of a message. The server must have
        # taken the connection first (its first bytes echoed back): reset
        # before the server accepts it, the connection can end in a plain
        # EOF, which the slow server of an emulated run once saw.
        abortive = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        abortive.sendall(b"half a message")
        echoed = b""
        while len(echoed) < len(b"half a message"):
            chunk = abortive.recv(64)
            if not chunk:
                break
            echoed += chunk
        abortive.sendall(b" and then")
        abortive.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        abortive.close()

        # half-close: everything echoed, then EOF
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as half:
            payload = bytes(range(256)) * 300
            half.sendall(payload)
            half.shutdown(socket.SHUT_WR)
            got = b""
            while True:
                chunk = half.recv(65536)
                if not chunk:
                    break
                got += chunk
            check(got == payload, "half-closed connection got every byte back, then EOF")

        # never-reads and idle, at the same time; the steady connection keeps working meanwhile
        never_reads = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        idle = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        never_reads.setblocking(False)
        flooded = 0
        stop = time.monotonic() + 20
        blocked_since = None
        chunk = b"z" * 65536
        while time.monotonic() < stop and flooded < 32 * 2**20:
            try:
                flooded += never_reads.send(chunk)
                blocked_since = None
            except BlockingIOError:
                blocked_since = blocked_since or time.monotonic()
                if time.monotonic() - blocked_since > 3:  # both directions full: backpressure reached
                    break
                time.sleep(0.01)
            except (ConnectionResetError, BrokenPipeError):
                break  # the server gave up on us first
        time.sleep(2.0)  # past the 1 s idle timeout
        never_reads.close()
        idle.close()
        steady_done.set()
        steady_thread.join(TIMEOUT)
        check(not steady_failures and len(steady_rounds) > 20,
              f"the steady connection echoed throughout ({len(steady_rounds)} rounds) {steady_failures}")
        steady.close()

        echo_once(port, b"final connection")
    finally:
        status, out, err = finish_server(server)
    print(err, end="")
    check(status == 0, f"server exit status 0 (got {status})")
    check(re.search(r"server: 7 connections served, \d+ bytes echoed, 4 ended with an error", out) is not None,
          f"summary: {out.strip()!r}")
    check(re.search(r"conn \d+ \(fd \d+\): (recv failed: connreset|send failed: (pipe|connreset))", err)
          is not None, "an error line for the killed client")
    check(len(re.findall(r"conn \d+ \(fd \d+\): (recv failed: connreset|send failed: (pipe|connreset))", err)) == 2,
          "error lines for exactly the killed and the abortive client")
    check(re.search(r"conn \d+ \(fd \d+\): the peer stopped reading; send blocked for the idle timeout, closing: "
                    r"timedout", err) is not None, "an error line for the client that never reads")
    check(re.search(r"conn \d+ \(fd \d+\): no data from the peer for the idle timeout, closing: timedout", err)
          is not None, "an error line for the idle client")
    check(len(err.strip().splitlines()) == 4, "four stderr lines after the listening line: the 4 connection errors")


def run_fd_limit(args, check):
    clients = 24
    server, port = start_server(args, max_connections=clients, idle_ms=10000, fd_limit=16)
    failures = []

    def client(i):
        try:
            echo_once(port, f"client {i} ".encode() * 50, hold_seconds=0.3)
        except Exception as e:  # noqa: BLE001 — reported below
            failures.append(f"client {i}: {e}")
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    status, out, err = finish_server(server)
    print(err, end="")
    check(not failures, f"all {clients} clients echoed under the fd limit {failures}")
    check(status == 0, f"server exit status 0 (got {status})")
    check(f"server: {clients} connections served" in out and "0 ended with an error" in out,
          f"summary: {out.strip()!r}")
    check("server: out of file descriptors, accepting again when a connection closes: mfile" in err,
          "the server said it ran out of file descriptors")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--weft", required=True)
    parser.add_argument("--tier", required=True, choices=["interp", "jit"])
    parser.add_argument("--server", required=True)
    args = parser.parse_args()
    failed = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failed.append(what)
    run_failures(args, check)
    run_fd_limit(args, check)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
