"""A team event's pages (included by the site's URLs through the format's ``urls``)."""

from django.urls import path

from tournament.teams import views

urlpatterns = [
    path("t/<int:pk>/team/<int:team_id>/", views.team_page, name="team-page"),
    path("me/lineup/<int:team_match_id>/", views.lineup_post, name="lineup-post"),
    path("t/<int:pk>/teams.trf", views.team_trf_file, name="team-trf"),
    path("t/<int:pk>/teams/round/<int:number>/", views.team_round_sheet, name="team-round-sheet"),
    path("t/<int:pk>/teams/round/<int:number>.pdf", views.team_round_pdf, name="team-round-pdf"),
    path("organizer/t/<int:pk>/teams/", views.control_teams, name="control-teams"),
]
