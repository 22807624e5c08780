#!/usr/bin/env python3
"""Load test for a WASI echo server run by weft (loopback only, bounded).

Starts `weft run --tier=TIER --tcplisten 127.0.0.1:0 SERVER N IDLE_MS` (the
server: examples/async-io/server.wat, or the plain C tests/wasi/programs/
socket_echo.c built for wasm32-wasi), opens N concurrent connections, and on
each sends M messages of random sizes (1..MAX_SIZE bytes), one at a time,
checking that every byte comes back. Then every client half-closes and must
read EOF, and the server must exit 0 with the summary line
  server: N connections served, B bytes echoed, 0 ended with an error
Reports throughput, p50/p99 round-trip latency per message and the server's
resident memory per connection (RSS with all N connections open and each
having echoed one message, minus RSS before the first connection, over N).

Stops by itself: everything is bounded by --timeout (the server is killed and
the test fails when it passes). Exit status 0 only if every byte was echoed,
no connection was lost and the server's summary matches.

  python3 bench/echo_load.py --weft build/tools/weft --tier jit \\
      --server examples/async-io/server.wat --connections 10000 --messages 10
"""
import argparse
import asyncio
import json
import os
import random
import re
import resource
import sys
import time

LISTENING = re.compile(rb"weft: listening on 127\.0\.0\.1:(\d+)")
SUMMARY = re.compile(r"server: (\d+) connections served, (\d+) bytes echoed, (\d+) ended with an error")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def raise_fd_limit(connections):
    """Raises RLIMIT_NOFILE to the hard limit (inherited by the server).
    Returns how many connections that allows (each side needs one fd per
    connection plus a few of its own)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 64
    if hard != resource.RLIM_INFINITY and hard < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        return hard - 64
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    return connections


class Client:
    def __init__(self, index, rng, messages, max_size):
        self.index = index
        self.payloads = [rng.randbytes(rng.randint(1, max_size)) for _ in range(messages)]
        self.latencies = []
        self.reader = self.writer = None

    async def connect(self, port, connect_slots):
        async with connect_slots:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)

    async def round_trip(self, payload):
        start = time.perf_counter()
        self.writer.write(payload)
        await self.writer.drain()
        echoed = await self.reader.readexactly(len(payload))
        self.latencies.append(time.perf_counter() - start)
        if echoed != payload:
            first = next(i for i in range(len(payload)) if echoed[i] != payload[i])
            raise AssertionError(f"connection {self.index}: echo differs at byte {first} of {len(payload)}")

    async def finish(self):
        # Half-close: the server echoes what is left, shuts down its side, and we read EOF.
        self.writer.write_eof()
        rest = await self.reader.read()
        if rest:
            raise AssertionError(f"connection {self.index}: {len(rest)} unexpected bytes before EOF")
        self.writer.close()


async def main(args):
    connections = raise_fd_limit(args.connections)
    if connections < args.connections:
        print(f"echo_load: the hard fd limit (ulimit -Hn = {resource.getrlimit(resource.RLIMIT_NOFILE)[1]}) allows "
              f"only {connections} connections, not {args.connections}; running {connections}", flush=True)
    rng = random.Random(args.seed)
    clients = [Client(i, rng, args.messages, args.max_size) for i in range(connections)]
    total_bytes = sum(len(p) for c in clients for p in c.payloads)

    command = [args.weft, "run", f"--tier={args.tier}", "--tcplisten", "127.0.0.1:0", args.server,
               str(connections), str(args.idle_ms)]
    server = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE,
                                                  stderr=asyncio.subprocess.PIPE)
    deadline = time.monotonic() + args.timeout
    stderr_lines = []
    try:
        line = await asyncio.wait_for(server.stderr.readline(), timeout=10)
        match = LISTENING.search(line)
        if not match:
            raise AssertionError(f"the server did not start: {line.decode(errors='replace')!r}")
        port = int(match.group(1))

        async def drain_stderr():
            async for err_line in server.stderr:
                stderr_lines.append(err_line.decode(errors="replace").rstrip())
        stderr_task = asyncio.ensure_future(drain_stderr())

        rss_before = rss_kib(server.pid)
        start = time.perf_counter()
        connect_slots = asyncio.Semaphore(256)  # the listen backlog is SOMAXCONN (4096)

        async def open_and_first(client):
            await client.connect(port, connect_slots)
            await client.round_trip(client.payloads[0])

        left = lambda: max(1.0, deadline - time.monotonic())
        await asyncio.wait_for(asyncio.gather(*(open_and_first(c) for c in clients)), timeout=left())
        connected = time.perf_counter()
        rss_all_open = rss_kib(server.pid)

        async def rest(client):
            for payload in client.payloads[1:]:
                await client.round_trip(payload)
            await client.finish()
        await asyncio.wait_for(asyncio.gather(*(rest(c) for c in clients)), timeout=left())
        elapsed = time.perf_counter() - start

        out = await asyncio.wait_for(server.stdout.read(), timeout=left())
        status = await asyncio.wait_for(server.wait(), timeout=left())
        await asyncio.wait_for(stderr_task, timeout=left())
    except BaseException:
        if server.returncode is None:
            server.kill()
            await server.wait()
        for err_line in stderr_lines[-20:]:
            print(f"  server: {err_line}", file=sys.stderr)
        raise

    summary = SUMMARY.search(out.decode(errors="replace"))
    problems = []
    if status != 0:
        problems.append(f"the server exited with {status}")
    if not summary:
        problems.append(f"no summary line in the server's output: {out.decode(errors='replace')!r}")
    elif (int(summary.group(1)), int(summary.group(2)), int(summary.group(3))) != (connections, total_bytes, 0):
        problems.append(f"summary {summary.group(0)!r}, expected {connections} connections, "
                        f"{total_bytes} bytes, 0 errors")
    for err_line in stderr_lines:
        problems.append(f"server stderr: {err_line}")

    latencies = sorted(l for c in clients for l in c.latencies)
    percentile = lambda p: latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000
    result = {
        "tier": args.tier,
        "server": os.path.basename(args.server),
        "connections": connections,
        "messages": len(latencies),
        "bytes_each_way": total_bytes,
        "seconds": round(elapsed, 3),
        "connect_and_first_echo_seconds": round(connected - start, 3),
        "throughput_mib_s": round(2 * total_bytes / elapsed / 2**20, 2),
        "messages_per_s": round(len(latencies) / elapsed),
        "p50_ms": round(percentile(50), 3),
        "p99_ms": round(percentile(99), 3),
        "rss_before_kib": rss_before,
        "rss_all_open_kib": rss_all_open,
        "rss_per_connection_kib": round((rss_all_open - rss_before) / connections, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"echo_load: {args.tier}: {connections} connections x {args.messages} messages "
              f"({total_bytes} bytes each way) in {result['seconds']} s: "
              f"{result['throughput_mib_s']} MiB/s (both directions), {result['messages_per_s']} messages/s, "
              f"p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms, "
              f"server RSS {rss_before} KiB idle, {rss_all_open} KiB with all connections open = "
              f"{result['rss_per_connection_kib']} KiB per connection")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weft", required=True)
    parser.add_argument("--tier", default="jit", choices=["interp", "jit"])
    parser.add_argument("--server", required=True, help="the echo server module (.wat or .wasm)")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--messages", type=int, default=20, help="messages per connection")
    parser.add_argument("--max-size", type=int, default=8192, help="largest message in bytes")
    parser.add_argument("--idle-ms", type=int, default=30000, help="the server's idle timeout")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--timeout", type=float, default=120, help="seconds for the whole run")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    sys.exit(asyncio.run(main(parser.parse_args())))
