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
  copy_labextension
}

# The editable install copies the JupyterLab extension's build into the venv when it installs;
# it is copied again here (and by scripts/build-widget after each build), so JupyterLab loads the
# current build. A copy, not a link: Voila's server refuses files linked from elsewhere.
LABEXTENSION="$ROOT/src/ipyask/labextension"
copy_labextension() {
  local target="$VENV/share/jupyter/labextensions/ipyask"
  if [[ ! -L "$target" && -f "$target/package.json" ]] && diff -rq "$LABEXTENSION" "$target" -x install.json >/dev/null; then
    return
  fi
  mkdir -p "$(dirname "$target")"
  rm -rf "$target"
  cp -r "$LABEXTENSION" "$target"
  cp "$ROOT/lab/install.json" "$target/"
}

# The docs site is built in a venv of its own: the docs extra's mkdocs-jupyter brings jupytext,
# whose JupyterLab extension would load (and fail) in the test venv's Voila and JupyterLab.
DOCS_VENV="$ROOT/.cache/venvs/docs"
ensure_docs_venv() {
  if [[ ! -x "$DOCS_VENV/bin/python" ]]; then
    log "creating $DOCS_VENV (the docs site's tools)"
    "$PY" -m venv "$DOCS_VENV"
  fi
  local stamp="$DOCS_VENV/.ipyask-installed-docs"
  if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
    log "installing ipyask[docs] into $DOCS_VENV"
    "$DOCS_VENV/bin/python" -m pip install --quiet -e ".[docs]" 2>&1 \
      | grep -v '^WARNING: Location' || true
    "$DOCS_VENV/bin/python" -c "import mkdocs_jupyter" || { log "installing the docs tools failed"; exit 1; }
    touch "$stamp"
  fi
}

ensure_chromium() {
  # Chromium for the browser tests; a CJK font so Chinese card screenshots show text.
  if [[ -x /usr/bin/chromium && -d /usr/share/fonts/truetype/wqy ]]; then return; fi
  log "installing Debian's chromium and fonts-wqy-zenhei (browser tests)"
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-wqy-zenhei >/dev/null
}

# esbuild is pinned to one release: the check that the shipped widget bundle is the build of its
# sources compares text, and esbuild (still 0.x) may print code differently from one release to
# the next. Bump it here and run scripts/build-widget in the same commit.
ESBUILD_VERSION=0.28.2
ensure_postgres() {
  # Debian's PostgreSQL server for the PostgreSQL store tests (each run starts a throw-away
  # cluster in a temp folder through ipyask.testing.throwaway_postgres; nothing else is used).
  if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then return; fi
  log "installing Debian's postgresql (PostgreSQL store tests)"
  local sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
}

ensure_node_tools() {
  # axe-core (accessibility scans in the browser tests), TypeScript (type-checks the widget's
  # sources) and esbuild (bundles them into the one ESM the wheel ships).
  local dir="$ROOT/.cache/node"
  if [[ ! -f "$dir/node_modules/axe-core/axe.min.js" || ! -x "$dir/node_modules/.bin/tsc" \
        || "$("$dir/node_modules/.bin/esbuild" --version 2>/dev/null)" != "$ESBUILD_VERSION" ]]; then
    log "installing axe-core, typescript and esbuild from npm into .cache/node"
    mkdir -p "$dir"
    (cd "$dir" && npm install --silent --no-save --no-audit --no-fund \
      axe-core@4 typescript@5 "esbuild@$ESBUILD_VERSION" >/dev/null)
  fi
  export IPYASK_AXE_PATH="$dir/node_modules/axe-core/axe.min.js"
  TSC="$dir/node_modules/.bin/tsc"
  ESBUILD="$dir/node_modules/.bin/esbuild"
}

# The JupyterLab extension's build tools (@jupyterlab/builder, and JupyterLab's packages it
# builds against), as lab/package-lock.json pins them, in .cache/node/lab; lab/node_modules links
# there, as the builder resolves packages from the extension's folder. Only scripts/build-widget
# needs them (not the tests: the build is committed).
LAB_NODE="$ROOT/.cache/node/lab"
ensure_lab_tools() {
  if ! cmp -s "$ROOT/lab/package-lock.json" "$LAB_NODE/package-lock.json" \
      || [[ ! -f "$LAB_NODE/node_modules/@jupyterlab/builder/package.json" ]]; then
    log "installing @jupyterlab/builder and JupyterLab's packages from npm into .cache/node/lab"
    mkdir -p "$LAB_NODE"
    cp "$ROOT/lab/package.json" "$ROOT/lab/package-lock.json" "$LAB_NODE/"
    (cd "$LAB_NODE" && npm ci --silent --no-audit --no-fund --ignore-scripts >/dev/null)
  fi
  if [[ ! -e "$ROOT/lab/node_modules" || -L "$ROOT/lab/node_modules" ]]; then
    ln -sfn ../.cache/node/lab/node_modules "$ROOT/lab/node_modules"
  fi
}
