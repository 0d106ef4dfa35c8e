// agentkit viewer: keyboard stepping through turns. Pages work without this file.
(function () {
  "use strict";
  function go(id) {
    var link = document.getElementById(id);
    if (link && link.href) { window.location.href = link.href; return true; }
    return false;
  }
  function edge(selector) {
    var link = document.querySelector(selector);
    if (link && link.href) { window.location.href = link.href; return true; }
    return false;
  }
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) { return; }
    var done = false;
    if (event.key === "ArrowRight" || event.key === "j") { done = go("next"); }
    else if (event.key === "ArrowLeft" || event.key === "k") { done = go("prev"); }
    else if (event.key === "Home") { done = edge("nav.turnnav a.first"); }
    else if (event.key === "End") { done = edge("nav.turnnav a.last"); }
    if (done) { event.preventDefault(); }
  });
})();
