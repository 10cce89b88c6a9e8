// "In the room": when a screen shows the table (`room.screens`, a public count of the room's
// connected displays: functions/service/room/displays.py `count`), a phone may keep only what is
// its own: the role, the task and the vote (the action panel, and the seat grid only while it
// asks this player to choose). The grid and the chat with the news fold away, each one tap
// from coming back. The choice is this device's (localStorage), not the room's.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { device, KEYS } from "../storage.js";

export function inRoomWanted() {
  return device.get(KEYS.inRoom) === "1";
}

function setWanted(on) {
  if (on) device.set(KEYS.inRoom, "1");
  else device.remove(KEYS.inRoom);
}

/** The bar above the panels (`el`) and `update(view)`, which shows the toggle while a screen
 * is connected and folds `players` and `chat` (elements) in the compact mode. */
export function inRoomBar(game, players, chat) {
  const peek = { players: false, chat: false };
  let last = null;
  const toggle = h("button", { type: "button", class: "btn in-room-toggle", id: "in-room-btn", onclick: () => {
    setWanted(!inRoomWanted());
    peek.players = peek.chat = false;
    if (last) update(last);
  } });
  const showPlayers = h("button", { type: "button", class: "btn btn-small", id: "in-room-players", onclick: () => flip("players") });
  const showChat = h("button", { type: "button", class: "btn btn-small", id: "in-room-chat", onclick: () => flip("chat") });
  const folds = h("div", { class: "in-room-folds" }, showPlayers, showChat);
  const hint = h("p", { class: "hint in-room-hint" });
  const el = h("div", { class: "in-room-bar", id: "in-room-bar", hidden: true }, toggle, hint, folds);

  function flip(which) {
    peek[which] = !peek[which];
    if (last) update(last);
  }

  // only what differs is written: the same view again writes nothing (test_kept_panels.py)
  function update(view) {
    last = view;
    const screen = Number((view.room && view.room.screens) || 0) > 0;
    const compact = screen && inRoomWanted();
    hide(el, !screen);
    game.classList.toggle("in-room", compact);
    say(toggle, t("inroom.toggle"));
    mark(toggle, "aria-pressed", String(compact));
    say(hint, compact ? t("inroom.on") : t("inroom.offer"));
    hide(folds, !compact);
    // the grid stays while it is this player's vote or target to tap
    const choosing = Boolean(players.querySelector(".tile.selectable"));
    hide(players, compact && !choosing && !peek.players);
    hide(chat, compact && !peek.chat);
    hide(showPlayers, choosing);
    say(showPlayers, t(peek.players ? "inroom.hideSeats" : "inroom.showSeats"));
    mark(showPlayers, "aria-expanded", String(!players.hidden));
    say(showChat, t(peek.chat ? "inroom.hideChat" : "inroom.showChat"));
    mark(showChat, "aria-expanded", String(!chat.hidden));
  }

  return { el, update };
}

function hide(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

function say(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function mark(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
