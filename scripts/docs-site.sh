#!/usr/bin/env bash
# The documentation site (MkDocs with the Material theme), from docs/ and the README's sections.
#
#   scripts/docs-site.sh build         # stage target/site-docs, build target/site (strict: broken links fail)
#   scripts/docs-site.sh check         # build, then check every internal link and anchor of the HTML
#   scripts/docs-site.sh screenshots   # build, then headless Chromium shoots the home page and one page
#                                      # per section into target/site-screenshots/
#   scripts/docs-site.sh serve         # build, then preview on http://127.0.0.1:8000
#
# Installs the Debian packages mkdocs and mkdocs-material (and chromium for screenshots) when they are
# missing and the script runs as root. Needs no network otherwise: the link check reads the built files.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

# Debian's mkdocs runs on the system Python, where Debian's theme is; another python3 on the PATH may lack it.
MKDOCS=/usr/bin/mkdocs
PYTHON=/usr/bin/python3

install_packages() { # packages...
  if ! command -v apt-get >/dev/null || ! as_root true 2>/dev/null; then
    echo "Missing $*; install these Debian packages and run again." >&2
    exit 1
  fi
  log "installing $*"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

ensure_mkdocs() {
  local missing=()
  [ -x "$MKDOCS" ] || missing+=(mkdocs)
  [ -d /usr/share/mkdocs/themes/material ] || missing+=(mkdocs-material)
  [ ${#missing[@]} -eq 0 ] || install_packages "${missing[@]}"
}

build() {
  ensure_mkdocs
  log "staging docs/ and the README's sections into target/site-docs"
  "$PYTHON" scripts/docs_site.py stage target/site-docs
  log "building target/site"
  rm -rf target/site
  "$MKDOCS" build --strict --quiet --config-file mkdocs.yml
}

check() {
  log "checking the internal links and anchors of target/site"
  "$PYTHON" scripts/docs_site.py check target/site
}

# The home page, then the first page of each section of the navigation and a few more.
SCREENSHOT_PAGES=(index getting-started testing backends/index backends/redis contract fencing operations telemetry
  compatibility glossary)

screenshots() {
  command -v chromium >/dev/null || install_packages chromium
  local out=target/site-screenshots port
  rm -rf "$out" && mkdir -p "$out"
  # A loopback HTTP server rather than file://, so the theme's scripts run as on a web server.
  port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$PYTHON" -m http.server "$port" --bind 127.0.0.1 --directory target/site >/dev/null 2>&1 &
  SERVER_PID=$!
  trap 'kill "$SERVER_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 50); do
    "$PYTHON" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.html')" 2>/dev/null && break
    sleep 0.1
  done
  local page file
  for page in "${SCREENSHOT_PAGES[@]}"; do
    file="$out/${page//\//-}.png"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1000 \
      --user-data-dir="$(mktemp -d)" --screenshot="$file" "http://127.0.0.1:$port/$page.html" >/dev/null 2>&1
    [ -s "$file" ] || { echo "No screenshot of $page" >&2; exit 1; }
  done
  kill "$SERVER_PID" 2>/dev/null || true
  log "$(ls "$out" | wc -l) screenshots in $out"
}

case "${1:-build}" in
  build) build ;;
  check) build && check ;;
  screenshots) build && screenshots ;;
  serve) build && "$PYTHON" -m http.server 8000 --bind 127.0.0.1 --directory target/site ;;
  *) echo "usage: $0 build|check|screenshots|serve" >&2; exit 2 ;;
esac
