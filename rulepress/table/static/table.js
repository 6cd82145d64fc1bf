// The table page, one for every game: /r/CODE (a seat), /watch/CODE and /obs/CODE (the public
// view). Everything shown comes from the server's `table` message, already cut down to what
// this seat may see; the page only lays it out. Ids and classes are listed in docs/table.md.
"use strict";
const MODE = location.pathname.startsWith("/obs/") ? "obs" : location.pathname.startsWith("/watch/") ? "watch" : "play";
const CODE = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();
const TOKEN_KEY = "rulepress.seat." + CODE;
let socket = null, last = null, retry = 0, closedForGood = false;
let names = null;  // the game's names (a `names` message, once a socket, before its first table)
const listeners = [];

// Other scripts of the page (voice, presentation) hear every message and may send their own.
window.rulepressTable = {
  mode: MODE, code: CODE,
  onMessage(fn) { listeners.push(fn); },
  send(message) { if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); },
  get last() { return last; },
};

function $(id) { return document.getElementById(id); }
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function takeTokenFromLink() {
  // /r/CODE#t=TOKEN: a seat's link opened on another device; the token moves out of the address
  const m = location.hash.match(/^#t=([A-Za-z0-9_-]{1,200})$/);
  if (m) {
    localStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function showError(text) { $("error").textContent = text || ""; $("error").hidden = !text; }
function showConnection(text) { $("connection").textContent = text || ""; $("connection").hidden = !text; }

function connect() {
  const token = localStorage.getItem(TOKEN_KEY);
  if (MODE === "play" && !token) { showJoin(); return; }
  showConnection(retry ? t("reconnecting") : t("connecting"));
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws/" + encodeURIComponent(CODE));
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify(MODE === "play" ? {type: "hello", token} : {type: "hello", watch: true}));
  });
  socket.addEventListener("message", (event) => {
    let msg;
    try { msg = JSON.parse(event.data); } catch (e) { return; }
    if (msg.type === "names") { names = msg.labels; names.cardKinds = new Set(names.cards || []); }
    else if (msg.type === "table") { retry = 0; showConnection(""); msg.labels = names; last = msg; render(); }
    else if (msg.type === "refused") showError(t("refused"));
    else if (msg.type === "error") { showError(msg.message); render(); }  // the options clickable again
    for (const fn of listeners) { try { fn(msg); } catch (e) { console.error(e); } }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4403) {  // the token opens no seat (or the host freed it)
      localStorage.removeItem(TOKEN_KEY);
      showError(t("forbidden"));
      showJoin();
      return;
    }
    if (event.code === 4404) { closedForGood = true; location.reload(); return; }
    if (event.code === 4409) {  // this seat was opened in more tabs: this one makes way
      closedForGood = true;
      showError(t("elsewhere"));
      showConnection(t("elsewhere"));
      return;
    }
    if (event.code === 4429) {  // this address asked too much: wait a minute before asking again
      retry = 6;
      showConnection(t("busy"));
      setTimeout(connect, 60_000);
      return;
    }
    if (closedForGood) return;
    retry = Math.min(retry + 1, 6);
    showConnection(t("reconnecting"));
    setTimeout(connect, 500 * retry);
  });
}

function showJoin() {
  $("join-panel").hidden = false;
  $("join-name").value = localStorage.getItem("rulepress.name") || "";
}

$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const response = await fetch("/api/rooms/" + encodeURIComponent(CODE) + "/join", {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: $("join-name").value})});
  const data = await response.json().catch(() => ({}));
  if (!response.ok) { showError(data.error || response.statusText); return; }
  localStorage.setItem(TOKEN_KEY, data.token);
  localStorage.setItem("rulepress.name", $("join-name").value);
  $("join-panel").hidden = true;
  showError("");
  connect();
});

// A seat by its player's name; a bot by the word and its seat's number ("Bot 2", "Бот 2").
function seatName(seat) {
  const s = last && last.seats.find((x) => x.seat === seat);
  if (!s) return seat;
  const bot = t("bot");
  return s.bot ? bot.charAt(0).toUpperCase() + bot.slice(1) + " " + seatNumber(seat) : s.name || t("free_seat");
}

