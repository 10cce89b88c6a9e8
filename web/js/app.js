// Entry point of the page (index.html): a player's client (player.js) or, with `?display=KEY`,
// the room's screen (display/main.js), each its own bundle entry: the TV never boots the
// player's client. Built by scripts/build_web.mjs (docs/architecture.md, "Client build").
if (new URLSearchParams(location.search).has("display")) import("./display/main.js");
else import("./player.js");
