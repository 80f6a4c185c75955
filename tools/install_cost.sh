#!/usr/bin/env bash
# What installing krein from source costs, as a user's `R CMD INSTALL` would
# pay it (issue 19, part 3): wall and CPU time, compiler memory, installed size,
# and where the bytes of krein.so are.
#
# Usage: tools/install_cost.sh [SOURCE] [RUNS]
#   SOURCE  a git revision of this repository (default HEAD; exported with
#           `git archive`, so uncommitted changes are not measured) or a
#           directory holding the package sources (copied without .o/.so files).
#   RUNS    how many installs (default 1); each starts from a fresh copy.
# Environment: MAKEFLAGS (default -j2), KEEP=1 keeps the temporary directory.
#
# The compiler is wrapped (through R_MAKEVARS_USER, so ~/.R/Makevars is not
# read) by /usr/bin/time, which logs every compile's wall time and peak
# resident memory; a sampler adds up the memory of this install's concurrent
# compiler processes (cc1plus whose working directory is the copy's src/).
# On a shared machine wall times follow the load (printed with each run); the
# CPU seconds, the memory and the sizes do not, so compare those.
set -euo pipefail

source_arg=${1:-HEAD}
runs=${2:-1}
export MAKEFLAGS=${MAKEFLAGS:--j2}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/krein-install-cost.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

cat > "$work/cxx" <<'EOF'
#!/bin/sh
# Logs "<output file> <wall s> <CPU s> <max RSS KB>" for each compiler call.
out=?; prev=
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
exec /usr/bin/time -a -o "$KREIN_COST_LOG" -f "$out %e %U %S %M" "$@"
EOF
chmod +x "$work/cxx"
cxx=$(R CMD config CXX17)
printf 'CXX17 = %s %s\n' "$work/cxx" "$cxx" > "$work/Makevars"

# Sum of RSS (KB) of cc1plus processes working in directory $1, sampled every
# 0.2 s; the maximum is written to $2 when the sampler is killed.
sample_memory() {
  local dir=$1 out=$2 peak=0 total pid rss
  trap 'echo "$peak" > "$out"; exit 0' TERM
  while :; do
    total=0
    for pid in $(pgrep -x cc1plus || true); do
      [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$dir" ] || continue
      rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
      total=$((total + ${rss:-0}))
    done
    [ "$total" -gt "$peak" ] && peak=$total
    sleep 0.2
  done
}

echo "krein install cost: source $source_arg, MAKEFLAGS=$MAKEFLAGS, $(nproc) processors, $(R --version | head -1)"
echo "CXX17FLAGS: $(R CMD config CXX17FLAGS)"
for run in $(seq "$runs"); do
  pkg="$work/run$run/krein" lib="$work/run$run/lib"
  mkdir -p "$pkg" "$lib"
  if [ -d "$source_arg" ]; then
    tar -C "$source_arg" --exclude=.git --exclude='*.o' --exclude='*.so' -cf - . | tar -C "$pkg" -xf -
  else
    git -C "$repo" archive "$source_arg" | tar -C "$pkg" -xf -
  fi
  export KREIN_COST_LOG="$work/run$run/compiles.log"
  : > "$KREIN_COST_LOG"
  sample_memory "$pkg/src" "$work/run$run/peak" &
  sampler=$!
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  R_MAKEVARS_USER="$work/Makevars" /usr/bin/time -o "$work/run$run/time" -f "%e %U %S" \
    R CMD INSTALL --no-multiarch -l "$lib" "$pkg" > "$work/run$run/install.log" 2>&1 ||
    { cat "$work/run$run/install.log"; kill "$sampler"; exit 1; }
  kill -TERM "$sampler"; wait "$sampler" || true
  read -r wall user sys < <(tail -1 "$work/run$run/time")
  so="$lib/krein/libs/krein.so"
  echo
  echo "== run $run (load average before: $load)"
  printf 'wall %s s, user %s s, sys %s s\n' "$wall" "$user" "$sys"
  printf 'compiler memory: peak of one process %s MB, peak of concurrent processes %s MB\n' \
    "$(sort -k5 -n "$KREIN_COST_LOG" | tail -1 | awk '{printf "%.0f", $5/1024}')" \
    "$(awk '{printf "%.0f", $1/1024}' "$work/run$run/peak")"
  printf 'installed: %s MB (package), %s MB (krein.so)\n' \
    "$(du -sk "$lib/krein" | awk '{printf "%.1f", $1/1024}')" "$(du -k "$so" | awk '{printf "%.1f", $1/1024}')"
  size -A "$so" | awk '
    $1 ~ /^\.debug/ {debug += $2} $1 == ".text" {text = $2}
    $1 ~ /^\./ && $1 !~ /^\.debug/ {other += $2}
    END {printf "krein.so sections: .text %.1f MB, all non-debug %.1f MB, .debug_* %.1f MB\n",
         text/2^20, other/2^20, debug/2^20}'
  echo "per compiler call: output, wall s, CPU s, max RSS MB, file MB, .debug_info MB, .debug_str MB"
  echo "  (the linker merges equal strings across objects, not the rest of the debug information)"
  while read -r out secs user sys kb; do
    case "$out" in */*) continue ;; esac  # configure's probes of the compiler
    f="$pkg/src/$out"
    [ "$out" = krein.so ] && f=$so
    if [ -f "$f" ]; then
      sizes=$(size -A "$f" | awk '$1 == ".debug_info" {i = $2} $1 == ".debug_str" {s = $2}
        END {printf "%.1f %.1f", i/2^20, s/2^20}')
      mb=$(du -k "$f" | awk '{printf "%.1f", $1/1024}')
    else
      sizes="? ?" mb="?"
    fi
    # shellcheck disable=SC2086
    printf '  %-22s %7s %7.1f %6d %7s %6s %6s\n' "$out" "$secs" "$(echo "$user $sys" | awk '{print $1 + $2}')" \
      "$((kb / 1024))" "$mb" $sizes
  done < "$KREIN_COST_LOG"
done
