"""Patches for behaviour moto server does not emulate. Each patch is small and named."""


def apply() -> None:
    """Apply every patch. Called once by moto_server.py before the server starts."""
