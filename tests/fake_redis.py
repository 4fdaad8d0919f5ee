"""A small Redis of a test's own, which answers, stalls, refuses or hangs up as the test asks
(the channel layer's publisher and subscriber tests)."""

import asyncio

import hiredis
import pytest


class FakeRedis:
    """Reads RESP commands; ``answer(command, connection_number)`` gives the reply's bytes,
    ``None`` to stay silent, or ``"close"`` to hang up."""

    def __init__(self, answer=None) -> None:
        self.answer = answer or (lambda command, number: b":1\r\n")
        self.commands: list[tuple[int, list[bytes]]] = []
        self.connections = 0
        self.writers: dict[int, asyncio.StreamWriter] = {}  # by connection number
        self.handlers: list[asyncio.Task] = []
        self.server: asyncio.base_events.Server | None = None

    async def start(self, unix_path=None) -> "FakeRedis":
        if unix_path is None:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        else:
            self.server = await asyncio.start_unix_server(self._serve, unix_path)
        return self

    @property
    def port(self) -> int:
        return self.server.sockets[0].getsockname()[1]

    def url(self, credentials: str = "") -> str:
        return f"redis://{credentials}127.0.0.1:{self.port}/0"

    async def _serve(self, reader, writer) -> None:
        self.connections += 1
        number = self.connections
        self.writers[number] = writer
        self.handlers.append(asyncio.current_task())
        parser = hiredis.Reader()
        try:
            while data := await reader.read(65536):
                parser.feed(data)
                while (command := parser.gets()) is not False:
                    self.commands.append((number, command))
                    reply = self.answer(command, number)
                    if reply == "close":
                        writer.close()
                        return
                    if reply is not None:
                        writer.write(reply)
        except ConnectionError:
            pass
        finally:
            writer.close()

    def push(self, number: int, data: bytes) -> None:
        """Send what no command asked for (a message to a subscriber) on a connection."""
        self.writers[number].write(data)

    def published(self) -> list[bytes]:
        return [command[2] for _, command in self.commands if command[0] == b"PUBLISH"]

    async def received(self, count: int) -> None:
        """Wait until ``count`` commands have come in."""
        async with asyncio.timeout(5):
            while len(self.commands) < count:
                await asyncio.sleep(0.005)

    async def stop(self) -> None:
        """Listen no more and hang up every connection."""
        self.server.close()
        for writer in self.writers.values():
            writer.close()
        await asyncio.gather(*self.handlers, return_exceptions=True)


@pytest.fixture
async def fake():
    servers = []

    async def start(answer=None, unix_path=None):
        server = await FakeRedis(answer).start(unix_path)
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()
