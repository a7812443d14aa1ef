#!/usr/bin/env bash
# End-to-end smoke test of the test authorization server, with curl.
#
#   Tests/AuthorizationServer/smoke_test.sh STATE_DIR
#
# Runs setup.sh STATE_DIR (fast when already done), starts serve.py with
# short access tokens, rotation and reuse protection, exercises every flow
# and test hook, prints PASS/FAIL per check and exits non-zero on any failure.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 STATE_DIR" >&2; exit 2; }
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
PY="$REPO/.venv/bin/python"
STATE_DIR="$1"

"$HERE/setup.sh" "$STATE_DIR" || exit 1
STATE_DIR="$(cd "$STATE_DIR" && pwd)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tv-auth-smoke.XXXXXX")"
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

PASSED=0
FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1${2:+: $2}"; }
# check NAME EXPR... : PASS when the command succeeds
check() {
    local name="$1"; shift
    if "$@"; then pass "$name"; else fail "$name" "${DETAIL:-}"; fi
    DETAIL=""
}
DETAIL=""

# json FIELD [FILE]: print a (dotted) field of a JSON document; lists as JSON.
json() {
    "$PY" -c '
import json, sys
try:
    value = json.load(open(sys.argv[2]) if len(sys.argv) > 2 else sys.stdin)
    for part in sys.argv[1].split("."):
        value = value[int(part)] if isinstance(value, list) else value.get(part)
except Exception:
    value = None
if value is None:
    print("")
elif isinstance(value, (list, dict, bool)):
    print(json.dumps(value))
else:
    print(value)
' "$@"
}

