"""Admin for games: read-only history, and actions that go through the services."""

from django.contrib import admin, messages
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games import errors, registry
from games.models import BuiltRoad, DestinationCard, Game, Move, Seat
from games.services.admin import game_abort, game_end_now


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("user", "is_bot", "turn_order", "color", "score", "wheels", "total", "place")
    readonly_fields = fields


class BuiltRoadInline(ReadOnlyInline):
    model = BuiltRoad
    fields = ("road", "seat", "seq")
    readonly_fields = fields


class DestinationCardInline(ReadOnlyInline):
    model = DestinationCard
    fields = ("card", "seat", "status", "complete")
    readonly_fields = fields


class MoveInline(ReadOnlyInline):
    model = Move
    fields = ("seq", "user", "payload", "created")
    readonly_fields = fields


class SeatCountFilter(admin.SimpleListFilter):
    title = _("players")
    parameter_name = "players"

    def lookups(self, request, model_admin):
        most = max(kind.max_players for kind in registry.KINDS.values())
        return [(str(n), str(n)) for n in range(1, most + 1)]

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(seat_count=int(self.value()))
        return queryset


class KindFilter(admin.SimpleListFilter):
    title = _("kind")
    parameter_name = "kind"
    field = "kind"  # the kind's field, from the listed model

    def lookups(self, request, model_admin):
        return [(key, kind.name) for key, kind in registry.KINDS.items()]

    def queryset(self, request, queryset):
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


class GameKindFilter(KindFilter):
    """The kind of a seat's or a move's game."""

    field = "game__kind"


class GameStatusFilter(admin.SimpleListFilter):
    title = _("status")
    parameter_name = "status"

    def lookups(self, request, model_admin):
        return Game.Status.choices

    def queryset(self, request, queryset):
        return queryset.filter(game__status=self.value()) if self.value() else queryset


def game_link(game: Game) -> str:
    """A link to the game's admin page."""
    url = reverse("admin:games_game_change", args=[game.pk])
    return format_html('<a href="{}">#{} {}</a>', url, game.pk, game.name)


def game_rows_url(model: str, game: Game) -> str:
    """The admin list of a game's seats or moves (``model``: "seat" or "move")."""
    return reverse(f"admin:games_{model}_changelist") + f"?game__id__exact={game.pk}"


class ViewOnlyAdmin(admin.ModelAdmin):
    """History as it was recorded: listed and shown, never added, changed or deleted here."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Seat)
class SeatAdmin(ViewOnlyAdmin):
    list_display = ("id", "game_column", "user", "kind", "is_bot", "place", "total")
    list_filter = (GameKindFilter, GameStatusFilter, "is_bot")
    list_select_related = ("game", "user")
    search_fields = ("user__username", "game__name")
    fields = (
        *("game_column", "user", "kind", "is_bot", "bot", "autopilot", "left", "joined"),
        *("turn_order", "color", "score", "wheels", "total", "place"),
    )
    readonly_fields = fields

    @admin.display(description=_("game"), ordering="game")
    def game_column(self, seat):
        return game_link(seat.game)

    @admin.display(description=_("kind"), ordering="game__kind")
    def kind(self, seat):
        kind = registry.KINDS.get(seat.game.kind)
        return kind.name if kind else seat.game.kind


@admin.register(Move)
class MoveAdmin(ViewOnlyAdmin):
    list_display = ("seq", "game_column", "user", "created")
    list_filter = (GameKindFilter,)
    list_select_related = ("game", "user")
    search_fields = ("game__id__exact", "game__name", "user__username")
    fields = ("game_column", "seq", "user", "payload", "created")
    readonly_fields = fields

    @admin.display(description=_("game"), ordering="game")
    def game_column(self, move):
        return game_link(move.game)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "kind", "status", "seat_count", "max_players", "seq", "created")
    list_filter = ("status", KindFilter, SeatCountFilter, "max_players")
    search_fields = ("name", "seats__user__username")
    readonly_fields = (
        "kind",
        "options",
        "status",
        "board",
        "creator",
        "seed_shown",
        "seq",
        "end_reason",
        "created",
        "started",
        "finished",
        "history",
    )
    fields = ("name", "max_players", *readonly_fields)
    inlines = (SeatInline, BuiltRoadInline, DestinationCardInline, MoveInline)
    actions = ("abort_games", "end_games_now")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(seat_count=Count("seats"))

    @admin.display(description=_("seed"))
    def seed_shown(self, game):
        # A daily game's seed tells every die of its day: kept back until the day is over,
        # for staff too (superusers included); the log publishes it then.
        if registry.get(game.kind).glue.sealed(game):
            return _("hidden until the day is over")
        return game.seed

    @admin.display(description=_("players"), ordering="seat_count")
    def seat_count(self, game):
        return game.seat_count

    @admin.display(description=_("history"))
    def history(self, game):
        """Links to the game's seats and moves in their own lists."""
        links = [
            (game_rows_url("seat", game), _("Seats"), game.seats.count()),
            (game_rows_url("move", game), _("Moves"), game.moves.count()),
        ]
        return format_html_join(" · ", '<a href="{}">{} ({})</a>', links)

    def has_add_permission(self, request):
        return False  # games are created by players, through the lobby

    def _run(self, request, queryset, service, done_message):
        done = 0
        for game in queryset:
            try:
                service(game_id=game.pk)
            except errors.ServiceError as error:
                self.message_user(request, f"#{game.pk}: {error.message}", messages.WARNING)
            else:
                done += 1
        if done:
            self.message_user(request, done_message(done), messages.SUCCESS)

    @admin.action(description=_("Abort the selected games"))
    def abort_games(self, request, queryset):
        self._run(
            request,
            queryset,
            game_abort,
            lambda n: ngettext("%(n)d game aborted.", "%(n)d games aborted.", n) % {"n": n},
        )

    @admin.action(description=_("End the selected games now and score them"))
    def end_games_now(self, request, queryset):
        self._run(
            request,
            queryset,
            game_end_now,
            lambda n: ngettext("%(n)d game ended.", "%(n)d games ended.", n) % {"n": n},
        )
