// krein: render the page's TeX formulas -- \( \) inline, \[ \] and $$ $$ displayed --
// with the copy of KaTeX that krein ships (this folder), so that they render
// without a network. Part of krein (GPL >= 2), not of KaTeX.
// Loaded by each vignette's HTML (from katex/ beside it, doc/katex once
// installed) and by every page of the pkgdown site (pkgdown/extra.js loads it
// from katex/ at the site's root); KaTeX is taken from the folder this script
// was loaded from. Where that copy of KaTeX is missing, the same version is
// loaded from a CDN instead, which works only online.
(function () {
  var version = "0.19.1";
  var cdn = "https://cdn.jsdelivr.net/npm/katex@" + version + "/dist/";
  var self = document.currentScript;
  // the folder of this script; "katex/" when it was inlined into the page
  var local = self && self.src ? self.src.replace(/[^\/]*$/, "") : "katex/";

  function addScript(src, onload, onerror) {
    var s = document.createElement("script");
    s.src = src;
    s.onload = onload;
    s.onerror = onerror;
    document.head.appendChild(s);
  }

  function render() {
    var go = function () {
      window.renderMathInElement(document.body, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "\\[", right: "\\]", display: true },
          { left: "\\(", right: "\\)", display: false }
        ],
        throwOnError: false
      });
    };
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", go);
    } else {
      go();
    }
  }

  function start(base, fallback) {
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = base + "katex.min.css";
    document.head.appendChild(css);
    var failed = function () {
      css.parentNode.removeChild(css);
      if (fallback) start(fallback, null);
    };
    addScript(base + "katex.min.js", function () {
      addScript(base + "contrib/auto-render.min.js", render, failed);
    }, failed);
  }

  if (!window.kreinMathStarted) {
    window.kreinMathStarted = true;
    start(local, cdn);
  }
})();
