#!/usr/bin/env bash
# Builds floe's libFuzzer targets and runs them for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]   # SECONDS of fuzzing per target (default 30; 0 = regressions only)
#
# Every fuzz/<name>_fuzz.cc is the target floe_<name>_fuzz (preset `fuzz`,
# clang-16, ASan+UBSan, in build-fuzz/). For each target:
#   1. it runs once over every file in tests/fuzz/<name>/ (seeds and the
#      regression files of past crashes), failing on any crash;
#   2. it fuzzes for SECONDS, with a scratch corpus in .cache/fuzz/<name>/
#      seeded from tests/fuzz/<name>/. A crash fails the script, and the
#      crashing input is left in .cache/fuzz/<name>-artifacts/.
#
# Targets are fuzzed FLOE_FUZZ_PARALLEL at a time (default: the number of
# cores; each libFuzzer process uses one), each for the full SECONDS.
#
# Environment: FLOE_JOBS=N build parallelism (default: number of cores),
# FLOE_FUZZ_PARALLEL=N targets fuzzed at the same time (default: cores).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${ROOT}"

SECONDS_PER_TARGET="${1:-30}"
if ! [[ "${SECONDS_PER_TARGET}" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [SECONDS]" >&2
  exit 2
fi
JOBS="${FLOE_JOBS:-$(nproc)}"
PARALLEL="${FLOE_FUZZ_PARALLEL:-$(nproc)}"
if ! [[ "${PARALLEL}" =~ ^[1-9][0-9]*$ ]]; then
  echo "FLOE_FUZZ_PARALLEL must be a number of targets (1 or more), not '${PARALLEL}'" >&2
  exit 2
fi
BUILD="${ROOT}/build-fuzz"

log() { printf '[fuzz] %s\n' "$*"; }

shopt -s nullglob
sources=(fuzz/*_fuzz.cc)
shopt -u nullglob
if ((${#sources[@]} == 0)); then
  log "no fuzz targets yet (fuzz/*_fuzz.cc); nothing to do"
  exit 0
fi

names=()
targets=()
for source in "${sources[@]}"; do
  base="$(basename "${source}" .cc)"   # <name>_fuzz
  names+=("${base%_fuzz}")
  targets+=("floe_${base}")
done

start=${SECONDS}
if [[ ! -f "${BUILD}/build.ninja" ]]; then
  log "configuring build-fuzz/ (fuzz preset, clang-16)"
  cmake --preset fuzz >/dev/null
fi
log "building ${targets[*]} (-j${JOBS})"
cmake --build "${BUILD}" --parallel "${JOBS}" --target "${targets[@]}"
log "built in $((SECONDS - start)) s"

# Sanitizers: stop at the first error, with a stack trace libFuzzer saves.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# fuzz_one I: the regression/seed run and then SECONDS_PER_TARGET of fuzzing of
# target I; its messages on stdout/stderr; non-zero when it failed.
fuzz_one() {
  local i="$1"
  local name="${names[$i]}"
  local binary="${BUILD}/${targets[$i]}"
  local seeds="${ROOT}/tests/fuzz/${name}"
  local corpus="${ROOT}/.cache/fuzz/${name}"
  local artifacts="${ROOT}/.cache/fuzz/${name}-artifacts"
  mkdir -p "${corpus}" "${artifacts}"
  local log_file="${artifacts}/last-run.log"

  local inputs
  shopt -s nullglob
  inputs=("${seeds}"/*)
  shopt -u nullglob
  if ((${#inputs[@]} > 0)); then
    log "${name}: running ${#inputs[@]} regression/seed files from tests/fuzz/${name}/"
    if ! "${binary}" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="${artifacts}/" "${inputs[@]}" >"${log_file}" 2>&1; then
      tail -n 40 "${log_file}" >&2
      log "${name}: FAILED on a regression/seed file (full log: ${log_file#"${ROOT}"/})" >&2
      return 1
    fi
  else
    log "${name}: no files in tests/fuzz/${name}/ yet"
  fi

  if ((SECONDS_PER_TARGET == 0)); then
    return 0
  fi
  log "${name}: fuzzing for ${SECONDS_PER_TARGET} s (corpus .cache/fuzz/${name}/)"
  local before after new runs
  before="$(ls -1 "${artifacts}" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | sort || true)"
  local dirs=("${corpus}")
  [[ -d "${seeds}" ]] && dirs+=("${seeds}")
  if "${binary}" -max_total_time="${SECONDS_PER_TARGET}" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="${artifacts}/" "${dirs[@]}" \
      >"${log_file}" 2>&1; then
    runs="$(grep -E '^stat::number_of_executed_units' "${log_file}" | awk '{print $2}' || true)"
    log "${name}: ok (${runs:-?} runs)"
    return 0
  fi
  tail -n 40 "${log_file}" >&2
  after="$(ls -1 "${artifacts}" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | sort || true)"
  new="$(comm -13 <(echo "${before}") <(echo "${after}") | head -n 1)"
  log "${name}: CRASH (full log: ${log_file#"${ROOT}"/})" >&2
  if [[ -n "${new}" ]]; then
    local rel="${artifacts#"${ROOT}"/}/${new}"
    log "${name}: the crashing input is ${rel}" >&2
    log "${name}: reproduce: ${BUILD#"${ROOT}"/}/${targets[$i]} ${rel}" >&2
    log "${name}: once fixed, keep it as a regression file:" >&2
    log "    cp ${rel} tests/fuzz/${name}/regression-<what-it-broke> && git add tests/fuzz/${name}/" >&2
  fi
  return 1
}

failed=()
if ((PARALLEL == 1)); then
  for i in "${!names[@]}"; do
    fuzz_one "${i}" || failed+=("${names[$i]}")
  done
else
  # Up to PARALLEL targets at a time (libFuzzer runs one process on one core);
  # each one's messages are printed together when it ends.
  results="$(mktemp -d)"
  trap 'rm -rf "${results}"' EXIT
  printed=()
  # print_finished: the messages of every target that has ended and was not printed yet.
  print_finished() {
    local j
    for j in "${!names[@]}"; do
      [[ -f "${results}/${j}.rc" && -z "${printed[$j]:-}" ]] || continue
      printed[j]=1
      cat "${results}/${j}.out"
      [[ "$(cat "${results}/${j}.rc")" == 0 ]] || failed+=("${names[$j]}")
    done
  }
  log "fuzzing ${#names[@]} targets, ${PARALLEL} at a time"
  running=0
  for i in "${!names[@]}"; do
    (
      rc=0
      fuzz_one "${i}" >"${results}/${i}.out" 2>&1 || rc=$?
      echo "${rc}" >"${results}/${i}.rc"
    ) &
    running=$((running + 1))
    if ((running >= PARALLEL)); then
      wait -n || true
      running=$((running - 1))
      print_finished
    fi
  done
  wait
  print_finished
fi

log "done in $((SECONDS - start)) s: ${#names[@]} targets, ${#failed[@]} failed"
if ((${#failed[@]} > 0)); then
  log "failed: ${failed[*]}" >&2
  exit 1
fi
