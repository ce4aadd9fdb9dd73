#!/usr/bin/env python3
"""Writes proofs with the Python reference library (opentimestamps 0.4.5)
for crates/cli/tests/ots_peer.rs: priorart must read each byte for byte and
print the same `ots info`. Seeded, so a failure is reproducible.

usage: ots_write.py OUT_DIR [SEED]
"""
import os
import random
import sys

from opentimestamps.core.notary import (BitcoinBlockHeaderAttestation, LitecoinBlockHeaderAttestation,
                                        PendingAttestation, UnknownAttestation)
from opentimestamps.core.dubious.notary import EthereumBlockHeaderAttestation
from opentimestamps.core.op import (OpAppend, OpHexlify, OpKECCAK256, OpPrepend, OpRIPEMD160, OpReverse, OpSHA1,
                                    OpSHA256)
from opentimestamps.core.serialize import StreamSerializationContext
from opentimestamps.core.timestamp import DetachedTimestampFile, Timestamp, make_merkle_tree

out_dir = sys.argv[1]
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)


def random_attestation():
    kind = rng.randrange(5)
    if kind == 0:
        return PendingAttestation('https://%s.calendar.example.org' % rng.choice(['alice', 'bob', 'carol']))
    if kind == 1:
        return BitcoinBlockHeaderAttestation(rng.randrange(1, 2**40))
    if kind == 2:
        return LitecoinBlockHeaderAttestation(rng.randrange(1, 2**20))
    if kind == 3:
        return EthereumBlockHeaderAttestation(rng.randrange(1, 2**24))
    return UnknownAttestation(bytes(rng.randrange(256) for _ in range(8)),
                              bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))))


def random_op(msg):
    kind = rng.randrange(8)
    if kind == 0:
        return OpAppend(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
    if kind == 1:
        return OpPrepend(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
    if kind == 2 and len(msg) <= 1024:
        return OpHexlify()
    if kind == 3:
        return OpReverse()
    return rng.choice([OpSHA256, OpSHA1, OpRIPEMD160, OpKECCAK256])()


def grow(stamp, depth):
    """A random subtree: attestations and ops, ending in attestations."""
    for _ in range(rng.randrange(0, 3) if depth > 0 else 0):
        stamp.attestations.add(random_attestation())
    branches = rng.randrange(1, 3) if depth > 0 else 0
    for _ in range(branches):
        op = random_op(stamp.msg)
        grow(stamp.ops.add(op), depth - 1)
    if not stamp.attestations and not stamp.ops:
        stamp.attestations.add(random_attestation())


def write(name, detached):
    with open(os.path.join(out_dir, name), 'wb') as fd:
        detached.serialize(StreamSerializationContext(fd))


# A merkle tree over several files, as `ots stamp` builds it, with random
# calendar and chain attestations on the tip.
files = [DetachedTimestampFile(OpSHA256(), Timestamp(bytes(rng.randrange(256) for _ in range(32))))
         for _ in range(5)]
roots = [f.timestamp.ops.add(OpAppend(os.urandom(16))).ops.add(OpSHA256()) for f in files]
tip = make_merkle_tree(roots)
grow(tip, 4)
for index, detached in enumerate(files):
    write('merkle-%d.ots' % index, detached)

# Random trees from every file hash.
for index in range(12):
    hash_op = rng.choice([OpSHA256, OpSHA1, OpRIPEMD160])()
    digest = bytes(rng.randrange(256) for _ in range(hash_op.DIGEST_LENGTH))
    detached = DetachedTimestampFile(hash_op, Timestamp(digest))
    grow(detached.timestamp, rng.randrange(1, 7))
    write('random-%d.ots' % index, detached)
