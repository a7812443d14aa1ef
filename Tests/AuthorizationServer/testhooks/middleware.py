"""Counts OAuth requests, injects armed faults (see testhooks.state), handles DPoP (see
testhooks.dpop): token requests with a proof get DPoP-bound tokens, and requests elsewhere with a
DPoP-bound token must carry a proof of its key; and, with --api-audiences, answers a refresh that
names an `audience` with an access token for that API, as Auth0 does."""

import hashlib
import json
import time
from urllib.parse import parse_qs

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from oauth2_provider.models import get_access_token_model, get_refresh_token_model, set_token_value
from oauthlib.common import generate_token

from . import dpop, state

TEST_PREFIX = "/test/"

ERROR_500_BODY = (
    b"<!DOCTYPE html>\n<html><head><title>Server Error (500)</title></head>"
    b"<body><h1>Server Error (500)</h1><p>Injected fault.</p></body></html>\n"
)
TRUNCATED_BODY = b'{"access_token": "abc'


def fault_key(path):
    """Faults match a path with or without its trailing slash."""
    return path.rstrip("/") or "/"


def _form(request):
    try:
        body = request.body
    except Exception:
        return {}
    if not request.META.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded"):
        return {}
    return {key: values[0] for key, values in parse_qs(body.decode("utf-8", "replace")).items()}


def _token_error(error, description=None):
    body = {"error": error}
    if description:
        body["error_description"] = description
    response = JsonResponse(body, status=400)
    if error == "use_dpop_nonce":
        response["DPoP-Nonce"] = dpop.current_nonce()
    return response


def resource_challenge(error, description):
    """A resource server's 401 for a DPoP request (RFC 9449 §7.1, §9)."""
    response = JsonResponse({"error": error, "error_description": description}, status=401)
    response["WWW-Authenticate"] = 'DPoP error="%s", error_description="%s", algs="%s"' % (
        error,
        description,
        " ".join(dpop.ALGORITHMS),
    )
    if error == "use_dpop_nonce":
        response["DPoP-Nonce"] = dpop.current_nonce()
    return response


def check_resource_request(request):
    """The access token of a request to a resource with a DPoP-bound token and a proof of its key,
    or a 401 response saying what is wrong: a Bearer request with a bound token, no proof, a
    proof of another key, a wrong ath/htm/htu, a stale iat, a replayed jti, a missing nonce."""
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, access_token = authorization.partition(" ")
    if scheme.lower() == "bearer" and dpop.binding(access_token.strip()):
        dpop.reject("bound token sent as Bearer")
        return None, resource_challenge("invalid_token", "the access token is DPoP-bound")
    if scheme.lower() != "dpop" or not access_token.strip():
        return None, resource_challenge("invalid_token", "a DPoP access token is required")
    access_token = access_token.strip()
    bound = dpop.binding(access_token)
    if bound is None:
        dpop.reject("unbound token")
        return None, resource_challenge("invalid_token", "the access token is not DPoP-bound")
    try:
        thumbprint = dpop.verify(
            request.META.get("HTTP_DPOP"),
            request.method,
            request.build_absolute_uri(request.path),
            access_token=access_token,
        )
    except dpop.NonceRequired:
        return None, resource_challenge("use_dpop_nonce", "the proof needs the server nonce")
    except dpop.ProofError as error:
        return None, resource_challenge("invalid_dpop_proof", error.reason)
    if thumbprint != bound:
        dpop.reject("wrong key")
        return None, resource_challenge("invalid_dpop_proof", "the proof is of another key")
    return access_token, None


def _issued_tokens(response):
    """The JSON object of a successful token response that issued an access token, or None for
    anything else (an error, a body that is not such an object), which is passed on untouched."""
    if response.status_code != 200:
        return None
    try:
        data = json.loads(response.content)
    except ValueError:
        return None
    if not isinstance(data, dict) or not data.get("access_token"):
        return None
    return data


def _dpop_token_request(request, grant_type, get_response):
    """The token endpoint with DPoP: a request with a valid proof gets token_type DPoP, and its
    access and refresh tokens are bound to the proof's key; a bound refresh token needs a proof of
    the same key."""
    proof = request.META.get("HTTP_DPOP")
    bound = dpop.binding(_form(request).get("refresh_token")) if grant_type == "refresh_token" else None
    if proof is None:
        if bound:
            dpop.reject("missing proof")
            return _token_error("invalid_dpop_proof", "the refresh token is DPoP-bound: a proof is required")
        return get_response(request)
    try:
        thumbprint = dpop.verify(proof, "POST", request.build_absolute_uri(request.path))
    except dpop.NonceRequired:
        return _token_error("use_dpop_nonce", "the proof needs the server nonce")
    except dpop.ProofError as error:
        return _token_error("invalid_dpop_proof", error.reason)
    if bound and bound != thumbprint:
        dpop.reject("wrong key")
        return _token_error("invalid_dpop_proof", "the refresh token is bound to another key")
    response = get_response(request)
    data = _issued_tokens(response)
    if data is None:
        return response
    data["token_type"] = "DPoP"
    dpop.bind(data["access_token"], thumbprint)
    if data.get("refresh_token"):
        dpop.bind(data["refresh_token"], thumbprint)
    bound_response = JsonResponse(data, status=200)
    for header in ("Cache-Control", "Pragma"):
        if response.has_header(header):
            bound_response[header] = response[header]
    if dpop.nonce_required():
        bound_response["DPoP-Nonce"] = dpop.current_nonce()
    return bound_response


