"""Test-only endpoints under /test/ (no authentication: loopback test server)."""

import base64
import json
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpResponse, JsonResponse
from django.test import RequestFactory
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from oauth2_provider.models import get_device_grant_model
from oauth2_provider.views import TokenView
from oauth2_provider.views.metadata import OAuthServerMetadataView

from oauth2_provider.models import get_access_token_model

from . import dpop, state
from .middleware import check_resource_request, fault_key

TEST_USERNAME = "testuser"


def _params(request):
    """Form or JSON body (JSON when the content type says so or the body looks like it)."""
    content_type = request.META.get("CONTENT_TYPE", "")
    body = request.body
    if content_type.startswith("application/json") or body.lstrip().startswith(b"{"):
        try:
            data = json.loads(body.decode("utf-8") or "{}")
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    return {key: request.POST.get(key) for key in request.POST}


def _bad_request(message):
    return JsonResponse({"error": "invalid_request", "error_description": message}, status=400)


@require_GET
@transaction.non_atomic_requests
def health(request):
    return HttpResponse("ok", content_type="text/plain")


@require_GET
@transaction.non_atomic_requests
def stats(request):
    return JsonResponse({**state.snapshot(), "dpop": dpop.snapshot()})


@csrf_exempt
@require_POST
@transaction.non_atomic_requests
def reset(request):
    state.reset_counters()
    dpop.reset_counters()
    params = _params(request) or {}
    if str(params.get("faults", "")).lower() in ("1", "true", "yes"):
        state.clear_faults()
    return JsonResponse({"reset": True, **state.snapshot(), "dpop": dpop.snapshot()})


@csrf_exempt
@require_POST
@transaction.non_atomic_requests
def held(request):
    """Waits until `count` requests are parked by a "hold" fault (at most `timeout` seconds)."""
    params = _params(request) or {}
    try:
        count = int(params.get("count", 1) or 1)
        timeout = float(params.get("timeout", 30) or 30)
    except (TypeError, ValueError):
        return _bad_request("count must be an integer and timeout a number")
    return JsonResponse({"held": state.wait_for_held(count, timeout)})


@csrf_exempt
@require_POST
@transaction.non_atomic_requests
def release(request):
    """Lets every request parked by a "hold" fault go on."""
    return JsonResponse({"released": state.release_held()})


@csrf_exempt
@require_POST
@transaction.non_atomic_requests
def fault(request):
    params = _params(request)
    if params is None:
        return _bad_request("body must be form-encoded or a JSON object")
    path = params.get("path") or ""
    mode = params.get("mode") or ""
    if not path.startswith("/") or path.startswith("/test/"):
        return _bad_request("path must be an absolute path outside /test/, e.g. /token/")
    if mode not in state.FAULT_MODES:
        return _bad_request("mode must be one of " + ", ".join(state.FAULT_MODES))
    try:
        seconds = float(params.get("seconds", 3) or 3)
        count = int(params.get("count", 1) or 1)
    except (TypeError, ValueError):
        return _bad_request("seconds must be a number and count an integer")
    process = str(params.get("process", "")).lower() in ("1", "true", "yes")
    armed = state.arm_fault(fault_key(path), mode, seconds, count, process)
    return JsonResponse({"path": path, "armed": armed})


def _decide_device(request, approve):
    params = _params(request)
    user_code = (params or {}).get("user_code")
    if not user_code:
        return _bad_request("user_code is required")
    DeviceGrant = get_device_grant_model()
    # Same checks as DOT's DeviceGrantForm.clean_user_code (exists, not expired,
    # still pending), then what DeviceUserCodeView (user) and DeviceConfirmView
    # (status) store when the signed-in user enters the code and accepts/denies.
    grant = (
        DeviceGrant.objects.filter(user_code=user_code, status=DeviceGrant.AUTHORIZATION_PENDING)
        .order_by("-id")
        .first()
    )
    if grant is None or grant.is_expired():
        return JsonResponse({"approved": False, "error": "no pending device authorization for user_code"}, status=404)
    grant.user = get_user_model().objects.get(username=TEST_USERNAME)
    grant.status = DeviceGrant.AUTHORIZED if approve else DeviceGrant.DENIED
    grant.save(update_fields=["user", "status"])
    return JsonResponse({"approved": approve, "client_id": grant.client_id, "scope": grant.scope})


@csrf_exempt
@require_POST
def approve_device(request):
    return _decide_device(request, approve=True)


