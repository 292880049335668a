"""Embedders: turn passages and queries into unit vectors.

Importing this package loads no model runtime (onnxruntime, tokenizers); the
local model is imported and loaded on its first embed call.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Callable

from scree.errors import ConfigError

from .base import Embedder, Passage, readable_languages

if TYPE_CHECKING:
    from scree.config import Config

__all__ = ["Embedder", "Passage", "make_embedder", "readable_languages", "EMBEDDER_NAMES"]

Factory = Callable[[int | None, "Config | None"], Embedder]


def _make_local(threads: int | None, config: Config | None) -> Embedder:
    # Imported here, not at module level, so `import scree.embed` stays light even
    # if local.py grows imports later.
    from .local import LocalMiniLM

    return LocalMiniLM(threads=threads)


def _make_api(threads: int | None, config: Config | None) -> Embedder:
    # httpx is imported by api.py only, and only when this embedder is chosen.
    from .api import ApiEmbedder, settings_from_config

    return ApiEmbedder(settings_from_config(config))


# Name -> factory; callers only ever go through make_embedder.
_FACTORIES: dict[str, Factory] = {
    "local": _make_local,
    "api": _make_api,
}

#: The names make_embedder accepts.
EMBEDDER_NAMES: tuple[str, ...] = tuple(_FACTORIES)

#: Test-only seam: the path of a Python file defining ``NAME`` and ``make_embedder(threads)`` adds
#: that one name (the suite's deterministic fake, tests/helpers/fake_embedder.py), so the CLI and
#: server run in test subprocesses without loading a model. Not a setting: never set it elsewhere.
TEST_EMBEDDER_ENV = "SCREE_TEST_EMBEDDER"


def _test_factory(name: str) -> Factory | None:
    path = os.environ.get(TEST_EMBEDDER_ENV)
    if not path:
        return None
    spec = importlib.util.spec_from_file_location("scree_test_embedder", path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"{TEST_EMBEDDER_ENV}={path!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if getattr(module, "NAME", None) != name:
        return None
    made: Callable[[int | None], Embedder] = module.make_embedder
    return lambda threads, config: made(threads)


def make_embedder(name: str = "local", *, threads: int | None = None, config: Config | None = None) -> Embedder:
    """Build the embedder called ``name``; nothing is loaded (and no request sent) until its first embed call.

    ``config`` carries the API embedder's settings (defaults without it). Raises ConfigError for an
    unknown name, a thread count below 1, or API settings that cannot work.
    """
    factory = _FACTORIES.get(name) or _test_factory(name)
    if factory is None:
        valid = ", ".join(EMBEDDER_NAMES)
        raise ConfigError(f"unknown embedder {name!r}: valid names are {valid}")
    return factory(threads, config)
