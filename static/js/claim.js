/* The referee's claim tool: build the record by clicking (or pasting), pick the
 * claimed stone, and see the engine's verdict with its lines drawn on the board. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("claim-config").textContent);
  var L = config.labels;
  var $ = function (id) { return document.getElementById(id); };
  var picking = false, shapes = [];
  var board = new window.GomokuBoard($("board"), { labels: L, onPoint: clicked });

  function moves() { return $("record").value.trim().split(/[\s,]+/).filter(Boolean); }

  function clicked(point) {
    if (picking) { $("point").value = point; picking = false; draw(); return; }
    var list = moves();
    if (list.indexOf(point) >= 0) return;
    list.push(point);
    $("record").value = list.join(" ");
    draw();
  }

  function draw() {
    var marks = {};
    if ($("point").value) marks[$("point").value.trim().toLowerCase()] = "claimed";
    board.render({ stones: moves(), marks: marks, lines: shapes });
  }

  function csrf() {
    var m = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    return m ? decodeURIComponent(m[1]) : "";
  }

  $("record").value = "";
  $("record").addEventListener("input", draw);
  $("point").addEventListener("input", draw);
  $("undo").addEventListener("click", function () { var l = moves(); l.pop(); $("record").value = l.join(" "); draw(); });
  $("pick").addEventListener("click", function () { picking = true; $("message").textContent = L.claimed_point; });
  $("submit").addEventListener("click", function () {
    $("message").textContent = "";
    fetch("/api/games/" + config.game + "/claim-forbidden/", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), "Accept-Language": document.documentElement.lang },
      body: JSON.stringify({ record: moves().join(" "), point: $("point").value.trim(),
                             moves_after: parseInt($("moves-after").value || "0", 10) })
    }).then(function (r) {
      return r.json().then(function (json) {
        if (!r.ok) { $("message").textContent = json.message || ("HTTP " + r.status); return; }
        var shown = json.verdict && json.verdict !== "none" ? (L[json.verdict] || json.verdict) : "—";
        $("verdict").innerHTML = "";
        var p = document.createElement("p");
        p.className = "verdict " + json.status;
        p.setAttribute("data-status", json.status);
        p.textContent = L.verdict + ": " + shown + " · " + (L[json.status] || json.status);
        $("verdict").appendChild(p);
        if (json.reason) {
          var why = document.createElement("p");
          why.className = "reason";
          why.textContent = json.reason;
          $("verdict").appendChild(why);
        }
        shapes = ((json.explanation || {}).shapes || []).map(function (s) {
          return { kind: s.kind, points: s.stones.concat([$("point").value.trim().toLowerCase()]) };
        });
        var stones = moves().concat([$("point").value.trim().toLowerCase()]);
        board.render({ stones: stones, marks: {}, lines: shapes });
      });
    });
  });
  draw();
})();
