from django.contrib import admin

from notifications.models import MailSettings, TurnMail


@admin.register(MailSettings)
class MailSettingsAdmin(admin.ModelAdmin):
    list_display = ["user", "email", "confirmed", "your_turn", "game_ended"]
    list_filter = ["your_turn", "game_ended"]
    search_fields = ["user__username", "email"]
    raw_id_fields = ["user"]


@admin.register(TurnMail)
class TurnMailAdmin(admin.ModelAdmin):
    list_display = ["game", "user", "sent"]
    raw_id_fields = ["game", "user"]
