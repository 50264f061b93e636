// The /play page: a person's game against bots, hosted by the server (GalleristPlay), with
// hints from GalleristAI.SuggestMoves on the person's view. Connect's web client
// (GalleristConnect, bundled beside this script) speaks binary protobuf to the page's own
// origin; the message types come from the service's descriptors embedded in the page.
"use strict";
(() => {
  const C = window.GalleristConnect;
  const $ = (id) => document.getElementById(id);
  const config = JSON.parse($("config").textContent);
  const raw = atob($("descriptors").textContent.trim());
  const registry = C.createFileRegistry(
    C.fromBinary(C.FileDescriptorSetSchema, Uint8Array.from(raw, (c) => c.charCodeAt(0))));
  let token = "";
  const transport = C.createConnectTransport({
    baseUrl: location.origin,
    useBinaryFormat: true,
    interceptors: [(next) => async (req) => {
      if (token) req.header.set("Authorization", "Bearer " + token);
      return next(req);
    }],
  });
  const play = C.createClient(registry.getService("gallerist.v1.GalleristPlay"), transport);
  const ai = C.createClient(registry.getService("gallerist.v1.GalleristAI"), transport);
  const COLOURS = ["#1f6fb4", "#c0392b", "#23914a", "#8e44ad"];

  let view = null;      // the last GameView
  let busy = false;
  const KEY_NAME = "gallerist-player-key";

  // The player's key: random, kept in this browser; it lists the player's games and rating.
  function playerKey() {
    let key = localStorage.getItem(KEY_NAME) || "";
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(key)) {
      const bytes = crypto.getRandomValues(new Uint8Array(18));
      key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
        .replace(/=+$/, "");
      localStorage.setItem(KEY_NAME, key);
    }
    return key;
  }
  let retry = null;     // the call to repeat once a token is given

  // ---------------------------------------------------------------- set-up form
  function opponentChoices() {
    const out = config.levels.map((l) => [`level:${l.level}|0`,
      `Level ${l.level} (about ${l.elo.toLocaleString("en")} Elo)`]);
    for (const ms of config.botTimesMs) {
      const time = ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
      out.push([`${config.defaultBot}|${ms}`, `Default bot (the strongest), ${time} a move`]);
    }
    return out;
  }

  function fillSetup() {
    const n = Number($("players").value);
    const seat = Math.min(Number($("seat").value || 0), n - 1);
    $("seat").innerHTML = "";
    for (let p = 0; p < n; p++) {
      const label = n === 1 ? "P0 (solo)" : `P${p}${p === 0 ? " (moves first)" : ""}`;
      $("seat").add(new Option(label, String(p), false, p === seat));
    }
    const box = $("opponents");
    const kept = [...box.querySelectorAll("select")].map((s) => s.value);
    box.innerHTML = "";
    for (let i = 0; i < n - 1; i++) {
      const label = document.createElement("label");
      label.textContent = `Opponent ${i + 1} `;
      const select = document.createElement("select");
      select.className = "opponent";
      for (const [value, text] of opponentChoices()) select.add(new Option(text, value));
      select.value = kept[i] || "level:1|0";
      label.append(select);
      box.append(label);
    }
  }

  function startRequest() {
    const opponents = [...document.querySelectorAll("select.opponent")].map((s) => {
      const [botSpec, ms] = s.value.split("|");
      return { botSpec, budget: { timeMs: Number(ms) } };
    });
    const request = { numPlayers: Number($("players").value), seat: Number($("seat").value),
                      opponents, playerKey: playerKey() };
    const seed = $("seed").value.trim();
    if (seed !== "") {
      if (!/^\d{1,19}$/.test(seed)) throw new Error(`seed: ${seed} is not a whole number`);
      request.seed = BigInt(seed);
    }
    return request;
  }

  // ---------------------------------------------------------------- calls
  function setBusy(on) {
    busy = on;
    $("busy").hidden = !on;
    document.body.dataset.busy = on ? "1" : "0";   // for tests and scripts: a call is out
    for (const b of document.querySelectorAll("button")) b.disabled = on;
    if (!on && view) {
      $("undo").disabled = !view.canUndo;
      $("hint").disabled = view.actions.length === 0;
    }
  }

  async function call(what) {
    if (busy) return undefined;
    showError("");
    setBusy(true);
    try {
      return await what();
    } catch (err) {
      if (err instanceof C.ConnectError && err.code === C.Code.Unauthenticated) {
        retry = what;
        $("token-box").hidden = false;
        $("token").focus();
      }
      showError(err instanceof C.ConnectError ? `${C.Code[err.code]}: ${err.rawMessage}`
                                              : String(err.message || err));
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = !text;
  }

  // ---------------------------------------------------------------- the game
  function render(next, note) {
    view = next;
    history.replaceState(null, "", `#game=${view.gameId}`);
    document.body.dataset.actionsPlayed = String(view.position.actionsPlayed);
    $("game").hidden = false;
    $("status").textContent = view.decision;
    $("board").innerHTML = view.boardSvg;
    $("players-line").innerHTML = "";
    view.players.forEach((name, p) => {
      const span = document.createElement("span");
      span.style.color = COLOURS[p];
      span.textContent = `■ P${p} ${name}`;
      $("players-line").append(span);
    });
    const moves = $("moves");
    moves.innerHTML = "";
    for (const a of view.actions) {
      const b = document.createElement("button");
      b.className = "move";
      b.dataset.action = String(a.action);
      b.textContent = a.description;
      const n = document.createElement("span");
      n.className = "notation";
      n.textContent = a.notation;
      b.append(n);
      moves.append(b);
    }
    if (!view.actions.length) moves.textContent = view.position.kind === 3 ? "The game is over." : "";
    const log = $("events");
    if (note) addEvent(note, "#555");
    for (const e of view.events) {
      const who = e.player === undefined ? "Chance"
        : e.player === view.seat ? "You" : `P${e.player} (${view.players[e.player]})`;
      addEvent(`${who}: ${e.description}`, e.player === undefined ? "#555" : COLOURS[e.player]);
    }
    log.scrollTop = log.scrollHeight;
    $("hints").innerHTML = "";
    const over = view.position.kind === 3;
    $("review").hidden = !over;
    setBusy(false);
    if (over || note) refreshMyGames();
  }

  // ---------------------------------------------------------------- my games
  const elo = (x) => Math.round(x).toLocaleString("en");
  async function refreshMyGames() {
    let mine;
    try {
      mine = await play.listGames({ playerKey: playerKey(), limit: 20 });
    } catch (err) {
      return;   // the list is an extra: the game goes on without it
    }
    const r = mine.rating;
    $("rating").textContent = r ? `Your rating: about ${elo(r.elo)} Elo (95% interval ` +
      `${elo(r.eloLow)} to ${elo(r.eloHigh)}) over ${r.games} reviewed ` +
      `game${r.games === 1 ? "" : "s"}, like level ${r.level}`
      : "Your rating appears once a finished game has been reviewed.";
    const list = $("games-list");
    list.innerHTML = "";
    for (const g of mine.games) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `#game=${g.gameId}`;
      a.className = "my-game";
      a.dataset.gameId = g.gameId;
      const when = new Date(Number(g.startedUnix) * 1000).toLocaleString();
      const others = g.players.filter((_, p) => p !== g.seat).join(", ") || "solo";
      a.textContent = `${when}: against ${others}: ${g.result}`;
      li.append(a);
      list.append(li);
    }
    $("my-games").hidden = !mine.games.length && !r;
  }

  function addEvent(text, colour) {
    const li = document.createElement("li");
    li.textContent = text;
    li.style.color = colour;
    $("events").append(li);
  }

  async function playAction(action) {
    const t0 = performance.now();
    const next = await call(() => play.playMove({
      gameId: view.gameId, choice: { case: "action", value: action },
      actionsPlayed: view.position.actionsPlayed }));
    if (!next) return;
    render(next);
    // the time from the click to the next frame drawn with the new position, for scripts
    requestAnimationFrame(() => {
      document.body.dataset.moveMs = (performance.now() - t0).toFixed(1);
    });
  }

  function targetsOf(action) {
    return [...document.querySelectorAll("#board .move-target")].filter(
      (r) => r.dataset.actions.split(",").includes(String(action)));
  }

  function pick(actions) {
    for (const b of document.querySelectorAll("button.move")) {
      b.classList.toggle("picked", actions.includes(b.dataset.action));
    }
    const first = document.querySelector("button.move.picked");
    if (first) first.scrollIntoView({ block: "nearest" });
  }

  // ---------------------------------------------------------------- hints
  const pct = (p) => `${Math.round(100 * p)}%`;
  const money = (m) => `$${m.toFixed(0)}`;

  let hinted = [];      // the moves of the last hint, best first

  async function hint() {
    const seat = view.seat;
    const response = await call(() => ai.suggestMoves({
      position: { case: "state", value: view.state }, perspective: seat, maxMoves: 5 }));
    if (!response) return;
    const solo = view.players.length === 1;
    hinted = response.moves;
    const explained = hinted.some((m) => m.explanation);
    const table = document.createElement("table");
    table.innerHTML = `<tr><th>move</th>${solo ? "" : "<th>win</th>"}<th>your $</th>` +
      `${explained ? '<th><span class="visually-hidden">explanation</span></th>' : ""}</tr>`;
    hinted.forEach((m, i) => {
      const tr = table.insertRow();
      tr.className = "hint-row";
      tr.dataset.action = String(m.action);
      tr.insertCell().textContent = m.description;
      if (!solo) {
        tr.insertCell().textContent = m.winProbability === undefined ? "" : pct(m.winProbability);
      }
      tr.insertCell().textContent = m.expectedMoney.length ? money(m.expectedMoney[seat]) : "";
      for (const td of [...tr.cells].slice(1)) td.className = "number";
      if (explained) {
        const td = tr.insertCell();
        td.className = "why-cell";
        if (m.explanation) {   // a server older than MoveHint.explanation sends none
          const b = document.createElement("button");
          b.type = "button";
          b.className = "why-toggle";
          b.dataset.index = String(i);
          b.textContent = "why";
          b.setAttribute("aria-label", `Why: ${m.description}`);
          b.setAttribute("aria-controls", "why");
          b.setAttribute("aria-pressed", "false");
          td.append(b);
        }
      }
    });
    const head = document.createElement("div");
    const it = Number(response.stats ? response.stats.iterations : 0);
    head.textContent = `Hint (${response.bot}, ${it.toLocaleString("en")} iterations): ` +
      "click a move to play it" + (explained ? ", “why” to see why" : "");
    $("hints").replaceChildren(head, table);
    const best = hinted[0];
    if (best) drawBest(best);
    if (best && best.explanation) showWhy(0);
  }

  // The explanation of the hint's move `index` (MoveHint.explanation), under the table:
  // its one line, and a disclosure with its parts. Server text only as textContent.
  function showWhy(index) {
    const m = hinted[index];
    const e = m && m.explanation;
    if (!e) return;
    const old = $("why");
    const open = old ? old.querySelector("details").open : false;
    const box = document.createElement("section");
    box.id = "why";
    box.className = "why";
    box.dataset.action = String(m.action);
    box.setAttribute("aria-labelledby", "why-title");
    const el = (tag, text, className) => {
      const node = document.createElement(tag);
      if (text !== undefined) node.textContent = text;
      if (className) node.className = className;
      return node;
    };
    const title = el("h2", `${index === 0 ? "Why the best move" : `Why move ${index + 1}`}: ` +
      m.description);
    title.id = "why-title";
    box.append(title, el("p", e.words, "why-words"));
    const details = el("details", undefined, "why-details");
    details.open = open;
    details.append(el("summary", "Why?"));
    const part = (heading, items, ordered, className) => {
      if (!items.length) return;
      const list = el(ordered ? "ol" : "ul");
      for (const text of items) list.append(el("li", text));
      const div = el("div", undefined, `why-part ${className}`);
      div.append(el("h3", heading), list);
      details.append(div);
    };
    const SCORING = "Final scoring as it stands, ";
    const unprefixed = (w) => (w.startsWith(SCORING)
      ? w.charAt(SCORING.length).toUpperCase() + w.slice(SCORING.length + 1) : w);
    part("This turn:", e.now.map((r) => r.words), false, "why-now");
    part("Final scoring as it stands:", e.scoring.map((r) => unprefixed(r.words)), false,
         "why-scoring");
    part("Then, as the search expects:", e.line, true, "why-line");
    const v = e.versus;
    if (v) {
      const prefix = `Against “${v.description}”: `;
      const words = v.words.startsWith(prefix) ? v.words.slice(prefix.length) : v.words;
      const div = el("div", undefined, "why-part why-versus");
      div.append(el("h3", `Against ${v.description}:`), el("p", words));
      if (v.differences.length) {
        const list = el("ul");
        for (const r of v.differences) list.append(el("li", r.words));
        div.append(list);
      }
      details.append(div);
    }
    if (details.children.length === 1) details.append(el("p", "Nothing more to say."));
    box.append(details);
    if (old) old.replaceWith(box); else $("hints").append(box);
    for (const b of document.querySelectorAll("#hints button.why-toggle")) {
      b.setAttribute("aria-pressed", b.dataset.index === String(index) ? "true" : "false");
    }
    for (const tr of document.querySelectorAll("#hints tr.hint-row")) {
      tr.classList.toggle("explained", tr.dataset.action === String(m.action));
    }
  }

  function drawBest(move) {
    for (const r of targetsOf(move.action)) {
      r.classList.add("best");
      const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
      label.setAttribute("class", "best-label");
      label.setAttribute("x", String(Number(r.getAttribute("x")) + Number(r.getAttribute("width")) - 4));
      label.setAttribute("y", String(Number(r.getAttribute("y")) + 13));
      label.setAttribute("text-anchor", "end");
      label.setAttribute("font-size", "12");
      label.setAttribute("font-weight", "bold");
      label.setAttribute("fill", "#e65100");
      label.textContent = "★ best" + (move.winProbability === undefined ? ""
                                                                      : ` ${pct(move.winProbability)}`);
      r.after(label);
    }
    pick([String(move.action)]);
  }

  // ---------------------------------------------------------------- wiring
  $("players").addEventListener("change", fillSetup);
  $("start").addEventListener("click", async () => {
    let request;
    try { request = startRequest(); } catch (err) { showError(err.message); return; }
    const next = await call(() => play.startGame(request));
    if (next) {
      $("events").innerHTML = "";
      $("review-box").hidden = true;
      render(next, `New game, seed ${next.seed}`);
    }
  });
  $("moves").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.move");
    if (b && !busy) playAction(Number(b.dataset.action));
  });
  $("board").addEventListener("click", (ev) => {
    const r = ev.target.closest(".move-target");
    if (!r || busy) return;
    const actions = r.dataset.actions.split(",");
    if (actions.length === 1) playAction(Number(actions[0]));
    else pick(actions);
  });
  $("hints").addEventListener("click", (ev) => {
    const why = ev.target.closest("button.why-toggle");
    if (why) { showWhy(Number(why.dataset.index)); return; }   // explain, do not play
    const tr = ev.target.closest("tr.hint-row");
    if (tr && !busy) playAction(Number(tr.dataset.action));
  });
  $("hint").addEventListener("click", () => hint());
  $("undo").addEventListener("click", async () => {
    const next = await call(() => play.undoMove({ gameId: view.gameId }));
    if (next) render(next, "You took back your last move");
  });
  $("review").addEventListener("click", async () => {
    const review = await call(() => play.reviewGame({ gameId: view.gameId }));
    if (!review) return;
    $("review-frame").srcdoc = review.html;
    $("review-box").hidden = false;
    $("review-box").scrollIntoView();
    refreshMyGames();
  });
  $("token-ok").addEventListener("click", async () => {
    token = $("token").value.trim();
    $("token-box").hidden = true;
    const again = retry;
    retry = null;
    if (again) {
      const next = await call(again);
      if (next && next.gameId) render(next);
    }
  });

  function resume() {
    const resumed = /^#game=([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
    if (resumed && (!view || view.gameId !== resumed[1])) {
      call(() => play.getGame({ gameId: resumed[1] })).then((next) => {
        if (next) {
          $("events").innerHTML = "";
          $("review-box").hidden = true;
          render(next, "Game resumed");
        }
      });
    }
  }
  window.addEventListener("hashchange", resume);

  fillSetup();
  resume();
  refreshMyGames();
})();
