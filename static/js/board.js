/* An SVG gomoku/renju board: coordinates, star points, numbered stones, the last
 * move marked, optional marks (forbidden points, offers, selections) and lines
 * (the shapes behind a forbidden-move verdict). Keyboard: arrow keys move a
 * cursor, Enter or Space plays the point. No framework, no build step. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var LETTERS = "abcdefghijklmnopqrstuvwxyz";

  function el(name, attrs, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function parsePoint(text, size) {
    var m = /^([a-z])(\d{1,2})$/i.exec(String(text).trim());
    if (!m) return null;
    var col = LETTERS.indexOf(m[1].toLowerCase()), row = parseInt(m[2], 10) - 1;
    if (col < 0 || col >= size || row < 0 || row >= size) return null;
    return { col: col, row: row };
  }

  function name(col, row) { return LETTERS[col] + (row + 1); }

  function Board(container, options) {
    this.container = container;
    this.size = options.size || 15;
    this.onPoint = options.onPoint || function () {};
    this.labels = options.labels || {};
    this.turned = !!options.turned;  // turned half a circle: the board as seen from white's side of the table
    this.cell = 40;
    this.margin = 36;
    this.cursor = { col: 7, row: 7 };
    this.state = { stones: [], upto: null, marks: {}, lines: [], numbers: true };
    var span = this.margin * 2 + this.cell * (this.size - 1);
    this.svg = el("svg", { viewBox: "0 0 " + span + " " + span, class: "board-svg", role: "img",
                           "aria-label": this.labels.board_label || "Board" });
    container.innerHTML = "";
    container.setAttribute("tabindex", "0");
    container.setAttribute("role", "application");
    container.setAttribute("aria-label", this.labels.board_label || "Board");
    container.appendChild(this.svg);
    this.live = document.createElement("p");
    this.live.className = "sr-only";
    this.live.setAttribute("aria-live", "polite");
    container.appendChild(this.live);
    var self = this;
    this.svg.addEventListener("click", function (event) {
      var p = self.pointAt(event);
      if (p) { self.cursor = p; self.onPoint(name(p.col, p.row)); self.draw(); }
    });
    container.addEventListener("keydown", function (event) { self.key(event); });
    this.draw();
  }

  Board.prototype.xy = function (col, row) {
    if (this.turned) { col = this.size - 1 - col; row = this.size - 1 - row; }
    return { x: this.margin + col * this.cell, y: this.margin + (this.size - 1 - row) * this.cell };
  };

  Board.prototype.turn = function (turned) { this.turned = !!turned; this.draw(); };

  Board.prototype.pointAt = function (event) {
    var pt = this.svg.createSVGPoint();
    pt.x = event.clientX; pt.y = event.clientY;
    var local = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    var col = Math.round((local.x - this.margin) / this.cell);
    var row = this.size - 1 - Math.round((local.y - this.margin) / this.cell);
    if (col < 0 || row < 0 || col >= this.size || row >= this.size) return null;
    if (this.turned) { col = this.size - 1 - col; row = this.size - 1 - row; }
    return { col: col, row: row };
  };

  Board.prototype.key = function (event) {
    var moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (moves[event.key]) {
      var d = moves[event.key], sign = this.turned ? -1 : 1;
      d = [d[0] * sign, d[1] * sign];
      this.cursor = { col: Math.min(this.size - 1, Math.max(0, this.cursor.col + d[0])),
                      row: Math.min(this.size - 1, Math.max(0, this.cursor.row + d[1])) };
      event.preventDefault();
      this.draw();
      this.announce();
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.onPoint(name(this.cursor.col, this.cursor.row));
    }
  };

  Board.prototype.announce = function () {
    var here = name(this.cursor.col, this.cursor.row);
    var who = this.occupant()[here];
    var what = who ? (this.labels[who.color] || who.color) + " " + who.number : (this.labels.empty || "empty");
    this.live.textContent = (this.labels.cursor || "Cursor") + " " + here + ": " + what;
  };

  Board.prototype.occupant = function () {
    var out = {}, stones = this.state.stones, upto = this.state.upto === null ? stones.length : this.state.upto;
    for (var i = 0; i < upto; i++) {
      if (stones[i] !== "pass") out[stones[i]] = { color: i % 2 === 0 ? "black" : "white", number: i + 1 };
    }
    return out;
  };

  Board.prototype.render = function (state) {
    Object.keys(state).forEach(function (k) { this.state[k] = state[k]; }, this);
    this.draw();
  };

  Board.prototype.draw = function () {
    var svg = this.svg, size = this.size, self = this;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var span = this.margin * 2 + this.cell * (size - 1);
    svg.appendChild(el("rect", { x: 0, y: 0, width: span, height: span, class: "wood" }));
    for (var i = 0; i < size; i++) {
      var a = this.xy(i, 0), b = this.xy(i, size - 1), c = this.xy(0, i), d = this.xy(size - 1, i);
      svg.appendChild(el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "grid" }));
      svg.appendChild(el("line", { x1: c.x, y1: c.y, x2: d.x, y2: d.y, class: "grid" }));
      var below = this.turned ? -18 : 26, beside = this.turned ? 24 : -24;  // letters by row 1, numbers by column a
      svg.appendChild(el("text", { x: a.x, y: a.y + below, class: "coord" }, LETTERS[i].toUpperCase()));
      svg.appendChild(el("text", { x: c.x + beside, y: c.y + 5, class: "coord" }, String(i + 1)));
    }
    var mid = Math.floor(size / 2);
    [[3, 3], [3, size - 4], [size - 4, 3], [size - 4, size - 4], [mid, mid]].forEach(function (p) {
      var s = self.xy(p[0], p[1]);
      svg.appendChild(el("circle", { cx: s.x, cy: s.y, r: 4, class: "star" }));
    });
    var stones = this.state.stones, upto = this.state.upto === null ? stones.length : this.state.upto;
    var last = null;
    for (var n = 0; n < upto; n++) {
      if (stones[n] === "pass") continue;
      var p = parsePoint(stones[n], size);
      if (!p) continue;
      var s = this.xy(p.col, p.row), colour = n % 2 === 0 ? "black" : "white";
      var g = el("g", { class: "stone " + colour, "data-point": stones[n] });
      g.appendChild(el("circle", { cx: s.x, cy: s.y, r: 17 }));
      if (this.state.numbers) g.appendChild(el("text", { x: s.x, y: s.y + 5 }, String(n + 1)));
      svg.appendChild(g);
      last = s;
    }
    if (last) svg.appendChild(el("circle", { cx: last.x, cy: last.y, r: 20, class: "last" }));
    var marks = this.state.marks || {};
    Object.keys(marks).forEach(function (point) {
      var p = parsePoint(point, size);
      if (!p) return;
      var s = self.xy(p.col, p.row), kind = marks[point];
      if (kind === "forbidden") {
        svg.appendChild(el("path", { d: "M" + (s.x - 9) + " " + (s.y - 9) + "L" + (s.x + 9) + " " + (s.y + 9) +
          "M" + (s.x + 9) + " " + (s.y - 9) + "L" + (s.x - 9) + " " + (s.y + 9), class: "forbidden",
          "data-forbidden": point }));
      } else {
        svg.appendChild(el("circle", { cx: s.x, cy: s.y, r: 15, class: "mark " + kind, "data-mark": point }));
      }
    });
    (this.state.lines || []).forEach(function (line) {
      var pts = line.points.map(function (t) { return parsePoint(t, size); }).filter(Boolean);
      if (pts.length < 2) return;
      pts.sort(function (u, v) { return u.col - v.col || u.row - v.row; });
      var u = self.xy(pts[0].col, pts[0].row), v = self.xy(pts[pts.length - 1].col, pts[pts.length - 1].row);
      svg.appendChild(el("line", { x1: u.x, y1: u.y, x2: v.x, y2: v.y, class: "shape " + line.kind,
                                   "data-shape": line.kind }));
    });
    // Hints: a sequence of moves to show (an analysis' winning line), as numbered ghost stones.
    (this.state.hints || []).forEach(function (h) {
      var p = parsePoint(h.point, size);
      if (!p) return;
      var s = self.xy(p.col, p.row);
      var g = el("g", { class: "hint " + h.colour, "data-hint": h.point });
      g.appendChild(el("circle", { cx: s.x, cy: s.y, r: 15 }));
      g.appendChild(el("text", { x: s.x, y: s.y + 5 }, h.label));
      svg.appendChild(g);
    });
    var cur = this.xy(this.cursor.col, this.cursor.row);
    svg.appendChild(el("rect", { x: cur.x - 19, y: cur.y - 19, width: 38, height: 38, class: "cursor" }));
  };

  window.GomokuBoard = Board;
  window.GomokuBoard.parsePoint = parsePoint;
})();
