"""The real queue: a mail's task waits in the database (django-tasks-db) until the worker's
management command runs it, and then the mail arrives at the SMTP server. A task survives the
process that enqueued it: a worker started later, in a process of its own, sends it."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from django.core.management import call_command
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from games.services.admin import game_end_now
from notifications import tokens
from tests.mail_helpers import links, started, with_address
from tests.real_server import ROOT, _server_env, server_database
from tests.smtp_server import free_port

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def database_tasks(settings):
    settings.TASKS = DATABASE_TASKS


@pytest.fixture
def keep_signal_handlers():
    """The worker installs handlers for SIGINT and SIGTERM: give pytest its own back."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def run_worker() -> None:
    """The worker as production runs it, bounded: every task waiting, then it stops."""
    call_command(
        "db_worker",
        "--batch",
        "--no-reload",
        "--no-startup-delay",
        "--queue-name",
        "*",
        "--max-tasks",
        "10",
        verbosity=0,
    )


@pytest.mark.django_db(transaction=True)
def test_the_game_ended_mail_waits_in_the_database_until_the_worker_sends_it(
    people, smtp, database_tasks, keep_signal_handlers
):
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org", "de")
    game = started([alice, bob], "Spalentor")

    game_end_now(game_id=game.pk)  # commits: the task is queued after that
    [queued] = DBTaskResult.objects.all()
    assert queued.status == TaskResultStatus.READY
    assert queued.task_path == "notifications.tasks.send_game_ended_mails"
    assert smtp.messages == []  # nothing is sent by the committing call itself

    run_worker()

    queued.refresh_from_db()
    assert queued.status == TaskResultStatus.SUCCESSFUL
    [mail] = smtp.to("alice@example.org")
    assert mail.message["Subject"] == "Spalentor ist zu Ende"
    assert f"https://ratumrad.example/games/{game.pk}/" in links(mail.body)


@pytest.mark.django_db(transaction=True)
def test_a_failed_mail_is_recorded_as_a_failed_task_and_the_game_still_ended(
    people, settings, database_tasks, keep_signal_handlers
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nobody listens
    alice, bob = people["alice"], people["bob"]
    with_address(alice, "alice@example.org")
    game = started([alice, bob])
    game_end_now(game_id=game.pk)
    run_worker()
    [task] = DBTaskResult.objects.all()
    assert task.status == TaskResultStatus.FAILED
    game.refresh_from_db()
    assert game.status == "FINISHED"


ENQUEUE = """
import django
django.setup()
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from notifications.models import MailSettings
from notifications.notify import enqueue_after_commit
from notifications.tasks import send_confirm_mail

with transaction.atomic():
    user = get_user_model().objects.create_user("alice")
    MailSettings.objects.create(user=user, email="alice@example.org")
    enqueue_after_commit(send_confirm_mail, user.pk, "alice@example.org")
print(user.pk)
"""


def test_a_task_queued_by_a_process_that_is_gone_is_sent_by_a_worker_started_later(smtp):
    """Two processes of their own on one database: the first queues the confirmation mail and
    exits; then ``manage.py db_worker``, configured by EMAIL_URL and SITE_URL alone, sends
    it."""
    with server_database() as database_url:
        env = _server_env(
            database_url,
            {
                "EMAIL_URL": f"smtp://127.0.0.1:{smtp.port}",
                "SITE_URL": "https://ratumrad.example",
                "DEFAULT_FROM_EMAIL": "Rat um Rad <noreply@ratumrad.example>",
                "TASKS_IMMEDIATE": "",
            },
        )
        run = {"cwd": ROOT, "env": env, "capture_output": True, "text": True, "timeout": 120}
        queued = subprocess.run([sys.executable, "-c", ENQUEUE], **run)
        assert queued.returncode == 0, queued.stderr
        user_id = int(queued.stdout.split()[-1])
        assert smtp.messages == []

        worker = [sys.executable, "manage.py", "db_worker", "--batch", "--no-reload"]
        worker += ["--no-startup-delay", "--queue-name", "*"]
        done = subprocess.run(worker, **run)
        assert done.returncode == 0, done.stdout + done.stderr

    [mail] = smtp.to("alice@example.org")
    assert mail.mail_from == "noreply@ratumrad.example"
    [url] = [url for url in links(mail.body) if "/mail/confirm/" in url]
    token = url.removeprefix("https://ratumrad.example/mail/confirm/").rstrip("/")
    assert tokens.read_confirm(token) == tokens.Link(user_id=user_id, email="alice@example.org")
