from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site as a whole: connects the apps to what only the web processes know. Every receiver and hook
    of the project is connected in an ``AppConfig.ready`` (this one, ``tournament``'s, ``ratings``')."""

    name = "config"
    label = "site"
    verbose_name = "site"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from config import arrivals, security
        from games import flaghold

        user_login_failed.connect(security.count_failure, dispatch_uid="site.login_failed")
        user_logged_in.connect(security.forget_failures, dispatch_uid="site.logged_in")
        flaghold.use_requests(arrivals.waiting_since)  # a flag waits for a request still being served
