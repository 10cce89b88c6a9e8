"""Thin Lambda handlers: parse the event, call the service, map the result."""
