from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class TournamentConfig(AppConfig):
    name = "tournament"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from tournament.roles import sync_roles_after_migrate

        post_migrate.connect(sync_roles_after_migrate, dispatch_uid="tournament.sync_roles")

        from games.services.finish import ask_before_correcting, follow_finished_games
        from games.signals import arbiter_call_changed
        from tournament.classic import format as classic_format
        from tournament.double_elimination import format as double_format
        from tournament.receivers import on_arbiter_call
        from tournament.services.corrections import guard
        from tournament.services.outcomes import after_game
        from tournament.swiss import admin as swiss_admin
        from tournament.swiss import format as swiss_format
        from tournament.teams import format as team_format
        from tournament.teams import tasks as team_tasks

        assert classic_format.FinalRoundRobin.kind  # the formats register themselves on import
        assert swiss_format.SwissSystem.kind and team_format.TeamEvent.kind and double_format.KIND
        assert swiss_admin.SwissByeAdmin.list_display  # a format's rows in the admin, registered with it
        assert team_tasks.close_lineups_task.name  # the worker knows the format's tasks (the Swiss one via its format)
        follow_finished_games(after_game)  # the tournament's part of a game's end (games.services.finish)
        ask_before_correcting(guard)  # and its question before a result is corrected
        arbiter_call_changed.connect(on_arbiter_call, dispatch_uid="tournament.arbiter_call")
