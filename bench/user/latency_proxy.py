"""A TCP proxy on the loopback that delays every byte by a fixed time in each direction, to
show what a remote GPU costs a client (issue 18: 1 ms each way).

    python3 bench/user/latency_proxy.py TARGET_HOST:PORT [--listen 127.0.0.1:0] [--delay-ms 1]

Prints ``listening on HOST:PORT`` once it accepts connections, then runs until killed. Each
chunk read from one side is written to the other no earlier than ``delay`` after it was read;
chunks of one direction leave in the order they arrived, and a slow chunk never delays the
next one by more than the delay itself (the delay is latency, not a bandwidth cap). The
event loop's timers wake at millisecond granularity (epoll), so the delay added is the one
asked for rounded up to the next millisecond tick: the runner measures the round trip it
actually adds.
"""

from __future__ import annotations

import argparse
import asyncio

CHUNK = 1 << 16
#: Chunks read ahead of their delivery; beyond that, reading waits (TCP back-pressure).
QUEUE_CHUNKS = 1024


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                delay: float) -> None:
    """Copies reader to writer, each chunk held until ``delay`` after it was read; at the end
    of the input, half-closes the output (after the delay too)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(QUEUE_CHUNKS)

    async def deliver() -> None:
        broken = False  # The output's peer went away: what still comes in is dropped.
        while True:
            due, data = await queue.get()
            if broken:
                if not data:
                    return
                continue
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
            except ConnectionError:
                broken = True

    delivery = asyncio.create_task(deliver())
    try:
        while data := await reader.read(CHUNK):
            await queue.put((loop.time() + delay, data))
        await queue.put((loop.time() + delay, b""))
        await delivery
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        delivery.cancel()


async def _serve_connection(client_reader: asyncio.StreamReader,
                            client_writer: asyncio.StreamWriter, target: tuple[str, int],
                            delay: float) -> None:
    try:
        server_reader, server_writer = await asyncio.open_connection(*target)
    except OSError:
        client_writer.close()
        return
    try:
        await asyncio.gather(_pump(client_reader, server_writer, delay),
                             _pump(server_reader, client_writer, delay))
    finally:
        for writer in (client_writer, server_writer):
            writer.close()


def _host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


async def serve(listen: tuple[str, int], target: tuple[str, int], delay: float) -> None:
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(r, w, target, delay), *listen)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"listening on {host}:{port}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="HOST:PORT to forward to")
    parser.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT (port 0: any)")
    parser.add_argument("--delay-ms", type=float, default=1.0,
                        help="delay added in each direction (default 1)")
    args = parser.parse_args()
    try:
        asyncio.run(serve(_host_port(args.listen), _host_port(args.target),
                          args.delay_ms / 1000))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
