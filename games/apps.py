from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from celery.signals import worker_ready

        from games import tasks

        # a (re)started worker settles what fell due while it was down, and resends the computer's turns
        worker_ready.connect(tasks.sweep_on_start, dispatch_uid="games.sweep_on_start")
        worker_ready.connect(tasks.computer_on_start, dispatch_uid="games.computer_on_start")