@csrf_exempt
@require_POST
def deny_device(request):
    return _decide_device(request, approve=False)


class ServerMetadataWithDeviceView(OAuthServerMetadataView):
    """DOT 3.4.1's RFC 8414 document (issuer, authorize, token, revocation,
    introspection, jwks...) plus the RFC 8628 ``device_authorization_endpoint``,
    which DOT does not advertise."""

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        data = json.loads(response.content)
        url = self._get_endpoint_url(request, "device-authorization")
        if url:
            data["device_authorization_endpoint"] = url
            grants = data.setdefault("grant_types_supported", [])
            if "urn:ietf:params:oauth:grant-type:device_code" not in grants:
                grants.append("urn:ietf:params:oauth:grant-type:device_code")
        new = JsonResponse(data)
        new["Access-Control-Allow-Origin"] = "*"
        return new


@csrf_exempt
@require_POST
@transaction.non_atomic_requests
def dpop_settings(request):
    """Sets DPoP support: `enabled` (off: DPoP headers are ignored, as by a server without DPoP),
    `require_nonce` (every proof must carry the current nonce) and `refuse_nonce` (challenge the
    next N proofs anyway, with a new nonce each time)."""
    params = _params(request)
    if params is None:
        return _bad_request("body must be form-encoded or a JSON object")

    def flag(name):
        value = params.get(name)
        return None if value is None else str(value).lower() in ("1", "true", "yes")

    require = flag("require_nonce")
    enable = flag("enabled")
    try:
        refuse = params.get("refuse_nonce")
        refuse = None if refuse is None else int(refuse)
    except (TypeError, ValueError):
        return _bad_request("refuse_nonce must be an integer")
    return JsonResponse(dpop.configure(require_nonce=require, refuse_nonce=refuse, enable=enable))


@csrf_exempt
@transaction.non_atomic_requests
def dpop_resource(request):
    """A resource that takes only DPoP-bound access tokens with a valid proof of their key."""
    state.record_request(request.path, request.method, None)
    dpop.count_resource_request()
    access_token, refusal = check_resource_request(request)
    if refusal is not None:
        return refusal
    AccessToken = get_access_token_model()
    token = AccessToken.objects.filter(token=access_token).select_related("user").first()
    if token is None or token.is_expired():
        return JsonResponse({"error": "invalid_token"}, status=401)
    return JsonResponse(
        {"ok": True, "method": request.method, "username": token.user.username if token.user else None}
    )


# An app's own sign-in API, in the shape of the service in ForgeCrypt's auth-token sample: JSON in,
# camelCase tokens out. It runs this server's own token endpoint (password and refresh grants of
# the confidential password client) on a request made here, so its tokens are real ones.
APP_API_CLIENT = ("tv-confidential-password", "tv-confidential-password-secret")


def _app_api_grant(request, form):
    credentials = base64.b64encode(("%s:%s" % APP_API_CLIENT).encode()).decode()
    token_request = RequestFactory().post(
        "/token/",
        data=urlencode(form),
        content_type="application/x-www-form-urlencoded",
        HTTP_HOST=request.get_host(),
        HTTP_AUTHORIZATION="Basic " + credentials,
    )
    response = TokenView.as_view()(token_request)
    body = json.loads(response.content or b"{}")
    if response.status_code != 200:
        return JsonResponse({"error": body.get("error", "invalid_grant")}, status=401)
    token = get_access_token_model().objects.filter(token=body["access_token"]).select_related("user").first()
    return JsonResponse(
        {
            "accessToken": body["access_token"],
            "refreshToken": body["refresh_token"],
            "expiresIn": body["expires_in"],
            "userId": str(token.user.pk),
        }
    )


@csrf_exempt
@require_POST
def app_api_login(request):
    """`{"email", "password"}`: the password grant for the user with that email."""
    params = _params(request) or {}
    user = get_user_model().objects.filter(email=params.get("email") or "").first()
    if user is None:
        return JsonResponse({"error": "invalid_grant"}, status=401)
    return _app_api_grant(
        request,
        {"grant_type": "password", "username": user.get_username(), "password": params.get("password") or ""},
    )


@csrf_exempt
@require_POST
def app_api_refresh(request):
    """`{"refreshToken"}`: the refresh grant."""
    params = _params(request) or {}
    return _app_api_grant(request, {"grant_type": "refresh_token", "refresh_token": params.get("refreshToken") or ""})
