"""Counts OAuth requests and injects armed faults (see testhooks.state)."""

import time
from urllib.parse import parse_qs

from django.http import HttpResponse, JsonResponse

from . import state

TEST_PREFIX = "/test/"

ERROR_500_BODY = (
    b"<!DOCTYPE html>\n<html><head><title>Server Error (500)</title></head>"
    b"<body><h1>Server Error (500)</h1><p>Injected fault.</p></body></html>\n"
)
TRUNCATED_BODY = b'{"access_token": "abc'


def fault_key(path):
    """Faults match a path with or without its trailing slash."""
    return path.rstrip("/") or "/"


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

        grant_type = _grant_type(request) if (request.method == "POST" and path == state.TOKEN_PATH) else None
        state.record_request(path, request.method, grant_type)

        fault = state.take_fault(fault_key(path))
        if fault is None:
            return self.get_response(request)

        if fault.mode == "slow":
            time.sleep(fault.seconds)
            return self.get_response(request)

        real = self.get_response(request) if fault.process else None

        if fault.mode == "hold":
            # Parked until the test releases it: with process, after the server has answered
            # (its effects are committed) and before the client sees the answer.
            state.hold(fault.seconds)
            return real if real is not None else self.get_response(request)

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

        return real if real is not None else self.get_response(request)
