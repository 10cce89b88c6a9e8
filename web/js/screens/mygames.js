// "Your games" on the home screen: the seats kept in this browser whose room is still alive
// (GET /rooms/{code}: public summary only), each with a "return" button. A room the server
// no longer has, or a seat the host removed or the player gave up, is dropped from the list
// with a short note saying which.
import * as api from "../api.js";
import { h, replaceChildren } from "../dom.js";
import { has, t } from "../i18n.js";
import { allSeats, clearSession, seatFate } from "../session.js";

export function yourGames(ctx) {
  const seats = allSeats();
  if (!seats.length) return null;
  const list = h("ul", { class: "my-games", id: "my-games" });
  const notes = h("div", { class: "my-games-notes", role: "status" });
  const section = h(
    "section",
    { class: "card my-games-card", "aria-labelledby": "my-games-title" },
    h("h2", { id: "my-games-title" }, t("mygames.title")),
    list,
    notes,
  );
  const rows = new Map();
  for (const seat of seats) {
    const row = h("li", { class: "my-game", "data-room": seat.room }, h("span", { class: "code" }, seat.room), " ", h("span", { class: "hint" }, t("mygames.checking")));
    rows.set(seat.room, row);
    list.append(row);
  }
  for (const seat of seats) {
    api.getRoom(seat.room).then(
      (summary) => {
        const row = rows.get(seat.room);
        const fate = seatFate(summary, seat); // removed by the host, left, or no such seat
        if (fate) return gone(seat, row, `seat.${fate}`);
        const me = summary.players.find((p) => p.id === seat.playerId);
        const phase = summary.status === "lobby" ? "lobby" : summary.phase;
        replaceChildren(
          row,
          h(
            "span",
            { class: "my-game-words" },
            h("span", { class: "code" }, seat.room),
            " · ",
            t(`preset.${summary.preset}`),
            " · ",
            has(`phase.${phase}`) ? t(`phase.${phase}`) : t("phase.unknown"),
            " · ",
            t("mygames.as", { name: me ? me.name : t("anon.hidden") }),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-primary btn-small",
              "data-return": seat.room,
              "aria-label": t("mygames.returnTo", { code: seat.room }),
              onclick: () => ctx.resume(seat),
            },
            t("mygames.return"),
          ),
        );
      },
      (err) => {
        if (err.status === 404) gone(seat, rows.get(seat.room), "mygames.gone");
      },
    );
  }

  function gone(seat, row, key) {
    clearSession(seat.room);
    if (row) row.remove();
    notes.append(h("p", { class: "notice", "data-gone": seat.room, "data-notice": key }, t(key, { code: seat.room })));
    if (!list.children.length) list.hidden = true;
  }
  return section;
}
