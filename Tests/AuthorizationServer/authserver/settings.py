"""Django settings for the TokenVault test authorization server.

Test-only: weak hashers, fixed SECRET_KEY, no authentication on /test/.
Everything that varies per run comes from environment variables, which
serve.py (and setup.sh, for migrations) set before Django is imported:

  TVAUTH_STATE_DIR              directory holding the RSA key and template DB
  TVAUTH_DB                     SQLite file this process uses
  TVAUTH_ISSUER                 http://127.0.0.1:PORT (OIDC_ISS_ENDPOINT)
  TVAUTH_ACCESS_TOKEN_LIFETIME  seconds              (DOT default 36000)
  TVAUTH_ID_TOKEN_LIFETIME      seconds              (DOT default 36000)
  TVAUTH_REFRESH_TOKEN_LIFETIME seconds, "" = never  (DOT default None)
  TVAUTH_ROTATE_REFRESH_TOKENS  1/0                  (DOT default 1)
  TVAUTH_REUSE_PROTECTION       1/0                  (DOT default 0)
  TVAUTH_GRACE_PERIOD           seconds              (DOT default 0)
  TVAUTH_DEVICE_INTERVAL        seconds              (DOT default 5; we use 1)
  TVAUTH_API_AUDIENCES          space-separated URIs a refresh may name in `audience` ("" = none)
  TVAUTH_DEVICE_ID_TOKEN        1/0: the device grant returns an ID token (DOT: never; default 0)
  TVAUTH_VERBOSE                1 = log every request to stderr
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def _env_bool(name, default):
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    return value in ("1", "yes", "true", "on")


STATE_DIR = Path(os.environ.get("TVAUTH_STATE_DIR", BASE_DIR / ".state"))
ISSUER = os.environ.get("TVAUTH_ISSUER", "http://127.0.0.1")
RSA_KEY_FILE = STATE_DIR / "oidc_rsa_private_key.pem"

SECRET_KEY = "tokenvault-test-authorization-server-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "oauth2_provider",
    "testhooks",
]

MIDDLEWARE = [
    # First, so it sees (and can fault) every request, and so "slow" sleeps
    # happen outside any database transaction.
    "testhooks.middleware.TestHooksMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "authserver.urls"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("TVAUTH_DB", str(STATE_DIR / "template.sqlite3")),
        # Threaded server + SQLite: every write transaction takes the write lock
        # up front (BEGIN IMMEDIATE) and waiters block instead of failing with
        # "database is locked". With ATOMIC_REQUESTS this serialises each
        # request's database work, standing in for the row locks
        # (select_for_update) DOT relies on with PostgreSQL, so concurrent
        # refreshes of one refresh token behave as on a real deployment.
        "OPTIONS": {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
        "ATOMIC_REQUESTS": True,
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Test only: fast hashing for the user password and the (hashed) client secrets.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
AUTH_PASSWORD_VALIDATORS = []

SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/test/health"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True


def _pkce_required(client_id):
    """PKCE is mandatory for public clients, optional for confidential ones
    (a confidential client that sends a code_challenge is still verified)."""
    from oauth2_provider.models import get_application_model

    Application = get_application_model()
    return not Application.objects.filter(
        client_id=client_id, client_type=Application.CLIENT_CONFIDENTIAL
    ).exists()


def _read_key():
    try:
        return RSA_KEY_FILE.read_text()
    except FileNotFoundError:
        return ""


_refresh_lifetime = os.environ.get("TVAUTH_REFRESH_TOKEN_LIFETIME", "").strip()

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _read_key(),
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OAUTH2_VALIDATOR_CLASS": "testhooks.validators.TestOAuth2Validator",
    "PKCE_REQUIRED": _pkce_required,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Profile (name, preferred_username)",
        "email": "Email address",
        "read": "Read",
        "write": "Write",
        "introspection": "Introspect tokens",
        # What OpenID Connect apps (and the Auth0 and Okta samples) ask for to get a refresh token;
        # DOT issues one whatever the scope, but refuses a scope it does not know.
        "offline_access": "Refresh tokens",
    },
    # No scope requested -> everything except "introspection" and "offline_access".
    "DEFAULT_SCOPES": ["openid", "profile", "email", "read", "write"],
    # DOT's default of 60 s is shorter than a test can be kept waiting between the browser step
    # and the code exchange when a sanitized suite has both cores busy; no test checks expiry.
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 3600,
    "ACCESS_TOKEN_EXPIRE_SECONDS": _env_int("TVAUTH_ACCESS_TOKEN_LIFETIME", 36000),
    "ID_TOKEN_EXPIRE_SECONDS": _env_int("TVAUTH_ID_TOKEN_LIFETIME", 36000),
    "REFRESH_TOKEN_EXPIRE_SECONDS": int(_refresh_lifetime) if _refresh_lifetime else None,
    "ROTATE_REFRESH_TOKEN": _env_bool("TVAUTH_ROTATE_REFRESH_TOKENS", True),
    "REFRESH_TOKEN_REUSE_PROTECTION": _env_bool("TVAUTH_REUSE_PROTECTION", False),
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": _env_int("TVAUTH_GRACE_PERIOD", 0),
    "DEVICE_FLOW_INTERVAL": _env_int("TVAUTH_DEVICE_INTERVAL", 1),
    "OAUTH_DEVICE_VERIFICATION_URI": ISSUER + "/device/",
}

# Auth0's multi-resource refresh token: a refresh_token grant with `audience` set to one of these
# gets an access token for that API (see testhooks.middleware). None: `audience` is ignored, as DOT
# itself ignores it.
API_AUDIENCES = tuple(os.environ.get("TVAUTH_API_AUDIENCES", "").split())

# DOT's device grant never returns an ID token; OpenID providers (Auth0, Okta) return one when the
# scope has `openid`. On, the server class of testhooks.server adds it; off, DOT's own class runs.
if _env_bool("TVAUTH_DEVICE_ID_TOKEN", False):
    OAUTH2_PROVIDER["OIDC_SERVER_CLASS"] = "testhooks.server.Server"

_VERBOSE = _env_bool("TVAUTH_VERBOSE", False)

# Quiet by default: a test harness that pipes stderr and never reads it must
# not be able to block the server. 4xx/5xx answers are normal in these tests.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django": {"handlers": ["stderr"], "level": "INFO" if _VERBOSE else "ERROR", "propagate": False},
        "django.server": {"handlers": ["stderr"], "level": "INFO" if _VERBOSE else "CRITICAL", "propagate": False},
        "django.request": {"handlers": ["stderr"], "level": "WARNING" if _VERBOSE else "ERROR", "propagate": False},
        "oauth2_provider": {"handlers": ["stderr"], "level": "INFO" if _VERBOSE else "ERROR", "propagate": False},
        "oauthlib": {"handlers": ["stderr"], "level": "INFO" if _VERBOSE else "ERROR", "propagate": False},
    },
}
