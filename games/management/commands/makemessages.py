"""``manage.py makemessages`` that also finds the refusals' texts.

Refusals are raised with an English template and its parameters
(``IllegalMove("the road costs only {n} cards", "R6.5", n=n)``) and translated when they are
sent (``games.errors.localized``); these keywords let xgettext find the templates.
"""

from django.core.management.commands import makemessages

# The first argument is the template, except where a number says which one is.
REFUSALS = (
    *("ServiceError", "NotFound", "Conflict", "Forbidden", "Stale"),
    *("EngineError", "IllegalMove", "BadField", "UnknownType", "NotYourTurn", "NotSeated"),
    *("GameOver", "Refused:2", "BadOption:2", "send_error:2"),
)


class Command(makemessages.Command):
    xgettext_options = [
        *makemessages.Command.xgettext_options,
        *(f"--keyword={keyword}" for keyword in REFUSALS),
    ]
