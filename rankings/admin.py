"""Admin for ratings and achievements: read-only, since every one follows from the games."""

from django.contrib import admin

from rankings.models import EarnedAchievement, Rating, RatingChange


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "ordinal", "mu", "sigma", "games", "is_bot", "updated"]
    list_filter = ["is_bot"]
    search_fields = ["user__username"]
    list_select_related = ["user"]


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = ["game", "user", "place", "players", "total", "ordinal_before", "ordinal_after"]
    list_filter = ["is_bot", "players"]
    search_fields = ["user__username"]
    list_select_related = ["game", "user"]
    raw_id_fields = ["game", "user"]


@admin.register(EarnedAchievement)
class EarnedAchievementAdmin(ReadOnlyAdmin):
    list_display = ["user", "kind", "key", "game", "earned"]
    list_filter = ["kind", "key"]
    search_fields = ["user__username"]
    list_select_related = ["user", "game"]
    raw_id_fields = ["game", "user"]
