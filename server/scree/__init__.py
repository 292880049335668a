"""scree: semantic and keyword search over a repository's Markdown notes."""

__version__ = "0.1.0"
