"""The shape of a game state (a plain JSON-ready dict), for readers.

Why a dict and not frozen models: ``apply`` must copy the state for every action
and ``view`` runs a dozen times per action; a dict copied part by part (``game.clone``) with
append-only, never-edited chat messages and events shared between versions keeps both well
under a millisecond, and ``dump``/``load`` are plain copies. Actions and options are still
validated with pydantic models (``actions.py``) and a spec table (``options.py``).

Rules: only ``Game`` helpers and preset rules change a state, and only the copy made by
``clone`` inside ``apply``; a chat message or an event is never changed after creation.

A player (``state["players"][i]``)::

    id: str
    seat: int  # 1-based, the order of new_game's players
    role: str  # a role id of roles.ROLES
    alive: bool
    diedDay: int | None
    diedBy: str | None  # mafia, vote, disconnect, left; original also yakuza, madman, arrest
    revealed: dict | None  # public reveal: {"team"} or {"role", "team"}
    connected: bool  # last presence reported by the room layer
    seenToday: bool  # connected at some moment of the current day
    absentDays: int  # consecutive days without a connection
    lastChatAt: float | None  # for the rate limit
    # and what a preset's ``start`` adds (classic: ``soldierUsed``)

A chat message (``state["chat"][i]``; the key ``from`` is the speaker id or null)::

    id: str  # "<channel>:<n>", n counting that channel's messages only (1, 2, ...)
    channel: str  # one of actions.CHANNELS
    from: str | None
    text: str  # free text; or, instead of it, a phrase (version 6, chat.check_message):
    phrase: str  # an id of chat.PHRASES, drawn by each phone in its own language
    args: dict[str, str]  # {"target": player id} for the phrases that name someone
    variant: int  # which of the phrase's wordings (modulo the ones a language has)
    at: float
    day: int

The state::

    v: int  # state format version (migrations.STATE_VERSION; older ones are migrated on load)
    preset: str
    options: dict[str, Any]  # normalised (check_setup output)
    rng: dict  # the "play" stream: {"key": hex, "n": blocks used} (rng.py); an int in a game
    # saved with the old 48-bit LCG (version 1: migrations.py carries on from a key of it)
    seq: int  # phase_seq
    day: int
    phase: dict[str, Any]  # {"kind", "endsAt", ...phase data of presets/<name>}
    players: list[dict]  # the players above
    lastHeal: dict | None  # {"night", "target"}: the doctor's last heal (doctorRepeat)
    results: dict[str, list[dict]]  # private results by player id (police, medium)
    chat: list[dict]  # the messages above, a window (chat.WINDOW per channel)
    chatSeqs: dict[str, int]  # messages so far per channel (the n of the next id minus one)
    events: list[dict]  # public announcements
    votes: dict | None  # today's public vote results
    winner: str | None
    result: dict | None
    paused: dict | None  # {"left": seconds | None, "by"}: the host froze the clock (pause/resume)
    # a preset's own bookkeeping, set by its ``start``: classic: {"mvpVotes": {town id: count},
    # "nominatedBy": who nominated today's accused} (and each player's ``soldierUsed``, the
    # armour's one attack); city: {"dry": results in a row without elimination,
    # "selfHealUsed"}; original: {"werewolf": None | "mafia" | "yakuza" (the group it joined),
    # "firstSeat"}
    extra: dict[str, Any]
"""
