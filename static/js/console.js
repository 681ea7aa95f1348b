/* The player console tells the player what needs them: called to a board, their move in an online game,
 * a result to confirm. Each such line carries data-notify; when one appears after the page was opened
 * (pushed or fetched by live.js), the console shows it at the top, flashes the tab title and, if the
 * player allowed it, sends a browser notification. */
(function () {
  "use strict";
  var seen = {}, title = document.title;
  var alertBox = document.getElementById("console-alert"), button = document.getElementById("notify-me");

  function current() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-notify]"));
  }
  current().forEach(function (el) { seen[el.getAttribute("data-notify")] = true; });

  function tell(text) {
    alertBox.textContent = text;
    alertBox.hidden = false;
    document.title = "(!) " + title;
    if (window.Notification && Notification.permission === "granted") {
      try { new Notification(title, { body: text }); } catch (e) { /* some browsers allow it only from a worker */ }
    }
  }

  document.addEventListener("live:updated", function () {
    var fresh = current().filter(function (el) { return !seen[el.getAttribute("data-notify")]; });
    fresh.forEach(function (el) { seen[el.getAttribute("data-notify")] = true; });
    if (fresh.length) tell(fresh.map(function (el) { return el.textContent.replace(/\s+/g, " ").trim(); }).join(" · "));
  });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) document.title = title; });

  if (button && window.Notification && Notification.permission === "default") {
    button.hidden = false;
    button.addEventListener("click", function () {
      Notification.requestPermission().then(function () { button.hidden = true; });
    });
  }
})();
