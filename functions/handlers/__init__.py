"""Thin Lambda handlers: parse the event, call the service, map the result."""

import os

# We use no pydantic plugins: without this, the first model a cold start builds scans every
# installed distribution's entry points (importlib.metadata) looking for some.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
