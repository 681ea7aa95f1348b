/* Live push: watch a topic over a WebSocket (config/live.py). The page gives the socket's address in
 * <meta name="live-url">; without it (push off) nothing connects and pages keep polling.
 * LivePush.watch(topic, {message, open}) calls message(json) for each new state (or, on a game's socket, a plain
 * move as what it changed: {topic, moved}, config/live.py) and open() on every
 * (re)connection, so the page can fetch once to catch up on what it missed while disconnected.
 * LivePush.connected(topic) says whether the socket is open now (pages then poll only rarely).
 * LivePush.send(topic, frame) sends a player's act on the game's socket (config/live_acts.py) and resolves with
 * the server's reply ({reply, status, game | code, message}); it rejects when the socket is not open, closes
 * before the reply, or gives none within 10 s, and the page then sends the same act by HTTP (a repeat of a
 * stored move is answered as it). */
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="live-url"]');
  var base = meta ? meta.getAttribute("content") : "";
  var open = {}, sockets = {}, waiting = {}, nextId = 1;

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
      socket.onopen = function () {
        open[topic] = true; sockets[topic] = socket; delay = 500; if (handlers.open) handlers.open();
      };
      socket.onmessage = function (event) {
        var data;
        try { data = JSON.parse(event.data); } catch (e) { return; }
        if (data.reply !== undefined) { settle(data.reply, data, null); return; }
        if (handlers.message) handlers.message(data);
      };
      socket.onclose = function () {
        open[topic] = false;
        if (sockets[topic] === socket) delete sockets[topic];
        Object.keys(waiting).forEach(function (id) {
          if (waiting[id].socket === socket) settle(id, null, new Error("socket closed"));
        });
        retry();
      };
    }
    function retry() {
      setTimeout(connect, delay + Math.random() * delay);  // spread reconnections after a restart
      delay = Math.min(delay * 2, 10000);
    }
    connect();
  }

  function settle(id, reply, error) {
    var entry = waiting[id];
    if (!entry) return;
    delete waiting[id];
    clearTimeout(entry.timer);
    if (error) entry.reject(error); else entry.resolve(reply);
  }

  function send(topic, frame) {
    var socket = sockets[topic];
    if (!open[topic] || !socket) return Promise.reject(new Error("not connected"));
    var id = String(nextId++);
    return new Promise(function (resolve, reject) {
      waiting[id] = { resolve: resolve, reject: reject, socket: socket,
                      timer: setTimeout(function () { settle(id, null, new Error("no reply")); }, 10000) };
      try { socket.send(JSON.stringify(Object.assign({}, frame, { id: id }))); }
      catch (e) { settle(id, null, e); }
    });
  }

  window.LivePush = { watch: watch, send: send, connected: function (topic) { return !!open[topic]; } };
})();
