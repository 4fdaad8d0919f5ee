"""A real SMTP server for the mail tests: aiosmtpd in a thread of its own, on a free port."""

from __future__ import annotations

import email
import email.policy
import socket
from dataclasses import dataclass
from email.message import EmailMessage

from aiosmtpd.controller import Controller


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage

    @property
    def body(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content()


class _Handler:
    def __init__(self, inbox: list[Received]) -> None:
        self.inbox = inbox

    async def handle_DATA(self, server, session, envelope) -> str:
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        self.inbox.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class SMTPServer:
    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.port = free_port()
        self._controller = Controller(_Handler(self.messages), hostname="127.0.0.1", port=self.port)

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def to(self, address: str) -> list[Received]:
        return [m for m in self.messages if address in m.rcpt_tos]
