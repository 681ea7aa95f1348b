from django.urls import path

from fairplay import views

urlpatterns = [
    path("fairplay/", views.queue, name="fairplay-queue"),
    path("fairplay/case/<int:pk>/", views.case_page, name="fairplay-case"),
    path("fairplay/case/<int:pk>/decide/", views.decide, name="fairplay-decide"),
    path("fairplay/case/<int:pk>/hear/", views.hear, name="fairplay-hear"),
    path("fairplay/mine/", views.mine, name="fairplay-mine"),
    path("fairplay/case/<int:pk>/appeal/", views.appeal, name="fairplay-appeal"),
]
