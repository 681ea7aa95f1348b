/* Parts of a page marked data-live="url" follow the games without a reload. With live push (a
 * data-live-topic on the page and a socket, static/js/push.js) each new version of the parts arrives
 * over the socket (a part it does not carry is fetched on the news, and every three seconds); otherwise,
 * or while the socket is down, they are fetched every second with If-None-Match (a 304 when nothing
 * changed), and not at all in a background tab. */
(function () {
  "use strict";
  var nodes = Array.prototype.slice.call(document.querySelectorAll("[data-live]"));
  var holder = document.querySelector("[data-live-topic]");
  var topic = holder ? holder.getAttribute("data-live-topic") : null;
  var etags = {}, lastSync = 0;  // the last push or fetch
  var carried = {}, ticks = 0;  // the parts the push carries; the others (the control room's) are fetched

  /* A tap must never land on a form that is being replaced: while a finger or the pointer is down in a
   * part, a field in it has the focus or one of its forms is being sent, a new version waits. */
  var HOLD_MS = 1500;
  function hold(node, ms) { node.liveBusyUntil = Math.max(node.liveBusyUntil || 0, Date.now() + ms); }
  nodes.forEach(function (node) {
    ["pointerdown", "touchstart", "mousedown", "keydown", "focusin", "input"].forEach(function (kind) {
      node.addEventListener(kind, function () { hold(node, HOLD_MS); }, true);
    });
    node.addEventListener("submit", function () { hold(node, 10000); fillTokens(node); }, true);
    fillTokens(node);
  });

  /* Live parts carry their forms' CSRF field empty (tournament/templatetags/live_forms.py), so that a
   * part changes only when its content does; the page's own token fills it. */
  function fillTokens(node) {
    var token = node.getAttribute("data-csrf");
    if (!token) return;
    node.querySelectorAll("input[data-live-csrf]").forEach(function (input) { if (!input.value) input.value = token; });
  }

  function apply(node, html) {
    if (html === node.getAttribute("data-html")) return;
    var wait = (node.liveBusyUntil || 0) - Date.now();
    if (wait > 0) {
      node.livePending = html;
      if (!node.liveTimer) {
        node.liveTimer = setTimeout(function () {
          node.liveTimer = null;
          if (node.livePending !== undefined) { var next = node.livePending; node.livePending = undefined; apply(node, next); }
        }, wait + 50);
      }
      return;
    }
    var open = Array.prototype.map.call(node.querySelectorAll("details[open] summary"), function (s) { return s.textContent; });
    node.innerHTML = html;
    node.setAttribute("data-html", html);
    fillTokens(node);
    node.querySelectorAll("details summary").forEach(function (s) {
      if (open.indexOf(s.textContent) >= 0) s.parentNode.setAttribute("open", "");
    });
    document.dispatchEvent(new CustomEvent("live:updated", { detail: { node: node } }));
  }

  function refresh(node, quietly) {
    var url = node.getAttribute("data-live"), headers = {};
    if (!quietly) lastSync = Date.now();
    if (etags[url]) headers["If-None-Match"] = etags[url];
    fetch(url, { credentials: "same-origin", headers: headers })
      .then(function (r) {
        if (r.status !== 200) return null;
        etags[url] = r.headers.get("ETag");
        return r.text();
      })
      .then(function (html) { if (html !== null) apply(node, html); })
      .catch(function () { /* keep the last good copy */ });
  }

  if (topic && window.LivePush) {
    window.LivePush.watch(topic, {
      message: function (m) {
        if (!m.fragments) return;
        lastSync = Date.now();
        Object.keys(m.fragments).forEach(function (name) { carried[name] = true; });
        nodes.forEach(function (node) {
          var name = node.getAttribute("data-live-name");
          if (name && m.fragments[name] !== undefined) apply(node, m.fragments[name]);
          else refresh(node);  // a part the push does not carry (the control room's): fetched on the news
        });
      },
      open: function () { nodes.forEach(refresh); }
    });
  }

  /* With the socket up, a part the push does not carry is still fetched every three seconds: what changes it
   * (an arbiter call, a claim, a dispute for the control room) may change nothing the push carries, and then
   * no news comes at all. Without the socket, everything is fetched every second. */
  setInterval(function () {
    if (document.hidden) return;
    ticks += 1;
    var pushed = topic && window.LivePush && window.LivePush.connected(topic) && Date.now() - lastSync < 30000;
    nodes.forEach(function (node) {
      if (!pushed) refresh(node);
      else if (!carried[node.getAttribute("data-live-name")] && ticks % 3 === 0) refresh(node, true);
    });
  }, 1000);
})();
