#!/usr/bin/env bash
# Refresh the copy of KaTeX (MIT licence) that krein ships with its vignettes in
# vignettes/katex/ (installed as doc/katex/, and copied into the pkgdown site by
# tools/site.R), so that their formulas render without a network. Takes from
# the npm package `katex` only what a browser needs: katex.min.js,
# katex.min.css, the auto-render extension and the woff2 fonts (every browser
# that runs KaTeX reads woff2, the first format katex.min.css offers) of the
# families that krein's formulas use, and KaTeX's licence. Left out, to keep
# the installed package under the 5 MB that R CMD check notes: the Fraktur,
# SansSerif, Script and Typewriter fonts (\mathfrak, \mathsf, \mathscr,
# \mathtt; none of the vignettes or help pages uses them: a formula that did
# would show those letters in a local font). Usage, from the checkout's root (needs npm):
#   tools/update_katex.sh [VERSION]     (default: the version shipped now)
# Then update the version in inst/COPYRIGHTS and the NEWS, and rebuild.
# krein's own loader, vignettes/katex/krein-math.js, and the fonts' licence,
# fonts/OFL.txt, are kept: check that the fonts' licence is still the same.
set -euo pipefail
cd "$(dirname "$0")/.."
target=vignettes/katex
version=${1:-$(sed -n 's/^version: //p' "$target/VERSION" 2>/dev/null || true)}
if [ -z "$version" ]; then echo "Give the KaTeX version, e.g. tools/update_katex.sh 0.19.1" >&2; exit 1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "katex@$version" > /dev/null)
tar -xzf "$work"/katex-*.tgz -C "$work"
dist="$work/package/dist"
# everything but krein's own loader, krein-math.js, and the fonts' licence,
# fonts/OFL.txt (the npm package has none: each font file states it)
rm -rf "$target/contrib" "$target"/fonts/*.woff2 "$target/katex.min.js" "$target/katex.min.css" \
  "$target/LICENSE" "$target/VERSION"
mkdir -p "$target/contrib" "$target/fonts"
cp "$dist/katex.min.js" "$dist/katex.min.css" "$target/"
cp "$dist/contrib/auto-render.min.js" "$target/contrib/"
for family in AMS Caligraphic Main Math Size1 Size2 Size3 Size4; do
  cp "$dist"/fonts/KaTeX_"$family"-*.woff2 "$target/fonts/"
done
cp "$work/package/LICENSE" "$target/LICENSE"
printf 'version: %s\n' "$version" > "$target/VERSION"
# the loader's CDN fallback names the same version
sed -i "s/var version = \"[^\"]*\";/var version = \"$version\";/" "$target/krein-math.js"
echo "KaTeX $version in $target: $(du -sh "$target" | cut -f1)"
