// The seat in a room lives in this browser tab only (sessionStorage): a refresh restores
// the game, another tab can be another player, and closing the tab forgets the role.
const KEY = "mafia.session";

export function loadSession() {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) || "null");
    return s && s.room ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession() {
  sessionStorage.removeItem(KEY);
}

/** Events already shown as a card, per room, so a refresh does not replay them. */
export function seenEvents(room) {
  return Number(sessionStorage.getItem(`mafia.seen.${room}`) || "-1");
}

export function markEventsSeen(room, count) {
  sessionStorage.setItem(`mafia.seen.${room}`, String(count));
}
