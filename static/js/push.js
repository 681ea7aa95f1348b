/* Live push: watch a topic over a WebSocket (config/live.py). The page gives the socket's address in
 * <meta name="live-url">; without it (push off) nothing connects and pages keep polling.
 * LivePush.watch(topic, {message, open}) calls message(json) for each new state and open() on every
 * (re)connection, so the page can fetch once to catch up on what it missed while disconnected.
 * LivePush.connected(topic) says whether the socket is open now (pages then poll only rarely). */
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="live-url"]');
  var base = meta ? meta.getAttribute("content") : "";
  var open = {};

  function address(topic) {
    // "wss://host/ws/live/" as given; "/ws/live/" on this page's host and port (behind a proxy);
    // ":8001/ws/live/" on this page's host, that port.
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var url = base.indexOf("//") === 0 || /^wss?:/.test(base) ? base :
      scheme + (base.charAt(0) === "/" ? location.host : location.hostname) + base;
    return url + (url.indexOf("?") >= 0 ? "&" : "?") + "topic=" + encodeURIComponent(topic) +
      "&lang=" + encodeURIComponent(document.documentElement.lang || "");
  }

  function watch(topic, handlers) {
    if (!base || !window.WebSocket) return;
    var delay = 500;
    function connect() {
      var socket;
      try { socket = new WebSocket(address(topic)); } catch (e) { return retry(); }
      socket.onopen = function () { open[topic] = true; delay = 500; if (handlers.open) handlers.open(); };
      socket.onmessage = function (event) {
        var data;
        try { data = JSON.parse(event.data); } catch (e) { return; }
        if (handlers.message) handlers.message(data);
      };
      socket.onclose = function () { open[topic] = false; retry(); };
    }
    function retry() {
      setTimeout(connect, delay + Math.random() * delay);  // spread reconnections after a restart
      delay = Math.min(delay * 2, 10000);
    }
    connect();
  }

  window.LivePush = { watch: watch, connected: function (topic) { return !!open[topic]; } };
})();
