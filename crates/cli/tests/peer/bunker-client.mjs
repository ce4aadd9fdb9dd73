// nostr-tools (npm) as a NIP-46 client: connects to the bunker of the URI
// given as the last argument, asks for the user's key and a signature of a
// kind 1042 template ({kind, content, tags, created_at}: no pubkey, as
// NIP-46 shows it), and prints {"pubkey", "event", "valid"}.
// Run from crates/nip/tests/peer (where nostr-tools is installed) with
// node --experimental-websocket (Node 20 has no global WebSocket without it).
import { BunkerSigner, parseBunkerInput } from 'nostr-tools/nip46'
import { generateSecretKey, verifyEvent } from 'nostr-tools/pure'

const timer = setTimeout(() => {
  console.error('bunker-client.mjs: no answer within 15 s')
  process.exit(2)
}, 15000)
const [uri] = process.argv.slice(-1)
const pointer = await parseBunkerInput(uri)
const signer = BunkerSigner.fromBunker(generateSecretKey(), pointer)
await signer.connect()
const pubkey = await signer.getPublicKey()
const event = await signer.signEvent({
  kind: 1042,
  created_at: 1750000000,
  tags: [['X', 'ab'.repeat(32), 'minhash-equality-v1']],
  content: '',
})
console.log(JSON.stringify({ pubkey, event, valid: verifyEvent(event) }))
clearTimeout(timer)
await signer.close()
process.exit(0)