function seatNumber(seat) { return String(seat).replace(/^p/, ""); }

// A log line in the page's language (its Russian where the game wrote one). The log names
// players as the engine does ("Player 2", "Игрок 2"): the page says their names.
function logText(line) {
  const text = LANG === "ru" && line.ru ? line.ru : line.text;
  return String(text).replace(/(?<![\p{L}\p{N}])(?:Player|Игрок) (\d+)(?![\p{L}\p{N}])/gu, (all, n) => {
    const seat = "p" + n;
    return last && last.seats.some((s) => s.seat === seat) ? seatName(seat) : all;
  });
}

// "Your turn": the tab's title says it, and a short tone plays (made here, no sound file;
// the bell in the bar turns it off, remembered in this browser) when a decision becomes this
// seat's. A tone needs a click on the page first: browsers start no sound before one.
let wasMine = false, audio = null;
function soundOn() { return localStorage.getItem("rulepress.sound") !== "off"; }
function renderSoundButton() {
  const b = $("sound");
  b.hidden = MODE !== "play";
  b.textContent = "♪";
  b.classList.toggle("off", !soundOn());
  b.title = t(soundOn() ? "sound_off" : "sound_on");
  b.setAttribute("aria-label", b.title);
  b.setAttribute("aria-pressed", String(soundOn()));
}
function tone() {
  if (!soundOn()) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const now = audio.currentTime;
    for (const [at, freq] of [[0, 660], [0.14, 880]]) {
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.18, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.22);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + 0.25);
    }
    window.rulepressTable.tones = (window.rulepressTable.tones || 0) + 1;
  } catch (e) { /* no sound here: the title still says it */ }
}
function yourTurn(m) {
  const mine = MODE === "play" && m.status === "playing" && !!m.you && m.deciding.includes(m.you);
  document.title = (mine ? "● " + t("your_turn") + " · " : "") + say(m.game.title, m.game.id);
  if (mine && !wasMine && document.body.dataset.seen === "1") tone();
  wasMine = mine;
  document.body.dataset.seen = "1";
}

function render() {
  const m = last;
  if (!m) return;
  yourTurn(m);
  renderSoundButton();
  document.body.dataset.mode = MODE;
  document.body.dataset.status = m.status;
  $("title").textContent = say(m.game.title, m.game.id);
  $("room").textContent = t("room") + " " + m.code;
  renderStatus(m);
  renderSeats(m);
  $("see-all").hidden = m.spectators !== "all";
  $("see-all").textContent = t(MODE === "play" ? "see_all_seat" : "see_all_watch");
  renderHost(m);
  renderInvite(m);
  renderOptions(m);
  renderZones(m);
  linkCards(m);
  renderLog(m);
  renderResult(m);
  fitBoard();
}

// On a wide screen the board keeps to the room its panel has: a state that holds more (more
// pieces on a site, a longer row of choices above it) shrinks the board, never the page. A
// board whose players' areas would shrink it far (five Android detectives on a stream) lays
// them out in two or three columns beside the centre instead, whichever leaves it largest.
const ROOMY = 0.85;  // a zoom the board keeps in one column of players without trying more
function fitBoard() {
  const panel = $("board-panel"), board = $("board");
  if (!panel || !board) return;
  columnsOfAreas(board, 1);
  board.style.zoom = "";
  if (getComputedStyle(panel).overflowY === "visible") return;  // (the phone's layout scrolls the page)
  let best = [shrink(panel, board), 1];
  const areas = board.querySelectorAll(":scope > .player-area").length;
  if (best[0] >= ROOMY || areas < 2) return;
  for (let k = 2; k <= Math.min(3, areas); k++) {
    columnsOfAreas(board, k);
    const z = shrink(panel, board);
    if (z > best[0]) best = [z, k];  // (as large: the fewer columns)
  }
  columnsOfAreas(board, best[1]);
  shrink(panel, board);
}

