from django.urls import path

from relay import views

urlpatterns = [
    path("relay/<int:pk>/record/", views.recorder, name="relay-recorder"),
    path("t/<int:pk>/relay/", views.multiboard, name="relay-multiboard"),
    path("t/<int:pk>/relay/boards/", views.multiboard_part, name="relay-multiboard-part"),
    path("t/<int:pk>/relay/games.rif", views.relayed_games_rif, name="relay-games-rif"),
]
