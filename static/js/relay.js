/* The recorder's page: one board at the table. Reads the relay's record (/api/relay/<game>/), draws it, and
 * sends each entry naming the ply it expects, so a tap sent twice records one stone and a stale screen is
 * told to reload. Stones on a touch screen: the first tap shows the stone, a second tap on it records it.
 * The opening's steps (swap, the fifths offered, the choice) as the protocol asks for them; an undo; a
 * takeover when another recorder holds the board. No engine, no hints. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("relay-config").textContent);
  var L = config.labels;
  var url = "/api/relay/" + config.game + "/";
  var data = null, preview = null, selected = [], busy = false, takeover = false;
  var coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  var board = new window.GomokuBoard(document.getElementById("board"), { labels: L, onPoint: tapped });
  var $ = function (id) { return document.getElementById(id); };

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
        if (r.ok) { data = answer; preview = null; selected = []; takeover = false; draw(); return; }
        $("message").textContent = answer.message || "";
        preview = null;  // refused: the next tap shows its stone again before recording it
        draw();
        if (answer.code === "lease_held") { showTakeover(); return; }
        return load();  // a conflict or a stale screen: the record as it is now
      });
    }, function () { busy = false; });
  }

  function enter(action) { return send("enter", { ply: data.ply, action: action }); }

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
      li.textContent = m.action + (m.foul ? " ×" : "");
      list.appendChild(li);
    });
    drawControls();
  }

  load();
})();
