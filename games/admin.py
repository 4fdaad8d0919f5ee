"""Admin for games: read-only history, and actions that go through the services."""

from django.contrib import admin, messages
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games import registry, services
from games.models import BuiltRoad, DestinationCard, Game, Move, Seat


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

    def lookups(self, request, model_admin):
        return [(key, kind.name) for key, kind in registry.KINDS.items()]

    def queryset(self, request, queryset):
        return queryset.filter(kind=self.value()) if self.value() else queryset


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
        "seed",
        "seq",
        "end_reason",
        "created",
        "started",
        "finished",
    )
    fields = ("name", "max_players", *readonly_fields)
    inlines = (SeatInline, BuiltRoadInline, DestinationCardInline, MoveInline)
    actions = ("abort_games", "end_games_now")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(seat_count=Count("seats"))

    @admin.display(description=_("players"), ordering="seat_count")
    def seat_count(self, game):
        return game.seat_count

    def has_add_permission(self, request):
        return False  # games are created by players, through the lobby

    def _run(self, request, queryset, service, done_message):
        done = 0
        for game in queryset:
            try:
                service(game_id=game.pk)
            except services.ServiceError as error:
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
            services.game_abort,
            lambda n: ngettext("%(n)d game aborted.", "%(n)d games aborted.", n) % {"n": n},
        )

    @admin.action(description=_("End the selected games now and score them"))
    def end_games_now(self, request, queryset):
        self._run(
            request,
            queryset,
            services.game_end_now,
            lambda n: ngettext("%(n)d game ended.", "%(n)d games ended.", n) % {"n": n},
        )
