// Builds NIP-FF-3 events with nostr-tools alone, as another client would.
// Input: one JSON object on stdin.
//   {"attest": {secret_hex, fingerprint, k, created_at}} prints the kind
//     1042 attestation, then {"commitment"} = hex(SHA256(sig bytes)) as
//     computed here.
//   {"proof": {secret_hex, attestation, ots_base64, a | e, k, relay}} prints
//     the kind 1041 carrying `attestation` (a JSON string) in `description`.
import { finalizeEvent } from 'nostr-tools/pure'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

let input = ''
for await (const chunk of process.stdin) input += chunk
const request = JSON.parse(input)

if (request.attest) {
  const p = request.attest
  const attestation = finalizeEvent(
    {
      kind: 1042,
      created_at: p.created_at,
      content: '',
      tags: [['X', p.fingerprint, 'minhash-equality-v1'], ['k', String(p.k)]],
    },
    hexToBytes(p.secret_hex),
  )
  console.log(JSON.stringify(attestation))
  console.log(JSON.stringify({ commitment: bytesToHex(sha256(hexToBytes(attestation.sig))) }))
} else {
  const p = request.proof
  const attestation = JSON.parse(p.attestation)
  const x = attestation.tags.find((tag) => tag[0] === 'X')
  const reference = p.a ? [['a', p.a, p.relay]] : [['e', p.e, p.relay], ['p', attestation.pubkey]]
  const proof = finalizeEvent(
    {
      kind: 1041,
      created_at: attestation.created_at + 60,
      content: p.ots_base64,
      tags: [...reference, ['k', String(p.k)], x, ['description', p.attestation]],
    },
    hexToBytes(p.secret_hex),
  )
  console.log(JSON.stringify(proof))
}
