// Everything this app keeps on the device, in one place: every key's name (unchanged from
// the modules that used to read storage themselves, so seats, settings and notes saved by an
// older client are still found after an update), JSON in and out, and storage that is off or
// full (a private window, a quota, a browser that forbids it) read as nothing there and
// written as nothing kept; no caller sees an exception.
//
// `device`: this browser (localStorage), every tab and after a restart.
// `tab`: this tab only (sessionStorage).

/** The keys, by what they hold. Names ending in "." are prefixes: + a room code (or more). */
export const KEYS = Object.freeze({
  lang: "mafia.lang", // "ko" | "ru" | "en" (i18n.js)
  kid: "mafia.kid", // "1" | "0": kid wording (i18n.js)
  sound: "mafia.sound", // "on" | "off" (sound.js)
  deviceId: "mafia.deviceKey", // one random id per browser: the device key (session.js)
  seat: "mafia.seat.", // + ROOM: the seat kept in this browser (session.js)
  seen: "mafia.seen.", // + ROOM: events already shown as cards (session.js)
  watch: "mafia.session", // tab: a spectator's room (session.js)
  name: "mafia.name", // tab: the name typed on the home screen (screens/home.js, game/substitute.js)
  former: "mafia.former.", // + ROOM: a token this browser held, kept after the seat ended (game/substitute.js)
  mute: "mafia.mute.", // + room: muted players' ids (game/mute.js)
  notes: "mafia.notes.", // + room: this player's marks on tiles (game/notes.js)
  away: "mafia.away.", // + room.player.since-back: a dismissed "while you were away" (game/away.js)
  inRoom: "mafia.inroom", // "1": the phone keeps only its own panels (game/inroom.js)
  deals: "mafia.dealCommitments", // {room: [commitments]} (game/fairness.js)
  dealValue: "mafia.dealValue.", // + room: this phone's value for the lobby's deal, until the end (game/dealseed.js)
  deviceGame: "mafia.device", // the single-device game (device/store.js)
  deviceVoice: "mafia.device.voice", // "1" | "0": the single device reads aloud (device/store.js)
  voiceVolume: "mafia.voiceVolume.", // + room: {pid: {volume, muted}} heard on this device (voice/volumes.js)
  signIn: "mafia.signIn", // {session, person, expires}: passkey sign-in's session (api.js, screens/account.js)
});

function area(name) {
  // Reading `window.localStorage` itself throws where storage is forbidden.
  const store = () => {
    try {
      return window[name] || null;
    } catch {
      return null;
    }
  };
  return {
    /** The string kept under `key`, or null (none, or storage off). */
    get(key) {
      try {
        const s = store();
        return s ? s.getItem(key) : null;
      } catch {
        return null;
      }
    },
    /** Keep `value` (a string) under `key`; false when it could not be kept. */
    set(key, value) {
      try {
        const s = store();
        if (!s) return false;
        s.setItem(key, String(value));
        return true;
      } catch {
        return false;
      }
    },
    remove(key) {
      try {
        const s = store();
        if (s) s.removeItem(key);
      } catch {
        // storage off: nothing was kept
      }
    },
    /** The JSON value under `key`, or `fallback` when there is none or it does not parse. */
    getJSON(key, fallback = null) {
      const raw = this.get(key);
      if (!raw) return fallback;
      try {
        return JSON.parse(raw);
      } catch {
        return fallback;
      }
    },
    setJSON(key, value) {
      return this.set(key, JSON.stringify(value));
    },
    /** Every key kept here that starts with `prefix`. */
    keys(prefix = "") {
      const out = [];
      try {
        const s = store();
        if (!s) return out;
        for (let i = 0; i < s.length; i++) {
          const k = s.key(i);
          if (k && k.startsWith(prefix)) out.push(k);
        }
      } catch {
        // storage off: nothing kept
      }
      return out;
    },
  };
}

export const device = area("localStorage");
export const tab = area("sessionStorage");
