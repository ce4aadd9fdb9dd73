// nostr-tools (npm) as a relay client: publishes one X-tagged note to the
// relay given as the first argument, then asks it for every event with
// that X (the second argument), as a nostr web client would.
// Prints {"published", "accepted", "received": [{"id", "valid"}]}.
// Run from crates/nip/tests/peer (where nostr-tools is installed) with
// node --experimental-websocket (Node 20 has no global WebSocket without it).
import { finalizeEvent, generateSecretKey, verifyEvent } from 'nostr-tools/pure'
import { Relay } from 'nostr-tools/relay'

const [url, x] = process.argv.slice(-2)
const relay = await Relay.connect(url)
const event = finalizeEvent(
  {
    kind: 1,
    created_at: Math.floor(Date.now() / 1000),
    tags: [['X', x, 'minhash-equality-v1']],
    content: 'published by nostr-tools',
  },
  generateSecretKey(),
)
let accepted = true
try {
  await relay.publish(event)
} catch (refusal) {
  accepted = String(refusal)
}
const received = []
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('no EOSE within 10 s')), 10000)
  relay.subscribe([{ kinds: [1, 30023, 1041], '#X': [x] }], {
    onevent(found) {
      received.push({ id: found.id, valid: verifyEvent(found) })
    },
    oneose() {
      clearTimeout(timer)
      resolve()
    },
  })
})
relay.close()
console.log(JSON.stringify({ published: event.id, accepted, received }))
