#!/usr/bin/env bash
# The README's second command (`Rscript tools/check.R`) as a new user runs it
# on a fresh machine: from a clean copy of this checkout (its tracked and
# untracked, not ignored files, without build products), with an EMPTY
# temporary package library and no site library, so that every dependency
# comes from the current release in the user's repositories (CRAN by default).
#
# Usage, from anywhere in the checkout:
#   tools/fresh_check.sh [reference|openblas] [--full] [--library DIR] [--system-wide]
#
#   --full          the full tier (`Rscript tools/check.R --full`): every
#                   suggested package installed and every test run. Without it,
#                   the default tier (`Rscript tools/check.R`).
#   reference|openblas  the BLAS and LAPACK R uses for the run, chosen with
#                   update-alternatives (libblas.so.3-x86_64-linux-gnu and
#                   liblapack.so.3-x86_64-linux-gnu; Debian and Ubuntu). openblas
#                   installs libopenblas0-pthread with apt-get if it is missing
#                   (needs root). Without it, the BLAS in use now.
#   --library DIR   reuse the package library of an earlier fresh run (its path
#                   is printed at the end) instead of a new empty one, so that a
#                   second BLAS does not install everything again. Without it the
#                   run starts from an empty library, created under $TMPDIR and
#                   kept for reuse.
#   --system-wide   switch the BLAS for the whole machine during the run. By
#                   default, where `unshare --mount` works (root on Linux), the
#                   switch is made in a private mount namespace (private copies
#                   of /etc/alternatives and of dpkg's alternatives database), so
#                   other processes on the machine keep their BLAS.
# Either way the previous choice is restored on exit.
#
# The output of tools/check.R is shown as it runs; the last lines repeat the
# tier, the BLAS used, the phase times (installs, build, check and its steps,
# core tests), the duration and the tally "N passed, N failed, N skipped".
# The exit status is tools/check.R's.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

arguments=("$@")
blas=""
library=""
tier_args=()
system_wide=0
while [ $# -gt 0 ]; do
  case $1 in
    reference|openblas) blas=$1 ;;
    --full) tier_args=(--full) ;;
    --library) [ $# -ge 2 ] || { echo "--library needs a directory." >&2; exit 2; }
               library=$2; shift ;;
    --library=*) library=${1#--library=} ;;
    --system-wide) system_wide=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "Unknown argument '$1'." >&2; usage >&2; exit 2 ;;
  esac
  shift
done

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
arch=x86_64-linux-gnu
alternatives=("libblas.so.3-$arch" "liblapack.so.3-$arch")
declare -A blas_dir=([reference]=blas [openblas]=openblas-pthread)
declare -A lapack_dir=([reference]=lapack [openblas]=openblas-pthread)

# --- the BLAS switch ---------------------------------------------------------
if [ -n "$blas" ] && [ -z "${KREIN_FRESH_INNER:-}" ]; then
  command -v update-alternatives > /dev/null || {
    echo "update-alternatives not found: cannot choose the BLAS here." >&2; exit 2; }
  if [ "$blas" = openblas ] && [ ! -e "/usr/lib/$arch/openblas-pthread/libblas.so.3" ]; then
    # Installing it registers alternatives of higher priority, which would
    # switch a machine in auto mode at once: pin the current choice first.
    for name in "${alternatives[@]}"; do
      current=$(update-alternatives --query "$name" | sed -n 's/^Value: //p')
      update-alternatives --set "$name" "$current" > /dev/null
    done
    echo "== Installing libopenblas0-pthread"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q libopenblas0-pthread > /dev/null
  fi
  if [ "$system_wide" = 0 ] && unshare --mount --propagation private true 2> /dev/null; then
    # Re-run this script in a private mount namespace, where /etc/alternatives
    # and dpkg's alternatives database are private copies.
    exec unshare --mount --propagation private env KREIN_FRESH_INNER=1 bash -c '
      set -e
      copies=$(mktemp -d "${TMPDIR:-/tmp}/krein-fresh-alternatives.XXXXXX")
      trap "rm -rf \"$copies\"" EXIT
      for dir in /etc/alternatives /var/lib/dpkg/alternatives; do
        mkdir -p "$copies$dir"
        cp -a "$dir/." "$copies$dir/"
        mount --bind "$copies$dir" "$dir"
      done
      "$0" "$@"' "$0" "${arguments[@]}"
  fi
