"""The Swiss system's pages (included by the site's URLs through the format's ``urls``)."""

from django.urls import path

from tournament.swiss import views

urlpatterns = [
    path("t/<int:pk>/swiss/<int:stage_id>.trf", views.swiss_trf, name="swiss-trf"),
    path("t/<int:pk>/swiss/<int:stage_id>/round/<int:number>/", views.swiss_round_sheet, name="swiss-round-sheet"),
    path("t/<int:pk>/swiss/<int:stage_id>/crosstable/", views.swiss_crosstable, name="swiss-crosstable"),
    path("t/<int:pk>/swiss/<int:stage_id>/round/<int:number>.pdf", views.swiss_round_pdf, name="swiss-round-pdf"),
]
