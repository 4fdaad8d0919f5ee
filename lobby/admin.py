from django.contrib import admin

from lobby.models import Guest


@admin.register(Guest)
class GuestAdmin(admin.ModelAdmin):
    list_display = ["user", "created"]
    list_filter = ["created"]
    search_fields = ["user__username"]
    readonly_fields = ["user", "name_key", "created"]
    date_hierarchy = "created"
