//! Any bytes as event JSON: the verifier answers with a report, never a
//! panic, whatever the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_ots::{MemoryHeaders, Network};

fuzz_target!(|data: &[u8]| {
    if let Ok(json) = std::str::from_utf8(data) {
        let report = priorart_nip::verify_event_json(json, &MemoryHeaders::new(), Network::Regtest);
        assert_eq!(
            report.steps.len(),
            if report.scheme == Some(priorart_nip::Scheme::Nip03) { 4 } else { 8 }
        );
        let _ = report.to_json();
    }
});
