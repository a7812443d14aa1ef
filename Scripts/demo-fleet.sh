#!/usr/bin/env bash
# make demo-fleet: three replicas (three tokenvault processes, as three app replicas would run)
# share one credential in a vault on a throwaway local PostgreSQL server, and refreshing it from
# all three at once makes exactly one refresh request to the authorization server.
# Everything lives in a temporary folder; both servers are stopped by their own PIDs.
set -euo pipefail
umask 077  # the secret files below must be private, or tokenvault (and libpq) refuse them
cd "$(dirname "$0")/.."
TOKENVAULT="$(swift build --show-bin-path)/tokenvault"
STATE=.build/auth-server
DEMO="$(mktemp -d "${TMPDIR:-/tmp}/tokenvault-demo-fleet.XXXXXX")"
# For the demo only: a passphrase in the environment is weaker than a prompt or a file.
export TOKENVAULT_PASSPHRASE="demo passphrase, not a real one"

step() { printf '\n==> %s\n' "$*"; }
run() { printf '$ tokenvault %s\n' "$*" >&2; "$TOKENVAULT" "$@"; }
die() { echo "demo-fleet: $*" >&2; exit 1; }

# Both servers are stopped by their own PIDs however the script ends, from the first one started.
PG_PID="" SERVER_PID="" PGDIR="$DEMO/postgres"
finished=no
stop_servers() {
  [ -z "$SERVER_PID" ] || kill "$SERVER_PID" 2>/dev/null || true
  # SIGINT is PostgreSQL's fast shutdown; the postmaster's PID is in the first line of postmaster.pid.
  local postmaster
  postmaster="$(head -n 1 "$PGDIR/data/postmaster.pid" 2>/dev/null || echo "$PG_PID")"
  [ -z "$postmaster" ] || kill -INT "$postmaster" 2>/dev/null || true
  [ -z "$SERVER_PID" ] || wait "$SERVER_PID" 2>/dev/null || true
  [ -z "$PG_PID" ] || wait "$PG_PID" 2>/dev/null || true
  # The vault lived in the stopped cluster: nothing here is worth keeping after a good run, or
  # before initdb wrote its log.
  if [ "$finished" = yes ] || [ ! -e "$PGDIR/initdb.log" ]; then
    rm -rf "$DEMO"
  else
    echo "demo-fleet: logs kept in $DEMO" >&2
  fi
}
trap stop_servers EXIT
trap 'exit 130' INT  # stop at once on Ctrl-C (the EXIT trap still runs), not at the next failing step
trap 'exit 143' TERM

# --- PostgreSQL: a fresh cluster in $DEMO/postgres, as the Swift tests start one ---------------
PGBIN="$(pg_config --bindir 2>/dev/null || true)"
if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/postgres" ]; then
  PGBIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
