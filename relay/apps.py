from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RelayConfig(AppConfig):
    name = "relay"
    verbose_name = _("Live relay")