// The board's zoom made small enough for the panel, never below 0.5: the largest that fits
// (sought by halves: the centre's zones reflow as it shrinks), or below 0.5 by how much it
// still overflows there (to compare layouts that do not fit).
function shrink(panel, board) {
  const fits = () => panel.scrollHeight <= panel.clientHeight + 1;
  board.style.zoom = "";
  if (fits()) return 1;
  board.style.zoom = "0.5";
  if (!fits()) return 0.5 * panel.clientHeight / panel.scrollHeight;
  let lo = 0.5, hi = 1;
  while (hi - lo > 0.01) {
    const mid = (lo + hi) / 2;
    board.style.zoom = String(mid);
    if (fits()) lo = mid; else hi = mid;
  }
  board.style.zoom = String(lo);
  return lo;
}

// The players' areas in k columns beside the centre (1: the stylesheet's own layout).
const AREA_WIDTH = { 2: "27%", 3: "21%" };
function columnsOfAreas(board, k) {
  board.style.gridTemplateColumns = k > 1 ? `minmax(0, 1fr) repeat(${k}, minmax(200px, ${AREA_WIDTH[k]}))` : "";
  board.querySelectorAll(":scope > .player-area").forEach((area, i) => { area.style.gridColumn = k > 1 ? String(2 + (i % k)) : ""; });
  board.dataset.areaColumns = String(k);
}
addEventListener("resize", () => { if (last) fitBoard(); });

function renderStatus(m) {
  let text = t("status_" + m.status);
  if (m.view && m.status !== "lobby") text += " · " + t("round") + " " + m.view.round;
  $("status").textContent = text;
  const deciding = $("deciding");
  deciding.textContent = "";
  deciding.className = "";
  if (m.status !== "playing" || !m.deciding.length) return;
  if (m.you && m.deciding.includes(m.you)) {
    deciding.textContent = t("your_decision");
    deciding.className = "mine";
  }
  const others = m.deciding.filter((s) => s !== m.you);
  if (others.length) {
    const span = el("span", "waiting", (deciding.textContent ? " · " : "") + t("waiting_for") + " " + others.map(seatName).join(", "));
    deciding.appendChild(span);
  }
  deciding.dataset.seats = m.deciding.join(" ");
}

function renderSeats(m) {
  const list = $("seats");
  list.textContent = "";
  for (const s of m.seats) {
    const li = el("li", "seat");
    li.dataset.seat = s.seat;
    li.classList.toggle("deciding", m.deciding.includes(s.seat));
    li.classList.toggle("offline", !s.connected && !s.bot);
    li.classList.toggle("me", s.seat === m.you);
    const taken = s.bot || s.name;
    li.appendChild(el("span", "seat-id", seatNumber(s.seat)));
    li.appendChild(el("span", "seat-name", taken ? seatName(s.seat) : t("free_seat")));
    const tags = [];
    if (s.host) tags.push(t("host"));
    if (s.bot) tags.push(t("bot"));
    if (s.seat === m.you) tags.push(t("you"));
    if (taken && !s.bot && !s.connected) tags.push(t("offline"));
    if (tags.length) li.appendChild(el("span", "seat-tags", "(" + tags.join(", ") + ")"));
    if (m.host && m.status === "lobby" && !s.host) {
      const button = el("button", "seat-action", taken ? t("free") : t("add_bot"));
      button.dataset.action = taken ? "free" : "bot";
      button.dataset.seat = s.seat;
      button.addEventListener("click", () => window.rulepressTable.send({type: "host", action: button.dataset.action, seat: s.seat}));
      li.appendChild(button);
    }
    list.appendChild(li);
  }
}

function renderHost(m) {
  const box = $("host-controls");
  box.textContent = "";
  box.hidden = !m.host || MODE !== "play";
  if (box.hidden) return;
  const actions = {lobby: ["start"], playing: ["pause", "lobby"], paused: ["resume", "lobby"], finished: ["new", "lobby"]}[m.status] || [];
  const words = {start: "start", pause: "pause", resume: "resume", lobby: "to_lobby", new: "new_game"};
  for (const action of actions) {
    const button = el("button", "host-action", t(words[action]));
    button.dataset.action = action;
    if (action === "new") button.id = "new-game";
    button.addEventListener("click", () => window.rulepressTable.send({type: "host", action}));
    box.appendChild(button);
  }
}

