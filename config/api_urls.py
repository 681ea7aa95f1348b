"""The /api/ root: each app adds its router here."""

from django.urls import path
from rest_framework.authtoken.views import obtain_auth_token

from config.api import WhoAmIView

urlpatterns = [
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("me/", WhoAmIView.as_view(), name="api-me"),
]
