/* Parts of a page marked data-live="url" are refreshed from that URL every second,
 * so standings and schedules follow the games without a reload. */
(function () {
  "use strict";
  function refresh(node) {
    fetch(node.getAttribute("data-live"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html !== null && html !== node.getAttribute("data-html")) {
          var open = Array.prototype.map.call(node.querySelectorAll("details[open] summary"), function (s) { return s.textContent; });
          node.innerHTML = html;
          node.setAttribute("data-html", html);
          node.querySelectorAll("details summary").forEach(function (s) {
            if (open.indexOf(s.textContent) >= 0) s.parentNode.setAttribute("open", "");
          });
        }
      })
      .catch(function () { /* keep the last good copy */ });
  }
  var nodes = document.querySelectorAll("[data-live]");
  setInterval(function () { nodes.forEach(refresh); }, 1000);
})();
