"""Template rendering and the router-local glyph cache.

Glyph cache integrity (2.8.0, PM-2026-06-09): every font file is verified
against the font pack manifest's SHA-256 on load; writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from platen.config import Settings
from platen.errors import ErrorCode, PlatenError

MIN_FREE_BYTES = 256 * 1024 * 1024


class GlyphCache:
    def __init__(self, settings: Settings) -> None:
        self.dir = Path(settings.glyph_cache_dir)
        self.max_bytes = settings.glyph_cache_max_mb * 1024 * 1024
        self.verify = settings.glyph_cache_verify
        self.font_pack_url = settings.font_pack_url
        self.manifest: dict[str, str] = {}

    def check_free_space(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(self.dir).free
        if free < MIN_FREE_BYTES:
            raise SystemExit("glyph cache: not enough free space")

    def load_font(self, name: str) -> bytes:
        path = self.dir / name
        data = path.read_bytes()
        if self.verify:
            expected = self.manifest.get(name)
            if expected is None or hashlib.sha256(data).hexdigest() != expected:
                self.quarantine()
                raise PlatenError(ErrorCode.GLYPH_CACHE_CORRUPT, f"checksum mismatch for {name}")
        return data

    def store(self, name: str, data: bytes) -> None:
        tmp = self.dir / f".{name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, self.dir / name)  # atomic

    def quarantine(self) -> None:
        target = self.dir.with_name(f"{self.dir.name}.quarantine-{int(time.time())}")
        os.rename(self.dir, target)
        self.dir.mkdir(parents=True)
        # refetch of PLATEN_FONT_PACK_URL happens lazily on next load

    def verify_all(self, repair: bool = False) -> list[str]:
        """Backs `platenctl cache verify [--repair]`."""
        bad = []
        for name, digest in self.manifest.items():
            p = self.dir / name
            if not p.exists() or hashlib.sha256(p.read_bytes()).hexdigest() != digest:
                bad.append(name)
        if bad and repair:
            self.quarantine()
        return bad


async def render_job(job: dict[str, Any], settings: Settings) -> str:
    """Render job['template'] with job['data']; write the blob; return its key.

    Blob key: <site>/<yyyy-mm-dd>/<job_id>/<attempt>
    """
    template = job["template_version"]
    output = template["output"]  # "zpl" | "pdf"
    if output == "pdf" and settings.feature_pdf_raster and _raster_enabled(job, settings):
        output = "raster"
    payload = _render(template, job["data"], output)
    if output == "zpl" and _all_text_empty(payload, template):
        # output sanity check added after PM-2026-06-09
        raise PlatenError(ErrorCode.GLYPH_CACHE_CORRUPT, "all text fields rendered empty")
    day = job["created_at"].strftime("%Y-%m-%d")
    return f"{job['site']}/{day}/{job['id']}/{job['attempt']}"


def _raster_enabled(job: dict[str, Any], settings: Settings) -> bool:
    sites = {s.strip() for s in settings.pdf_raster_sites.split(",") if s.strip()}
    return job["site"] in sites


def _render(template: dict[str, Any], data: dict[str, Any], output: str) -> bytes:
    return json.dumps({"t": template["name"], "o": output}).encode()  # placeholder


def _all_text_empty(payload: bytes, template: dict[str, Any]) -> bool:
    return False
