// agentkit viewer: play an episode's frames in the turn page's frames panel, one turn after
// another (play/pause, speed, scrub). The page lists the turns' frames in the JSON data block
// #playback-data (data, not script: the page's Content-Security-Policy allows no inline script);
// without script the panel shows the page's own turn, and the turn links still work.
(function () {
  "use strict";
  var box = document.getElementById("playback");
  if (!box) { return; }
  var turns;
  var block = document.getElementById("playback-data");
  try { turns = JSON.parse(block ? block.textContent : "[]"); } catch (e) { return; }
  if (!Array.isArray(turns) || turns.length < 2) { return; }
  var MS_PER_TURN = 800; // at 1x; the speed menu divides it
  var controls = box.querySelector(".player-controls");
  var button = box.querySelector("button.play");
  var speed = box.querySelector("select.speed");
  var scrub = box.querySelector("input.scrub");
  var at = box.querySelector(".at");
  var heading = box.querySelector("h2 small");
  var figures = Array.prototype.slice.call(box.querySelectorAll("figure"));
  var shown = 0;
  var timer = null;
  var start = parseInt(box.getAttribute("data-start") || "1", 10);
  turns.forEach(function (t, k) { if (t.turn <= start) { shown = k; } });

  function show(k) {
    shown = Math.max(0, Math.min(turns.length - 1, k));
    var t = turns[shown];
    figures.forEach(function (figure, i) {
      var f = (t.frames || [])[i];
      var img = figure.querySelector("img.frame");
      figure.hidden = !f;
      if (f && img) {
        img.src = f.src;
        img.alt = "frame " + (f.label || "") + " of turn " + t.turn;
        var caption = figure.querySelector("figcaption");
        if (caption) { caption.textContent = (f.label || "") + " · turn " + t.turn; }
      }
    });
    scrub.value = String(shown);
    at.textContent = "turn " + t.turn + " (" + (shown + 1) + " of " + turns.length + " with frames)";
    if (heading) { heading.textContent = "before turn " + t.turn; }
    box.setAttribute("data-shown", String(t.turn));
  }
  function pause() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    button.textContent = "play";
    box.setAttribute("data-playing", "no");
  }
  function tick() {
    if (shown >= turns.length - 1) { pause(); return; }
    show(shown + 1);
  }
  function play() {
    if (timer !== null) { clearInterval(timer); }
    if (shown >= turns.length - 1) { show(0); }
    timer = setInterval(tick, MS_PER_TURN / (parseFloat(speed.value) || 1));
    button.textContent = "pause";
    box.setAttribute("data-playing", "yes");
  }
  button.addEventListener("click", function () { if (timer === null) { play(); } else { pause(); } });
  speed.addEventListener("change", function () { if (timer !== null) { play(); } });
  scrub.max = String(turns.length - 1);
  scrub.addEventListener("input", function () { pause(); show(parseInt(scrub.value, 10) || 0); });
  controls.hidden = false;
  box.setAttribute("data-playing", "no");
  show(shown);
})();
