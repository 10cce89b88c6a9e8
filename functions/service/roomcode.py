"""What a room code looks like: shared by REST (new codes, the path) and frames (the `room` hint)."""

ROOM_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
ROOM_CODE_LENGTH = 5
ROOM_CODE_PATTERN = r"^[A-Za-z0-9]{4,8}$"  # what a room code may look like in a path or a frame
