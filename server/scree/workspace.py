"""Wiring: from a Config to the folder, its index, its policy and the embedder. Used by CLI and server."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .config import Config
from .embed import Embedder, make_embedder
from .locate import IndexLocation, index_location, resolve_folder
from .notes.policy import NotesPolicy
from .index.store import Index, open_index


@dataclass(frozen=True)
class Workspace:
    """One notes folder and where its index lives; opens the parts on demand."""

    config: Config
    folder: Path
    location: IndexLocation

    @classmethod
    def from_config(cls, config: Config, cwd: Path | None = None) -> "Workspace":
        folder = resolve_folder(config, cwd)
        return cls(config=config, folder=folder, location=index_location(folder, config))

    def open_index(self, *, create: bool = True) -> Index:
        return open_index(self.location, self.folder, create=create,
                          vector_cache_bytes=int(self.config.vector_cache_mb * 1024 * 1024))

    def policy(self) -> NotesPolicy:
        """A fresh policy: it reads the ignore files as they are now."""
        return NotesPolicy.load(self.folder, suffixes=self.config.note_suffixes, languages=self.config.indexed_languages)

    def embedder(self) -> Embedder:
        """The configured embedder; the model itself loads on first use."""
        return make_embedder(self.config.embedder, threads=self.config.threads, config=self.config)
