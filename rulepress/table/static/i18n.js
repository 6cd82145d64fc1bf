// The page's own words in English and Russian. Names of the game's things, zones, counters
// and options come with the server's messages in both languages already.
"use strict";
const STRINGS = {
  en: {
    lobby_title: "Game table", create_room: "Create a room", join_room: "Join by code",
    create_hint: "Play with friends and spectators. The system runs the turns; no account needed.",
    join_hint: "Your seat is kept in this browser: the same link brings you back to it.",
    game: "Game", players: "Players", your_name: "Your name", create: "Create", code: "Code", join: "Join",
    room: "Room", invite: "Invite: code", rejoin_link: "Link to this seat from another device",
    watch_link: "Spectators", obs_link: "Stream (OBS)",
    status_lobby: "In the lobby: waiting for the host to start",
    status_playing: "Playing", status_paused: "Paused by the host", status_finished: "Game over",
    your_decision: "Your decision", waiting_for: "Waiting for", round: "Round",
    seats: "Seats", free_seat: "free", bot: "bot", host: "host", offline: "offline", you: "you",
    hand: "Your hand and private information", board: "The board", log: "Log", options: "Your options",
    result: "Result", winners: "Winners", no_winner: "No winner", score: "score",
    start: "Start", pause: "Pause", resume: "Resume", to_lobby: "Back to the lobby", new_game: "New game",
    free: "Free seat", add_bot: "Bot", hidden: "hidden", face_down: "face down",
    refused: "The table has already changed: look at the new state and move again.",
    join_this: "Join this table", forbidden: "This link does not open a seat of this room.",
    connecting: "Connecting…", reconnecting: "Connection lost; reconnecting…",
    yes: "yes", no: "no", zone_supply: "Supply",
    elsewhere: "This seat is open in other tabs; this one is closed.", busy: "Too many tries from your network; trying again in a minute…", spectating: "Watching",
    nothing: "(empty)", counters: "Counters", players_table: "Players",
    your_turn: "Your turn", sound_on: "Sound when it is your turn: off (click to turn on)",
    sound_off: "Sound when it is your turn: on (click to turn off)",
    see_all_seat: "At this table spectators see every player's cards.",
    see_all_watch: "You see every player's cards (the host allowed it).",
    see_all_option: "Spectators see every player's cards",
    see_all_hint: "For streams and teaching: anyone with the code, a player too, can open the spectators' page and see every hand.",
  },
  ru: {
    lobby_title: "Игровой стол", create_room: "Создать комнату", join_room: "Войти по коду",
    create_hint: "Игра с друзьями и зрителями. Ход ведёт система, аккаунт не нужен.",
    join_hint: "Место сохраняется в этом браузере: та же ссылка вернёт вас на него.",
    game: "Игра", players: "Игроков", your_name: "Ваше имя", create: "Создать", code: "Код", join: "Войти",
    room: "Комната", invite: "Приглашение: код", rejoin_link: "Ссылка на это место с другого устройства",
    watch_link: "Зрители", obs_link: "Трансляция (OBS)",
    status_lobby: "Лобби: ждём, когда хозяин начнёт",
    status_playing: "Идёт игра", status_paused: "Хозяин поставил игру на паузу", status_finished: "Партия окончена",
    your_decision: "Ваше решение", waiting_for: "Ждём решения:", round: "Раунд",
    seats: "Места", free_seat: "свободно", bot: "бот", host: "хозяин", offline: "не в сети", you: "вы",
    hand: "Ваша рука и закрытые сведения", board: "Поле", log: "Журнал", options: "Ваши варианты",
    result: "Итог", winners: "Победители", no_winner: "Победителя нет", score: "очки",
    start: "Начать", pause: "Пауза", resume: "Продолжить", to_lobby: "Вернуть в лобби", new_game: "Новая партия",
    free: "Освободить", add_bot: "Бот", hidden: "закрыто", face_down: "рубашкой вверх",
    refused: "Стол уже изменился: посмотрите новое состояние и повторите ход.",
    join_this: "Сесть за этот стол", forbidden: "Эта ссылка не открывает место в этой комнате.",
    connecting: "Подключение…", reconnecting: "Связь потеряна; переподключение…",
    yes: "да", no: "нет", zone_supply: "Запас",
    elsewhere: "Это место открыто в других вкладках; эта закрыта.", busy: "Слишком много попыток из вашей сети; повтор через минуту…", spectating: "Просмотр",
    nothing: "(пусто)", counters: "Счётчики", players_table: "Игроки",
    your_turn: "Ваш ход", sound_on: "Звук, когда ваш ход: выключен (нажмите, чтобы включить)",
    sound_off: "Звук, когда ваш ход: включён (нажмите, чтобы выключить)",
    see_all_seat: "За этим столом зрители видят карты всех игроков.",
    see_all_watch: "Вы видите карты всех игроков (хозяин стола разрешил).",
    see_all_option: "Зрители видят карты всех игроков",
    see_all_hint: "Для трансляций и обучения: любой, у кого есть код, в том числе игрок, может открыть страницу зрителей и увидеть все руки.",
  },
};

function pickLang() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "ru" || asked === "en") return asked;
  const kept = localStorage.getItem("rulepress.lang");
  if (kept === "ru" || kept === "en") return kept;
  return (navigator.language || "en").toLowerCase().startsWith("ru") ? "ru" : "en";
}

let LANG = pickLang();

function t(key) { return (STRINGS[LANG] && STRINGS[LANG][key]) || STRINGS.en[key] || key; }

// A {en, ru} label of the game in the page's language (English where the other is missing).
function say(label, fallback) {
  if (label && typeof label === "object") return label[LANG] || label.en || fallback || "";
  if (typeof label === "string") return label;
  return fallback || "";
}

function translatePage() {
  document.documentElement.lang = LANG;
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  const button = document.getElementById("lang");
  if (button) button.textContent = LANG === "ru" ? "EN" : "RU";
}

function setupLangButton(onChange) {
  const button = document.getElementById("lang");
  if (!button) return;
  button.addEventListener("click", () => {
    LANG = LANG === "ru" ? "en" : "ru";
    localStorage.setItem("rulepress.lang", LANG);
    translatePage();
    if (onChange) onChange();
  });
}
