// The table page, one for every game: /r/CODE (a seat), /watch/CODE and /obs/CODE (the public
// view). Everything shown comes from the server's `table` message, already cut down to what
// this seat may see; the page only lays it out. Ids and classes are listed in docs/table.md.
"use strict";
const MODE = location.pathname.startsWith("/obs/") ? "obs" : location.pathname.startsWith("/watch/") ? "watch" : "play";
const CODE = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();
const TOKEN_KEY = "rulepress.seat." + CODE;
let socket = null, last = null, retry = 0, closedForGood = false;
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
    if (msg.type === "table") { retry = 0; showConnection(""); last = msg; render(); }
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

function seatName(seat) {
  const s = last && last.seats.find((x) => x.seat === seat);
  return s ? (s.name || (s.bot ? t("bot") : seat)) : seat;
}

function render() {
  const m = last;
  if (!m) return;
  document.body.dataset.mode = MODE;
  document.body.dataset.status = m.status;
  $("title").textContent = say(m.game.title, m.game.id);
  $("room").textContent = t("room") + " " + m.code;
  renderStatus(m);
  renderSeats(m);
  renderHost(m);
  renderInvite(m);
  renderOptions(m);
  renderZones(m);
  renderLog(m);
  renderResult(m);
}

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
    li.appendChild(el("span", "seat-id", s.seat));
    li.appendChild(el("span", "seat-name", taken ? (s.name || t("bot")) : t("free_seat")));
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

function thingText(m, id, thing) {
  let text = say(m.labels.things[thing.type], thing.type);
  if (id.includes("#")) text += " " + id.slice(id.indexOf("#"));
  if (!thing.up) text += " (" + t("face_down") + ")";
  return text;
}

function counterList(m, counters) {
  const entries = Object.entries(counters || {});
  if (!entries.length) return null;
  const dl = el("dl", "counters");
  for (const [c, v] of entries) {
    dl.appendChild(el("dt", "", say(m.labels.counters[c], c)));
    dl.appendChild(el("dd", "", v === null ? "–" : typeof v === "object" ? JSON.stringify(v) : String(v)));
  }
  return dl;
}

function zoneBox(m, key, zone) {
  const owner = key.includes(".") ? key.split(".")[0] : null;
  const name = key.includes(".") ? key.slice(key.indexOf(".") + 1) : key;
  const box = el("section", "zone");
  box.dataset.zone = key;
  box.appendChild(el("h3", "", (owner && owner !== m.you ? seatName(owner) + ": " : "") + say(m.labels.zones[name], name)));
  const list = el("ul", "things");
  for (const id of zone.things) {
    const thing = m.view.things[id];
    const li = el("li", "thing", thingText(m, id, thing));
    li.dataset.thing = id;
    li.dataset.type = thing.type;
    if (!thing.up) li.classList.add("down");
    if (thing.marks && thing.marks.length) li.appendChild(el("span", "marks", " [" + thing.marks.join(", ") + "]"));
    const cl = counterList(m, thing.counters);
    if (cl) li.appendChild(cl);
    list.appendChild(li);
  }
  if (zone.hidden) list.appendChild(el("li", "hidden-count", zone.hidden + " " + t("hidden")));
  if (!zone.things.length && !zone.hidden) list.appendChild(el("li", "empty", t("nothing")));
  box.appendChild(list);
  return box;
}

function renderZones(m) {
  const hand = $("hand"), board = $("board"), players = $("players");
  hand.textContent = "";
  board.textContent = "";
  players.textContent = "";
  $("hand-panel").hidden = !(m.view && m.you);
  if (!m.view) return;
  const table = el("table", "player-counters");
  const counters = new Set();
  for (const p of Object.values(m.view.players)) for (const c of Object.keys(p.counters)) counters.add(c);
  const head = el("tr");
  head.appendChild(el("th", "", t("players_table")));
  for (const c of counters) head.appendChild(el("th", "", say(m.labels.counters[c], c)));
  table.appendChild(head);
  for (const [p, data] of Object.entries(m.view.players)) {
    const row = el("tr");
    row.dataset.seat = p;
    if (m.deciding.includes(p)) row.classList.add("deciding");
    row.appendChild(el("th", "", seatName(p)));
    for (const c of counters) {
      const v = data.counters[c];
      row.appendChild(el("td", "", v === undefined || v === null ? "–" : String(v)));
    }
    table.appendChild(row);
  }
  const scroll = el("div", "scroll");
  scroll.appendChild(table);
  players.appendChild(scroll);
  const shared = counterList(m, m.view.counters);
  if (shared) players.appendChild(shared);
  const keys = Object.keys(m.view.zones).filter((k) => k !== "players");
  for (const key of keys) {
    const zone = m.view.zones[key];
    const mine = m.you && key.startsWith(m.you + ".");
    if (!mine && !zone.things.length && !zone.hidden) continue;  // an empty public place says nothing
    (mine ? hand : board).appendChild(zoneBox(m, key, zone));
  }
}

function renderLog(m) {
  const log = $("log");
  log.textContent = "";
  for (const line of m.log) {
    const li = el("li", line.private ? "private" : "", line.text);
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

takeTokenFromLink();
setupLangButton(render);
translatePage();
if (MODE !== "play") document.body.classList.add(MODE);
if (MODE === "obs" && new URLSearchParams(location.search).get("transparent") === "1") document.body.classList.add("transparent");
connect();
