/* One relayed game for spectators (/relay/<game>/): the board with its stones numbered, the record with the
 * table clock's readings, the corrections. The public's page follows the socket topic relaygame:<id>
 * (config/live.py), each entry arriving as it comes of age after the stage's delay; without a socket, or
 * for the game's referees and organizers (who see it at once), it fetches /api/relay/<game>/ every two
 * seconds with If-None-Match. No engine, no hints. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("relay-config").textContent);
  var L = config.labels, url = "/api/relay/" + config.game + "/", etag = null, lastSync = 0;
  var board = new window.GomokuBoard(document.getElementById("board"), { labels: L });
  var $ = function (id) { return document.getElementById(id); };

  function fmt(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  function clock(ms) {
    var s = Math.floor(ms / 1000);
    return Math.floor(s / 60) + ":" + ("0" + (s % 60)).slice(-2);
  }

  function draw(view) {
    board.render({ stones: view.position.stones, upto: null, marks: {} });
    var status = fmt(L.recorded, { n: view.ply });
    if (view.settled) status += " " + L.settled;
    else if (view.delay_minutes) status += " " + fmt(L.behind, { m: view.delay_minutes });
    $("status").textContent = status;
    var list = $("record");
    list.innerHTML = "";
    view.moves.forEach(function (m) {
      var li = document.createElement("li"), text = m.action;
      if (m.color) text = (L[m.color] || m.color) + ": " + text;
      var readings = [];
      if (m.clock && m.clock.black_ms !== undefined) readings.push(L.black + " " + clock(m.clock.black_ms));
      if (m.clock && m.clock.white_ms !== undefined) readings.push(L.white + " " + clock(m.clock.white_ms));
      li.textContent = text + (readings.length ? " (" + readings.join(", ") + ")" : "");
      list.appendChild(li);
    });
    var fixes = $("corrections");
    fixes.innerHTML = "";
    view.corrections.forEach(function (c) {
      var li = document.createElement("li");
      li.textContent = fmt(L.correction, { n: c.from_ply, reason: c.reason });
      fixes.appendChild(li);
    });
  }

  function load() {
    var headers = {};
    if (etag) headers["If-None-Match"] = etag;
    lastSync = Date.now();
    fetch(url, { credentials: "same-origin", headers: headers })
      .then(function (r) {
        if (r.status !== 200) return null;
        etag = r.headers.get("ETag");
        return r.json();
      })
      .then(function (view) { if (view) draw(view); })
      .catch(function () { /* keep the last good copy */ });
  }

  if (config.topic && window.LivePush) {
    window.LivePush.watch(config.topic, {
      message: function (m) { if (m.relay) { lastSync = Date.now(); draw(m.relay); } },
      open: function () { /* the socket sends the state first */ }
    });
  }
  setInterval(function () {
    if (document.hidden) return;
    var pushed = config.topic && window.LivePush && window.LivePush.connected(config.topic);
    if (!pushed || Date.now() - lastSync > 30000) load();
  }, 2000);
  load();
})();
