from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path

from testhooks import views as test_views

urlpatterns = [
    # DOT 3.4.1 ships RFC 8414 metadata, but without device_authorization_endpoint;
    # this subclass adds it. Listed before the DOT include so it wins.
    path(
        ".well-known/oauth-authorization-server",
        test_views.ServerMetadataWithDeviceView.as_view(),
        name="oauth-server-metadata-with-device",
    ),
    # Browser login for the authorization-code flow (LOGIN_URL).
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Test-only hooks (no authentication; loopback server).
    re_path(r"^test/health/?$", test_views.health, name="test-health"),
    re_path(r"^test/stats/?$", test_views.stats, name="test-stats"),
    re_path(r"^test/reset/?$", test_views.reset, name="test-reset"),
    re_path(r"^test/fault/?$", test_views.fault, name="test-fault"),
    re_path(r"^test/held/?$", test_views.held, name="test-held"),
    re_path(r"^test/release/?$", test_views.release, name="test-release"),
    re_path(r"^test/approve-device/?$", test_views.approve_device, name="test-approve-device"),
    re_path(r"^test/deny-device/?$", test_views.deny_device, name="test-deny-device"),
    re_path(r"^test/dpop/?$", test_views.dpop_settings, name="test-dpop"),
    re_path(r"^test/dpop-resource/?$", test_views.dpop_resource, name="test-dpop-resource"),
    re_path(r"^test/app-api/auth/login/?$", test_views.app_api_login, name="test-app-api-login"),
    re_path(r"^test/app-api/auth/refresh/?$", test_views.app_api_refresh, name="test-app-api-refresh"),
    # DOT at the root: /authorize/, /token/, /revoke_token/, /introspect/,
    # /device-authorization/, /device/, /userinfo/, /.well-known/... .
    path("", include("oauth2_provider.urls", namespace="oauth2_provider")),
]
