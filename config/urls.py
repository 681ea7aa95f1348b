from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView

from config import languages, views
from config.schema import SchemaView
from config.security import AdminLoginForm, LoginForm
from games import views as game_views
from ratings import views as rating_views
from tournament import control, registration_views
from tournament import views as pages
from tournament.stage_formats import format_urls

admin.site.login_form = AdminLoginForm
handler404 = "config.views.not_found"
handler500 = "config.views.server_error"

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("i18n/setlang/", languages.set_language, name="set_language"),
    path("admin/", admin.site.urls),
    path("api/", include("config.api_urls")),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    # Swagger UI's own script served as a file (the split view): the page runs under the site's CSP.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    # ReDoc from its <redoc> element and script file (templates/drf_spectacular/redoc.html): no inline script.
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", auth_views.LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("t/<int:pk>/", pages.tournament_page, name="tournament"),
    path("t/<int:pk>/standings/", pages.standings_fragment, name="page-standings"),
    path("t/<int:pk>/screen/", pages.screen, name="tournament-screen"),
    path("t/<int:pk>/schedule/", pages.schedule_fragment, name="page-schedule"),
    path("t/<int:pk>/call-sheet/", pages.call_sheet, name="tournament-call-sheet"),
    path("t/<int:pk>/result-sheets/", pages.result_sheets, name="tournament-result-sheets"),
    path("t/<int:pk>/standings.csv", pages.standings_csv, name="tournament-standings-csv"),
    path("t/<int:pk>/pdf/<str:kind>.pdf", pages.tournament_pdf, name="tournament-pdf"),
    path("t/<int:pk>/games.<str:fmt>", pages.records_export, name="tournament-records"),
    *[path("", include(module)) for module in format_urls()],  # each format's own pages
    path("", include("relay.urls")),
    path("", include("fairplay.urls")),
    path("g/<int:pk>/", game_views.game_page, name="game"),
    path("g/<int:pk>/claim/", game_views.claim_tool, name="game-claim"),
    path("g/<int:pk>/call-arbiter/", game_views.call_arbiter, name="game-call-arbiter"),
    path("referee/calls/<int:pk>/answer/", game_views.answer_call, name="arbiter-answer"),
    path("me/", pages.player_console, name="player-console"),
    path("me/check-in/<int:entry_id>/", registration_views.console_check_in, name="console-check-in"),
    path("me/invitations/<int:pk>/", registration_views.console_invitation, name="console-invitation"),
    path("t/<int:pk>/register/", registration_views.self_register, name="self-register"),
    path("p/<str:key>/", registration_views.private_link, name="private-link"),
    path("p/<str:key>/check-in/", registration_views.private_link_check_in, name="private-link-check-in"),
    path("me/practice/", game_views.practice, name="practice"),
    path("me/live/", pages.player_console_live, name="player-console-live"),
    path("referee/", pages.referee_console, name="referee-console"),
    path("organizer/", control.control_home, name="control-home"),
    path("organizer/backup/", control.backup_download, name="backup-download"),
    path("organizer/t/<int:pk>/", control.control_room, name="control-room"),
    path("organizer/t/<int:pk>/waiting/", control.control_waiting, name="control-waiting"),
    path("organizer/t/<int:pk>/players/", registration_views.control_players, name="control-players"),
    path("organizer/t/<int:pk>/players/slips/", registration_views.player_slips, name="player-slips"),
    path(
        "organizer/t/<int:pk>/players/<str:action>/",
        registration_views.control_players_action,
        name="control-players-action",
    ),
    path("organizer/t/<int:pk>/<str:action>/", control.control_action, name="control-action"),
    path("referee/live/", pages.referee_console_live, name="referee-console-live"),
    path("ratings/", rating_views.lists, name="rating-lists"),
    path("ratings/<int:pk>/", rating_views.rating_list, name="rating-list"),
    path("players/<int:pk>/", rating_views.player_page, name="player-page"),
    path("", pages.home, name="home"),
]
