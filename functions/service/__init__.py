"""Service layer shared by every Lambda handler: storage, rooms, views, fan-out, timers, auth, clock."""
