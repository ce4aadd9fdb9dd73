// Builds a NIP-FF-3 attestation (kind 1042) and proof event (kind 1041)
// with nostr-tools alone, as another client would. Input: one JSON object
// on stdin {secret_hex, fingerprint, k, created_at, ots_base64, a | e,
// relay}. Output: three lines: the attestation, the proof event, and
// {"commitment"} = hex(SHA256(attestation.sig bytes)) as computed here.
import { finalizeEvent } from 'nostr-tools/pure'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

let input = ''
for await (const chunk of process.stdin) input += chunk
const p = JSON.parse(input)
const secret = hexToBytes(p.secret_hex)
const x = ['X', p.fingerprint, 'minhash-equality-v1']

const attestation = finalizeEvent(
  { kind: 1042, created_at: p.created_at, content: '', tags: [x, ['k', String(p.k)]] },
  secret,
)
const reference = p.a
  ? [['a', p.a, p.relay]]
  : [['e', p.e, p.relay], ['p', attestation.pubkey]]
const proof = finalizeEvent(
  {
    kind: 1041,
    created_at: p.created_at + 60,
    content: p.ots_base64,
    tags: [...reference, ['k', String(p.k)], x, ['description', JSON.stringify(attestation)]],
  },
  secret,
)
console.log(JSON.stringify(attestation))
console.log(JSON.stringify(proof))
console.log(JSON.stringify({ commitment: bytesToHex(sha256(hexToBytes(attestation.sig))) }))