function renderInvite(m) {
  const box = $("invite");
  box.textContent = "";
  if (MODE !== "play") return;
  box.appendChild(el("p", "invite-code", t("invite") + " " + m.code));
  const links = [["watch_link", "/watch/" + m.code], ["obs_link", "/obs/" + m.code]];
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) links.push(["rejoin_link", "/r/" + m.code + "#t=" + token]);
  for (const [word, href] of links) {
    const a = el("a", "invite-link", t(word));
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener";
    box.appendChild(el("p")).appendChild(a);
  }
}

function renderOptions(m) {
  const box = $("options");
  box.textContent = "";
  const mine = MODE === "play" && m.status === "playing" && m.options.length > 0;
  $("options-panel").hidden = !mine;
  $("prompt").textContent = mine && m.prompt ? say(m.prompt) : "";
  if (!mine) return;
  for (const o of m.options) {
    const button = el("button", "option", say(o.label, o.id));
    button.dataset.choice = o.id;
    button.addEventListener("click", () => {
      showError("");
      for (const b of box.querySelectorAll("button")) b.disabled = true;  // one move per table version
      window.rulepressTable.send({type: "move", version: m.version, choice: o.id});
    });
    box.appendChild(button);
  }
}

// A face held up to read: the card under the pointer (or focused) shown large beside the table.
function showZoom(src, card) {
  if (MODE === "obs" || window.matchMedia("(hover: none)").matches) return;
  const zoom = $("zoom");
  zoom.src = src;
  zoom.hidden = false;
  const r = card.getBoundingClientRect();
  const w = zoom.offsetWidth || 260, h = zoom.offsetHeight || 364;
  const left = r.right + 12 + w < innerWidth ? r.right + 12 : Math.max(4, r.left - 12 - w);
  zoom.style.left = left + "px";
  zoom.style.top = Math.max(4, Math.min(innerHeight - h - 4, r.top - 40)) + "px";
}
function hideZoom() { $("zoom").hidden = true; }

function thingText(m, id, thing) {
  // (a player's own piece on the board is the player: their name)
  let text = m.seats.some((s) => s.seat === thing.type) ? seatName(thing.type) : say(m.labels.things[thing.type], thing.type);
  if (!thing.up) text += " (" + t("face_down") + ")";
  return text;
}

// A counter's value as words: a seat by its name, a thing or place by its name in the game.
function counterValue(m, v) {
  if (v === null) return "–";
  if (typeof v === "boolean") return t(v ? "yes" : "no");
  if (typeof v === "object") return "…";
  if (typeof v === "string") {
    if (m.seats.some((s) => s.seat === v)) return seatName(v);
    const named = valueName(m, v);
    if (named) return say(named, v);
  }
  return String(v);
}

// A counter's value that is a kind of thing, a place or a zone: its name (naming.value_name).
function valueName(m, v) { return m.labels.things[v] || m.labels.values[v]; }
// A zone's name by its name without an owner (naming.zone_label).
function zoneLabel(m, name) { return m.labels.zones[name] || m.labels.things[name]; }

// A thing's counters; one whose value is a seat (whose piece it is) is that seat's name alone,
// and not said at all in that seat's own area (`owner`), where it goes without saying.
function counterList(m, counters, owner) {
  const entries = Object.entries(counters || {});
  if (!entries.length) return null;
  const dl = el("dl", "counters");
  const internal = new Set(m.labels.internal || []);  // (bookkeeping, on a piece as in a badge: never shown)
  for (const [c, v] of entries) {
    if (internal.has(c) || v === null || (typeof v === "string" && !worthShowing(v, m))) continue;
    const seat = typeof v === "string" && m.seats.some((s) => s.seat === v);
    if (seat && v === owner) continue;
    const dt = el("dt", seat ? "of-seat" : "", say(m.labels.counters[c], c));
    dl.appendChild(dt);
    const dd = el("dd", seat ? "seat-value" : "", counterValue(m, v));
    if (seat) { dd.dataset.seat = v; dd.title = dt.textContent; }
    dl.appendChild(dd);
  }
  return dl.childElementCount ? dl : null;
}

