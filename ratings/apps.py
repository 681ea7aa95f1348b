from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from ratings import receivers
        from tournament.signals import tournament_finished, tournament_starting

        tournament_starting.connect(receivers.on_tournament_starting, dispatch_uid="ratings-start")
        tournament_finished.connect(receivers.on_tournament_finished, dispatch_uid="ratings-finished")
