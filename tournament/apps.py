from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from tournament.roles import sync_roles_after_migrate

        post_migrate.connect(sync_roles_after_migrate, dispatch_uid="tournament.sync_roles")

        from games.signals import arbiter_call_changed, game_finished
        from tournament.receivers import on_arbiter_call
        from tournament.services.outcomes import on_game_finished
        from tournament.swiss import format as swiss_format

        assert swiss_format.SwissSystem.kind  # registered as a stage format on import
        game_finished.connect(on_game_finished, dispatch_uid="tournament.outcomes")
        arbiter_call_changed.connect(on_arbiter_call, dispatch_uid="tournament.arbiter_call")
