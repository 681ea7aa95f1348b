/* The projector page: shows the boards (then those finished this round, then everyone by name), then the
 * standings, a screenful at a time, each for data-seconds seconds; the parts themselves are kept live by
 * live.js. A click asks for full screen. */
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

  /* A part taller than the screen is shown a page at a time: each page starts at the first row (or item,
   * or heading) the page before did not show whole; after its last page the next part comes. */
  function nextPage(part) {
    var bottom = part.scrollTop + part.clientHeight;
    if (bottom >= part.scrollHeight - 2) return false;
    var top = part.getBoundingClientRect().top - part.scrollTop, target = null;
    part.querySelectorAll("tr, li, h3, caption").forEach(function (el) {
      if (target !== null || !el.offsetParent) return;
      var r = el.getBoundingClientRect(), elTop = r.top - top, elBottom = r.bottom - top;
      if (elBottom > bottom + 1 && elTop > part.scrollTop) target = elTop;
    });
    part.scrollTop = target !== null && target > part.scrollTop ? target : bottom;
    return true;
  }

  function pageLabel(part) {
    var label = part.querySelector(".screen-page");
    if (!label) { label = document.createElement("span"); label.className = "screen-page"; part.appendChild(label); }
    var pages = Math.max(1, Math.ceil(part.scrollHeight / part.clientHeight));
    var page = Math.min(pages, Math.floor(part.scrollTop / part.clientHeight) + 1);
    label.textContent = pages > 1 ? page + " / " + pages : "";
    label.style.top = part.scrollTop + "px";
  }

  function advance() {
    var part = parts[shown];
    if (!nextPage(part)) {
      shown = (shown + 1) % parts.length;
      show(shown);
      parts[shown].scrollTop = 0;
    }
    pageLabel(parts[shown]);
  }

  show(0);
  tick();
  pageLabel(parts[0]);
  setInterval(tick, 10000);
  setInterval(advance, seconds * 1000);
  document.addEventListener("click", function () {
    if (document.fullscreenElement || !document.documentElement.requestFullscreen) return;
    document.documentElement.requestFullscreen().catch(function () {});
  });
})();
