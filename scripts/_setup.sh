# Shared set-up for scripts/test and scripts/demo: sourced, not run.
# Creates .venv, installs ipyask with the extras named in IPYASK_EXTRAS, and (when asked) Debian's
# Chromium and the axe-core accessibility engine. Safe to run again: it skips what is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"

log() { printf '\033[1m[ipyask]\033[0m %s\n' "$*" >&2; }

ensure_venv() {
  if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating $VENV"
    "$PY" -m venv "$VENV"
  fi
  local stamp="$VENV/.ipyask-installed-${IPYASK_EXTRAS:-none}"
  if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
    log "installing ipyask[${IPYASK_EXTRAS:-}] into .venv"
    "$VENV/bin/python" -m pip install --quiet --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
    "$VENV/bin/python" -m pip install --quiet -e ".[${IPYASK_EXTRAS:-}]" 2>&1 \
      | grep -v '^WARNING: Location' || true
    "$VENV/bin/python" -c "import ipyask" || { log "installing ipyask failed"; exit 1; }
    touch "$stamp"
  fi
}

ensure_chromium() {
  if [[ -x /usr/bin/chromium ]]; then return; fi
  log "installing Debian's chromium (browser tests)"
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
}

ensure_axe() {
  local axe="$ROOT/.cache/node/node_modules/axe-core/axe.min.js"
  if [[ ! -f "$axe" ]]; then
    log "installing axe-core from npm (accessibility scans)"
    mkdir -p "$ROOT/.cache/node"
    (cd "$ROOT/.cache/node" && npm install --silent --no-save --no-audit --no-fund axe-core@4 >/dev/null)
  fi
  export IPYASK_AXE_PATH="$axe"
}
