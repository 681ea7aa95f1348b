"""The /api/ root: each app adds its router here."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from config.api import WhoAmIView
from config.security import ObtainToken
from fairplay.api import FairplayViewSet
from games.api import EngineViewSet, GameViewSet, PlayerViewSet
from ratings.api import RatingListViewSet
from relay.api import RelayViewSet
from tournament.api import InvitationViewSet, TournamentViewSet
from tournament.rounds_api import RoundsViewSet
from tournament.stage_formats import format_api_routes

router = DefaultRouter()
router.register("games", GameViewSet, basename="game")
router.register("tournaments", TournamentViewSet, basename="tournament")
router.register("players", PlayerViewSet, basename="player")
router.register("engines", EngineViewSet, basename="engine")
router.register("rounds", RoundsViewSet, basename="rounds")
router.register("invitations", InvitationViewSet, basename="invitation")
for prefix, viewset, basename in format_api_routes():  # each format's own routes
    router.register(prefix, viewset, basename=basename)
router.register("ratings", RatingListViewSet, basename="rating-list")
router.register("relay", RelayViewSet, basename="relay")
router.register("fairplay", FairplayViewSet, basename="fairplay")

urlpatterns = [
    path("auth/token/", ObtainToken.as_view(), name="api-token"),
    path("me/", WhoAmIView.as_view(), name="api-me"),
    path("", include(router.urls)),
]
