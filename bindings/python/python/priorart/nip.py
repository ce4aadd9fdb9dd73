"""NIP-FF-3 events: the client verification algorithm on a kind 1041 proof
event (or a NIP-03 kind 1040), as ``priorart verify --json`` runs it."""

from __future__ import annotations

import json
from typing import Optional

from . import HeaderSource, _priorart
from .results import VerifyReport

__all__ = ["verify"]


def verify(
    event_json: str, header_source: Optional[HeaderSource] = None, content: Optional[str] = None
) -> VerifyReport:
    """The ``priorart-verify/1`` report of an event (its JSON text), a
    :class:`~priorart.results.VerifyReport` with the members of ``priorart
    verify --json``: the
    ``verdict`` (``valid``, ``invalid``, ``unverified``, ...), every step
    with its status and named reason, the author, fingerprint, commitment
    and Bitcoin block. With ``content``, also whether the text's
    fingerprint is the attested ``X``. A bad event is a report with verdict
    ``invalid``, not an exception. ``header_source`` defaults to the header
    cache directory alone."""
    source = header_source if header_source is not None else HeaderSource()
    return VerifyReport.from_json(json.loads(_priorart.nip_verify_json(event_json, source, content)))
