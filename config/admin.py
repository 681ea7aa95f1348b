"""The accounts in the admin, with no way up: an organizer manages players' and referees' accounts, and only
a superuser touches staff flags, superuser flags, groups beyond those two, permissions, or the accounts of
anyone with more rights (their passwords included). Django's own docs warn that editing users is superuser
power; this admin shows an organizer only what it may change."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpRequest

from tournament.roles import PLAYER, REFEREE

# The groups an organizer may give or take away.
DELEGABLE_GROUPS = (PLAYER, REFEREE)


def outranks(user: User) -> bool:
    """An account with more than a player's or referee's rights: staff, superuser, another group, own perms."""
    if user.is_superuser or user.is_staff:
        return True
    if user.user_permissions.exists():
        return True
    return user.groups.exclude(name__in=DELEGABLE_GROUPS).exists()


class SiteUserAdmin(UserAdmin[User]):
    """The stock user admin for superusers; for anyone else a narrower one (see the module's doc)."""

    limited_fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("", {"fields": ("first_name", "last_name", "email", "is_active", "groups")}),
        ("", {"fields": ("last_login", "date_joined")}),
    )

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser or obj is None:
            return super().get_fieldsets(request, obj)
        return self.limited_fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser:
            return super().get_readonly_fields(request, obj)
        return ("last_login", "date_joined", "is_staff", "is_superuser", "user_permissions")

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = super().get_form(request, obj, change=change, **kwargs)
        if not request.user.is_superuser and "groups" in form.base_fields:
            field = form.base_fields["groups"]
            assert isinstance(field, forms.ModelMultipleChoiceField)
            field.queryset = Group.objects.filter(name__in=DELEGABLE_GROUPS)
        return form

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        if obj is None or request.user.is_superuser:
            return True
        return not outranks(obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_delete_permission(request, obj):
            return False
        return obj is None or request.user.is_superuser or not outranks(obj)

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not request.user.is_superuser:
            # Whatever was posted, a non-superuser never sets these (read-only fields are not in the form, but
            # the model is saved as a whole: keep the stored values, or the defaults for a new account).
            stored = User.objects.filter(pk=obj.pk).first() if obj.pk else None
            obj.is_superuser = stored.is_superuser if stored else False
            obj.is_staff = stored.is_staff if stored else False
        super().save_model(request, obj, form, change)


admin.site.unregister(User)
admin.site.register(User, SiteUserAdmin)
