"""Django settings, all read from the environment with safe local defaults.

Variables (see docs/configuration.md): DATABASE_URL, REDIS_URL, SECRET_KEY, DEBUG,
ALLOWED_HOSTS, LANGUAGE_CODE, TIME_ZONE.
"""

from __future__ import annotations

import os
from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import (
    env_bool,
    env_database,
    env_int,
    env_list,
    env_redis_url,
    env_str,
    local_secret_key,
)

django_stubs_ext.monkeypatch()  # ModelAdmin[Game] and the like at run time, as django-stubs types them

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

SECRET_KEY = os.environ.get("SECRET_KEY") or local_secret_key(VAR_DIR / "secret_key")
DEBUG = env_bool("DEBUG", False)
# "testserver" is only for tests: Django's setup_test_environment adds it there, never in a running server.
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
# LAN mode (`make venue`): the machine's own addresses are hosts too, so phones on the venue's Wi-Fi reach it
# by the URL its QR code gives; any other Host is still refused.
VENUE = env_bool("VENUE", False)
if VENUE:
    from tournament.lan import addresses, host_of  # no Django in it: safe to import from settings

    ALLOWED_HOSTS += [host_of(a) for a in addresses() if host_of(a) not in ALLOWED_HOSTS]
# Backups (manage.py backup; make venue makes one every BACKUP_EVERY_S seconds): the newest BACKUP_KEEP are kept.
BACKUP_KEEP = env_int("BACKUP_KEEP", 24)
BACKUP_DIR = Path(env_str("BACKUP_DIR", str(VAR_DIR / "backups")))
# Outside Gomocup engines the organizer may register run only from here (a program elsewhere is refused).
ENGINES_DIR = Path(env_str("ENGINES_DIR", str(VAR_DIR / "engines")))
BACKUP_EVERY_S = env_int("BACKUP_EVERY_S", 600)
# The port the web server listens on (set by make run / make venue), for the URLs the control room shows.
PUBLIC_PORT = env_int("PORT", 8000)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "engine",
    "config",  # the site itself: wires the apps to what the web processes know (config/apps.py)
    "games",
    "tournament",
    "ratings",
    "relay",
    "fairplay",
]