fi

restore_commands=()
restore_blas() {
  local command
  for command in "${restore_commands[@]+"${restore_commands[@]}"}"; do eval "$command" > /dev/null || true; done
}
cleanup_dirs=()
cleanup() {
  restore_blas
  rm -rf "${cleanup_dirs[@]+"${cleanup_dirs[@]}"}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "$blas" ]; then
  for name in "${alternatives[@]}"; do
    query=$(update-alternatives --query "$name")
    mode=$(sed -n 's/^Status: //p' <<< "$query")
    previous=$(sed -n 's/^Value: //p' <<< "$query")
    # back to auto mode only where auto mode gives the same library as before
    if [ "$mode" = auto ]; then
      restore_commands+=("update-alternatives --auto '$name'; \
        [ \"\$(update-alternatives --query '$name' | sed -n 's/^Value: //p')\" = '$previous' ] || \
        update-alternatives --set '$name' '$previous'")
    else
      restore_commands+=("update-alternatives --set '$name' '$previous'")
    fi
  done
  update-alternatives --set "${alternatives[0]}" "/usr/lib/$arch/${blas_dir[$blas]}/libblas.so.3" > /dev/null
  update-alternatives --set "${alternatives[1]}" "/usr/lib/$arch/${lapack_dir[$blas]}/liblapack.so.3" > /dev/null
fi

# --- a clean copy and an empty library ---------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/krein-fresh.XXXXXX")
cleanup_dirs+=("$work")
mkdir "$work/krein" "$work/no-site-library"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
   tar --null --ignore-failed-read -T - -cf - 2> /dev/null) | tar -C "$work/krein" -xf -

if [ -n "$library" ]; then
  [ -d "$library" ] || { echo "--library $library: no such directory." >&2; exit 2; }
  library=$(cd "$library" && pwd)
else
  library=$(mktemp -d "${TMPDIR:-/tmp}/krein-fresh-library.XXXXXX")
fi

# No site library: R_LIBS_SITE must be non-empty to override Debian's default,
# and the site Renviron (which Debian uses to prepend /usr/local/lib/R/site-library)
# and the user's own startup files are replaced by empty ones. The site
# Rprofile (which may choose the CRAN mirror) is kept, as a new user has it.
unset R_LIBS
export R_LIBS_SITE="$work/no-site-library" R_LIBS_USER="$library"
export R_ENVIRON="$work/Renviron.site" R_ENVIRON_USER="$work/Renviron" R_PROFILE_USER="$work/Rprofile"
touch "$R_ENVIRON" "$R_ENVIRON_USER" "$R_PROFILE_USER"

blas_used=$(Rscript -e 'cat(extSoftVersion()[["BLAS"]], La_library(), sep = " / ")')
echo "== BLAS / LAPACK: $blas_used"
echo "== Library: $library ($(ls "$library" | wc -l) packages)"
echo "== Library paths: $(Rscript -e 'cat(.libPaths(), sep = " ")')"

start=$(date +%s)
set +e
(cd "$work/krein" && Rscript tools/check.R "${tier_args[@]+"${tier_args[@]}"}") 2>&1 | tee "$work/check.log"
status=${PIPESTATUS[0]}
set -e
seconds=$(( $(date +%s) - start ))

tier_name=default
[ ${#tier_args[@]} -gt 0 ] && tier_name=full
echo "== fresh check: $tier_name tier, BLAS ${blas:-as installed} ($blas_used)"
sed -n '/^== phase times/,/^  total/p' "$work/check.log"
echo "== duration: $((seconds / 60)) min $((seconds % 60)) s"
echo "== library (reuse with --library): $library ($(ls "$library" | wc -l) packages)"
tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$work/check.log" | tail -n 1 || true)
echo "${tally:-no tally: see the output above}"
exit "$status"
