#!/usr/bin/env bash
# Installs what floe needs and builds it. Idempotent; runs as root with no
# standard input (CI=true works).
#
#   scripts/setup.sh            # packages, Python test peers, release build at build/floe
#
# Environment:
#   FLOE_SETUP_SKIP_BUILD=1     stop after installing (scripts/test.sh builds as its own phase)
#   FLOE_SETUP_SKIP_JAVA_PEER=1 do not build the Iceberg Java test peer
#   FLOE_JOBS=N                 build parallelism (default: number of cores)
#
# 1. Debian packages (docs/dependencies.md says why each): installed only when
#    `dpkg -s` says one is missing, after a single `apt-get update`.
# 2. Python test peers (tests/interop/requirements.txt) into .cache/venv,
#    skipped when the stamp file holds the requirements' hash.
# 3. The Iceberg Java test peer (scripts/java-peer.sh, cached in .cache/java-peer).
# 4. `cmake --preset release` and a build of build/ (the CLI lands at build/floe).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

log() { printf '[setup] %s\n' "$*"; }

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libmariadb-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libjemalloc-dev
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libspdlog-dev libcli11-dev
  libsqlite3-dev libcurl4-openssl-dev libssl-dev libcpp-httplib-dev libxxhash-dev libroaring-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  librdkafka-dev libpq-dev
  ccache clang-16 libclang-rt-16-dev clang-format
  mariadb-server postgresql-15
  python3 python3-venv python3-pip
)

install_packages() {
  # One dpkg query for all (like `dpkg -s`, without a process per package).
  local installed missing=() pkg
  installed="$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null |
    awk '$2 == "ii" {print $1}' || true)"
  for pkg in "${PACKAGES[@]}"; do
    if ! grep -qxF "${pkg}" <<<"${installed}"; then
      missing+=("${pkg}")
    fi
  done
  if ((${#missing[@]} == 0)); then
    log "Debian packages: all ${#PACKAGES[@]} present"
    return 0
  fi
  log "Debian packages: installing ${missing[*]}"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo -n)
    else
      log "not root and no sudo: install these packages first: ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" apt-get update -qq </dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" </dev/null
}

# Downloads are kept outside the checkout, in FLOE_CACHE (default
# ~/.cache/floe), so a fresh clone on the same machine (CI) reuses them;
# .cache/venv in the checkout is a link to the shared venv.
SHARED_CACHE="${FLOE_CACHE:-${HOME}/.cache/floe}"
VENV="${ROOT}/.cache/venv"
REQUIREMENTS="${ROOT}/tests/interop/requirements.txt"
STAMP="${VENV}/.floe-requirements.sha256"

install_python_peers() {
  mkdir -p "${ROOT}/.cache" "${SHARED_CACHE}"
  if [[ ! -L "${VENV}" && ! -e "${VENV}" ]]; then
    ln -s "${SHARED_CACHE}/venv" "${VENV}"
  fi
  if [[ ! -x "${VENV}/bin/python" ]]; then
    log "Python venv: creating ${SHARED_CACHE}/venv"
    python3 -m venv "${SHARED_CACHE}/venv"
  fi
  local want have=""
  want="$(sha256sum "${REQUIREMENTS}" | cut -d' ' -f1)"
  [[ -f "${STAMP}" ]] && have="$(cat "${STAMP}")"
  if [[ "${want}" == "${have}" ]]; then
    log "Python test peers: up to date (.cache/venv)"
    return 0
  fi
  log "Python test peers: installing tests/interop/requirements.txt into .cache/venv"
  "${VENV}/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "${REQUIREMENTS}" </dev/null
  echo "${want}" >"${STAMP}"
}

build() {
  local jobs="${FLOE_JOBS:-$(nproc)}"
  if [[ ! -f "${ROOT}/build/build.ninja" ]]; then
    log "configuring build/ (release preset)"
    cmake --preset release >/dev/null
  fi
  log "building build/ (-j${jobs})"
  # Ninja re-runs CMake by itself when a CMakeLists.txt changed.
  cmake --build "${ROOT}/build" --parallel "${jobs}"
  log "CLI at build/floe"
}

# The Iceberg Java peer of the interop tests (tests/interop/iceberg/): Maven
# builds tests/interop/java once into .cache/java-peer (its repository is
# .cache/maven); later runs only compare a hash stamp (scripts/java-peer.sh).
install_java_peer() {
  if [[ "${FLOE_SETUP_SKIP_JAVA_PEER:-0}" == 1 ]]; then
    log "Iceberg Java peer: skipped (FLOE_SETUP_SKIP_JAVA_PEER=1)"
    return 0
  fi
  local java_peer_start=${SECONDS}
  "${ROOT}/scripts/java-peer.sh"
  log "Iceberg Java peer: ready in $((SECONDS - java_peer_start)) s"
}

start=${SECONDS}
install_packages
install_python_peers
install_java_peer
if [[ "${FLOE_SETUP_SKIP_BUILD:-0}" != 1 ]]; then
  build
fi
log "done in $((SECONDS - start)) s"