MIDDLEWARE = [
    "config.middleware.ReceivedAtMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.gzip.GZipMiddleware",  # pages and API answers compressed (with Django's BREACH padding)
    "django.middleware.http.ConditionalGetMiddleware",  # ETag on every GET: a poll that changes nothing is a 304
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "config.languages.PreferenceMiddleware",  # a signed-in person's own language where the device chose none
    "config.middleware.BodyTooLargeMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "tournament.middleware.PrivateLinkMiddleware",  # a revoked private link signs its sessions out
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every answer (below)
    "config.middleware.VenueAdminMiddleware",  # in venue mode /admin/ answers the server's own machine only
    "config.middleware.DependencyDownMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # the site's templates, then each format package's own (its pages and parts keep their names)
        "DIRS": [BASE_DIR / "templates", *sorted((BASE_DIR / "tournament").glob("*/templates"))],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.views.live_push",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", VAR_DIR / "db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: the run command starts an embedded server and exports REDIS_URL;
# without it we point at the conventional local port.
REDIS_URL = env_redis_url("REDIS_URL", "redis://127.0.0.1:6379/0")
# Rate limits count in Redis when a Redis is configured (shared by every web process); else in memory.
CACHES = {
    "default": {
        "BACKEND": "config.cache.RedisCache",  # one client per pool, not one per call
        "LOCATION": REDIS_URL,
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    if os.environ.get("REDIS_URL")
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_RESULT_EXPIRES = 3600
# Clocks (games.clock): a task per deadline, a sweep every second, and checks on every read and write.
CLOCK_ETA_TASKS = env_bool("CLOCK_ETA_TASKS", True)

# Live push (config/live.py, games/live.py): on when Redis is configured (make run exports REDIS_URL).
# LIVE_URL is where pages open their socket: ":8001/ws/live/" (this host, that port), or a full
# "wss://example.org/ws/live/", or "/ws/live/" (this host and port: behind deploy/nginx.conf); empty: pages poll.
LIVE_PUSH = env_bool("LIVE_PUSH", bool(os.environ.get("REDIS_URL")))
LIVE_URL = env_str("LIVE_URL", ":8001/ws/live/" if LIVE_PUSH else "")
# The live-push server's threads keep their database connections (CONN_MAX_AGE), as requests do.
LIVE_KEEP_CONNECTIONS = env_bool("LIVE_KEEP_CONNECTIONS", True)
# Threads of each live-push server for the moves sent on the games' sockets (config.live_acts), and apart
# for checking new sockets (the states sent are read in one more thread of their own). One each on SQLite:
# more share one interpreter lock with the event loop and one write lock, and a move then holds both longer.
# Two for the moves on PostgreSQL, where a move mostly waits for the database's answers and two are written
# at once (bench/open.py on PostgreSQL: move p99 515 ms with one, 316 with two; docs/reliability.md).
_ON_POSTGRES = "postgresql" in DATABASES["default"]["ENGINE"]
LIVE_ACT_THREADS = env_int("LIVE_ACT_THREADS", 2 if _ON_POSTGRES else 1)
LIVE_THREADS = env_int("LIVE_THREADS", 1)
# The game page sends its stones and passes on the game's socket (config.live_acts) while it is open, by HTTP
# otherwise (and when the socket fails or answers busy): a quarter less of the server's CPU per move than by
# HTTP (bench/open.py, docs/reliability.md). Off: always by HTTP. Scripts may send moves on the socket either way.
LIVE_MOVES = env_bool("LIVE_MOVES", True)
# With this many socket moves waiting in a live-push server, the next is answered busy and sent by HTTP. Deep:
# a move sent by HTTP costs about twice a socket move's CPU, so shedding early only deepened an overload (a 1,500-game
# round: 6.3 CPU-ms a move and 14,430 moves sent by HTTP with 16, 3.8 and none with 1,000; docs/reliability.md), and
# a flag waits for the moves queued here as for requests (config.arrivals). ONLINE_CAPACITY keeps the queue short.
LIVE_ACT_QUEUE = env_int("LIVE_ACT_QUEUE", 1_000)
# Each socket's frames (config.live_guard): at most SOCKET_FRAMES in SOCKET_WINDOW_S seconds (a game needs a move or
# two a second at the most), and a socket refused SOCKET_REFUSALS times is closed.
SOCKET_FRAMES = env_int("SOCKET_FRAMES", 10)
SOCKET_WINDOW_S = env_int("SOCKET_WINDOW_S", 5)
SOCKET_REFUSALS = env_int("SOCKET_REFUSALS", 10)
# The online games this deployment runs at once, every tournament and practice game together (0: no limit).
# Past it a tournament's further games wait for room and start as others end (the organizer is told how many
# wait), and a new practice or API game is refused: the games already running keep their pace (issue 64).
# The default is what one 2-core box carried with the move p99 under 300 ms (1,200 games: 43 ms; 1,500: 1.7 s):
# docs/benchmarks.md says how to measure a bigger one.
ONLINE_CAPACITY = env_int("ONLINE_CAPACITY", 1_200)
CLOCK_SLACK_MS = env_int("CLOCK_SLACK_MS", 300)  # background adjudicators wait this long past a deadline
CLOCK_SWEEP_SECONDS = 1.0
# Behind a proxy that stamps X-Request-Start (and strips it from clients), time moves by that stamp.
TRUST_X_REQUEST_START = env_bool("TRUST_X_REQUEST_START", False)
# A flag waits while a request that arrived before the deadline is still served, at most this long.
CLOCK_HOLD_MAX_MS = env_int("CLOCK_HOLD_MAX_MS", 60_000)
# A stop of the whole server (a host's pause) longer than this, found as a gap in the heartbeat every process
# writes once a second, is credited to the running clocks (games.services.freeze); 0 turns it off.
CLOCK_FREEZE_MS = env_int("CLOCK_FREEZE_MS", 3_000)
CLOCK_FREEZE_RECHECK_MS = env_int("CLOCK_FREEZE_RECHECK_MS", 250)
CLOCK_HEARTBEAT_S = 1.0
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "fairplay-sweep": {"task": "fairplay.sweep", "schedule": 300.0, "options": {"expires": 240}},
    "sweep-overdue-clocks": {
        "task": "games.sweep_overdue",
        "schedule": CLOCK_SWEEP_SECONDS,
        "options": {"expires": 2},
    },
    "call-for-room": {  # online games that waited for room on the server (ONLINE_CAPACITY), called as games end
        "task": "tournament.call_for_room",
        "schedule": 2.0,
        "options": {"expires": 2},
    },
    "close-team-lineups": {  # team events: a lineup deadline passed, the boards are made from the standing order
        "task": "tournament.close_lineups",
        "schedule": 15.0,
        "options": {"expires": 10},
    },
}
CELERY_TASK_ROUTES = {
    "games.adjudicate": {"queue": "clock"},
    "games.adjudicate_due": {"queue": "clock"},
    "games.sweep_overdue": {"queue": "clock"},
    "games.forfeit_no_show": {"queue": "clock"},
    # Searches hold a CPU: their own queue and worker, apart from the clock's threads.
    "games.computer_move": {"queue": "computer"},
    "games.analyse_game": {"queue": "computer"},
    # Fair-play screening: a niced worker of its own, never a core the games need (fairplay/tasks.py).
    "fairplay.screen_game": {"queue": "fairplay"},
    "fairplay.sweep": {"queue": "fairplay"},
}
# Back on a restarted broker within a second, not kombu's 2, 4, 6 … 30 s (config/celery_consumer.py).
CELERY_WORKER_CONSUMER = "config.celery_consumer:Consumer"
CELERY_BEAT_SCHEDULER = "config.celery_consumer:BeatScheduler"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# visibility_timeout well above the longest countdown (~31 s). max_retries 0: a publish that finds the broker
# down fails at once (its sweep catches it up) instead of holding the request through kombu's reconnection
# (attempts at 0, 2 and 4 s: 6 s). The worker's and beat's own reconnection passes its retries explicitly.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 600, "max_retries": 0}
CELERY_BROKER_TRANSPORT = "config.broker:Transport"  # kombu's Redis transport, its client kept (config/broker.py)
HEALTHZ_TIMEOUT_S = env_int("HEALTHZ_TIMEOUT_S", 2)
# A Swiss field larger than this is paired by a Celery task (in a child process), not in the request.
SWISS_SYNC_PLAYERS = env_int("SWISS_SYNC_PLAYERS", 300)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Object permissions first (django-rules: "does this account organize this tournament"), then the usual.
AUTHENTICATION_BACKENDS = ["rules.permissions.ObjectPermissionBackend", "django.contrib.auth.backends.ModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "player-console"
LOGOUT_REDIRECT_URL = "home"

# Sessions and API tokens expire; failed logins are limited per account and per address.
SESSION_COOKIE_AGE = env_int("SESSION_HOURS", 12) * 3600
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
API_TOKEN_HOURS = env_int("API_TOKEN_HOURS", 24)
# Failed logins (config/security.py): no lockout, a growing wait. After LOGIN_FAILURES_ALLOWED failures for one
# account from one address, that pair waits 2, 4, 8 … s (at most LOGIN_DELAY_MAX_S) before the next try; an
# address with LOGIN_FAILURES_PER_ADDRESS failures (any accounts) waits likewise. Another address is never held
# up by them, and the server's own machine (loopback) never waits: the organizer can always get in there.
LOGIN_FAILURES_ALLOWED = env_int("LOGIN_FAILURES_ALLOWED", 5)  # per account and address, before waits start
# Per client address: higher, because a club's players may all come through one address (a school's NAT).
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50)
LOGIN_FAILURE_WINDOW_S = env_int("LOGIN_FAILURE_WINDOW_S", 900)  # failures are forgotten after this
LOGIN_DELAY_MAX_S = env_int("LOGIN_DELAY_MAX_S", 300)

# Behind HTTPS (a proxy terminating TLS): secure cookies, HSTS, redirects. `manage.py check --deploy` is clean.
HTTPS = env_bool("HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
# Content-Security-Policy (django-csp): scripts only from our own static files, never inline, so a name that
# slipped past escaping still cannot run; sockets to the live-push server (another port: ws:/wss:).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],  # the certificates' page style; no script can come of it
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'", "ws:", "wss:"],
        "worker-src": ["'self'", "blob:"],  # ReDoc searches in a worker it makes from a blob
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Limits per client address, counted in the cache (django-ratelimit; open if the cache is down). Behind a proxy,
# CLIENT_IP_HEADER names the header it sets to the client's address (X-Real-IP, or X-Forwarded-For: its last
# entry, the one the proxy appended); without it every client would share the proxy's address.
CLIENT_IP_HEADER = env_str("CLIENT_IP_HEADER", "")
# The proxies whose CLIENT_IP_HEADER is believed (their TCP address): a request from anywhere else is its peer.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", ["127.0.0.1", "::1"])
RATELIMIT_IP_META_KEY = "config.security.client_address"
RATELIMIT_FAIL_OPEN = True
REGISTRATION_RATE = env_str("REGISTRATION_RATE", "5/m")  # self-registrations
PDF_RATE = env_str("PDF_RATE", "30/m")  # PDF sheets rendered (a cached one costs nothing)
# Arbiter calls: each player may call this often per game (FIDE 6.12b: stopping the clock to summon the arbiter
# is a right; an unjustified stop can be penalised: here, a call on one's own turn is charged to one's clock).
ARBITER_CALLS_PER_GAME = env_int("ARBITER_CALLS_PER_GAME", 2)
# Venue mode: the admin is served to the server's own machine only, unless this is set.
ADMIN_FROM_LAN = env_bool("ADMIN_FROM_LAN", False)
# A request from loopback is the operator at the server's own keyboard (no login waits, the admin in venue mode,
# a site organizer's backup). Behind a proxy on the same machine every request comes from loopback, so then
# (HTTPS=1, or TRUST_LOOPBACK=0) loopback is trusted for nothing.
TRUST_LOOPBACK = env_bool("TRUST_LOOPBACK", not env_bool("HTTPS", False))
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# Internationalisation: store UTC, show Beijing time by default.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "zh-hans").lower()
# The languages of the RIF's member federations beside the two the project began with. Each has its catalogue in
# locale/ (zh_Hant is made from zh_Hans by `make messages`); a test holds every catalogue complete.
LANGUAGES = [
    ("zh-hans", _("Simplified Chinese")),
    ("zh-hant", _("Traditional Chinese")),
    ("en", _("English")),
    ("ja", _("Japanese")),
    ("ru", _("Russian")),
]
if LANGUAGE_CODE not in {code for code, _name in LANGUAGES}:
    codes = ", ".join(code for code, _name in LANGUAGES)
    raise ImproperlyConfigured(f"LANGUAGE_CODE must be one of {codes}; got {LANGUAGE_CODE!r}")
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
# Stored in UTC (USE_TZ: the database holds aware UTC times); shown, typed and printed in the hall's zone:
# Django's TIME_ZONE is the zone pages, forms, PDFs and the API's times are rendered and read in.
USE_TZ = True
TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
try:
    import zoneinfo

    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(f"TIME_ZONE is not a known time zone: {TIME_ZONE!r}") from None

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
# make run collects static files with hashed names (STATIC_MANIFEST=1): served compressed and cached for a
# year, since a changed file gets a new name. Elsewhere (tests, development) files are served as they are.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", False)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous write gets 401 with a WWW-Authenticate header.
        "config.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "moves": env_str("THROTTLE_MOVES", "120/min"),  # per user; a fast game needs a few a minute
        # per user, the games' other writes: results, confirmations, corrections, records (a round of 60 boards
        # entered by one organizer is 60–120 of them)
        "writes": env_str("THROTTLE_WRITES", "600/min"),
        "login": env_str("THROTTLE_LOGIN", "10/min"),  # token requests per client address
    },
    # Any throttle keyed on an address takes the TCP peer's, never X-Forwarded-For as a client wrote it (the
    # login throttle reads the configured proxy's header itself: config.security.LoginThrottle).
    "NUM_PROXIES": 0,
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Gomoku & Renju tournament API",
    "DESCRIPTION": "Tournaments, games, moves and the rules engine.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and ReDoc from our own static files: the docs work without the internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "config.schema.document_errors"],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.enums.GameStatus",
        "ClaimStatusEnum": "games.enums.ClaimStatus",
        "ReportStatusEnum": "games.enums.ReportStatus",
        "ForbiddenModeEnum": "games.enums.ForbiddenMode",
        "ResultReasonEnum": "games.enums.ResultReason",
        "GameResultEnum": "games.enums.GameResult",
        "StageStatusEnum": "tournament.models.Stage.Status",
        "StageKindEnum": "tournament.models.Stage.Kind",
        "MatchStatusEnum": "tournament.models.Match.Status",
        "TournamentStatusEnum": "tournament.models.Tournament.Status",
        "RulesEnum": ["freestyle", "standard", "renju", "renju-a"],  # engine.rules.RULES
        "PracticeRulesEnum": ["renju", "freestyle", "standard"],
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
