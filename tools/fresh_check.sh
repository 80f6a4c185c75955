#!/usr/bin/env bash
# The README's second command (`Rscript tools/check.R`) as a new user runs it
# on a fresh machine: from a clean copy of this checkout (its tracked and
# untracked, not ignored files, without build products), with an EMPTY
# temporary user library over the machine's own libraries as they are (R's,
# and a distribution's site library with its packages at their versions:
# nothing is hidden), so that what check.R installs or upgrades is what a
# newcomer's machine needs.
#
# Usage, from anywhere in the checkout:
#   tools/fresh_check.sh [reference|openblas] [--full] [--oldest] [--library DIR] [--system-wide]
#
#   --full          the full tier (`Rscript tools/check.R --full`): every
#                   suggested package installed and every test run. Without it,
#                   the default tier (`Rscript tools/check.R`).
#   --oldest        first install, into the empty library, the OLDEST version
#                   DESCRIPTION allows of each of the tier's packages it names a
#                   minimum for (exactly that version, from the repository's
#                   archive), so that a minimum set too low fails here first.
#                   Without it, check.R installs what is missing or older than
#                   DESCRIPTION asks, at the repository's current versions.
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
# As root on Debian or Ubuntu the full tier installs the distribution's
# prebuilt r-cran-* packages with apt-get, as check.R does for any user
# (KREIN_PREBUILT=false compiles them into the temporary library instead).
#
# The output of tools/check.R is shown as it runs; the last lines repeat the
# tier, the mode, the BLAS used, the phase times (installs, build, check and
# its steps, core tests), the duration and the tally "N passed, N failed,
# N skipped". The exit status is tools/check.R's.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

arguments=("$@")
blas=""
library=""
tier_args=()
oldest=0
system_wide=0
while [ $# -gt 0 ]; do
  case $1 in
    reference|openblas) blas=$1 ;;
    --full) tier_args=(--full) ;;
    --oldest) oldest=1 ;;
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
mkdir "$work/krein"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard |
   tar --null --ignore-failed-read -T - -cf - 2> /dev/null) | tar -C "$work/krein" -xf -

if [ -n "$library" ]; then
  [ -d "$library" ] || { echo "--library $library: no such directory." >&2; exit 2; }
  library=$(cd "$library" && pwd)
else
  library=$(mktemp -d "${TMPDIR:-/tmp}/krein-fresh-library.XXXXXX")
fi

# The machine's libraries as they are (R_LIBS_SITE and the site Renviron
# untouched); an empty user library first, created as a new user's would be.
# A new user has no startup files of their own; the site Rprofile (which may
# choose the CRAN mirror) is kept, as a new user has it.
unset R_LIBS
export R_LIBS_USER="$library"
export R_ENVIRON_USER="$work/Renviron" R_PROFILE_USER="$work/Rprofile"
touch "$R_ENVIRON_USER" "$R_PROFILE_USER"

blas_used=$(Rscript -e 'cat(extSoftVersion()[["BLAS"]], La_library(), sep = " / ")')
echo "== BLAS / LAPACK: $blas_used"
echo "== Library: $library ($(ls "$library" | wc -l) packages)"
echo "== Library paths: $(Rscript -e 'cat(.libPaths(), sep = " ")')"

tier_name=default
[ ${#tier_args[@]} -gt 0 ] && tier_name=full
mode="the repository's current versions where needed"
start=$(date +%s)
set +e
if [ "$oldest" = 1 ]; then
  mode="the oldest versions DESCRIPTION allows"
  (cd "$work/krein" && Rscript -e 'source(file.path("tools", "setup.R")); source(file.path("tools", "check_helpers.R"))' \
     -e 'packages <- if (commandArgs(TRUE)[1] == "full") c(core_packages(), optional_packages()) else core_packages()' \
     -e 'install_oldest(packages)' --args "$tier_name") 2>&1 | tee "$work/oldest.log"
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] || echo "== installing the oldest versions failed"
fi
if [ "${status:-0}" = 0 ]; then
  (cd "$work/krein" && Rscript tools/check.R "${tier_args[@]+"${tier_args[@]}"}") 2>&1 | tee "$work/check.log"
  status=${PIPESTATUS[0]}
fi
set -e
seconds=$(( $(date +%s) - start ))

echo "== fresh check: $tier_name tier, $mode, BLAS ${blas:-as installed} ($blas_used)"
if [ "$oldest" = 1 ]; then
  echo "== DESCRIPTION's minimums, installed: $(cd "$work/krein" && Rscript -e 'source(file.path("tools", "setup.R")); m <- description_minimums(); m <- m[names(m) != "R"]; v <- vapply(names(m), function(p) { x <- installed_version(p); if (is.null(x)) "not installed" else as.character(x) }, ""); cat(paste0(names(m), " ", v, " (>= ", m, ")"), sep = ", ")')"
fi
[ -f "$work/check.log" ] && sed -n '/^== phase times/,/^  total/p' "$work/check.log"
echo "== duration: $((seconds / 60)) min $((seconds % 60)) s"
echo "== library (reuse with --library): $library ($(ls "$library" | wc -l) packages)"
tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$work/check.log" 2> /dev/null | tail -n 1 || true)
echo "${tally:-no tally: see the output above}"
exit "$status"
