#!/usr/bin/env python3
"""The Python reference's cost for the same job as benches/verify.rs: decode
the proof, walk to its Bitcoin attestations, compare the merkle root with a
cached header (python-bitcoinlib CBlockHeader, parsed once). It does no
proof-of-work or difficulty check, so it does less work than priorart.

usage: peer_verify.py TESTS_DATA_DIR
"""
import io
import os
import sys
import time

from bitcoin.core import CBlockHeader
from opentimestamps.core.notary import BitcoinBlockHeaderAttestation
from opentimestamps.core.serialize import StreamDeserializationContext
from opentimestamps.core.timestamp import DetachedTimestampFile

data = sys.argv[1]
headers = {h: CBlockHeader.deserialize(bytes.fromhex(open(os.path.join(data, 'headers/%d.hex' % h)).read().strip()))
           for h in (358391, 428648)}
for name in ('hello-world.txt.ots', 'incomplete-upgraded.txt.ots'):
    raw = open(os.path.join(data, name), 'rb').read()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 3:
        proof = DetachedTimestampFile.deserialize(StreamDeserializationContext(io.BytesIO(raw)))
        for msg, attestation in proof.timestamp.all_attestations():
            if isinstance(attestation, BitcoinBlockHeaderAttestation):
                attestation.verify_against_blockheader(msg, headers[attestation.height])
        n += 1
    print('%s: %.0f proofs/s' % (name, n / (time.perf_counter() - start)))
