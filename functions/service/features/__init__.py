"""The room's features that the room layer calls and that change no room by themselves: bots,
anonymous aliases, away markers, scores, the fair deal, voice, reports, limits, leavers."""
