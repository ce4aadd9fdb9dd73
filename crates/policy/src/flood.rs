//! Near-duplicate floods: the simhash-doc values of recent texts in a
//! sliding window, bounded in time (by the relay's `receivedAt`) and in
//! size. A linear scan of the window is a XOR and a popcount per entry:
//! 20,000 entries take about 10 µs, so no index is needed at this size.

use priorart_fingerprint::SimhashDoc;
use std::collections::VecDeque;

/// One remembered text.
#[derive(Debug, Clone, Copy)]
struct Seen {
    simhash: SimhashDoc,
    author: [u8; 32],
    received_at: u64,
}

/// The recent texts, oldest first.
#[derive(Debug)]
pub(crate) struct FloodWindow {
    seen: VecDeque<Seen>,
    capacity: usize,
    seconds: u64,
}

/// How much of the window a new text resembles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Resemblance {
    /// Events within the distance, the new one included.
    pub events: usize,
    /// Their different authors (counted up to the threshold asked for).
    pub authors: usize,
}

impl FloodWindow {
    pub(crate) fn new(capacity: usize, seconds: u64) -> FloodWindow {
        FloodWindow { seen: VecDeque::with_capacity(capacity.min(65_536)), capacity, seconds }
    }

    /// Remembers a text received at `received_at` and says how many recent
    /// ones lie within `distance` bits of it, and from how many authors
    /// (counting stops at `enough_authors`: the rule needs no more).
    pub(crate) fn observe(
        &mut self,
        simhash: SimhashDoc,
        author: [u8; 32],
        received_at: u64,
        distance: u32,
        enough_authors: usize,
    ) -> Resemblance {
        self.expire(received_at);
        let mut authors: Vec<[u8; 32]> = vec![author];
        let mut events = 1;
        for seen in &self.seen {
            if seen.simhash.distance(simhash) > distance {
                continue;
            }
            events += 1;
            if authors.len() < enough_authors && !authors.contains(&seen.author) {
                authors.push(seen.author);
            }
        }
        if self.seen.len() == self.capacity {
            self.seen.pop_front();
        }
        self.seen.push_back(Seen { simhash, author, received_at });
        Resemblance { events, authors: authors.len() }
    }

    /// Forgets texts older than the window. `receivedAt` may step back (a
    /// relay's clock, events of several sources): only entries older than
    /// the window by the newest time are dropped, in arrival order.
    fn expire(&mut self, now: u64) {
        let oldest_kept = now.saturating_sub(self.seconds);
        while self.seen.front().is_some_and(|seen| seen.received_at < oldest_kept) {
            self.seen.pop_front();
        }
    }

    /// Texts remembered.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.seen.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn author(n: u8) -> [u8; 32] {
        [n; 32]
    }

    #[test]
    fn counts_texts_within_the_distance_and_their_authors() {
        let mut window = FloodWindow::new(100, 60);
        let base = SimhashDoc(0xdead_beef_0000_0000);
        assert_eq!(window.observe(base, author(1), 1000, 3, 10), Resemblance { events: 1, authors: 1 });
        // Two bits away: same text; a second author.
        let near = SimhashDoc(base.0 ^ 0b11);
        assert_eq!(window.observe(near, author(2), 1001, 3, 10), Resemblance { events: 2, authors: 2 });
        // Far away: unrelated.
        let far = SimhashDoc(!base.0);
        assert_eq!(window.observe(far, author(3), 1002, 3, 10), Resemblance { events: 1, authors: 1 });
        // The first author again: three events, still two authors.
        assert_eq!(window.observe(base, author(1), 1003, 3, 10), Resemblance { events: 3, authors: 2 });
    }

    #[test]
    fn forgets_texts_older_than_the_window() {
        let mut window = FloodWindow::new(100, 60);
        let text = SimhashDoc(42);
        window.observe(text, author(1), 1000, 3, 10);
        window.observe(text, author(2), 1030, 3, 10);
        // At 1061 the first (1000) is more than 60 s old; the second is not.
        assert_eq!(window.observe(text, author(3), 1061, 3, 10), Resemblance { events: 2, authors: 2 });
        assert_eq!(window.len(), 2);
    }

    #[test]
    fn never_holds_more_than_its_capacity() {
        let mut window = FloodWindow::new(5, 60);
        for n in 0..20u8 {
            window.observe(SimhashDoc(7), author(n), 1000, 0, 100);
        }
        assert_eq!(window.len(), 5);
        assert_eq!(window.observe(SimhashDoc(7), author(99), 1000, 0, 100).events, 6);
    }

    #[test]
    fn author_counting_stops_at_what_the_rule_needs() {
        let mut window = FloodWindow::new(100, 60);
        for n in 0..10u8 {
            window.observe(SimhashDoc(7), author(n), 1000, 0, 3);
        }
        assert_eq!(
            window.observe(SimhashDoc(7), author(50), 1000, 0, 3),
            Resemblance { events: 11, authors: 3 }
        );
    }
}
