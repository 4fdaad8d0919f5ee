"""A second process of the site beside a real server (tests/real_server.py): the same
database, channel layer, mail and tasks settings, doing what a test asks of it. As another
server process of a real site would, it sweeps the games (``games.sweeper.sweep``), and it
may do so at a moment of the test's choosing: the clock moved past a turn's deadline without
waiting for it, in a process whose changes reach the server's sockets through the channel
layer they share (Redis).

    with SiteProcess(database_url, log_path, env) as site:
        site.call("address", user=7, email="lea@example.org", lang="de")
        site.call("sweep_after_deadline", game=42)

It reads one JSON request a line on its standard input and answers each with one JSON line:
``{"ok": <result>}`` or ``{"error": "<traceback>"}``. Started as
``python -m tests.e2e.site_process``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import traceback
from datetime import timedelta
from pathlib import Path
from typing import Any

from tests.real_server import ROOT, _server_env

START_TIMEOUT = 60  # seconds for Django to come up in the child on a busy machine
CALL_TIMEOUT = 60


class SiteProcessError(RuntimeError):
    pass


class SiteProcess:
    """The child process; ``call(name, **arguments)`` runs one of the requests below in it."""

    def __init__(self, database_url: str, log_path: Path, env: dict[str, str] | None = None):
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "tests.e2e.site_process"],
                cwd=ROOT,
                env=_server_env(database_url, env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,
            )

    def __enter__(self) -> SiteProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]

    def call(self, name: str, **arguments: Any) -> Any:
        if self.process.poll() is not None:
            raise SiteProcessError(f"the site process exited:\n{self.log()}")
        self.process.stdin.write(json.dumps({"do": name, **arguments}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=CALL_TIMEOUT)
            raise SiteProcessError(f"the site process exited:\n{self.log()}")
        answer = json.loads(line)
        if "error" in answer:
            raise SiteProcessError(f"{name} failed in the site process:\n{answer['error']}")
        return answer["ok"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


# ---------------------------------------------------------------------------- in the child


def address(user: int, email: str, lang: str = "en") -> str:
    """``user`` gets the confirmed ``email`` (every mail wanted) and the language ``lang``."""
    from django.contrib.auth import get_user_model

    from tests.mail_helpers import with_address

    with_address(get_user_model().objects.get(pk=user), email, lang)
    return email


def sweep_after_deadline(game: int, seconds: float = 1.0) -> dict:
    """One sweep of the site at ``seconds`` after the running turn's deadline of ``game``, as
    the sweeper of a server process does when the clock shows that moment (every other game
    whose turn would have run out by then runs out too). Returns the deadline swept past, how
    many turn timers ran out, and the missed turns in a row of each person in ``game``."""
    from games import sweeper
    from games.models import Game, Seat

    deadline = Game.objects.values_list("turn_deadline", flat=True).get(pk=game)
    if deadline is None:
        raise ValueError(f"game {game} has no turn running")
    expired = sweeper.sweep(now=deadline + timedelta(seconds=seconds))
    seats = Seat.objects.filter(game_id=game, is_bot=False)
    missed = {str(user): count for user, count in seats.values_list("user_id", "timeouts_in_row")}
    return {"deadline": deadline.isoformat(), "expired": expired, "missed": missed}


def game(game: int) -> dict:
    """What the database holds of ``game``'s clock: its move number and turn deadline."""
    from games.models import Game

    row = Game.objects.values("seq", "turn_deadline", "turn_seconds").get(pk=game)
    deadline = row["turn_deadline"]
    return {**row, "turn_deadline": deadline.isoformat() if deadline else None}


def your_turn_mails(game: int) -> list[dict]:
    """The your-turn mail tasks queued for ``game``, oldest first: for whom, at which move
    number, whether the worker has run them (``status``) and what they answered (``"sent"``,
    ``"connected"``...)."""
    from django_tasks_db.models import DBTaskResult

    rows = DBTaskResult.objects.filter(task_path__endswith=".send_your_turn_mail").order_by(
        "enqueued_at"
    )
    return [
        {"user": args[1], "seq": args[2], "status": row.status, "answer": row.return_value}
        for row in rows
        if (args := row.args_kwargs["args"])[0] == game
    ]


REQUESTS = {
    "address": address,
    "sweep_after_deadline": sweep_after_deadline,
    "game": game,
    "your_turn_mails": your_turn_mails,
}


def main() -> None:
    import django

    django.setup()
    from django.db import close_old_connections

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            answer = {"ok": REQUESTS[request.pop("do")](**request)}
        except Exception:
            answer = {"error": traceback.format_exc()}
        finally:
            close_old_connections()
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