# start_server NAME ARGS... : sets URL_<NAME> and PID_<NAME>
start_server() {
    local name="$1"; shift
    local out="$WORK/$name.out" err="$WORK/$name.err" start end pid line
    start=$(date +%s%N)
    "$PY" "$HERE/serve.py" --state "$STATE_DIR" "$@" >"$out" 2>"$err" &
    pid=$!
    PIDS+=("$pid")
    for _ in $(seq 1 200); do
        line="$(head -n 1 "$out" 2>/dev/null)"
        [ -n "$line" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.025
    done
    end=$(date +%s%N)
    if [[ "$line" =~ ^READY\ (http://127\.0\.0\.1:[0-9]+)$ ]]; then
        printf -v "URL_$name" '%s' "${BASH_REMATCH[1]}"
        printf -v "PID_$name" '%s' "$pid"
        pass "server $name started: $line ($(((end - start) / 1000000)) ms)"
        return 0
    fi
    fail "server $name started" "no READY line; stderr: $(head -c 500 "$err")"
    return 1
}

# http METHOD URL [curl args...]: sets STATUS, BODY (file), CTYPE, LOCATION
BODY="$WORK/body"
http() {
    local method="$1" url="$2"; shift 2
    local meta
    meta="$(curl -sS -o "$BODY" -X "$method" -w '%{http_code}\t%{content_type}\t%{redirect_url}' \
        --max-time 30 "$@" "$url" 2>"$WORK/curl.err")" || meta="000		"
    IFS=$'\t' read -r STATUS CTYPE LOCATION <<<"$meta"
}
body() { cat "$BODY"; }
field() { json "$1" "$BODY"; }

# verify_jwt JWT: verify an ID token against the server's JWKS; print its claims.
verify_jwt() {
    curl -sS "$URL/.well-known/jwks.json" >"$WORK/jwks.json"
    "$PY" - "$1" "$WORK/jwks.json" <<'EOF'
import json, sys
from jwcrypto import jwk, jwt
keys = jwk.JWKSet.from_json(open(sys.argv[2]).read())
token = jwt.JWT(jwt=sys.argv[1], key=keys, check_claims=False)
print(token.claims)
EOF
}

pkce_pair() { # prints "verifier challenge"
    "$PY" -c '
import base64, hashlib, secrets
v = secrets.token_urlsafe(48)
c = base64.urlsafe_b64encode(hashlib.sha256(v.encode()).digest()).rstrip(b"=").decode()
print(v, c)'
}

CONF_PW="tv-confidential-password:tv-confidential-password-secret"
SERVICE="tv-service:tv-service-secret"
REDIRECT="http://127.0.0.1/callback"

# ---------------------------------------------------------------------------------
start_server main --access-token-lifetime 2 --rotate-refresh-tokens yes --reuse-protection yes ||
    { echo "0 passed, 1 failed"; exit 1; }
URL="$URL_main"

http GET "$URL/test/health"
check "GET /test/health -> 200 ok" test "$STATUS:$(body)" = "200:ok"

# --- discovery ---------------------------------------------------------------------
http GET "$URL/.well-known/openid-configuration"
DETAIL="status $STATUS $(body | head -c 300)"
check "OIDC discovery issuer/token/userinfo/jwks" test \
    "$STATUS|$(field issuer)|$(field token_endpoint)|$(field userinfo_endpoint)|$(field jwks_uri)" = \
    "200|$URL|$URL/token/|$URL/userinfo/|$URL/.well-known/jwks.json"
DETAIL="$(field claims_supported)"
check "OIDC discovery lists roles claim" grep -q '"roles"' <<<"$(field claims_supported)"

http GET "$URL/.well-known/oauth-authorization-server"
DETAIL="status $STATUS $(body | head -c 400)"
check "RFC 8414 metadata: revocation/introspection/device endpoints" test \
    "$STATUS|$(field issuer)|$(field revocation_endpoint)|$(field introspection_endpoint)|$(field device_authorization_endpoint)" = \
    "200|$URL|$URL/revoke_token/|$URL/introspect/|$URL/device-authorization/"

http GET "$URL/.well-known/jwks.json"
check "JWKS has one RS256 key" test "$STATUS|$(field keys.0.alg)|$(field keys.0.kty)" = "200|RS256|RSA"

# --- password grant ----------------------------------------------------------------
http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=testpass -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "password grant (public) -> access + refresh token" test \
    "$STATUS|$(field token_type)|$(field expires_in)|$([ -n "$(field refresh_token)" ] && echo rt)" = "200|Bearer|2|rt"
check "password grant (public) issues no id_token (oauthlib)" test -z "$(field id_token)"
PUB_RT="$(field refresh_token)"

http POST "$URL/token/" -u "$CONF_PW" -d grant_type=password -d username=testuser -d password=testpass \
    -d scope="openid profile email read write"
DETAIL="status $STATUS $(body)"
check "password grant (confidential, basic auth) -> refresh token" test \
    "$STATUS|$([ -n "$(field refresh_token)" ] && echo rt)" = "200|rt"
RT1="$(field refresh_token)"
AT1="$(field access_token)"

http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=testpass \
    -d client_id=tv-confidential-password -d client_secret=tv-confidential-password-secret
check "password grant (confidential, secret in body) -> 200" test "$STATUS" = 200

http POST "$URL/token/" -u tv-confidential-password:wrong -d grant_type=password -d username=testuser -d password=testpass
DETAIL="status $STATUS $(body)"
check "wrong client secret -> 401 invalid_client" test "$STATUS|$(field error)" = "401|invalid_client"

http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=nope -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "wrong user password -> 400 invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"

# --- refresh: rotation, id_token, reuse protection --------------------------------------
http POST "$URL/token/" -u "$CONF_PW" -d grant_type=refresh_token -d refresh_token="$RT1"
DETAIL="status $STATUS $(body)"
RT2="$(field refresh_token)"
AT2="$(field access_token)"
IDT="$(field id_token)"
check "refresh -> new (rotated) refresh token" test "$STATUS|$([ -n "$RT2" ] && [ "$RT2" != "$RT1" ] && echo rotated)" = "200|rotated"
check "refresh -> id_token present" test -n "$IDT"
if [ -n "$IDT" ]; then
    verify_jwt "$IDT" >"$WORK/claims.json" 2>"$WORK/jwt.err"
    DETAIL="$(cat "$WORK/claims.json" "$WORK/jwt.err" | head -c 600)"
    check "id_token signature verifies with JWKS; iss/aud/claims" test \
        "$(json iss "$WORK/claims.json")|$(json aud "$WORK/claims.json")|$(json name "$WORK/claims.json")|$(json email "$WORK/claims.json")|$(json preferred_username "$WORK/claims.json")|$(json roles "$WORK/claims.json")" = \
        "$URL|tv-confidential-password|Test User|testuser@example.com|testuser|[\"user\"]"
fi

http POST "$URL/introspect/" -u "$SERVICE" -d token="$AT2"
DETAIL="status $STATUS $(body)"
check "introspect rotated access token -> active true" test \
    "$STATUS|$(field active)|$(field username)|$(field client_id)" = "200|true|testuser|tv-confidential-password"

http POST "$URL/token/" -u "$CONF_PW" -d grant_type=refresh_token -d refresh_token="$RT1"
DETAIL="status $STATUS $(body)"
check "replay of old refresh token -> 400 invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"

http POST "$URL/token/" -u "$CONF_PW" -d grant_type=refresh_token -d refresh_token="$RT2"
DETAIL="status $STATUS $(body)"
check "reuse protection: successor refresh token revoked too" test "$STATUS|$(field error)" = "400|invalid_grant"

http POST "$URL/introspect/" -u "$SERVICE" -d token="$AT2"
DETAIL="status $STATUS $(body)"
check "reuse protection: family's access token revoked (introspect active false)" test "$STATUS|$(field active)" = "200|false"

http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$PUB_RT" -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "refresh (public client, client_id only) -> 200 + id_token" test \
    "$STATUS|$([ -n "$(field id_token)" ] && echo idt)" = "200|idt"

http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$(field refresh_token)" -d client_id=tv-confidential-password
DETAIL="status $STATUS $(body)"
check "refresh token of another client -> 401 invalid_client (confidential w/o secret)" test "$STATUS" = 401

# --- client credentials ------------------------------------------------------------------
http POST "$URL/token/" -u "$SERVICE" -d grant_type=client_credentials -d scope=read
DETAIL="status $STATUS $(body)"
check "client_credentials -> access token, no refresh token" test \
    "$STATUS|$(field scope)|$([ -n "$(field access_token)" ] && echo at)|$(field refresh_token)" = "200|read|at|"
CC_AT="$(field access_token)"

# --- authorization code + PKCE (public) ------------------------------------------------
JAR="$WORK/cookies"
read -r VERIFIER CHALLENGE <<<"$(pkce_pair)"
AUTHZ_QUERY="response_type=code&client_id=tv-public-pkce&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&scope=openid%20profile%20email%20read&state=st4te&nonce=n0nce&code_challenge=$CHALLENGE&code_challenge_method=S256"

http GET "$URL/authorize/?$AUTHZ_QUERY" -c "$JAR" -b "$JAR"
DETAIL="status $STATUS location $LOCATION"
check "authorize without session -> 302 to /accounts/login/" test "$STATUS|${LOCATION%%\?*}" = "302|$URL/accounts/login/"

http GET "$URL/accounts/login/" -c "$JAR" -b "$JAR"
CSRF="$(grep -o 'name="csrfmiddlewaretoken" value="[^"]*"' "$BODY" | sed 's/.*value="//; s/"$//')"
check "login page has CSRF token" test "$STATUS|$([ -n "$CSRF" ] && echo csrf)" = "200|csrf"

http POST "$URL/accounts/login/" -c "$JAR" -b "$JAR" -d csrfmiddlewaretoken="$CSRF" \
    -d username=testuser -d password=testpass --data-urlencode "next=/authorize/?$AUTHZ_QUERY"
DETAIL="status $STATUS location $LOCATION"
check "login (testuser/testpass) -> 302 back to /authorize/" test "$STATUS|${LOCATION%%\?*}" = "302|$URL/authorize/"

http GET "$URL/authorize/?$AUTHZ_QUERY" -c "$JAR" -b "$JAR"
CODE="$("$PY" -c 'import sys, urllib.parse as u; q = u.parse_qs(u.urlsplit(sys.argv[1]).query); print(q.get("code", [""])[0], q.get("state", [""])[0])' "$LOCATION")"
read -r CODE STATE <<<"$CODE"
DETAIL="status $STATUS location $LOCATION"
check "authorize (S256) -> 302 to redirect_uri with code and state" test \
    "$STATUS|${LOCATION%%\?*}|$([ -n "$CODE" ] && echo code)|$STATE" = "302|$REDIRECT|code|st4te"

http POST "$URL/token/" -d grant_type=authorization_code -d code="$CODE" -d redirect_uri="$REDIRECT" \
    -d client_id=tv-public-pkce -d code_verifier="wrong-verifier-wrong-verifier-wrong-verifier-0"
DETAIL="status $STATUS $(body)"
check "code exchange with wrong code_verifier -> 400 invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"

# a failed verifier does not burn the code in DOT: retry with the right one
http POST "$URL/token/" -d grant_type=authorization_code -d code="$CODE" -d redirect_uri="$REDIRECT" \
    -d client_id=tv-public-pkce -d code_verifier="$VERIFIER"
DETAIL="status $STATUS $(body)"
CODE_AT="$(field access_token)"
CODE_RT="$(field refresh_token)"
CODE_IDT="$(field id_token)"
check "code exchange with code_verifier -> access, refresh, id_token" test \
    "$STATUS|$([ -n "$CODE_AT" ] && [ -n "$CODE_RT" ] && [ -n "$CODE_IDT" ] && echo all)" = "200|all"
if [ -n "$CODE_IDT" ]; then
    verify_jwt "$CODE_IDT" >"$WORK/claims.json" 2>"$WORK/jwt.err"
    DETAIL="$(cat "$WORK/claims.json" "$WORK/jwt.err" | head -c 600)"
    check "code-flow id_token: aud, nonce, roles" test \
        "$(json aud "$WORK/claims.json")|$(json nonce "$WORK/claims.json")|$(json roles "$WORK/claims.json")" = \
        "tv-public-pkce|n0nce|[\"user\"]"
fi

http POST "$URL/token/" -d grant_type=authorization_code -d code="$CODE" -d redirect_uri="$REDIRECT" \
    -d client_id=tv-public-pkce -d code_verifier="$VERIFIER"
DETAIL="status $STATUS $(body)"
check "authorization code reuse -> 400 invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"

http GET "$URL/authorize/?response_type=code&client_id=tv-public-pkce&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&scope=openid&state=s2" -c "$JAR" -b "$JAR"
DETAIL="status $STATUS location $LOCATION"
check "public client without code_challenge -> redirect with error" grep -q "error=invalid_request" <<<"$LOCATION"

http GET "$URL/authorize/?response_type=code&client_id=tv-confidential-code&redirect_uri=http%3A%2F%2F127.0.0.1%3A4567%2Fcallback&scope=openid%20profile&state=s3" -c "$JAR" -b "$JAR"
CONF_CODE="$("$PY" -c 'import sys, urllib.parse as u; print(u.parse_qs(u.urlsplit(sys.argv[1]).query).get("code", [""])[0])' "$LOCATION")"
DETAIL="status $STATUS location $LOCATION"
check "confidential client, no PKCE, loopback redirect on another port -> code" test \
    "$STATUS|${LOCATION%%\?*}|$([ -n "$CONF_CODE" ] && echo code)" = "302|http://127.0.0.1:4567/callback|code"
http POST "$URL/token/" -u tv-confidential-code:tv-confidential-code-secret -d grant_type=authorization_code \
    -d code="$CONF_CODE" -d redirect_uri="http://127.0.0.1:4567/callback"
DETAIL="status $STATUS $(body)"
check "confidential code exchange (basic auth) -> id_token" test "$STATUS|$([ -n "$(field id_token)" ] && echo idt)" = "200|idt"

# --- userinfo ------------------------------------------------------------------------------
http GET "$URL/userinfo/" -H "Authorization: Bearer $CODE_AT"
DETAIL="status $STATUS $(body)"
check "userinfo -> sub, name, email, preferred_username, roles" test \
    "$STATUS|$(field name)|$(field email)|$(field preferred_username)|$(field roles)|$([ -n "$(field sub)" ] && echo sub)" = \
    "200|Test User|testuser@example.com|testuser|[\"user\"]|sub"

# --- revocation + introspection -----------------------------------------------------------
http POST "$URL/introspect/" -d token="$CODE_AT"
check "introspect without client auth -> 401/403" test "$STATUS" = 401 -o "$STATUS" = 403

http POST "$URL/introspect/" -u "$SERVICE" -d token="$CODE_AT"
DETAIL="status $STATUS $(body)"
check "introspect (tv-service basic auth) -> active true" test "$STATUS|$(field active)|$(field client_id)" = "200|true|tv-public-pkce"

http POST "$URL/introspect/" -d client_id=tv-service -d client_secret=tv-service-secret -d token="$CODE_AT"
check "introspect (tv-service secret in body) -> active true" test "$STATUS|$(field active)" = "200|true"

http POST "$URL/introspect/" -u "$SERVICE" -d token="$CODE_RT"
DETAIL="status $STATUS $(body)"
check "introspect of a refresh token -> active false (DOT only knows access tokens)" test "$STATUS|$(field active)" = "200|false"

http POST "$URL/revoke_token/" -d token="$CODE_AT" -d token_type_hint=access_token -d client_id=tv-public-pkce
DETAIL="status $STATUS $(body)"
check "revoke access token (RFC 7009, public client) -> 200" test "$STATUS" = 200

http POST "$URL/introspect/" -u "$SERVICE" -d token="$CODE_AT"
DETAIL="status $STATUS $(body)"
check "introspect revoked access token -> active false" test "$STATUS|$(field active)" = "200|false"

http GET "$URL/userinfo/" -H "Authorization: Bearer $CODE_AT"
DETAIL="status $STATUS $(body)"
check "userinfo with revoked token -> 401" test "$STATUS" = 401

http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$CODE_RT" -d client_id=tv-public-pkce
DETAIL="status $STATUS $(body)"
check "refresh token bound to the revoked access token also revoked -> invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"

http POST "$URL/revoke_token/" -d token=does-not-exist -d client_id=tv-public-pkce
check "revoke unknown token -> 200 (RFC 7009)" test "$STATUS" = 200

pw_grant_public() { http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=testpass -d client_id=tv-public-password; }
pw_grant_public
REV_RT="$(field refresh_token)"; REV_AT="$(field access_token)"
http POST "$URL/revoke_token/" -d token="$REV_RT" -d token_type_hint=refresh_token -d client_id=tv-public-password
check "revoke refresh token -> 200" test "$STATUS" = 200
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$REV_RT" -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "refresh with revoked refresh token -> invalid_grant" test "$STATUS|$(field error)" = "400|invalid_grant"
http POST "$URL/introspect/" -u "$SERVICE" -d token="$REV_AT"
DETAIL="status $STATUS $(body)"
check "revoking a refresh token also revokes its access token" test "$STATUS|$(field active)" = "200|false"

http POST "$URL/introspect/" -H "Authorization: Bearer $CC_AT" -d token="$AT1"
check "introspect with bearer token lacking 'introspection' scope -> 403" test "$STATUS" = 403

http POST "$URL/token/" -u "$SERVICE" -d grant_type=client_credentials -d scope=introspection
http POST "$URL/introspect/" -H "Authorization: Bearer $(field access_token)" -d token="$CC_AT"
DETAIL="status $STATUS $(body)"
check "introspect with bearer token having 'introspection' scope -> 200" test "$STATUS|$(field active)" = "200|true"

# --- device authorization grant ------------------------------------------------------------
http POST "$URL/device-authorization/" -d client_id=tv-device -d scope="openid profile email"
DETAIL="status $STATUS $(body)"
DEVICE_CODE="$(field device_code)"
USER_CODE="$(field user_code)"
check "device authorization -> device_code, user_code, verification_uri, interval" test \
    "$STATUS|$([ -n "$DEVICE_CODE" ] && [ -n "$USER_CODE" ] && echo codes)|$(field verification_uri)|$(field interval)" = \
    "200|codes|$URL/device/|1"

http POST "$URL/token/" -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d device_code="$DEVICE_CODE" -d client_id=tv-device
DETAIL="status $STATUS $(body)"
check "device token before approval -> 400 authorization_pending" test "$STATUS|$(field error)" = "400|authorization_pending"

http POST "$URL/test/approve-device" -d user_code="$USER_CODE"
DETAIL="status $STATUS $(body)"
check "POST /test/approve-device -> 200 approved" test "$STATUS|$(field approved)" = "200|true"

http POST "$URL/test/approve-device" -H 'Content-Type: application/json' --data "{\"user_code\": \"$USER_CODE\"}"
check "approve same user_code again -> 404" test "$STATUS" = 404

http POST "$URL/test/approve-device" -d user_code=NOPE1234
check "approve unknown user_code -> 404" test "$STATUS" = 404

http POST "$URL/token/" -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d device_code="$DEVICE_CODE" -d client_id=tv-device
DETAIL="status $STATUS $(body)"
DEVICE_AT="$(field access_token)"
check "device token after approval -> access token" test "$STATUS|$([ -n "$DEVICE_AT" ] && echo at)" = "200|at"
echo "     device token response keys: $("$PY" -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))))' "$BODY")"
http GET "$URL/userinfo/" -H "Authorization: Bearer $DEVICE_AT"
DETAIL="status $STATUS $(body)"
check "device access token belongs to testuser (userinfo)" test "$STATUS|$(field preferred_username)" = "200|testuser"

http POST "$URL/device-authorization/" -d client_id=tv-device
USER_CODE2="$(field user_code)"; DEVICE_CODE2="$(field device_code)"
http POST "$URL/test/deny-device" -d user_code="$USER_CODE2"
http POST "$URL/token/" -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d device_code="$DEVICE_CODE2" -d client_id=tv-device
DETAIL="status $STATUS $(body)"
check "denied device authorization -> access_denied" test "$(field error)" = "access_denied"

# --- access token expiry (lifetime 2 s) -----------------------------------------------------
http GET "$URL/userinfo/" -H "Authorization: Bearer $DEVICE_AT"
sleep 2.2
http GET "$URL/userinfo/" -H "Authorization: Bearer $DEVICE_AT"
DETAIL="status $STATUS $(body)"
check "access token expired after --access-token-lifetime 2 -> userinfo 401" test "$STATUS" = 401

# --- /test/stats ---------------------------------------------------------------------------
http POST "$URL/test/reset"
check "POST /test/reset -> 200, counters zero" test "$STATUS|$(field total_token_requests)" = "200|0"
http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=testpass -d client_id=tv-public-password
STATS_RT="$(field refresh_token)"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$STATS_RT" -d client_id=tv-public-password
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$STATS_RT" -d client_id=tv-public-password
http POST "$URL/token/" -u "$SERVICE" -d grant_type=client_credentials
http POST "$URL/device-authorization/" -d client_id=tv-device
http GET "$URL/test/stats"
DETAIL="$(body)"
check "GET /test/stats counts token requests by grant_type" test \
    "$(field token_requests.password)|$(field token_requests.refresh_token)|$(field token_requests.client_credentials)|$(field total_token_requests)|$(field device_authorization_requests)" = \
    "1|2|1|4|1"

# --- /test/fault -------------------------------------------------------------------------------
pw_grant() { http POST "$URL/token/" -d grant_type=password -d username=testuser -d password=testpass -d client_id=tv-public-password "$@"; }

http POST "$URL/test/fault" -d path=/token/ -d mode=status500 -d count=2
check "arm status500 x2 -> 200" test "$STATUS|$(field armed.mode)|$(field armed.remaining)" = "200|status500|2"
pw_grant
DETAIL="status $STATUS ctype $CTYPE"
check "fault status500 -> HTTP 500 text/html" test "$STATUS|${CTYPE%%;*}|$(grep -c '<html' "$BODY")" = "500|text/html|1"
pw_grant
check "fault status500 second use -> 500" test "$STATUS" = 500
pw_grant
check "fault status500 exhausted after count -> 200" test "$STATUS" = 200

http POST "$URL/test/fault" -H 'Content-Type: application/json' --data '{"path": "/token/", "mode": "slow", "seconds": 1.5, "count": 1}'
T0=$(date +%s%N); pw_grant; T1=$(date +%s%N)
MS=$(((T1 - T0) / 1000000))
DETAIL="status $STATUS after ${MS} ms"
check "fault slow 1.5 s -> 200 after >= 1500 ms" test "$STATUS" = 200 -a "$MS" -ge 1500
T0=$(date +%s%N); pw_grant; T1=$(date +%s%N)
MS=$(((T1 - T0) / 1000000))
DETAIL="status $STATUS after ${MS} ms"
check "after slow fault -> fast again" test "$STATUS" = 200 -a "$MS" -lt 1500

http POST "$URL/test/fault" -d path=/token/ -d mode=truncated
pw_grant
DETAIL="status $STATUS ctype $CTYPE body $(body)"
check "fault truncated -> 200 application/json, body not valid JSON" test \
    "$STATUS|$CTYPE|$("$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$BODY" 2>/dev/null && echo valid || echo invalid)" = \
    "200|application/json|invalid"

http POST "$URL/test/fault" -d path=/token/ -d mode=truncated -d process=true
pw_grant
TRUNC="$(body)"
DETAIL="status $STATUS body $TRUNC"
check "fault truncated with process=true -> real token response cut in half" test \
    "$STATUS|${TRUNC:0:15}" = '200|{"access_token"'

http POST "$URL/test/fault" -d path=/token/ -d mode=status500 -d count=5
http POST "$URL/test/fault" -d path=/token/ -d mode=none
check "mode none clears -> armed null" test "$STATUS|$(field armed)" = "200|"
pw_grant
check "after mode none -> 200" test "$STATUS" = 200

http POST "$URL/test/fault" -d path=/userinfo/ -d mode=status500
http GET "$URL/userinfo/" -H "Authorization: Bearer x"
check "fault on another path (/userinfo/) -> 500" test "$STATUS" = 500

http POST "$URL/test/fault" -d path=/token/ -d mode=bogus
check "invalid fault mode -> 400" test "$STATUS" = 400

http GET "$URL/test/stats"
DETAIL="$(body)"
check "faulted requests are counted too" test "$(field token_requests.password)" -ge 8

# --- second server: grace period, isolation ------------------------------------------------------
start_server grace --rotate-refresh-tokens yes --reuse-protection yes --grace-period 30
URL="$URL_grace"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$STATS_RT" -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "servers are isolated: other server's refresh token unknown" test "$STATUS|$(field error)" = "400|invalid_grant"
pw_grant
G_RT1="$(field refresh_token)"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$G_RT1" -d client_id=tv-public-password
G_RT2="$(field refresh_token)"; G_AT2="$(field access_token)"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$G_RT1" -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "grace period: replay of old refresh token returns the same new pair" test \
    "$STATUS|$(field refresh_token)|$(field access_token)" = "200|$G_RT2|$G_AT2"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$G_RT2" -d client_id=tv-public-password
check "grace period: the successor still works" test "$STATUS" = 200

# --- third server: no rotation ------------------------------------------------------------------
start_server norotate --rotate-refresh-tokens no
URL="$URL_norotate"
pw_grant
N_RT="$(field refresh_token)"
http POST "$URL/token/" -d grant_type=refresh_token -d refresh_token="$N_RT" -d client_id=tv-public-password
DETAIL="status $STATUS $(body)"
check "--rotate-refresh-tokens no: same refresh token returned" test "$STATUS|$(field refresh_token)" = "200|$N_RT"

# --- fourth server: API audiences (Auth0's multi-resource refresh token), device ID tokens ------
API="https://api.example.com"
start_server audiences --api-audiences "$API" --device-id-token yes
URL="$URL_audiences"
CONF=(-u tv-confidential-password:tv-confidential-password-secret)
http POST "$URL/token/" "${CONF[@]}" -d grant_type=password -d username=testuser -d password=testpass
A_RT="$(field refresh_token)"; A_AT="$(field access_token)"
http POST "$URL/token/" "${CONF[@]}" -d grant_type=refresh_token -d refresh_token="$A_RT" -d audience="$API" -d scope=read
DETAIL="status $STATUS $(body)"
check "refresh with a known audience and scope -> 200, that scope, no id_token" test \
    "$STATUS|$(field scope)|$(field id_token)" = "200|read|"
API_AT="$(field access_token)"; A_RT2="$(field refresh_token)"
http POST "$URL/introspect/" -u "$SERVICE" -d token="$API_AT"
DETAIL="status $STATUS $(body)"
check "introspection of the API token -> aud [API], scope read" test \
    "$STATUS|$(field aud)|$(field scope)" = "200|[\"$API\"]|read"
http POST "$URL/token/" "${CONF[@]}" -d grant_type=refresh_token -d refresh_token="$A_RT2" -d audience=https://unknown.example.com
DETAIL="status $STATUS $(body)"
check "refresh with an unknown audience -> 403 access_denied" test "$STATUS|$(field error)" = "403|access_denied"
http POST "$URL/token/" "${CONF[@]}" -d grant_type=refresh_token -d refresh_token="$A_RT2"
DETAIL="status $STATUS $(body)"
check "a later plain refresh keeps the refresh token's scope, and no aud" test \
    "$STATUS|$(field scope)" = "200|openid profile email read write"
http POST "$URL/introspect/" -u "$SERVICE" -d token="$API_AT"
check "the API token outlives the later refresh" test "$STATUS|$(field active)" = "200|true"
http GET "$URL/test/stats"
check "stats count the audience" test "$(field token_audiences)" = "{\"$API\": 1}"
http POST "$URL/device-authorization/" -d client_id=tv-device -d scope="openid profile"
D_CODE="$(field device_code)"; D_USER="$(field user_code)"
http POST "$URL/test/approve-device" -d user_code="$D_USER"
http POST "$URL/token/" -d grant_type=urn:ietf:params:oauth:grant-type:device_code -d device_code="$D_CODE" -d client_id=tv-device
DETAIL="status $STATUS $(body)"
check "--device-id-token yes: the device grant returns an id_token" test -n "$(field id_token)"
D_CLAIMS="$(verify_jwt "$(field id_token)" 2>&1)"
DETAIL="$D_CLAIMS"
check "device id_token signature verifies; aud tv-device, iss, preferred_username" "$PY" -c '
import json, sys
claims = json.loads(sys.argv[1])
assert claims["aud"] == "tv-device" and claims["iss"] == sys.argv[2] and claims["preferred_username"] == "testuser"
' "$D_CLAIMS" "$URL"

# --- shutdown -------------------------------------------------------------------------------------
for name in main grace norotate audiences; do
    pid_var="PID_$name"; pid="${!pid_var:-}"
    [ -n "$pid" ] || continue
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    DETAIL="exit $rc; leftover: $(ls "$STATE_DIR" | grep "^run-$pid-" || true)"
    check "server $name exits 0 on SIGTERM and deletes its database" test \
        "$rc|$(ls "$STATE_DIR" | grep -c "^run-$pid-")" = "0|0"
done
PIDS=()

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
