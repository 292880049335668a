"""Platen: label and document print spooling for Grellmark fulfillment sites.

Processes:
    platen api       HTTP API (v2)
    platen router    claim -> render -> dispatch loop
    platen webhooks  webhook dispatcher
"""

__version__ = "2.9.0"

PRIORITIES = ("p0", "p1", "p2")

JOB_STATES = (
    "accepted",
    "rendering",
    "rendered",
    "waiting_printer",
    "dispatched",
    "printed",
    "failed",
    "cancelled",
    "expired",
)

TERMINAL_STATES = frozenset({"printed", "failed", "cancelled", "expired"})