// A card's printed face (or a zone's back) by the key its frame gave: the server made the key
// for this room and serves nothing else, and the key names no card (static/faces: faces.py).
function faceUrl(m, key) { return "/faces/" + encodeURIComponent(m.code) + "/" + LANG + "/" + key + ".png"; }

// A thing as a card: its printed face where the game has one (the same as `rulepress print`),
// else its name on a plain face; face down, the seat sees it marked so. What a seat may not
// see never reaches the page: it is only counted (li.hidden-count, drawn as its zone's backs).
function cardOf(m, id, thing, owner) {
  // (a kind of thing that is no card, a character or a building, is a piece: a small token)
  const card = m.labels.cardKinds.has(thing.type);
  const li = el("li", "thing " + (card ? "card" : "piece"));
  li.dataset.thing = id;
  li.dataset.type = thing.type;
  if (!thing.up) li.classList.add("down");
  li.appendChild(el("span", "card-name", thingText(m, id, thing)));
  li.title = li.firstChild.textContent;
  const key = m.faces && m.faces.cards[thing.type];
  if (key) {
    const img = el("img", "face");
    img.src = faceUrl(m, key);
    img.alt = li.title;
    img.draggable = false;
    img.addEventListener("error", () => { li.classList.remove("has-face"); img.remove(); });
    li.classList.add("has-face");
    li.appendChild(img);
    if (!thing.up) li.appendChild(el("span", "down-tag", t("face_down")));
    li.addEventListener("mouseenter", () => showZoom(img.src, li));
    li.addEventListener("mouseleave", hideZoom);
    li.addEventListener("focus", () => showZoom(img.src, li));
    li.addEventListener("blur", hideZoom);
  }
  if (thing.marks && thing.marks.length) {
    li.appendChild(el("span", "marks", thing.marks.map((k) => say((m.labels.marks || {})[k], k)).join(", ")));
  }
  const cl = counterList(m, thing.counters, owner);
  if (cl) li.appendChild(cl);
  return li;
}

const SUPPLY = 8;  // a zone of more things than this is a supply: folded, opened on a click

function zoneBox(m, key, zone) {
  const owner = key.includes(".") ? key.split(".")[0] : null;
  const name = key.includes(".") ? key.slice(key.indexOf(".") + 1) : key;
  const box = el("section", "zone");
  box.dataset.zone = key;
  // (the engine's own zones have no name in the game: the page's words name them)
  const named = zoneLabel(m, name);
  const title = name === "supply" && (!named || named.ru === undefined) ? t("zone_supply") : say(named, name);
  const count = zone.things.length + (zone.hidden || 0);
  const list = el("ul", "things");
  for (const id of zone.things) list.appendChild(cardOf(m, id, m.view.things[id], owner));
  if (zone.hidden) {
    const stack = el("li", "hidden-count");
    stack.dataset.count = String(Math.min(zone.hidden, 3));
    const back = m.faces && m.faces.backs[key];
    if (back) {  // the backs' picture, and the count on it as a deck's badge (the word for screen readers)
      stack.classList.add("has-back");
      stack.style.backgroundImage = "url(\"" + faceUrl(m, back) + "\")";
      stack.appendChild(el("span", "stack-count", String(zone.hidden)));
      stack.appendChild(el("span", "unseen", " " + t("hidden")));
    } else stack.textContent = zone.hidden + " " + t("hidden");
    list.appendChild(stack);
  }
  if (!zone.things.length && !zone.hidden) list.appendChild(el("li", "empty", t("nothing")));
  if (!zone.things.length && zone.hidden) box.classList.add("stack");  // a deck: its backs and count
  const mine = m.you && owner === m.you;
  if (!mine && zone.things.length > SUPPLY) {  // a supply: folded, its count in the heading
    box.classList.add("supply");
    const details = el("details");
    details.appendChild(el("summary", "", title + " (" + count + ")"));
    details.appendChild(list);
    box.appendChild(details);
    return box;
  }
  box.appendChild(el("h3", "", title + (count > 1 ? " (" + count + ")" : "")));
  box.title = title;
  box.appendChild(list);
  return box;
}

