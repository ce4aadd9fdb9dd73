#!/usr/bin/env bash
# Peer for crates/cli/tests/policy_grpc.rs: a gRPC client generated from
# nostr-rs-relay's proto (crates/policy-grpc/proto/nauthz.proto) by Python
# grpcio-tools at test time, run by grpcio. Pinned, as every peer.
# (The Rust side needs nothing installed: protox compiles the proto.)
# Idempotent: installs only what is missing.
set -euo pipefail
GRPCIO_VERSION=1.85.1
PROTOBUF_VERSION=7.36.2
if python3 -c "
import importlib.metadata as m
assert m.version('grpcio') == '$GRPCIO_VERSION'
assert m.version('grpcio-tools') == '$GRPCIO_VERSION'
assert m.version('protobuf') == '$PROTOBUF_VERSION'" 2>/dev/null; then
    exit 0
fi
python3 -m pip install --quiet --disable-pip-version-check \
    "grpcio==$GRPCIO_VERSION" "grpcio-tools==$GRPCIO_VERSION" "protobuf==$PROTOBUF_VERSION"
python3 -c "import grpc, grpc_tools; print('grpcio', grpc.__version__, 'ready')"
