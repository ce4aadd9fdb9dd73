"""OpenTimestamps proofs: decode (:func:`info`) and verify against Bitcoin
block headers (:func:`verify`), as ``priorart ots info`` and ``priorart ots
verify`` do. Headers come from a :class:`priorart.HeaderSource` (a header
cache directory, Esplora, bitcoind RPC), none of which is trusted: every
header is checked."""

from __future__ import annotations

import json
from typing import Optional, Union

from . import HeaderSource, _priorart
from .results import OtsVerification, ProofInfo

__all__ = ["MAX_PROOF_BYTES", "info", "verify"]

#: The largest proof accepted (the CLI's limit, priorart_ots::MAX_PROOF_BYTES).
MAX_PROOF_BYTES: int = _priorart.MAX_PROOF_BYTES


def info(proof: bytes) -> ProofInfo:
    """The proof's tree, with the members of ``priorart ots info --json``:
    the file hash op and digest, then every node
    (:class:`~priorart.results.TimestampNode`) with its message,
    attestations and ops. Raises :class:`priorart.ProofError` (``reason``: the decoder's,
    e.g. ``bad_magic``) for bytes that are not a proof."""
    return ProofInfo.from_json(json.loads(_priorart.ots_info_json(proof)))


def verify(
    proof: bytes,
    digest: Union[bytes, str],
    header_source: Optional[HeaderSource] = None,
) -> OtsVerification:
    """Verifies that ``proof`` timestamps ``digest`` (bytes, or hex) in
    Bitcoin: an :class:`~priorart.results.OtsVerification` with the
    members of ``priorart ots verify --json`` (without the local
    ``time_utc``). ``verified`` is true with the earliest block's
    ``height``, ``block_hash`` and ``time``; otherwise ``error`` and
    ``reason`` say why, and ``unverified`` is true when only block headers
    were missing (no judgement on the proof). ``header_source`` defaults to
    the header cache directory alone."""
    if isinstance(digest, str):
        try:
            digest = bytes.fromhex(digest.strip())
        except ValueError:
            err = _priorart.InputError("digest must be hexadecimal")
            err.reason = "invalid_digest"
            raise err from None
    source = header_source if header_source is not None else HeaderSource()
    return OtsVerification.from_json(json.loads(_priorart.ots_verify_json(proof, digest, source)))