// A counter with nothing to say (no value, a "not yet" flag, a negative "not set" mark) is
// left out of the badges: it is the game's bookkeeping, not something players track.
// A text value the game gives no name (a phase's id, say) is an engine word: left out too.
function worthShowing(v, m) {
  if (typeof v === "string") return m.seats.some((s) => s.seat === v) || !!valueName(m, v);
  return !(v === null || v === false || (typeof v === "number" && v < 0) || typeof v === "object");
}

function badgeList(m, counters) {
  const badges = el("ul", "badges");
  const internal = new Set(m.labels.internal || []);
  for (const [c, v] of Object.entries(counters || {})) {
    if (internal.has(c) || !worthShowing(v, m)) continue;
    const b = el("li", "badge");
    b.dataset.counter = c;
    b.appendChild(el("span", "badge-name", say(m.labels.counters[c], c)));
    b.appendChild(el("span", "badge-value", counterValue(m, v)));
    badges.appendChild(b);
  }
  return badges;
}

// Each player has an area of their own: their name, their counters as badges, their
// zones (a hand they hold shows as backs). The zones of no one are the centre of the table.
function playerArea(m, p) {
  const area = el("section", "player-area");
  area.dataset.seat = p;
  area.classList.toggle("deciding", m.deciding.includes(p));
  area.appendChild(el("h3", "player-name", seatName(p)));
  const badges = badgeList(m, m.view.players[p].counters);
  if (badges.childElementCount) area.appendChild(badges);
  const zones = el("div", "area-zones");
  area.appendChild(zones);
  return [area, zones];
}

function renderZones(m) {
  const hand = $("hand"), board = $("board"), players = $("players");
  hand.textContent = "";
  board.textContent = "";
  players.textContent = "";
  $("hand-panel").hidden = !(m.view && m.you);
  if (!m.view) return;
  const shared = badgeList(m, m.view.counters);
  if (shared.childElementCount) players.appendChild(shared);
  const areas = {};
  const centre = el("section", "centre");
  const order = Object.keys(m.view.players).sort((a, b) => (b === m.you) - (a === m.you));  // this seat's first
  for (const p of order) {
    const [area, zones] = playerArea(m, p);
    area.classList.toggle("me", p === m.you);
    areas[p] = zones;
    // this seat's own area sits with its hand, at the bottom: the player's mat
    (p === m.you ? hand : board).appendChild(area);
  }
  board.appendChild(centre);
  // the game's own layout (game.yaml's `table:`), where it gives one; else the page derives it
  const layout = m.game.layout || {};
  const hidden = new Set(layout.hidden || []);
  const keys = Object.keys(m.view.zones).filter((k) => k !== "players" && k !== "removed"  // (removed: out of the game)
    && !hidden.has(k.includes(".") ? k.slice(k.indexOf(".") + 1) : k));
  // a place that is also a piece on the board (a site in a district) holds its zone's things
  // inside that piece: the map reads district > site > who stands there
  const nested = sitesOf(m, keys);
  // the cards (decks, markets) first, then the places, the supply last
  const weight = (k) => { const z = m.view.zones[k]; return z.things.length > SUPPLY ? 2 : z.hidden || z.things.some((id) => m.labels.cardKinds.has(m.view.things[id].type)) ? 0 : 1; };
  for (const key of keys.slice().sort((a, b) => weight(a) - weight(b))) {
    const zone = m.view.zones[key];
    const owner = key.includes(".") ? key.split(".")[0] : null;
    const mine = m.you && owner === m.you;
    if (!mine && !zone.things.length && !zone.hidden) continue;  // an empty public place says nothing
    if (nested[key]) continue;
    (mine ? hand : owner !== m.you && areas[owner] || centre).appendChild(zoneBox(m, key, zone));
  }
  placeOnMap(m, centre, layout.map);
  for (const [key, host] of Object.entries(nested)) {
    const piece = board.querySelector(`li.thing[data-thing="${CSS.escape(host)}"]`);
    const zone = m.view.zones[key];
    if (!piece || (!zone.things.length && !zone.hidden)) continue;
    const box = zoneBox(m, key, zone);
    box.classList.add("nested");
    box.querySelector("h3").remove();
    piece.classList.add("site");
    piece.appendChild(box);
  }
  for (const area of board.querySelectorAll(".player-area")) {
    if (!area.querySelector(".zone") && !area.querySelector(".badge")) area.classList.add("empty-area");
  }
}

