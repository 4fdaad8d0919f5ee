"""WSGI entry point (HTTP only; the site is meant to run under ASGI, see asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratumrad_site.settings")

application = get_wsgi_application()
