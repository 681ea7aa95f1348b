"""The site's own records: what a person chose for themselves, whatever their role."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Preference(models.Model):
    """A person's own choices, followed on every device they sign in on (config/languages.py)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference", verbose_name=_("user")
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)

    class Meta:
        verbose_name = _("preference")
        verbose_name_plural = _("preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"
