"""The account page (an address for mails, and which mails) and the signed links of the mails.

The links need no login: the signature names the person and the address, so that a link can
only ever change what it was made for. A refused link says why, and says no more.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from lobby.models import Guest
from notifications import tokens
from notifications.forms import AddressForm, MailChoicesForm
from notifications.models import MailSettings
from notifications.notify import enqueue_after_commit
from notifications.tasks import send_confirm_mail

CONFIRM_MAILS_PER_HOUR = 5  # per person: the form cannot be used to flood an inbox


def _confirm_mail_allowed(user_id: int) -> bool:
    key = f"notifications-confirm-{user_id}"
    cache.add(key, 0, 3600)
    try:
        return cache.incr(key) <= CONFIRM_MAILS_PER_HOUR
    except ValueError:  # the key expired between add and incr
        cache.set(key, 1, 3600)
        return True


def _send_confirm(request: HttpRequest, row: MailSettings) -> bool:
    if not _confirm_mail_allowed(row.user_id):
        messages.error(
            request, gettext("Too many confirmation mails. Please try again in an hour.")
        )
        return False
    enqueue_after_commit(send_confirm_mail, row.user_id, row.email)
    messages.success(
        request,
        gettext("We sent a link to %(email)s. Open it to confirm the address.")
        % {"email": row.email},
    )
    return True


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    guest = Guest.objects.filter(user=request.user).exists()
    row, _ = MailSettings.objects.get_or_create(user=request.user)
    address_form = AddressForm(initial={"email": row.email})
    choices_form = MailChoicesForm(instance=row)
    status = 200
    action = request.POST.get("action") if request.method == "POST" else None
    if action and guest:
        messages.error(request, gettext("Keep your name first: guests get no mails."))
        return redirect("account")
    if action == "address":
        address_form = AddressForm(request.POST)
        if address_form.is_valid():
            email = address_form.cleaned_data["email"]
            if email == row.email and row.confirmed:
                messages.info(request, gettext("This address is already confirmed."))
                return redirect("account")
            row.email, row.confirmed = email, None
            row.save(update_fields=["email", "confirmed"])
            _send_confirm(request, row)
            return redirect("account")
        status = 400
    elif action == "resend" and row.email and not row.confirmed:
        _send_confirm(request, row)
        return redirect("account")
    elif action == "remove":
        row.email, row.confirmed = "", None
        row.save(update_fields=["email", "confirmed"])
        messages.info(request, gettext("The address was removed: no more mails."))
        return redirect("account")
    elif action == "choices":
        choices_form = MailChoicesForm(request.POST, instance=row)
        if choices_form.is_valid():
            choices_form.save()
            messages.success(request, gettext("Your mail settings are saved."))
            return redirect("account")
        status = 400
    elif action is not None:
        status = 400
        messages.error(request, gettext("This was not understood. Please try again."))
    context = {
        "row": row,
        "guest": guest,
        "address_form": address_form,
        "choices_form": choices_form,
    }
    return render(request, "notifications/account.html", context, status=status)


def _refused(request: HttpRequest, reason: str, what: str) -> HttpResponse:
    context = {"reason": reason, "what": what}
    return render(request, "notifications/link_refused.html", context, status=400)


@require_http_methods(["GET"])
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    try:
        link = tokens.read_confirm(token)
    except tokens.BadLink as bad:
        return _refused(request, bad.reason, "confirm")
    row = MailSettings.objects.filter(user_id=link.user_id).first()
    if row is None or row.email != link.email:
        # The address was changed or removed since: the link confirms nothing else.
        return _refused(request, "replaced", "confirm")
    if row.confirmed is None:
        row.confirmed = timezone.now()
        row.save(update_fields=["confirmed"])
    return render(request, "notifications/confirmed.html", {"email": row.email})


@csrf_exempt  # the signed link is the authority; RFC 8058 mail clients POST without a token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        link = tokens.read_unsubscribe(token)
    except tokens.BadLink as bad:
        return _refused(request, bad.reason, "unsubscribe")
    row = MailSettings.objects.filter(user_id=link.user_id).first()
    if row is None or row.email != link.email:
        return _refused(request, "replaced", "unsubscribe")
    context = {"kind": link.kind, "done": False}
    if request.method == "POST":
        setattr(row, link.kind, False)
        row.save(update_fields=[link.kind])
        context["done"] = True
    return render(request, "notifications/unsubscribe.html", context)
