// krein's documentation site: render the formulas of every page with the copy
// of KaTeX in katex/ at the site's root (tools/site.R copies vignettes/katex
// there), which works without a network. pkgdown copies this file to the
// site's root and loads it on every page.
(function () {
  var self = document.currentScript;
  if (!self || !self.src) return;
  var loader = document.createElement("script");
  loader.src = self.src.replace(/extra\.js([?#].*)?$/, "katex/krein-math.js");
  loader.onerror = function () {
    if (window.console) console.warn("krein: " + loader.src + " is missing (build the site with tools/site.R).");
  };
  document.head.appendChild(loader);
})();
