"""What crosses the wire: client and server frames, REST bodies, strict JSON, views' bytes and
patches, and the input rules they check (names, room codes, quotes)."""
