#!/usr/bin/env bash
# Prepare the TokenVault test authorization server.
#
#   Tests/AuthorizationServer/setup.sh STATE_DIR
#
# Idempotent and fast once done (~0.1 s):
#   * <repo>/.venv: created if missing; requirements.txt pip-installed unless
#     the stamp .venv/.tokenvault-requirements.sha256 matches.
#   * STATE_DIR/oidc_rsa_private_key.pem: 2048-bit RSA key, generated once.
#   * STATE_DIR/template.sqlite3: migrated + seeded database, rebuilt only
#     when requirements.txt or the server's Python sources change
#     (STATE_DIR/template.stamp).
# Concurrent runs are serialised with flock. On failure: one line on stderr
# starting with "auth-server:" and a non-zero exit; details in STATE_DIR/setup.log.
set -euo pipefail

die() {
    echo "auth-server: $*" >&2
    exit 1
}

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $0 STATE_DIR"

HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="$REPO/.venv"
REQUIREMENTS="$HERE/requirements.txt"

mkdir -p "$1" || die "cannot create state directory $1"
STATE_DIR="$(cd "$1" && pwd)"
LOG="$STATE_DIR/setup.log"

sha256() { sha256sum "$@" | awk '{print $1}'; }

lock() { # lock FILE FD
    if command -v flock >/dev/null 2>&1; then
        eval "exec $2>\"\$1\""
        flock "$2"
    fi
}

# --- Python + virtualenv -------------------------------------------------------
find_python() {
    local candidate
    for candidate in ${PYTHON:-} python3.11 python3.12 python3.13 python3.10 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
            "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

mkdir -p "$VENV" || die "cannot create $VENV"
lock "$VENV/.tokenvault-setup.lock" 8

if ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    PY="$(find_python)" || die "Python >= 3.10 not found (set PYTHON=/path/to/python3)"
    "$PY" -m venv "$VENV" >"$LOG" 2>&1 || die "cannot create virtualenv $VENV with $PY (python3-venv missing?)"
fi

REQ_HASH="$(cat "$REQUIREMENTS" <("$VENV/bin/python" -c 'import sys; print(sys.version)') | sha256)"
REQ_STAMP="$VENV/.tokenvault-requirements.sha256"
if [ "$(cat "$REQ_STAMP" 2>/dev/null || true)" != "$REQ_HASH" ]; then
    if ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
        --timeout 15 --retries 1 -r "$REQUIREMENTS" >"$LOG" 2>&1; then
        die "cannot install Python packages (no network to PyPI?)"
    fi
    echo "$REQ_HASH" >"$REQ_STAMP"
fi
exec 8>&- # release the venv lock

# --- State directory ---------------------------------------------------------------
lock "$STATE_DIR/.setup.lock" 9
PY="$VENV/bin/python"

KEY="$STATE_DIR/oidc_rsa_private_key.pem"
if [ ! -s "$KEY" ]; then
    "$PY" - "$KEY" >>"$LOG" 2>&1 <<'EOF' || die "cannot generate the OIDC RSA key"
import os, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

path = sys.argv[1]
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
pem = key.private_bytes(
    serialization.Encoding.PEM,
    serialization.PrivateFormat.PKCS8,
    serialization.NoEncryption(),
)
tmp = path + ".tmp"
fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "wb") as f:
    f.write(pem)
os.replace(tmp, path)
EOF
fi

TEMPLATE="$STATE_DIR/template.sqlite3"
TEMPLATE_STAMP="$STATE_DIR/template.stamp"
TEMPLATE_HASH="$(
    cd "$HERE"
    find authserver testhooks -type f \( -name '*.py' -o -name '*.html' \) -not -path '*/__pycache__/*' |
        LC_ALL=C sort | xargs sha256sum | cat - "$REQUIREMENTS" | sha256
)"
if [ ! -s "$TEMPLATE" ] || [ "$(cat "$TEMPLATE_STAMP" 2>/dev/null || true)" != "$TEMPLATE_HASH" ]; then
    TMP_DB="$STATE_DIR/template.building.sqlite3"
    rm -f "$TMP_DB" "$TMP_DB-wal" "$TMP_DB-shm" "$TMP_DB-journal"
    export TVAUTH_STATE_DIR="$STATE_DIR" TVAUTH_DB="$TMP_DB" DJANGO_SETTINGS_MODULE=authserver.settings
    {
        "$PY" "$HERE/manage.py" migrate --noinput -v 0 &&
            "$PY" "$HERE/manage.py" seed_testdata -v 0 &&
            "$PY" - "$TMP_DB" <<'EOF'
import sqlite3, sys
# Fold the WAL back into the main file so a plain file copy is complete.
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
db.execute("PRAGMA journal_mode=DELETE")
db.close()
EOF
    } >>"$LOG" 2>&1 || die "cannot build the template database (see $LOG)"
    mv -f "$TMP_DB" "$TEMPLATE"
    rm -f "$TMP_DB-wal" "$TMP_DB-shm"
    echo "$TEMPLATE_HASH" >"$TEMPLATE_STAMP"
fi

echo "auth-server: ready in $STATE_DIR"
