"""The room's features that the room layer calls (none runs as a pipeline command, none imports
the room layer): bots, anonymous aliases, away markers, scores, the fair deal, voice, reports,
limits, leavers."""
