"""In-memory, per-process test state: request counters and armed faults.

Shared by every request thread, so all access goes through one lock.
"""

import threading
from collections import Counter
from dataclasses import dataclass

TOKEN_PATH = "/token/"
DEVICE_AUTHORIZATION_PATH = "/device-authorization/"

FAULT_MODES = ("status500", "slow", "truncated", "slow_down", "hold", "none")

_lock = threading.Lock()
_token_requests = Counter()  # grant_type -> count
_endpoint_requests = Counter()  # path -> count (every method, every non-/test/ path)
_device_authorization_requests = 0
_token_audiences = Counter()  # audience -> refresh_token grants that got an access token for it
_faults = {}  # path -> Fault
_holds = threading.Condition()
_held = []  # threading.Event per request parked by a "hold" fault, set to let it go


@dataclass
class Fault:
    mode: str
    seconds: float
    remaining: int
    process: bool  # run the real view first, then mangle/replace its answer

    def as_dict(self):
        return {
            "mode": self.mode,
            "seconds": self.seconds,
            "remaining": self.remaining,
            "process": self.process,
        }


def record_request(path, method, grant_type):
    global _device_authorization_requests
    with _lock:
        _endpoint_requests[path] += 1
        if method == "POST" and path == TOKEN_PATH:
            _token_requests[grant_type or "(none)"] += 1
        if method == "POST" and path == DEVICE_AUTHORIZATION_PATH:
            _device_authorization_requests += 1


def record_audience(audience):
    with _lock:
        _token_audiences[audience] += 1


def snapshot():
    with _lock:
        return {
            "token_requests": dict(_token_requests),
            "token_audiences": dict(_token_audiences),
            "total_token_requests": sum(_token_requests.values()),
            "device_authorization_requests": _device_authorization_requests,
            "endpoint_requests": dict(_endpoint_requests),
            "faults": {path: fault.as_dict() for path, fault in _faults.items()},
        }


def reset_counters():
    global _device_authorization_requests
    with _lock:
        _token_requests.clear()
        _endpoint_requests.clear()
        _token_audiences.clear()
        _device_authorization_requests = 0


def arm_fault(path, mode, seconds, count, process):
    with _lock:
        if mode == "none" or count <= 0:
            _faults.pop(path, None)
            return None
        fault = Fault(mode=mode, seconds=seconds, remaining=count, process=process)
        _faults[path] = fault
        return fault.as_dict()


def clear_faults():
    with _lock:
        _faults.clear()


def take_fault(path):
    """Consume one use of the fault armed for ``path``; return a copy or None."""
    with _lock:
        fault = _faults.get(path)
        if fault is None:
            return None
        fault.remaining -= 1
        if fault.remaining <= 0:
            del _faults[path]
        return Fault(fault.mode, fault.seconds, fault.remaining, fault.process)


def hold(timeout):
    """Park the calling request until release_held() (or ``timeout`` seconds, a safety net)."""
    released = threading.Event()
    with _holds:
        _held.append(released)
        _holds.notify_all()
    released.wait(timeout)


def wait_for_held(count, timeout):
    """Block until ``count`` requests are parked; return how many are."""
    with _holds:
        _holds.wait_for(lambda: len(_held) >= count, timeout)
        return len(_held)


def release_held():
    """Let every parked request go on; return how many there were."""
    with _holds:
        released = list(_held)
        _held.clear()
    for event in released:
        event.set()
    return len(released)
