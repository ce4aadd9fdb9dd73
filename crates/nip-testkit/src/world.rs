//! The regtest world every end-to-end test of anchoring stands on.

use priorart_ots_net::Esplora;
use priorart_testkit::{Behavior, EsploraServer, RegtestChain, SharedChain, TestCalendar};
use std::time::Duration;

/// A regtest chain holding one block past genesis, an honest calendar that
/// commits into it ([`TestCalendar::mine_block`]) and an Esplora server of
/// its headers, all on loopback; stopped when dropped.
pub struct RegtestWorld {
    /// The chain the calendar mines into and Esplora serves.
    pub chain: SharedChain,
    /// The honest calendar.
    pub calendar: TestCalendar,
    /// The chain's Esplora server.
    pub esplora: EsploraServer,
}

impl RegtestWorld {
    /// Starts the world.
    pub fn new() -> RegtestWorld {
        let chain = RegtestChain::shared();
        chain.lock().expect("chain lock").mine_block([7; 32]);
        let calendar = TestCalendar::start(chain.clone());
        let esplora = EsploraServer::from_chain(chain.clone());
        RegtestWorld { chain, calendar, esplora }
    }

    /// Another calendar on this chain, behaving as `behavior` says.
    pub fn calendar_that(&self, behavior: Behavior) -> TestCalendar {
        TestCalendar::start_with(self.chain.clone(), behavior)
    }

    /// A calendar on this chain whose upgrades claim `claimed_height` for
    /// roots it never put in a block.
    pub fn liar(&self, claimed_height: u64) -> TestCalendar {
        self.calendar_that(Behavior::Lying { claimed_height })
    }

    /// The header options of a `priorart` command reading this chain:
    /// regtest, this Esplora, no header cache.
    pub fn header_args(&self) -> Vec<String> {
        ["--network", "regtest", "--no-header-cache", "--esplora", &self.esplora.url()]
            .map(String::from)
            .to_vec()
    }

    /// Whether `priorart verify` finds the kind 1041 in the file `event`
    /// VALID against this chain.
    pub fn verifies(&self, event: &std::path::Path) -> bool {
        crate::priorart().arg("verify").args(self.header_args()).arg(event).output().unwrap().status.success()
    }

    /// This chain's Esplora as a library header source.
    pub fn headers(&self) -> Esplora {
        Esplora::new(&self.esplora.url(), Duration::from_secs(10))
    }
}

impl Default for RegtestWorld {
    fn default() -> Self {
        RegtestWorld::new()
    }
}
