// Talking to untrusted relays over WebSockets: the discovery query and
// publishing an event. A relay may lie, flood, hang or never answer: each
// has a deadline and limits, and whatever it sends is handed to the
// package's `check` as received (it checks ids, signatures and the
// filter, as `priorart check` does); nothing here judges an event.

/** How a relay's answer ended: the `ending` of the `priorart-check/1` report. */
export type Ending =
  | { status: 'eose' }
  | { status: 'closed'; message: string }
  | { status: 'timeout' }
  | { status: 'unreachable'; error: string }
  | { status: 'disconnected'; error: string }
  | { status: 'event_limit'; limit: number }
  | { status: 'byte_limit'; limit: number };

/** A relay's answer as the package's `check` takes it (nip::check::UncheckedAnswer). */
export interface RelayAnswer {
  url: string;
  ending: Ending;
  /** Each event's JSON text, as the relay sent it. */
  events: string[];
  notices: string[];
  elapsed_ms: number;
}

/** The package's `relayAnswerLimits()` (the CLI's), and the time given to a relay. */
export interface QueryLimits {
  timeoutMs: number;
  maxEvents: number;
  maxBytes: number;
  maxMessageBytes: number;
  maxNotices: number;
  maxTextChars: number;
}


/** Characters of a relay's OK message shown after publishing. */
const NOTICE_CHARS = 300;

/**
 * Enough of a relay's text for the package, which quotes it as the CLI
 * does (`limits.maxTextChars` characters, the cut marked): one character
 * more, never half of one.
 */
function relayText(text: string, limits: QueryLimits): string {
  const kept = limits.maxTextChars + 1;
  return Array.from(text.slice(0, 2 * kept)).slice(0, kept).join('');
}

/** What a query reports while it runs. */
export interface Progress {
  state: 'connecting' | 'open' | 'done';
  events: number;
  /** Frames that were no event of ours (not JSON, other subscriptions, too large…). */
  ignored: number;
}

/** Sends `filter` to `url` and collects the answer until EOSE, CLOSED, a limit or the deadline. */
export function queryRelay(
  url: string,
  filter: object,
  limits: QueryLimits,
  onProgress: (progress: Progress) => void,
): Promise<RelayAnswer> {
  const started = performance.now();
  const events: string[] = [];
  const notices: string[] = [];
  let ignored = 0;
  let bytes = 0;
  let opened = false;
  const subscription = `priorart-${Math.random().toString(36).slice(2, 10)}`;

  return new Promise((resolve) => {
    let socket: WebSocket;
    let finished = false;
    const finish = (ending: Ending) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      if (socket && socket.readyState === WebSocket.OPEN) {
        try {
          socket.send(JSON.stringify(['CLOSE', subscription]));
        } catch {
          // Closing anyway.
        }
      }
      try {
        socket?.close();
      } catch {
        // Already closed.
      }
      onProgress({ state: 'done', events: events.length, ignored });
      resolve({ url, ending, events, notices, elapsed_ms: Math.round(performance.now() - started) });
    };
    const deadline = setTimeout(() => {
      finish(opened ? { status: 'timeout' } : { status: 'unreachable', error: `no connection within ${limits.timeoutMs / 1000} s` });
    }, limits.timeoutMs);
    try {
      socket = new WebSocket(url);
    } catch (error) {
      finish({ status: 'unreachable', error: String(error instanceof Error ? error.message : error) });
      return;
    }
    onProgress({ state: 'connecting', events: 0, ignored: 0 });
    socket.onopen = () => {
      opened = true;
      onProgress({ state: 'open', events: 0, ignored: 0 });
      socket.send(JSON.stringify(['REQ', subscription, filter]));
    };
    socket.onerror = () => {
      // The browser says no more than this; the close event follows.
      if (!opened) finish({ status: 'unreachable', error: 'the connection failed' });
    };
    socket.onclose = (event) => {
      const why = event.reason ? `closed (${event.code}: ${event.reason})` : `closed (${event.code})`;
      finish(opened ? { status: 'disconnected', error: why } : { status: 'unreachable', error: why });
    };
    socket.onmessage = (message) => {
      if (finished) return;
      if (typeof message.data !== 'string') {
        ignored += 1;
        return;
      }
      const size = message.data.length;
      bytes += size;
      if (bytes > limits.maxBytes) return finish({ status: 'byte_limit', limit: limits.maxBytes });
      if (size > limits.maxMessageBytes) {
        ignored += 1;
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.data);
      } catch {
        ignored += 1;
        return;
      }
      if (!Array.isArray(parsed)) {
        ignored += 1;
        return;
      }
      const [type, first, second] = parsed as unknown[];
      if (type === 'NOTICE' && typeof first === 'string') {
        if (notices.length < limits.maxNotices) notices.push(relayText(first, limits));
        return;
      }
      if (first !== subscription) {
        ignored += 1;
        return;
      }
      if (type === 'EVENT') {
        if (events.length >= limits.maxEvents) return finish({ status: 'event_limit', limit: limits.maxEvents });
        // The event as sent (re-serialized: the id is recomputed from its fields by `check`).
        events.push(JSON.stringify(second));
        onProgress({ state: 'open', events: events.length, ignored });
      } else if (type === 'EOSE') {
        finish({ status: 'eose' });
      } else if (type === 'CLOSED') {
        finish({ status: 'closed', message: typeof second === 'string' ? relayText(second, limits) : '' });
      } else {
        ignored += 1;
      }
    };
  });
}

/** What a relay said to an event we published. */
export type Acceptance =
  | { relay: string; outcome: 'accepted'; message: string }
  | { relay: string; outcome: 'refused'; message: string }
  | { relay: string; outcome: 'no_answer'; message: string }
  | { relay: string; outcome: 'unreachable'; message: string };

/** Sends `event` (signed) to `url` and waits for its `OK`, at most `timeoutMs`. */
export function publishToRelay(url: string, event: { id: string }, timeoutMs: number): Promise<Acceptance> {
  return new Promise((resolve) => {
    let socket: WebSocket;
    let opened = false;
    let finished = false;
    const finish = (acceptance: Acceptance) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      try {
        socket?.close();
      } catch {
        // Already closed.
      }
      resolve(acceptance);
    };
    const deadline = setTimeout(
      () => finish({ relay: url, outcome: opened ? 'no_answer' : 'unreachable', message: `nothing within ${timeoutMs / 1000} s` }),
      timeoutMs,
    );
    try {
      socket = new WebSocket(url);
    } catch (error) {
      finish({ relay: url, outcome: 'unreachable', message: String(error instanceof Error ? error.message : error) });
      return;
    }
    socket.onopen = () => {
      opened = true;
      socket.send(JSON.stringify(['EVENT', event]));
    };
    socket.onclose = (closed) =>
      finish({ relay: url, outcome: opened ? 'no_answer' : 'unreachable', message: `closed (${closed.code})` });
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.data);
      } catch {
        return;
      }
      if (!Array.isArray(parsed) || parsed[0] !== 'OK' || parsed[1] !== event.id) return;
      const message_ = typeof parsed[3] === 'string' ? parsed[3].slice(0, NOTICE_CHARS) : '';
      finish({ relay: url, outcome: parsed[2] === true ? 'accepted' : 'refused', message: message_ });
    };
  });
}