fi
[ -n "$PGBIN" ] && [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/postgres" ] \
  || die "PostgreSQL is not installed: no initdb and postgres in \`pg_config --bindir\` or /usr/lib/postgresql/*/bin (\`make deps\` installs the postgresql package)"
mkdir -m 700 "$PGDIR" "$PGDIR/socket"
as_server=()  # PostgreSQL refuses to run as root: then it runs as the postgres account
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || die "running as root, PostgreSQL refuses to, and there is no postgres user to run it as"
  # setpriv executes the program in its own process, so $! below is the postmaster's PID.
  as_server=(setpriv --reuid=postgres --regid=postgres --clear-groups --)
  chmod 711 "$DEMO"  # the postgres account may pass through, not list; every file here is 0600
  chown postgres: "$PGDIR" "$PGDIR/socket"
fi
PGUSER_NAME=tokenvault
PGPASSWORD_VALUE="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$PGPASSWORD_VALUE" >"$PGDIR/pwfile"
[ ${#as_server[@]} -eq 0 ] || chown postgres: "$PGDIR/pwfile"
(cd "$PGDIR" && "${as_server[@]}" "$PGBIN/initdb" --pgdata="$PGDIR/data" --username="$PGUSER_NAME" \
  --pwfile="$PGDIR/pwfile" --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C \
  --no-instructions >"$PGDIR/initdb.log" 2>&1) || die "initdb failed; see $PGDIR/initdb.log"
rm -f "$PGDIR/pwfile"
PGPORT_NUMBER="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$PGDIR" && exec "${as_server[@]}" "$PGBIN/postgres" -D "$PGDIR/data" -p "$PGPORT_NUMBER" \
  -c listen_addresses=127.0.0.1 -c unix_socket_directories="$PGDIR/socket" -c logging_collector=off \
  </dev/null >"$PGDIR/server.log" 2>&1) &
PG_PID=$!

# The authorization server: access tokens live 310 s. `tokenvault token` refreshes a token that
# expires within 300 s, so the demo waits 11 s for that; a refreshed token (310 s again) is outside
# the window, so a replica that comes second takes it instead of refreshing again. The refresh
# token rotates on every refresh, and reuse protection revokes its whole family on a replay: a
# second refresh with the same refresh token would break the credential for every replica.
Tests/AuthorizationServer/setup.sh "$STATE" >/dev/null
server_out="$DEMO/server.out"
.venv/bin/python Tests/AuthorizationServer/serve.py --state "$STATE" --access-token-lifetime 310 \
  --rotate-refresh-tokens yes --reuse-protection yes >"$server_out" 2>"$DEMO/server.log" &
SERVER_PID=$!


for _ in $(seq 100); do grep -q READY "$server_out" 2>/dev/null && break; sleep 0.1; done
ISSUER="$(awk '/READY/ {print $2}' "$server_out")"
[ -n "$ISSUER" ] || die "the authorization server did not start; see $DEMO/server.log"
for _ in $(seq 300); do
  kill -0 "$PG_PID" 2>/dev/null || die "postgres did not start; see $PGDIR/server.log"
  "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT_NUMBER" && break
  sleep 0.1
done
"$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT_NUMBER" || die "postgres is not ready; see $PGDIR/server.log"

# Clients read the password from a password file (libpq's PGPASSFILE), so it is on no command line.
export PGPASSFILE="$DEMO/pgpass"
printf '127.0.0.1:%s:*:%s:%s\n' "$PGPORT_NUMBER" "$PGUSER_NAME" "$PGPASSWORD_VALUE" >"$PGPASSFILE"
unset PGPASSWORD_VALUE
"$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PGPORT_NUMBER" -U "$PGUSER_NAME" -d postgres \
  -c 'CREATE DATABASE vaults' || die "cannot create the database; see $PGDIR/server.log"
# Every tokenvault command below (every replica) uses the vault in that database, as --vault would.
export TOKENVAULT_PATH="postgresql://$PGUSER_NAME@127.0.0.1:$PGPORT_NUMBER/vaults"
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') at 127.0.0.1:$PGPORT_NUMBER (pid $PG_PID), data in $PGDIR"
echo "Local authorization server at $ISSUER (pid $SERVER_PID)"
echo "TOKENVAULT_PATH=$TOKENVAULT_PATH (the password is in $PGPASSFILE)"

stats() { curl -fsS "$ISSUER/test/stats"; }
printf 'tv-confidential-password-secret' >"$DEMO/client-secret"
printf 'testpass' >"$DEMO/user-password"
# Each replica has a data folder of its own, as on its own host; the vault is the shared database.
replica() { XDG_DATA_HOME="$DEMO/replica-$1" "$TOKENVAULT" "${@:2}"; }
mkdir "$DEMO/replica-1" "$DEMO/replica-2" "$DEMO/replica-3"
export XDG_DATA_HOME="$DEMO/replica-1"

step "Create the vault in PostgreSQL (Argon2id INTERACTIVE for the demo)"
run init --kdf interactive
step "Sign in once with the password grant and store the token in the shared vault"
ID="$(run login --issuer "$ISSUER" --client-id tv-confidential-password \
    --client-secret-file "$DEMO/client-secret" --grant password --username testuser \
    --password-file "$DEMO/user-password" --scope "openid profile email" --tag account=fleet | tail -n 1)"
echo "$ID"
step "List the stored tokens (no secrets)"
run list
step "Wait 11 s: the access token (310 s) then expires within tokenvault token's 300 s refresh window"
run show "$ID" | grep '^expiresAt'
sleep 11

step "Three replicas ask for the access token at once (tokenvault token in three processes)"
curl -fsS -X POST "$ISSUER/test/reset" >/dev/null
# The server holds the refresh answer for 2 s, so the other replicas arrive while it is in flight.
curl -fsS -X POST -H 'Content-Type: application/json' \
  -d '{"path": "/token/", "mode": "slow", "seconds": 2, "count": 1}' "$ISSUER/test/fault" >/dev/null
echo "(the authorization server answers the next token request after 2 s)"
pids=()
for n in 1 2 3; do
  printf '$ tokenvault token %s &   # replica %s\n' "$ID" "$n"
  (
    start=$EPOCHREALTIME
    status=0
    replica "$n" token "$ID" >"$DEMO/replica-$n.out" 2>"$DEMO/replica-$n.err" || status=$?
    echo "$status $start $EPOCHREALTIME" >"$DEMO/replica-$n.status"
  ) &
  pids+=($!)
done
wait "${pids[@]}"
failed=0
for n in 1 2 3; do
  read -r status start end <"$DEMO/replica-$n.status"
  printf 'replica %s: exit %s after %s s: %s\n' "$n" "$status" "$(awk "BEGIN {printf \"%.1f\", $end - $start}")" \
    "$(sed -E 's/^(.{6}).*/\1... (shortened for the demo)/' "$DEMO/replica-$n.out")"
  if [ "$status" != 0 ]; then failed=1; sed 's/^/    /' "$DEMO/replica-$n.err"; fi
done
[ "$failed" = 0 ] || die "a replica failed"
[ "$(sort -u "$DEMO"/replica-[123].out | wc -l)" = 1 ] || die "the replicas printed different access tokens"
echo "All three print the same access token, refreshed and stored in the shared vault:"
run show "$ID" | grep '^expiresAt'

step "Count the refresh requests the authorization server received (GET /test/stats)"
refreshes="$(stats | python3 -c 'import json, sys; print(json.load(sys.stdin)["token_requests"].get("refresh_token", 0))')"
echo "token_requests.refresh_token = $refreshes"
[ "$refreshes" = 1 ] || die "expected exactly 1 refresh request from the three replicas, the server got $refreshes"
echo "Exactly one refresh: one replica held the refresh lease in the shared vault; the others woke when its new token committed and read it."

step "Check the integrity of every record"
run verify
step "Done: both servers stop now, and $DEMO (the cluster with the vault) is removed"
finished=yes
