from django.urls import path

from relay import views

urlpatterns = [
    path("relay/<int:pk>/record/", views.recorder, name="relay-record"),
]
