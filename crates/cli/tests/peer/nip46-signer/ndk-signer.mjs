// NDK's NDKNip46Backend (npm @nostr-dev-kit/ndk): a NIP-46 remote signer
// that is not ours. Listens on the relay given as the last argument with a
// fresh key, approves every request, and prints one line,
// {"uri": "bunker://…", "pubkey": "<hex>"}. Stops when stdin closes (the
// test ended) or after two minutes.
// Node 20 needs --experimental-websocket (no global WebSocket without it).
import NDK, { NDKNip46Backend, NDKPrivateKeySigner } from '@nostr-dev-kit/ndk'

setTimeout(() => process.exit(0), 120000)
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()

const [relay] = process.argv.slice(-1)
const user = NDKPrivateKeySigner.generate()
const ndk = new NDK({ explicitRelayUrls: [relay] })
await ndk.connect(5000)
const backend = new NDKNip46Backend(ndk, user, async () => true)
await backend.start()
// start() returns before the relay has confirmed the subscription; a
// request sent before that would be missed.
await new Promise((resolve) => setTimeout(resolve, 1000))
const { pubkey } = await user.user()
console.log(JSON.stringify({ uri: `bunker://${pubkey}?relay=${encodeURIComponent(relay)}`, pubkey }))