def _dpop_resource_request(request, get_response):
    """DOT's own resources (/userinfo/) with DPoP: a DPoP request is checked, then handed to DOT
    as the Bearer request it reads; a DPoP-bound token sent as Bearer is refused."""
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() not in ("dpop", "bearer") or (scheme.lower() == "bearer" and not dpop.binding(token.strip())):
        return get_response(request)
    access_token, refusal = check_resource_request(request)
    if refusal is not None:
        return refusal
    request.META["HTTP_AUTHORIZATION"] = "Bearer " + access_token
    return get_response(request)


def _refresh_token_row(value):
    """The unrevoked refresh token with this value, with its access token, or None."""
    checksum = hashlib.sha256(value.encode("utf-8")).hexdigest()
    return (
        get_refresh_token_model()
        .objects.filter(token_checksum=checksum, revoked__isnull=True)
        .select_related("access_token")
        .first()
    )


def _audience_token_request(request, audience, handle):
    """A refresh_token grant naming an API in `audience`, answered as Auth0 answers it (its
    multi-resource refresh token): an access token for that API, for the scope asked for, while
    the refresh token keeps the scope it was granted.

    An API the server does not know is refused as Auth0 refuses it (403 access_denied). For a known
    one, DOT runs the refresh as any other (client authentication, the `scope` subset check,
    rotation, reuse protection, grace period and DPoP all apply). Then the answer's access token is
    replaced with a new one for the API: the scope DOT granted, bound to the API with DOT's own RFC
    8707 resource field (so introspection reports it as the token's `aud`) and to the DPoP key DOT
    bound its token to. DOT's own token stays with the refresh token, unseen, with the refresh
    token's original scope put back: DOT reads a refresh token's scope from its access token, so a
    narrowed one would otherwise stick to every later refresh (RFC 6749 §6 says it must not). The
    answer has no ID token: DOT's would be about its own access token (`at_hash`)."""
    if audience not in settings.API_AUDIENCES:
        return JsonResponse(
            {"error": "access_denied", "error_description": "Service not found: %s" % audience}, status=403
        )
    refresh_token = _refresh_token_row(_form(request).get("refresh_token") or "")
    granted_scope = refresh_token.access_token.scope if refresh_token and refresh_token.access_token else None
    response = handle(request)
    data = _issued_tokens(response)
    if data is None:
        return response
    AccessToken = get_access_token_model()
    issued = AccessToken.objects.get(token_checksum=hashlib.sha256(data["access_token"].encode("utf-8")).hexdigest())
    api_token = AccessToken(
        user=issued.user, application=issued.application, scope=issued.scope, expires=issued.expires,
        resource=[audience],
    )
    value = generate_token()
    set_token_value(api_token, value)
    api_token.save()
    if granted_scope is not None and issued.scope != granted_scope:
        AccessToken.objects.filter(pk=issued.pk).update(scope=granted_scope)
    bound = dpop.binding(data["access_token"])
    if bound:
        dpop.bind(value, bound)
    data["access_token"] = value
    data.pop("id_token", None)
    state.record_audience(audience)
    answer = JsonResponse(data, status=200)
    for header in ("Cache-Control", "Pragma", "DPoP-Nonce"):
        if response.has_header(header):
            answer[header] = response[header]
    return answer


def _grant_type(request):
    # Read the raw body first: Django caches it, so the views can still parse
    # request.POST afterwards (reading POST first would make request.body
    # unavailable to code that wants it).
    try:
        body = request.body
    except Exception:
        return None
    content_type = request.META.get("CONTENT_TYPE", "")
    if content_type.startswith("application/x-www-form-urlencoded"):
        values = parse_qs(body.decode("utf-8", "replace")).get("grant_type")
        return values[0] if values else None
    return request.POST.get("grant_type") if request.method == "POST" else None


class TestHooksMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path
        if path.startswith(TEST_PREFIX):
            return self.get_response(request)

        is_token_request = request.method == "POST" and path == state.TOKEN_PATH
        grant_type = _grant_type(request) if is_token_request else None
        state.record_request(path, request.method, grant_type)

        if not dpop.enabled():
            handle = self.get_response
        elif is_token_request:
            def handle(request):
                return _dpop_token_request(request, grant_type, self.get_response)
        else:
            def handle(request):
                return _dpop_resource_request(request, self.get_response)

        audience = _form(request).get("audience") if grant_type == "refresh_token" else None
        if audience is not None and settings.API_AUDIENCES:
            plain = handle

            def handle(request):
                return _audience_token_request(request, audience, plain)

        fault = state.take_fault(fault_key(path))
        if fault is None:
            return handle(request)

        if fault.mode == "slow":
            time.sleep(fault.seconds)
            return handle(request)

        real = handle(request) if fault.process else None

        if fault.mode == "hold":
            # Parked until the test releases it: with process, after the server has answered
            # (its effects are committed) and before the client sees the answer.
            state.hold(fault.seconds)
            return real if real is not None else handle(request)

        if fault.mode == "status500":
            return HttpResponse(ERROR_500_BODY, status=500, content_type="text/html; charset=utf-8")

        if fault.mode == "slow_down":
            # RFC 8628 §3.5: DOT never sends it, so the client's handling is tested this way.
            return JsonResponse({"error": "slow_down"}, status=400)

        if fault.mode == "truncated":
            if real is not None and not getattr(real, "streaming", False) and len(real.content) > 1:
                body = real.content[: len(real.content) // 2]
            else:
                body = TRUNCATED_BODY
            return HttpResponse(body, status=200, content_type="application/json")

        return real if real is not None else handle(request)
