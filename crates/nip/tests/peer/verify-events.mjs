// Reads nostr events, one JSON per line on stdin, and prints for each one
// line {"id", "valid", "embedded_valid"} as nostr-tools sees it:
// `valid` is verifyEvent (id recomputed per NIP-01, BIP-340 signature);
// `embedded_valid` is the same for the event in a `description` tag (null
// when there is none).
import { verifyEvent } from 'nostr-tools/pure'
import { createInterface } from 'node:readline'

const lines = createInterface({ input: process.stdin })
for await (const line of lines) {
  if (!line.trim()) continue
  const event = JSON.parse(line)
  const description = (event.tags || []).find((tag) => tag[0] === 'description')
  const embedded_valid = description ? verifyEvent(JSON.parse(description[1])) : null
  console.log(JSON.stringify({ id: event.id, valid: verifyEvent(event), embedded_valid }))
}
