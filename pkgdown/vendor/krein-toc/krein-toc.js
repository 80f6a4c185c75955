/*
 * krein's stand-in for bootstrap-toc 1.0.1, the table of contents ("On this
 * page") that pkgdown's Bootstrap 5 templates build with Toc.init(). Written
 * for krein (part of krein, GPL >= 2), not a copy of bootstrap-toc: that
 * library is published on no package registry (see README.md), so the site
 * cannot vendor it. It offers what pkgdown's pkgdown.js uses:
 *   Toc.init({$nav: <jQuery nav>, $scope: <jQuery headings or container>})
 *   Toc.init(<jQuery nav>)             (scope: the whole body)
 * and, when the page is ready, builds the list of every nav[data-toggle="toc"].
 * The list it appends to the nav is the markup Bootstrap's scrollspy and
 * pkgdown's styles expect: ul.nav > li > a.nav-link (+ ul.nav of the
 * sub-headings), with the headings of the first level that has more than one
 * heading, and of the level below. A heading with data-toc-skip is left out;
 * one with data-toc-text is listed under that text, any other under its text
 * as shown (without the TeX source that formulas keep); one without an id
 * gets one made from its text.
 */
(function ($) {
  "use strict";

  var headingSelector = "h1, h2, h3, h4, h5, h6";

  function level(heading) {
    return parseInt(heading.tagName.substring(1), 10);
  }

  // An id from the heading's text, unique in the page: "Fitting a model" ->
  // "fitting-a-model", "fitting-a-model-1" when that is taken.
  function idFor(heading) {
    if (heading.id) return heading.id;
    var base = $(heading).text().trim().toLowerCase()
      .replace(/['\u2019]/g, "")
      .replace(/[^\w\u00C0-\uFFFF]+/g, "-")
      .substring(0, 64)
      .replace(/^-+|-+$/g, "");
    if (!base) base = heading.tagName.toLowerCase();
    var id = base;
    for (var n = 1; document.getElementById(id); n++) id = base + "-" + n;
    heading.id = id;
    return id;
  }

  function newList() {
    return $('<ul class="nav navbar-nav"></ul>');
  }

  // The heading's text as it shows: a formula's TeX source, which MathML
  // (<annotation>) and KaTeX (.katex-mathml) keep beside what they show, left out
  function shownText(heading) {
    var $copy = $(heading).clone();
    $copy.find("annotation, .katex-mathml").remove();
    return $copy.text().replace(/\s+/g, " ").trim();
  }

  function entry(heading) {
    var text = $(heading).data("toc-text") || shownText(heading);
    var link = $('<a class="nav-link"></a>').attr("href", "#" + idFor(heading)).text(text);
    return $("<li></li>").append(link);
  }

  function init(options) {
    var opts = options && options.jquery ? { $nav: options } : (options || {});
    var $nav = opts.$nav;
    if (!$nav || $nav.length === 0) return;
    var $scope = opts.$scope || $(document.body);
    // the scope's own headings and those inside it, in document order
    var $headings = $scope.filter(headingSelector).add($scope.find(headingSelector))
      .not("[data-toc-skip]");

    var top = 1;
    for (var l = 1; l <= 6; l++) {
      if ($headings.filter("h" + l).length > 1) { top = l; break; }
    }

    $nav.attr("data-toggle", "toc");
    var $list = newList().appendTo($nav);
    var $lastTop = null;
    var $subList = null;
    $headings.filter("h" + top + ", h" + (top + 1)).each(function () {
      var $item = entry(this);
      if (level(this) === top || $lastTop === null) {
        $list.append($item);
        if (level(this) === top) {
          $lastTop = $item;
          $subList = null;
        }
      } else {
        if ($subList === null) $subList = newList().appendTo($lastTop);
        $subList.append($item);
      }
    });
  }

  window.Toc = { init: init };

  $(function () {
    $('nav[data-toggle="toc"]').each(function () {
      init($(this));
    });
  });
})(jQuery);
