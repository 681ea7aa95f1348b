/* The relay's multiboard (/t/<id>/relay/, and the projector's /t/<id>/relay/screen/): every relayed board
 * small and live. The public's page follows the socket topic relay:<id> (config/live.py): the whole state
 * when it connects, then only the boards that changed, each entry as it comes of age after the stage's
 * delay; without a socket (or for the organizer and referees, who see the boards at once) it fetches the
 * boards' API every second with If-None-Match. On the projector, more boards than fit one screen are shown
 * a page at a time. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("multiboard-config").textContent);
  var root = document.getElementById("multiboard");
  var g = config.geometry, span = 2 * g.margin + g.cell * (g.size - 1);
  var LETTERS = "abcdefghijklmno", SVG = "http://www.w3.org/2000/svg";
  var boards = {}, order = [], etag = null, lastSync = 0, page = 0;
  config.boards.forEach(function (b) { boards[b.game] = b; order.push(b.game); });  // as the page was drawn

  function fmt(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  function circle(x, y, r, cls, point) {
    var c = document.createElementNS(SVG, "circle");
    c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", r); c.setAttribute("class", cls);
    if (point) c.setAttribute("data-point", point);
    return c;
  }

  function drawStones(group, stones) {
    while (group.firstChild) group.removeChild(group.firstChild);
    var last = null;
    stones.forEach(function (point, i) {
      var col = LETTERS.indexOf(point[0]), row = parseInt(point.slice(1), 10) - 1;
      if (col < 0 || isNaN(row)) return;
      var x = g.margin + col * g.cell, y = g.margin + (g.size - 1 - row) * g.cell;
      group.appendChild(circle(x, y, 5, "stone " + (i % 2 ? "white" : "black"), point));
      last = [x, y];
    });
    if (last) group.appendChild(circle(last[0], last[1], 2, "last"));
  }

  function grid() {
    var d = "", lo = g.margin, hi = g.margin + g.cell * (g.size - 1);
    for (var i = 0; i < g.size; i++) {
      var at = g.margin + i * g.cell;
      d += "M" + at + " " + lo + "V" + hi + "M" + lo + " " + at + "H" + hi;
    }
    return d;
  }

  function newItem(b) {
    var li = document.createElement("li");
    li.className = "mini";
    li.setAttribute("data-game", b.game);
    var a = document.createElement("a"), svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + span + " " + span);
    svg.setAttribute("class", "mini-board");
    svg.setAttribute("role", "img");
    var wood = document.createElementNS(SVG, "rect");
    wood.setAttribute("width", span); wood.setAttribute("height", span); wood.setAttribute("class", "wood");
    var lines = document.createElementNS(SVG, "path");
    lines.setAttribute("class", "grid"); lines.setAttribute("d", grid());
    var stones = document.createElementNS(SVG, "g");
    stones.setAttribute("class", "stones");
    svg.appendChild(wood); svg.appendChild(lines); svg.appendChild(stones);
    a.appendChild(svg);
    li.appendChild(a);
    var p = document.createElement("p");
    ["board-no", "players", "result", "clock", "muted meta"].forEach(function (cls) {
      var span = document.createElement(cls === "board-no" ? "strong" : "span");
      span.className = cls;
      p.appendChild(span);
      p.appendChild(document.createTextNode(" "));
    });
    li.appendChild(p);
    return li;
  }

  function fill(li, b) {
    li.setAttribute("data-ply", b.ply);
    li.querySelector("a").setAttribute("href", b.href);
    li.querySelector("svg").setAttribute("aria-label", b.players);
    drawStones(li.querySelector("g.stones"), b.stones);
    li.querySelector(".board-no").textContent = b.board ? fmt(config.board_label, { n: b.board }) : "";
    li.querySelector(".players").textContent = b.players;
    li.querySelector(".result").textContent = b.result;
    li.querySelector(".clock").textContent = b.clock;
    li.querySelector(".meta").textContent = b.meta;
  }

  function list() { return root.querySelector("[data-boards]"); }

  function rebuild() {
    var ul = list(), none = root.querySelector("[data-none]");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    order.forEach(function (id) {
      var li = newItem(boards[id]);
      fill(li, boards[id]);
      ul.appendChild(li);
    });
    if (none) none.hidden = order.length > 0;
    paginate();
  }

  /* The whole state: the boards already drawn in the same order are filled in place (a reconnect or a
   * fetch does not redraw a projector's screen, nor take a board from under a pointer); otherwise redrawn. */
  function whole(state) {
    boards = {}; order = [];
    state.boards.forEach(function (b) { boards[b.game] = b; order.push(b.game); });
    var items = list().children, same = items.length === order.length;
    for (var i = 0; same && i < items.length; i++) same = items[i].getAttribute("data-game") === String(order[i]);
    if (!same) { rebuild(); return; }
    for (var j = 0; j < items.length; j++) fill(items[j], boards[order[j]]);
    var none = root.querySelector("[data-none]");
    if (none) none.hidden = order.length > 0;
  }

  function changed(delta) {
    var missing = false;
    delta.boards.forEach(function (b) {
      boards[b.game] = b;
      var li = list().querySelector('li[data-game="' + b.game + '"]');
      if (li) fill(li, b); else missing = true;
    });
    if (delta.order) order = delta.order;
    if (delta.order || missing) rebuild();
  }

  /* The projector: as many boards as fit, a page at a time, each as large as the screen allows for the
   * number on the page (four boards fill the screen; eighteen take six across and three down). */
  function paginate() {
    if (!config.screen) return;
    var items = list().children, per = config.screen.per_page, pages = Math.max(1, Math.ceil(items.length / per));
    page = page % pages;
    for (var i = 0; i < items.length; i++) items[i].hidden = Math.floor(i / per) !== page;
    var label = document.getElementById("screen-page");
    if (label) label.textContent = pages > 1 ? (page + 1) + " / " + pages : "";
    arrange(Math.min(per, items.length - page * per));
  }

  /* The columns and rows that give the largest square board for `shown` boards in the list's box (its gaps
   * and a caption under each counted), never more than the stylesheet's own six across and three down; the
   * grid then holds boards of that side, centred (without this script it stays six by three). */
  function arrange(shown) {
    var ul = list(), width = ul.clientWidth, height = ul.clientHeight, style = getComputedStyle(ul), best = null;
    var gapX = parseFloat(style.columnGap) || 0, gapY = parseFloat(style.rowGap) || 0;
    var caption = ul.querySelector("li:not([hidden]) p"), below = caption ? caption.offsetHeight + 4 : 32;
    if (!shown || !width || !height) return;
    for (var cols = 1; cols <= Math.min(shown, 6); cols++) {
      var rows = Math.ceil(shown / cols);
      if (rows > 3) continue;
      var side = Math.min((width - (cols - 1) * gapX) / cols, (height - (rows - 1) * gapY) / rows - below);
      if (!best || side > best.side) best = { cols: cols, rows: rows, side: Math.floor(side) };
    }
    if (!best || best.side <= 0) return;
    ul.style.setProperty("--cols", best.cols);
    ul.style.setProperty("--rows", best.rows);
    ul.style.setProperty("--side", best.side + "px");
    ul.classList.add("arranged");
  }
  if (config.screen) {
    setInterval(function () { page += 1; paginate(); }, config.screen.seconds * 1000);
    window.addEventListener("resize", paginate);
  }

  function fetchBoards() {
    var headers = {};
    if (etag) headers["If-None-Match"] = etag;
    lastSync = Date.now();
    fetch(config.api, { credentials: "same-origin", headers: headers })
      .then(function (r) {
        if (r.status !== 200) return null;
        etag = r.headers.get("ETag");
        return r.json();
      })
      .then(function (state) { if (state) whole(state); })
      .catch(function () { /* keep the last good copy */ });
  }

  if (config.topic && window.LivePush) {
    window.LivePush.watch(config.topic, {
      message: function (m) {
        if (!m.boards) return;
        lastSync = Date.now();
        if (m.delta) changed(m); else whole(m);
      },
      open: function () { /* the socket sends the whole state first */ }
    });
  }

  setInterval(function () {
    if (document.hidden) return;
    var pushed = config.topic && window.LivePush && window.LivePush.connected(config.topic);
    if (!pushed || Date.now() - lastSync > 30000) fetchBoards();
  }, 1000);
  paginate();
})();
