/* The projector page: shows the boards, then the standings, and so on, each for data-seconds seconds;
 * the parts themselves are kept live by live.js. A click asks for full screen. */
(function () {
  "use strict";
  var screen = document.querySelector(".screen");
  var parts = Array.prototype.slice.call(document.querySelectorAll(".screen-part"));
  var seconds = Math.max(5, parseInt(screen.getAttribute("data-seconds"), 10) || 15);
  var shown = 0, clock = document.getElementById("screen-clock");

  function show(index) {
    parts.forEach(function (part, i) { part.hidden = i !== index; });
    screen.setAttribute("data-showing", parts[index].getAttribute("data-part"));
  }

  function tick() {
    var now = new Date();
    clock.textContent = ("0" + now.getHours()).slice(-2) + ":" + ("0" + now.getMinutes()).slice(-2);
  }

  show(0);
  tick();
  setInterval(tick, 10000);
  setInterval(function () { shown = (shown + 1) % parts.length; show(shown); }, seconds * 1000);
  document.addEventListener("click", function () {
    if (document.fullscreenElement || !document.documentElement.requestFullscreen) return;
    document.documentElement.requestFullscreen().catch(function () {});
  });
})();