// The game's map: each location's zone at its column and row of a grid of its own, at the top
// of the centre; the centre's other zones follow it as the page lays them out.
function placeOnMap(m, centre, map) {
  if (!map || !Object.keys(map).length) return;
  const grid = el("section", "map");
  for (const [loc, [col, row]] of Object.entries(map)) {
    let box = centre.querySelector(`:scope > section.zone[data-zone="${CSS.escape(loc)}"]`);
    if (!box) {  // an empty place keeps its spot on the map
      box = el("section", "zone empty-place");
      box.dataset.zone = loc;
      box.appendChild(el("h3", "", say(zoneLabel(m, loc), "")));
    }
    box.style.gridColumn = String(col);
    box.style.gridRow = String(row);
    grid.appendChild(box);
  }
  centre.insertBefore(grid, centre.firstChild);
}

// zone key -> the thing that is that place, for a place of no one shown as one piece (of its
// kind, alone) in another zone on the board (not folded away, not itself held in a piece)
function sitesOf(m, keys) {
  const where = {};
  for (const k of keys) for (const id of m.view.zones[k].things) {
    const type = m.view.things[id].type;
    (where[type] = where[type] || []).push([id, k]);
  }
  const out = {};
  for (const k of keys) {
    const at = where[k];
    if (k.includes(".") || !at || at.length !== 1) continue;
    const [id, zone] = at[0];
    if (zone === k || m.view.zones[zone].things.length > SUPPLY || zone.includes(".")) continue;
    out[k] = id;
  }
  for (const k of Object.keys(out)) {  // one level: a host zone held in a piece itself stays apart
    const hostZone = where[k][0][1];
    if (out[hostZone]) delete out[k];
  }
  return out;
}

// An option that names a card on the table is chosen with one click on that card too (the
// first card of that name not already taken by another option): legal choices light up.
function linkCards(m) {
  if (MODE !== "play" || m.status !== "playing" || !m.options.length) return;
  const taken = new Set();
  for (const button of $("options").querySelectorAll("button.option")) {
    const label = button.textContent;
    const card = [...document.querySelectorAll("#hand .thing, #board .thing")]
      .find((c) => !taken.has(c) && c.querySelector(".card-name").textContent === label);
    if (!card) continue;
    taken.add(card);
    card.classList.add("choosable");
    card.dataset.choice = button.dataset.choice;
    card.tabIndex = 0;
    const choose = () => { if (!button.disabled) button.click(); };
    card.addEventListener("click", choose);
    card.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
  }
}

function renderLog(m) {
  const log = $("log");
  log.textContent = "";
  for (const line of m.log) {
    const li = el("li", line.private ? "private" : "", logText(line));
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function renderResult(m) {
  const box = $("result");
  box.textContent = "";
  box.hidden = !m.result;
  if (!m.result) return;
  box.appendChild(el("h2", "", t("result")));
  const winners = m.result.winners || [];
  box.appendChild(el("p", "winners", winners.length ? t("winners") + ": " + winners.map(seatName).join(", ") : t("no_winner")));
  const list = el("ul", "scores");
  for (const [p, s] of Object.entries(m.result.scores || {})) {
    const li = el("li", "", seatName(p) + ": " + s);
    li.dataset.seat = p;
    list.appendChild(li);
  }
  box.appendChild(list);
}

$("sound").addEventListener("click", () => {
  localStorage.setItem("rulepress.sound", soundOn() ? "off" : "on");
  renderSoundButton();
  if (soundOn()) tone();  // (what it sounds like, and the click lets the browser play it later)
});

takeTokenFromLink();
setupLangButton(render);
translatePage();
if (MODE !== "play") document.body.classList.add(MODE);
if (MODE === "obs" && new URLSearchParams(location.search).get("transparent") === "1") document.body.classList.add("transparent");
connect();
