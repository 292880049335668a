"""`platenctl` (operator CLI) and `platen` (server entry point).

Only the command surface is sketched here; handlers call the v2 API or, for a
few maintenance commands (migrate, partitions, dump), the database directly.
"""

from __future__ import annotations

import click

ENVS = ("dev", "staging", "prod-us", "prod-eu")

# Tables included in the nightly logical dump (platen-config-dump, 02:40 UTC).
# Add new config-like tables here! (restore drill 2026 Q2 found site_calendar missing)
CONFIG_DUMP_TABLES = (
    "sites",
    "site_calendar",
    "printers",
    "stations",
    "pools",
    "templates",
    "template_versions",
    "webhook_subscriptions",
)


@click.group()
@click.option("--env", type=click.Choice(ENVS), envvar="PLATEN_CTL_ENV", default="dev")
@click.option("--output", type=click.Choice(["table", "json", "ids"]), default="table")
@click.option("--yes", is_flag=True, help="skip confirmation prompts")
@click.pass_context
def main(ctx: click.Context, env: str, output: str, yes: bool) -> None:
    """Platen operator CLI."""
    ctx.obj = {"env": env, "output": output, "yes": yes}


@main.command()
def login() -> None:
    """Device-code SSO login; token cached in ~/.config/platen/credentials.json."""


@main.command()
def whoami() -> None:
    """Show sub, scopes, token expiry."""


# --- jobs -------------------------------------------------------------------
@main.group()
def jobs() -> None:
    """Inspect and act on print jobs."""


@jobs.command("get")
@click.argument("job_id")
@click.option("--events", is_flag=True)
@click.option("--blob", is_flag=True, help="write the rendered payload to stdout")
def jobs_get(job_id: str, events: bool, blob: bool) -> None: ...


@jobs.command("list")
@click.option("--state", help="comma separated; prefix ! to negate")
@click.option("--site")
@click.option("--priority", type=click.Choice(["p0", "p1", "p2"]))
@click.option("--printer")
@click.option("--client")
@click.option("--since", default="1h")
@click.option("--cutoff-within")
@click.option("--rendered-by", help="router pod name")
@click.option("--limit", default=100)
def jobs_list(**_: object) -> None: ...


@jobs.command("submit")
@click.option("--template", required=True)
@click.option("--sample", type=click.Path(exists=True), required=True)
@click.option("--site", required=True)
@click.option("--station")
@click.option("--priority", default="p1")
def jobs_submit(**_: object) -> None: ...


@jobs.command("cancel")
@click.argument("job_id")
@click.option("--reason", required=True)
def jobs_cancel(job_id: str, reason: str) -> None: ...


@jobs.command("reprint")
@click.argument("job_id")
@click.option("--printer")
@click.option("--rerender", is_flag=True)
@click.option("--force", is_flag=True, help="bypass the 3-per-hour reprint limit")
@click.option("--reason", required=True)
def jobs_reprint(**_: object) -> None: ...


@jobs.command("requeue")
@click.option("--state", default="failed")
@click.option("--code", help="failure code, e.g. PLT-3007")
@click.option("--template")
@click.option("--batch")
@click.option("--since", default="1h")
@click.option("--dry-run", is_flag=True)
def jobs_requeue(**_: object) -> None: ...


@jobs.command("retarget")
@click.argument("job_ids", nargs=-1)
@click.option("--printer", "from_printer")
@click.option("--site")
@click.option("--state")
@click.option("--to-site")
@click.option("--station")
@click.option("--pool")
@click.option("--reason", required=True)
def jobs_retarget(**_: object) -> None: ...


@jobs.command("reprioritize")
@click.option("--client")
@click.option("--site")
@click.option("--from", "from_priority")
@click.option("--to", "to_priority", required=True)
@click.option("--state", default="accepted")
@click.option("--cutoff-within")
@click.option("--reason")
def jobs_reprioritize(**_: object) -> None: ...


# --- queue ------------------------------------------------------------------
@main.group()
def queue() -> None:
    """Queue statistics and claim control."""


@queue.command("stats")
@click.option("--by", type=click.Choice(["site", "client"]))
@click.option("--priority")
def queue_stats(**_: object) -> None: ...


@queue.command("pause")
@click.option("--priority", required=True, type=click.Choice(["p0", "p1", "p2", "all"]))
@click.option("--reason", required=True)
@click.option("--force", is_flag=True, help="required for p0 and all")
def queue_pause(priority: str, reason: str, force: bool) -> None:
    if priority in ("p0", "all") and not force:
        raise click.UsageError("pausing p0 stops carrier labels; pass --force if you mean it")


@queue.command("resume")
@click.option("--priority", required=True, type=click.Choice(["p0", "p1", "p2", "all"]))
def queue_resume(priority: str) -> None: ...


# --- printers, stations, sites, leases ---------------------------------------
@main.group()
def printers() -> None:
    """Printer admin: drain, quarantine, test prints."""


for _name in ("list", "drain", "undrain", "quarantine", "release", "test-print",
              "override-state", "add", "restore"):
    printers.command(_name)(lambda **_: None)


@main.group()
def stations() -> None:
    """Station -> primary/fallback printer mapping."""


@main.group()
def sites() -> None:
    """Site status (heartbeat, offline mode, buffer) and shift calendar."""


@main.group()
def leases() -> None:
    """Printer leases (Redis). `release --force` bumps the fencing token."""


# --- templates, cache, webhooks, clients --------------------------------------
@main.group()
def templates() -> None:
    """lint, render, publish, promote, rollback, retire, history, restore."""


@main.group()
def cache() -> None:
    """Glyph cache: verify [--repair], purge."""


@main.group()
def webhooks() -> None:
    """backlog, deliveries, pause, resume, redeliver, rotate-secret."""


@main.group()
def clients() -> None:
    """suspend / unsuspend API clients (PLT-2102)."""


@main.group()
def batches() -> None:
    """get, cancel."""


# --- maintenance ----------------------------------------------------------------
@main.group()
def migrate() -> None:
    """up [--dry-run] [--allow-long], status, down --to N."""


@main.group()
def partitions() -> None:
    """ensure (create upcoming daily partitions), prune --older-than 14d."""


@main.group()
def dump() -> None:
    """dump config --out s3://gm-platen-backups/<region>/config/<date>.sql.zst"""


@main.group()
def report() -> None:
    """cutoff-misses, reprint-rate."""


def server_main() -> None:
    """`platen api|router|webhooks`."""
