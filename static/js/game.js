/* The game page: polls the game's API (every second while the page is visible and the game is
 * not over; the answer is 304 when nothing changed), draws the board, the record and both clocks,
 * and offers the controls of whoever may act (players, referees). Controls are rebuilt only when
 * what they offer changes, so a form being filled in or a focused button survives every update. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("game-config").textContent);
  var L = config.labels;
  var url = "/api/games/" + config.game + "/";
  var data = null, fetchedAt = 0, upto = null, selected = [], busy = false, etag = null, controlsKey = null;
  var analysis = null, analysisAsked = false;  // the engine's analysis of a finished game, once loaded
  var preview = null;  // touch screens: the first tap shows the stone, a second tap on it places it
  var coarse = window.matchMedia && window.matchMedia("(pointer: coarse)").matches;
  var board = new window.GomokuBoard(document.getElementById("board"), { labels: L, onPoint: clicked });
  var $ = function (id) { return document.getElementById(id); };
  $("show-forbidden-label").textContent = L.show_forbidden;
  $("show-forbidden").addEventListener("change", draw);

  function csrf() {
    var m = /(?:^|;\s*)csrftoken=([^;]+)/.exec(document.cookie);
    return m ? decodeURIComponent(m[1]) : "";
  }

  function fmt(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  // The player's own thinking on this turn, from seeing the position to acting: the server credits the
  // network lag beyond it (within a quota), so a slow connection does not cost clock time.
  var turnSeenAt = null, turnPly = null;
  function noteTurn() {
    if (mySeatActs() && data.ply !== turnPly) { turnPly = data.ply; turnSeenAt = performance.now(); }
  }

  function post(action, body) {
    if (busy) return Promise.resolve();
    busy = true;
    if ((action === "move" || action === "pass") && turnSeenAt !== null && turnPly === data.ply) {
      body = Object.assign({ think_ms: Math.round(performance.now() - turnSeenAt) }, body);
    }
    $("message").textContent = "";
    var pushed = false;  // the act went over the game's socket: its new state comes by push, nothing to fetch
    return send(action, body || {}).then(function (answer) {
      if (!answer.ok) { $("message").textContent = answer.json.message || ("HTTP " + answer.status); }
      pushed = answer.socket && answer.ok;
      return answer.json;
    }).finally(function () { busy = false; if (!pushed) load(); });
  }

  // With LIVE_MOVES on, a stone or a pass goes over the game's socket while it is open (no request's framework
  // around it); by HTTP otherwise, or when the socket fails before answering or answers that its queue is full (the same
  // ply again: a repeat is answered as the stored move). Other actions always by HTTP.
  function send(action, body) {
    if ((action === "move" || action === "pass") && config.socket_moves && window.LivePush &&
        window.LivePush.connected(topic)) {
      return window.LivePush.send(topic, Object.assign({ act: action }, body)).then(function (reply) {
        if (reply.code === "busy") return viaHttp(action, body);  // the socket server's queue is full
        return { ok: reply.status === 200, status: reply.status, json: reply, socket: true };
      }, function () { return viaHttp(action, body); });
    }
    return viaHttp(action, body);
  }

  function viaHttp(action, body) {
    return fetch(url + action + "/", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(),
                 "Accept-Language": document.documentElement.lang },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (json) {
        return { ok: r.ok, status: r.status, json: json, socket: false };
      });
    });
  }

  // A new state, fetched or pushed: drawn, and once the game is over its analysis is read (the computer's
  // winning move arrives by push, a resignation by the fetch after the button: both must show it).
  function received() {
    noteTurn(); draw();
    if (data.status === "finished" && !analysisAsked) { analysisAsked = true; loadAnalysis(); }
  }

  /* Fetches and pushes overlap (a poll, the fetch after a button, the push of the computer's move): a state
   * older than the one shown must never replace it, or the page would stay on a position without the last
   * move, with nothing left to fetch (no more changes come while it is the player's turn). */
  function older(next) {
    if (!data) return false;
    if (next.ply !== data.ply) return next.ply < data.ply;
    var done = function (g) { return g.status === "finished" || g.status === "cancelled"; };
    if (done(data) && !done(next)) return true;
    return !!(data.clock && next.clock && next.clock.version < data.clock.version);
  }

  function accept(next) {
    if (older(next)) return false;
    data = next; fetchedAt = Date.now(); received();
    return true;
  }

  function load() {
    var headers = { "Accept-Language": document.documentElement.lang };
    if (etag) headers["If-None-Match"] = etag;
    return fetch(url, { credentials: "same-origin", headers: headers })
      .then(function (r) {
        if (r.status === 304) return null;
        var tag = r.headers.get("ETag");
        return r.json().then(function (json) { return { json: json, tag: tag }; });
      })
      .then(function (got) {
        if (got && got.json && got.json.position && accept(got.json)) etag = got.tag;
      })
      .catch(function () {});
  }

  // A plain move pushed as what it changed (config/live.py with_move): the state shown with the move added, or
  // null when the state shown is not the one just before it (then the game is fetched).
  function withMove(state, m) {
    if (!state || state.ply !== m.ply - 1 || !m.move || m.move.ply !== m.ply || !state.moves ||
        state.moves.length !== state.ply || state.status !== m.status || state.arbiter_call) return null;
    return Object.assign({}, state, {
      ply: m.ply, status: m.status, black: m.black, white: m.white, clock: m.clock, position: m.position,
      moves: state.moves.concat([m.move])
    });
  }

  // Live push when the server offers it: each new state, or each plain move, arrives over the socket; on every
  // (re)connection one fetch catches up on what was missed. Polling is then only a slow safety net.
  var topic = "game:" + config.game;
  if (window.LivePush) {
    window.LivePush.watch(topic, {
      message: function (m) {
        if (m.game && m.game.position && accept(m.game)) etag = null;
        var moved = m.moved;
        if (moved && typeof moved.ply === "number" && !(data && moved.ply <= data.ply)) {
          var next = withMove(data, moved);
          if (next && accept(next)) etag = null;
          else if (!next) load();
        }
      },
      open: function () { load(); }
    });
  }

  // Poll while it matters: not in a background tab, not once the game is over, rarely while pushed to.
  function tick() {
    if (document.hidden || (data && (data.status === "finished" || data.status === "cancelled"))) return;
    if (window.LivePush && window.LivePush.connected(topic) && Date.now() - fetchedAt < 15000) return;
    load();
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) tick(); });
  /* Fair play: the page tells the server when it loses the focus during this player's own turn (as lichess
   * does) in a screened game; the referees see the count beside the screening, never a judgement by itself.
   * Leaving the page is not losing its focus: the page is hidden as it goes, after its pagehide. */
  var leaving = false;
  window.addEventListener("pagehide", function () { leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });
  document.addEventListener("visibilitychange", function () {
    if (!config.focus_signal || leaving || !document.hidden || !mySeatActs()) return;
    if (data.status === "finished" || data.status === "cancelled") return;
    fetch("/api/fairplay/focus/", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify({ game: config.game, ply: data.ply })
    }).catch(function () { /* a signal, not a duty */ });
  });

  function mySeatActs() { return data && data.mode === "online" && config.seat !== null && data.position.actor === config.seat; }

  function myColour() {
    if (!data || config.player === null) return null;
    if (data.black === config.player) return "black";
    if (data.white === config.player) return "white";
    return null;
  }

  function clicked(point) {
    if (!data || data.mode !== "online" || !mySeatActs() || data.status === "finished") return;
    var expects = data.position.expects;
    if (coarse && expects !== "offer" && preview !== point) { preview = point; draw(); return; }
    preview = null;
    if (expects === "offer") {
      var i = selected.indexOf(point);
      if (i >= 0) selected.splice(i, 1); else selected.push(point);
      draw();
    } else if (expects === "choose") {
      post("move", { ply: data.ply, action: "choose " + point });
    } else if (expects === "place" || expects === "play" || expects === "swap2") {
      post("move", { ply: data.ply, action: "place " + point });
    }
  }

  function button(label, onclick, cls) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = label; b.className = cls || "";
    b.addEventListener("click", onclick);
    return b;
  }

  function para(text) { var p = document.createElement("p"); p.textContent = text; return p; }

  function draw() {
    if (!data) return;
    var pos = data.position, stones = pos.stones;
    var marks = {};
    if ($("show-forbidden").checked) Object.keys(pos.forbidden || {}).forEach(function (p) { marks[p] = "forbidden"; });
    (pos.offers || []).forEach(function (p) { marks[p] = "offer"; });
    selected.forEach(function (p) { marks[p] = "selected"; });
    if (preview && mySeatActs()) marks[preview] = "preview"; else preview = null;
    board.render({ stones: stones, upto: upto, marks: marks, hints: hints(stones) });
    $("show-forbidden-row").hidden = !/^renju/.test(data.rules || "");  // only renju has forbidden points
    drawRecord(stones);
    drawStatus();
    drawClocks();
    drawControls();
    drawSuggestion();
  }

  // The analysis' marks by move number, and the winning line of the side to move in the position shown.
  function marksByMove() {
    var by = {};
    if (analysis && analysis.status === "done") analysis.marks.forEach(function (m) { by[m.number] = m; });
    return by;
  }

  function hints(stones) {
    var by = marksByMove(), shown = upto === null ? stones.length : upto, line = null;
    if (by[shown + 1] && by[shown + 1].win) line = by[shown + 1].win;
    else if (by[shown] && by[shown].allowed) line = by[shown].allowed;
    if (!line) return [];
    return line.line.map(function (p, i) {
      var number = shown + 1 + i;
      return { point: p, label: String(number), colour: number % 2 === 1 ? "black" : "white" };
    });
  }

  function loadAnalysis() {
    fetch(url + "analysis/", { credentials: "same-origin", headers: { "Accept-Language": document.documentElement.lang } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (json) {
        analysis = json;
        if (json && json.status === "pending") setTimeout(loadAnalysis, 2000);
        drawAnalysis();
        draw();
      }).catch(function () {});
  }

  function drawAnalysis() {
    var box = $("analysis");
    if (!box || !data || data.status !== "finished") return;
    box.hidden = false;
    var status = $("analysis-status"), ask = $("analysis-ask");
    var state = analysis ? analysis.status : "none";
    status.textContent = state === "done" ? (analysis.marks.length ? L.analysis_done : L.analysis_clean)
      : state === "pending" ? L.analysis_pending : state === "failed" ? L.analysis_failed : L.analysis_none;
    var engines = config.engines || [];
    ask.hidden = !config.can_analyse || state === "pending" || (state === "done" && !engines.length);
    $("analysis-engine-row").hidden = ask.hidden || !engines.length;
    drawSuggestion();
  }

  // The outside engine's move in the position shown, when the analysis asked one.
  function drawSuggestion() {
    var note = $("analysis-engine-note");
    if (!note) return;
    var stones = data.position.stones, shown = upto === null ? stones.length : upto, found = null;
    if (analysis && analysis.status === "done" && analysis.engine) {
      (analysis.suggestions || []).forEach(function (s) { if (s.number === shown + 1) found = s; });
    }
    note.hidden = !found;
    if (!found) return;
    var played = stones[shown];
    note.textContent = (played === found.point ? L.engine_agrees : L.engine_plays)
      .replace("%(engine)s", analysis.engine).replace("%(point)s", found.point);
  }

  (function fillEngines() {
    var select = $("analysis-engine");
    if (!select) return;
    var builtin = document.createElement("option");
    builtin.value = ""; builtin.textContent = L.engine_builtin;
    select.appendChild(builtin);
    (config.engines || []).forEach(function (e) {
      var option = document.createElement("option");
      option.value = String(e.id); option.textContent = e.name;
      select.appendChild(option);
    });
  })();

  if ($("analysis-ask")) {
    $("analysis-ask").addEventListener("click", function () {
      var chosen = $("analysis-engine") ? $("analysis-engine").value : "";
      fetch(url + "analysis/", {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": csrf(), "Accept-Language": document.documentElement.lang,
                   "Content-Type": "application/json" },
        body: JSON.stringify({ engine: chosen ? Number(chosen) : null })
      }).then(function (r) { return r.json().catch(function () { return {}; }).then(function (json) {
        if (!r.ok) { $("message").textContent = json.message || ("HTTP " + r.status); return; }
        analysis = json;
        if (json.status === "pending") setTimeout(loadAnalysis, 2000);
        drawAnalysis(); draw();
      }); });
    });
  }

  // One entry per stone, numbered and coloured by the stone (black plays the odd stones); the opening
  // protocol's other steps (swaps, declarations, offers, colour choices) as notes between them.
  function drawRecord(stones) {
    var list = $("record");
    list.innerHTML = "";
    var marks = marksByMove();
    var entries = data.moves.length ? data.moves : stones.map(function (p, i) {
      return { kind: "place", text: "place " + p, move_number: i + 1 };
    });
    entries.forEach(function (m) {
      var li = document.createElement("li");
      if (m.move_number) {
        var point = m.kind === "pass" ? L.pass_move : m.text.split(" ").slice(-1)[0];
        var colour = m.move_number % 2 === 1 ? "black" : "white";
        li.className = "stone " + colour;
        li.textContent = m.move_number + ". " + (colour === "black" ? "● " : "○ ") + point +
          (m.foul ? " (" + (L[m.foul] || m.foul) + ")" : "");
        var note = marks[m.move_number];
        if (note && (note.missed || note.allowed)) {
          var tag = document.createElement("span");
          tag.className = "analysis-mark " + (note.allowed ? "allowed" : "missed");
          tag.textContent = note.allowed ? " ??" : " ?";
          tag.title = (note.missed ? L.missed_win + " (" + note.win.kind.toUpperCase() + ": " + note.win.line.join(" ") + ")" : "") +
            (note.missed && note.allowed ? " · " : "") +
            (note.allowed ? L.allowed_win + " (" + note.allowed.kind.toUpperCase() + ": " + note.allowed.line.join(" ") + ")" : "");
          tag.setAttribute("aria-label", tag.title);
          li.appendChild(tag);
        }
        li.setAttribute("data-move", m.move_number);
        li.tabIndex = 0;
        li.addEventListener("click", function () { upto = m.move_number === stones.length ? null : m.move_number; draw(); });
      } else {
        li.className = "step";
        li.textContent = stepText(m);
      }
      list.appendChild(li);
    });
  }

  function stepText(m) {
    var words = m.text.split(" "), kind = words[0], rest = words.slice(1).join(" ");
    if (kind === "pass") return L.pass_move;
    if (kind === "swap") return L.swapped;
    if (kind === "no-swap") return L.not_swapped;
    if (kind === "declare") return fmt(L.declared, { n: rest });
    if (kind === "offer") return fmt(L.offered, { points: rest });
    if (kind === "color") return fmt(L.colour_chosen, { colour: L[rest] || rest });
    if (kind === "branch") return fmt(L.branch_chosen, { n: rest });
    return m.text;
  }

  function drawStatus() {
    var pos = data.position, text;
    var colour = myColour();
    if (data.status === "finished") {
      text = fmt(L.finished_as, { result: (L[data.result + "_result"] || data.result) +
        (data.result_text ? " · " + data.result_text : "") });
    } else if (data.status === "cancelled") {
      text = L.cancelled;
    } else if (data.mode !== "online") {
      text = L.over_the_board;
    } else if (mySeatActs()) {
      text = L.your_turn + (pos.opening ? " · " + pos.opening : "");
    } else {
      text = (config.players[String(pos.actor)] || "") + " · " + (L[pos.to_move] || pos.to_move) +
        (pos.opening ? " · " + pos.opening : "");
    }
    if (colour && data.status !== "finished") text = L["you_play_" + colour] + " · " + text;
    $("status").textContent = text;
  }

  function ms(value) {
    if (value === null || value === undefined) return "–";
    var s = Math.max(0, Math.ceil(value / 1000));
    return Math.floor(s / 60) + ":" + ("0" + (s % 60)).slice(-2);
  }

  // The two clocks are updated in place (four times a second): rebuilding them would detach the elements
  // a reader, a screen reader or a test is looking at.
  function drawClocks() {
    var c = data.clock, box = $("clocks");
    var shown = data.mode === "online" && c && c.time_control &&
      !(c.time_control.main_ms === null && c.time_control.move_ms === null);
    if (!shown) { box.innerHTML = ""; return; }  // over the board, the clock on the table counts
    var elapsed = c.status === "running" && !c.paused ? Date.now() - fetchedAt : 0;
    [0, 1].forEach(function (seat) {
      var acting = c.status === "running" && c.actor === seat + 1;
      var main = c.main_left[seat];
      if (main !== null && acting && c.time_control.main_scope === "player") main -= elapsed;
      if (main !== null && c.time_control.main_scope === "game" && c.status === "running") main -= elapsed;
      var div = box.children[seat];
      if (!div) { div = document.createElement("div"); box.appendChild(div); }
      var left = acting && c.turn_left !== null ? c.turn_left - elapsed : main;
      div.className = "clock" + (acting ? " acting" : "") + (acting && left !== null && left < 10000 ? " low" : "") +
        (config.seat === seat + 1 ? " mine" : "");
      div.setAttribute("data-seat", seat + 1);
      var turn = acting && c.turn_left !== null ? " · " + L.turn + " " + ms(c.turn_left - elapsed) : "";
      var phase = c.phase[seat] === "overtime" ? L.overtime + " (" + c.overtime_left[seat] + " " + L.stones_left + ")" : L.main + " " + ms(main);
      var name = config.players[String(seat + 1)] + ": ";
      var time = phase + turn + (c.paused ? " · " + L.paused : "") + " · " + c.offers_left[seat] + " " + L.offers_left;
      if (div.textContent !== name + time) {  // the name may be cut on a phone, never the time
        div.textContent = "";
        var nameSpan = document.createElement("span"), timeSpan = document.createElement("span");
        nameSpan.className = "clock-name"; nameSpan.textContent = name;
        timeSpan.className = "clock-time"; timeSpan.textContent = time;
        div.appendChild(nameSpan); div.appendChild(timeSpan);
      }
    });
  }

  // What the controls offer; they are rebuilt only when it changes (typing and focus survive updates).
  function controlsState() {
    var c = data.clock || {}, pos = data.position;
    return JSON.stringify([data.status, data.mode, data.ply, pos.expects, pos.actor, pos.last_black_move,
      pos.offer_count, Object.keys(pos.declare_verdicts || {}), c.status, c.paused, c.offer_by, c.offers_left,
      c.actor, selected.length, data.reports.map(function (r) { return [r.id, r.status]; }),
      data.arbiter_call ? data.arbiter_call.id : null]);
  }

  function drawControls() {
    var box = $("controls"), pos = data.position;
    var key = controlsState();
    if (key === controlsKey) return;
    controlsKey = key;
    box.innerHTML = "";
    if (data.status === "finished") return;
    var seat = config.seat, clock = data.clock || {};
    if (seat !== null && data.mode === "online") {
      var pending = clock.paused === "offer";
      if (pending && clock.offer_by !== seat) {
        box.appendChild(para(L.offer_pending));
        box.appendChild(button(L.accept, function () { post("answer-draw", { accept: true }); }));
        box.appendChild(button(L.decline, function () { post("answer-draw", { accept: false }); }));
      } else if (mySeatActs()) {
        drawTurn(box, pos);
      } else {
        box.appendChild(para(L.waiting));
        if (!pending && pos.expects === "play" && clock.offers_left && clock.offers_left[seat - 1] > 0) {
          box.appendChild(button(L.draw_offer, function () { post("offer-draw", {}); }));
        }
      }
      if (data.forbidden_mode === "claim" && myColour() === "white" && pos.last_black_move && pos.expects === "play") {
        box.appendChild(button(fmt(L.claim, { n: pos.last_black_move }), function () {
          post("claim-forbidden", { move_number: pos.last_black_move });
        }, "claim"));
      }
      box.appendChild(button(L.resign, function () { if (window.confirm(L.confirm_resign)) post("resign", {}); }, "danger"));
    }
    if (seat !== null && data.mode === "otb") drawReport(box);
    if (seat !== null && config.arbiter) drawArbiterCall(box);
    if (config.referee && data.arbiter_call) {
      box.appendChild(para(fmt(L.arbiter_called_by, { name: data.arbiter_call.caller })));
      box.appendChild(button(L.arbiter_answer, function () { post("answer-arbiter", {}); }, "arbiter"));
    }
    if (config.referee) drawReferee(box);
  }

  // A player calls an arbiter to the board (over the board or online); online, the clocks stop until a
  // referee answers.
  function drawArbiterCall(box) {
    var call = data.arbiter_call;
    if (call) {
      var p = para(call.paused_clock ? L.arbiter_called_paused : L.arbiter_called);
      p.className = "notice arbiter-called";
      box.appendChild(p);
      return;
    }
    box.appendChild(button(L.arbiter_call, function () {
      var note = window.prompt(L.arbiter_note, "");
      if (note === null) return;
      post("call-arbiter", { note: note });
    }, "arbiter"));
  }

  function drawTurn(box, pos) {
    var expects = pos.expects;
    if (expects === "place" || expects === "play") {
      box.appendChild(para(L.place));
      if (pos.legal_kinds.indexOf("pass") >= 0 || expects === "play") {
        box.appendChild(button(L.pass, function () { post("pass", { ply: data.ply }); }));
      }
    } else if (expects === "swap") {
      box.appendChild(button(L.swap, function () { post("move", { ply: data.ply, action: "swap" }); }));
      box.appendChild(button(L.no_swap, function () { post("move", { ply: data.ply, action: "no-swap" }); }));
    } else if (expects === "declare") {
      box.appendChild(para(L.declare_help));
      var select = document.createElement("select");
      select.setAttribute("aria-label", L.declare);
      Object.keys(pos.declare_verdicts).forEach(function (n) {
        var o = document.createElement("option");
        o.value = n; o.textContent = n + " — " + pos.declare_verdicts[n];
        select.appendChild(o);
      });
      if (!select.options.length) for (var n = 1; n <= 10; n++) { var o = document.createElement("option"); o.value = o.textContent = n; select.appendChild(o); }
      box.appendChild(select);
      box.appendChild(button(L.declare, function () { post("move", { ply: data.ply, action: "declare " + select.value }); }));
    } else if (expects === "offer") {
      box.appendChild(para(fmt(L.offer_help, { n: pos.offer_count })));
      box.appendChild(button(L.offer + " (" + selected.length + ")", function () {
        var points = selected.slice();
        selected = [];
        post("move", { ply: data.ply, action: "offer " + points.join(" ") });
      }));
    } else if (expects === "choose") {
      box.appendChild(para(L.choose_help));
    } else if (expects === "color" || expects === "swap2") {
      box.appendChild(para(expects === "color" ? L.color_help : L.swap2_help));
      ["black", "white"].forEach(function (c) {
        box.appendChild(button(L[c], function () { post("move", { ply: data.ply, action: "color " + c }); }));
      });
    } else if (expects === "branch") {
      [1, 2, 3].forEach(function (b) {
        box.appendChild(button(L.branch + " " + b, function () { post("move", { ply: data.ply, action: "branch " + b }); }));
      });
    }
  }

  function select(options, label) {
    var s = document.createElement("select");
    s.setAttribute("aria-label", label);
    options.forEach(function (o) { var opt = document.createElement("option"); opt.value = o.value; opt.textContent = o.label; s.appendChild(opt); });
    return s;
  }

  function drawReport(box) {
    var seat = config.seat, mine = config.ids[String(seat)];
    var open = data.reports.filter(function (r) { return r.status === "pending" || r.status === "disputed"; })[0];
    if (open && open.reporter !== mine && open.status === "pending") {
      var why = config.reasons.filter(function (r) { return r.value === open.reason; })[0];
      box.appendChild(para(L.opponent_reported + " " + (L[open.result + "_result"] || open.result) + " · " + (why ? why.label : open.reason)));
      box.appendChild(button(L.confirm, function () { post("confirm-result", {}); }));
      box.appendChild(button(L.dispute, function () { post("dispute-result", {}); }));
      return;
    }
    if (open && open.reporter === mine && open.status === "pending") {
      var mineWhy = config.reasons.filter(function (r) { return r.value === open.reason; })[0];
      var note = para(L.you_reported + " " + (L[open.result + "_result"] || open.result) + " · " + (mineWhy ? mineWhy.label : open.reason));
      note.className = "reported";
      box.appendChild(note);
      return;
    }
    var form = document.createElement("div");
    form.className = "report";
    var result = select(config.results, L.report), reason = select(config.reasons, L.report);
    var record = document.createElement("textarea");
    record.rows = 2; record.placeholder = "h8 h9 …"; record.setAttribute("aria-label", L.move);
    form.appendChild(result); form.appendChild(reason); form.appendChild(record);
    form.appendChild(button(L.report, function () {
      post("report-result", { result: result.value, reason: reason.value, record: record.value });
    }));
    box.appendChild(form);
  }

  function drawReferee(box) {
    var clock = data.clock || {};
    if (data.mode === "online" && clock.status === "running") {
      box.appendChild(button(clock.paused === "referee" ? L.resume : L.pause, function () {
        post("clock", { op: clock.paused === "referee" ? "resume" : "pause" });
      }));
      box.appendChild(button(L.add_time, function () {
        post("clock", { op: "add_time", seat: clock.actor, ms: 30000, target: "turn" });
      }));
    }
    var disputed = data.reports.some(function (r) { return r.status === "disputed"; });
    if (disputed || data.mode === "otb") {
      var result = select(config.results, L.rule), reason = select(config.reasons, L.rule);
      box.appendChild(result); box.appendChild(reason);
      box.appendChild(button(L.rule, function () { post("rule", { result: result.value, reason: reason.value }); }));
    }
  }

  document.querySelectorAll("[data-step]").forEach(function (b) {
    b.addEventListener("click", function () {
      if (!data) return;
      var n = data.position.stones.length, cur = upto === null ? n : upto;
      var step = b.getAttribute("data-step");
      cur = step === "first" ? 0 : step === "prev" ? Math.max(0, cur - 1) : step === "next" ? Math.min(n, cur + 1) : n;
      upto = cur === n ? null : cur;
      draw();
    });
  });

  document.addEventListener("keydown", function (e) {
    if (e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return;
    var step = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[e.key];
    if (!step || (e.target && e.target.closest && e.target.closest("#board"))) return;
    var b = document.querySelector('[data-step="' + step + '"]');
    if (b) { e.preventDefault(); b.click(); }
  });

  load();
  setInterval(tick, 1000);
  setInterval(function () { if (data && data.status !== "finished") drawClocks(); }, 250);
})();
