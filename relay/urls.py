from django.urls import path

from relay import views

urlpatterns = [
    path("relay/<int:pk>/", views.watch, name="relay-game"),
    path("relay/<int:pk>/record/", views.recorder, name="relay-recorder"),
    path("t/<int:pk>/relay/", views.multiboard, name="relay-multiboard"),
    path("t/<int:pk>/relay/screen/", views.screen, name="relay-screen"),
    path("t/<int:pk>/relay/games.rif", views.relayed_games_rif, name="relay-games-rif"),
]
