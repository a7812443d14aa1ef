#!/usr/bin/env bash
# make demo: the CLI end to end against the local test authorization server, printing each step.
# Everything lives in a temporary XDG data directory; the server is stopped by its own PID.
set -euo pipefail
umask 077  # the secret files below must be private, or tokenvault refuses them
cd "$(dirname "$0")/.."
TOKENVAULT="$(swift build --show-bin-path)/tokenvault"
STATE=.build/auth-server
DEMO="$(mktemp -d "${TMPDIR:-/tmp}/tokenvault-demo.XXXXXX")"
export XDG_DATA_HOME="$DEMO/data"
# For the demo only: a passphrase in the environment is weaker than a prompt or a file.
export TOKENVAULT_PASSPHRASE="demo passphrase, not a real one"

step() { printf '\n==> %s\n' "$*"; }
run() { printf '$ tokenvault %s\n' "$*" >&2; "$TOKENVAULT" "$@"; }

Tests/AuthorizationServer/setup.sh "$STATE" >/dev/null
server_out="$DEMO/server.out"
.venv/bin/python Tests/AuthorizationServer/serve.py --state "$STATE" --access-token-lifetime 60 >"$server_out" 2>"$DEMO/server.log" &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q READY "$server_out" 2>/dev/null && break; sleep 0.1; done
ISSUER="$(awk '/READY/ {print $2}' "$server_out")"
[ -n "$ISSUER" ] || { echo "the authorization server did not start; see $DEMO/server.log" >&2; exit 1; }
echo "Local authorization server at $ISSUER (pid $SERVER_PID); vault under $XDG_DATA_HOME"
printf 'tv-confidential-password-secret' >"$DEMO/client-secret"
printf 'testpass' >"$DEMO/user-password"

step "Create the vault (Argon2id INTERACTIVE for the demo)"
run init --kdf interactive
step "Sign in with the password grant and store the token"
ID="$(run login --issuer "$ISSUER" --client-id tv-confidential-password --client-secret-file "$DEMO/client-secret" \
    --grant password --username testuser --password-file "$DEMO/user-password" --scope "openid profile email" \
    --tag account=demo | tail -n 1)"
echo "$ID"
step "List the stored tokens (no secrets)"
run list
step "Print a fresh access token (as in: curl -H \"Authorization: Bearer \$(tokenvault token)\")"
run token | sed -E 's/^(.{6}).*/\1... (shortened for the demo)/'
step "Refresh it now"
run refresh "$ID"
step "Store an API key in the secret store and read it back"
printf 'sk_demo_123' | run secret set payments-api-key
run secret list
step "Check the integrity of every record"
run verify
step "Revoke the token at the server (RFC 7009) and remove it"
run revoke "$ID"
run list
step "Done: the demo vault is at $XDG_DATA_HOME/tokenvault/vault.db"
