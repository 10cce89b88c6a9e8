"""The room layer: `RoomService` (rooms.py), the request pipeline (pipeline.py), and every
command and step that changes a room document through it."""
