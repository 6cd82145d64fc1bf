// The lobby: create a room, or join one by its code. A seat's token is kept in
// localStorage under "rulepress.seat.CODE", where the table page finds it.
"use strict";
let GAMES = [];

function showError(text) {
  const el = document.getElementById("lobby-error");
  el.textContent = text || "";
  el.hidden = !text;
}

async function post(url, body) {
  const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify(body)});
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function fillGames() {
  const select = document.getElementById("create-game");
  const kept = select.value;
  select.textContent = "";
  for (const g of GAMES) {
    const option = document.createElement("option");
    option.value = g.id;
    option.textContent = say(g.title, g.id);
    select.appendChild(option);
  }
  if (kept) select.value = kept;
  fillGame();
}

function fillGame() {
  const g = GAMES.find((x) => x.id === document.getElementById("create-game").value);
  const players = document.getElementById("create-players");
  const options = document.getElementById("create-options");
  players.textContent = "";
  options.textContent = "";
  if (!g) return;
  for (let n = g.players.min; n <= g.players.max; n++) {
    const option = document.createElement("option");
    option.value = String(n);
    option.textContent = String(n);
    players.appendChild(option);
  }
  for (const [name, value] of Object.entries(g.options)) {
    const label = document.createElement("label");
    const span = document.createElement("span");
    span.textContent = say(g.option_texts[name], name);
    const input = document.createElement("input");
    input.dataset.option = name;
    if (typeof value === "boolean") { input.type = "checkbox"; input.checked = value; }
    else { input.type = typeof value === "number" ? "number" : "text"; input.value = String(value); }
    label.append(span, " ", input);
    options.appendChild(label);
  }
}

function chosenOptions(g) {
  const out = {};
  for (const input of document.querySelectorAll("#create-options input[data-option]")) {
    const name = input.dataset.option, d = g.options[name];
    const value = typeof d === "boolean" ? input.checked : typeof d === "number" ? Number(input.value) : input.value;
    if (value !== d) out[name] = value;
  }
  return out;
}

document.getElementById("create-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("");
  const g = GAMES.find((x) => x.id === document.getElementById("create-game").value);
  if (!g) return;
  try {
    const r = await post("/api/rooms", {game: g.id, players: Number(document.getElementById("create-players").value),
                                        options: chosenOptions(g), name: document.getElementById("create-name").value,
                                        spectators_see_all: document.getElementById("create-see-all").checked});
    localStorage.setItem("rulepress.seat." + r.code, r.token);
    localStorage.setItem("rulepress.name", document.getElementById("create-name").value);
    location.href = r.url;
  } catch (e) { showError(e.message); }
});

document.getElementById("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError("");
  const code = document.getElementById("join-code").value.trim().toUpperCase();
  try {
    const r = await post("/api/rooms/" + encodeURIComponent(code) + "/join", {name: document.getElementById("join-name").value});
    localStorage.setItem("rulepress.seat." + r.code, r.token);
    localStorage.setItem("rulepress.name", document.getElementById("join-name").value);
    location.href = r.url;
  } catch (e) { showError(e.message); }
});

document.getElementById("create-game").addEventListener("change", fillGame);
setupLangButton(fillGames);
translatePage();
for (const id of ["create-name", "join-name"]) document.getElementById(id).value = localStorage.getItem("rulepress.name") || "";
const wanted = new URLSearchParams(location.search).get("code");
if (wanted) document.getElementById("join-code").value = wanted;
fetch("/api/games").then((r) => r.json()).then((games) => { GAMES = games; fillGames(); })
  .catch(() => showError("cannot reach the server"));
