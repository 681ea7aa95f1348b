/* The recorder's page: one board at the table. Reads the relay's record (/api/relay/<game>/), draws it, and
 * sends each entry naming the ply it expects, so a tap sent twice records one stone and a stale screen is
 * told to reload. Stones on a touch screen: the first tap shows the stone, a second tap on it records it.
 * The opening's steps (swap, the fifths offered, the choice) as the protocol asks for them; an undo; a
 * takeover when another recorder holds the board; a correction from any ply (tap its entry: a reason, then
 * the record from there is removed, kept as a correction, and entered again). The board turns to the
 * recorder's side of the table (remembered on this device); the table clock's readings may be typed and go
 * with the next stone. No engine, no hints. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("relay-config").textContent);
  var L = config.labels;
  var url = "/api/relay/" + config.game + "/";
  var data = null, preview = null, selected = [], busy = false, takeover = false, fixing = null;
  var coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  var turnKey = "relay-turned-" + config.game, turned = false;
  try { turned = window.localStorage.getItem(turnKey) === "1"; } catch (e) { /* private mode: not kept */ }
  var board = new window.GomokuBoard(document.getElementById("board"), { labels: L, onPoint: tapped, turned: turned });
  var $ = function (id) { return document.getElementById(id); };

  $("turn").addEventListener("click", function () {
    turned = !turned;
    try { window.localStorage.setItem(turnKey, turned ? "1" : "0"); } catch (e) { /* not kept */ }
    board.turn(turned);
    $("turn").setAttribute("aria-pressed", turned ? "true" : "false");
  });
  $("turn").setAttribute("aria-pressed", turned ? "true" : "false");

  /* The table clock's readings, typed as m:ss (or minutes), sent with the next stone and then cleared. */
  function reading(id) {
    var text = $(id).value.trim(), m = /^(\d{1,3})(?::(\d{1,2}))?$/.exec(text);
    if (!m) return undefined;
    return (parseInt(m[1], 10) * 60 + (m[2] ? parseInt(m[2], 10) : 0)) * 1000;
  }

  function csrf() {
    var m = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function fmt(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  function load() {
    return fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (body) { data = body; draw(); });
  }

  function send(path, body) {
    if (busy) return Promise.resolve();
    busy = true;
    $("message").textContent = "";
    return fetch(url + path + "/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(Object.assign({ takeover: takeover }, body))
    }).then(function (r) {
      return r.json().then(function (answer) {
        busy = false;
        if (r.ok) {
          data = answer; preview = null; selected = []; takeover = false; fixing = null;
          $("clock-black").value = ""; $("clock-white").value = "";
          draw(); return;
        }
        $("message").textContent = answer.message || "";
        preview = null;  // refused: the next tap shows its stone again before recording it
        draw();
        if (answer.code === "lease_held") { showTakeover(); return; }
        return load();  // a conflict or a stale screen: the record as it is now
      });
    }, function () { busy = false; });
  }

  function enter(action) {
    var body = { ply: data.ply, action: action }, clock = {}, black = reading("clock-black"), white = reading("clock-white");
    if (black !== undefined) clock.black_ms = black;
    if (white !== undefined) clock.white_ms = white;
    if (Object.keys(clock).length) body.clock = clock;
    return send("enter", body);
  }

  function tapped(point) {
    if (!data) return;
    var expects = data.position.expects;
    if (expects === "offer") {
      var at = selected.indexOf(point);
      if (at >= 0) selected.splice(at, 1); else if (selected.length < (data.position.offer_count || 0)) selected.push(point);
      draw();
    } else if (expects === "choose") {
      if (data.position.offers.indexOf(point) >= 0) enter("choose " + point);
    } else if (expects === "place" || expects === "play") {
      if (coarse && preview !== point) { preview = point; draw(); return; }
      enter("place " + point);
    }
  }

  function button(label, onclick, cls) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.className = cls || "";
    b.addEventListener("click", onclick);
    return b;
  }

  function showTakeover() {
    var box = $("controls");
    if (box.querySelector(".takeover")) return;
    box.appendChild(button(L.takeover, function () { takeover = true; $("message").textContent = ""; draw(); }, "takeover"));
  }

  function drawControls() {
    var box = $("controls"), expects = data.position.expects;
    box.innerHTML = "";
    if (expects === "swap") {
      box.appendChild(button(L.swap, function () { enter("swap"); }));
      box.appendChild(button(L.no_swap, function () { enter("no-swap"); }));
    } else if (expects === "offer") {
      var offer = button(L.offer, function () { enter("offer " + selected.join(" ")); });
      offer.disabled = selected.length !== data.position.offer_count;
      box.appendChild(offer);
    } else if (expects === "declare") {
      var count = document.createElement("input");
      count.type = "number"; count.min = "1"; count.max = "10"; count.value = "2"; count.setAttribute("aria-label", L.declare);
      box.appendChild(count);
      box.appendChild(button(L.declare, function () { enter("declare " + count.value); }));
    } else if (expects !== "place" && expects !== "play" && expects !== "choose") {
      var other = document.createElement("input");
      other.setAttribute("aria-label", L.other);
      box.appendChild(other);
      box.appendChild(button(L.other, function () { enter(other.value); }));
    }
    if (data.ply > 0) {
      box.appendChild(button(L.undo, function () {
        send("replace", { from_ply: data.ply, actions: [], reason: L.undo_reason });
      }, "undo"));
    }
  }

  function draw() {
    if (!data) return;
    var pos = data.position, marks = {};
    pos.offers.forEach(function (p) { marks[p] = "offer"; });
    selected.forEach(function (p) { marks[p] = "selected"; });
    if (preview) marks[preview] = "preview";
    board.render({ stones: pos.stones, upto: null, marks: marks });
    $("status").textContent = fmt(L.expects[pos.expects] || "", { n: pos.offer_count || "" }) + " " +
      fmt(L.recorded, { n: data.ply });
    var list = $("record");
    list.innerHTML = "";
    data.moves.forEach(function (m) {
      var li = document.createElement("li");
      var entry = button(m.action + (m.foul ? " ×" : ""), function () { fixing = m.ply; draw(); }, "entry");
      entry.setAttribute("aria-label", fmt(L.correct_from, { n: m.ply }) + ": " + m.action);
      li.appendChild(entry);
      list.appendChild(li);
    });
    drawControls();
    drawFix();
  }

  /* A correction from ply k: the record from there is removed (kept as a correction everyone sees, with its
   * reason) and the recorder enters it again. */
  function drawFix() {
    var box = $("fix");
    box.innerHTML = "";
    box.hidden = fixing === null;
    if (fixing === null) return;
    var title = document.createElement("p");
    title.textContent = fmt(L.correct_from, { n: fixing });
    var reason = document.createElement("input");
    reason.id = "fix-reason"; reason.setAttribute("aria-label", L.reason); reason.placeholder = L.reason;
    var go = button(L.remove_from, function () {
      if (!reason.value.trim()) { reason.focus(); return; }
      send("replace", { from_ply: fixing, actions: [], reason: reason.value.trim() });
    }, "fix");
    box.appendChild(title); box.appendChild(reason); box.appendChild(go);
    box.appendChild(button(L.cancel, function () { fixing = null; draw(); }));
  }

  load();
})();
