from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site as a whole: connects the apps to what only the web processes know. Every receiver and hook
    of the project is connected in an ``AppConfig.ready`` (this one, ``tournament``'s, ``ratings``')."""

    name = "config"
    label = "site"
    verbose_name = "site"

    def ready(self) -> None:
        from celery.signals import worker_ready
        from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed

        from config import arrivals, heartbeat, languages, live_guard, security
        from games import flaghold
        from games.services import freeze

        user_login_failed.connect(security.count_failure, dispatch_uid="site.login_failed")
        user_logged_in.connect(security.forget_failures, dispatch_uid="site.logged_in")
        user_logged_in.connect(languages.on_login, dispatch_uid="site.language")  # their language, any device
        user_logged_out.connect(live_guard.on_logout, dispatch_uid="site.logged_out")  # its sockets close
        flaghold.use_requests(arrivals.waiting_since)  # a flag waits for a request still being served
        worker_ready.connect(heap_after_startup, dispatch_uid="site.heap")  # the collector's pauses short
        if heartbeat.enabled():  # a stop of the whole server is credited to the clocks
            from celery.signals import beat_init
            from django.conf import settings

            freeze.use_heartbeat(heartbeat.RedisHeartbeat(settings.REDIS_URL))
            worker_ready.connect(heartbeat.worker_ready, dispatch_uid="site.heartbeat_worker")
            beat_init.connect(heartbeat.beat_init, dispatch_uid="site.heartbeat_beat")


def heap_after_startup(**_kwargs: object) -> None:
    """A Celery worker's ``worker_ready``: what it loaded is never walked by the collector again (config.heap)."""
    from config import heap

    heap.after_startup()
