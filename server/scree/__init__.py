"""scree: semantic and keyword search over a repository's docs and notes (Markdown, reStructuredText, AsciiDoc,
text, PDF)."""

__version__ = "0.1.0"
