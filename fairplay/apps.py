from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FairplayConfig(AppConfig):
    name = "fairplay"
    verbose_name = _("Fair play")

    def ready(self) -> None:
        from fairplay import tasks
        from games.services.finish import follow_finished_games

        follow_finished_games(tasks.after_game)
