#!/usr/bin/env python3
"""A nostr-rs-relay event admission client in Python (grpcio), generated at
run time by grpcio-tools from crates/policy-grpc/proto/nauthz.proto, the
proto the server is built from. Installed by .ci/setup.d/grpc.sh.

Usage: nauthz_client.py ADDRESS PROTO_FILE GENERATED_DIR < requests.jsonl

Each input line is one request; each gets one output line:
- {"event": {NIP-01 event}}: the EventRequest nostr-rs-relay sends for it
  (hex id, pubkey and sig as bytes, ip_addr set); hex of any length is
  passed on as bytes, so a short id stays short;
- {"no_event": true}: an EventRequest without its event;
- {"raw_hex": "..."}: these bytes as the request body, not protobuf at all.
Output: {"decision": "DECISION_PERMIT"|"DECISION_DENY"|..., "message": str|null}
or, when the call fails, {"error": "<gRPC status code name>"}; with "seconds",
how long the call took.
"""

import importlib
import json
import os
import sys
import time

import grpc
from grpc_tools import protoc

METHOD = "/nauthz.Authorization/EventAdmit"
DEADLINE_SECONDS = 20


def generated_modules(proto_file, out_dir):
    """nauthz_pb2 (messages) from the proto, generated once into out_dir."""
    if not os.path.exists(os.path.join(out_dir, "nauthz_pb2.py")):
        os.makedirs(out_dir, exist_ok=True)
        include = os.path.dirname(os.path.abspath(proto_file))
        status = protoc.main(["grpc_tools.protoc", f"-I{include}", f"--python_out={out_dir}",
                              f"--grpc_python_out={out_dir}", os.path.basename(proto_file)])
        if status != 0:
            sys.exit(f"grpc_tools.protoc failed ({status})")
    sys.path.insert(0, out_dir)
    return importlib.import_module("nauthz_pb2"), importlib.import_module("nauthz_pb2_grpc")


def event_request(pb, spec):
    request = pb.EventRequest(ip_addr="127.0.0.1")
    if spec.get("no_event"):
        return request
    event = spec["event"]
    request.event.id = bytes.fromhex(event["id"])
    request.event.pubkey = bytes.fromhex(event["pubkey"])
    request.event.sig = bytes.fromhex(event["sig"])
    request.event.created_at = event["created_at"]
    request.event.kind = event["kind"]
    request.event.content = event["content"]
    for tag in event["tags"]:
        request.event.tags.add(values=tag)
    return request


def main():
    address, proto_file, out_dir = sys.argv[1:4]
    pb, pb_grpc = generated_modules(proto_file, out_dir)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.AuthorizationStub(channel)
        raw = channel.unary_unary(METHOD, request_serializer=lambda body: body,
                                  response_deserializer=pb.EventReply.FromString)
        for line in sys.stdin:
            spec = json.loads(line)
            started = time.perf_counter()
            try:
                if "raw_hex" in spec:
                    reply = raw(bytes.fromhex(spec["raw_hex"]), timeout=DEADLINE_SECONDS)
                else:
                    reply = stub.EventAdmit(event_request(pb, spec), timeout=DEADLINE_SECONDS)
                answer = {"decision": pb.Decision.Name(reply.decision),
                          "message": reply.message if reply.HasField("message") else None}
            except grpc.RpcError as err:
                answer = {"error": err.code().name}
            answer["seconds"] = time.perf_counter() - started
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
