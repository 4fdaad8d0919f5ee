"""Pages: the ranking list, player pages and the rules."""

urlpatterns: list = []
