//! The equality schemes on arbitrary text: never panic; the fingerprint
//! path (block scan, token cache, bucket minima from one pass) equals the
//! explanation path (canonical text, token list, distinct hashes), for
//! each scheme alone and both at once, with the caches warm from the
//! previous input; the hex form round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, explain};
use std::cell::RefCell;

thread_local! {
    /// Kept across inputs, as the CLI keeps one per worker.
    static FINGERPRINTER: RefCell<Fingerprinter> = RefCell::new(Fingerprinter::new());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let both = FINGERPRINTER.with_borrow_mut(|f| f.fingerprint(text, &schemes));
    for (scheme, fingerprint) in schemes.into_iter().zip(both) {
        let explained = explain(text, scheme).expect("an equality scheme");
        assert_eq!(fingerprint.to_string(), explained.fingerprint.to_string(), "{scheme} {text:?}");
        let alone = FINGERPRINTER.with_borrow_mut(|f| f.equality(text, scheme)).expect("an equality scheme");
        assert_eq!(alone, explained.fingerprint, "{scheme} {text:?}");
        assert_eq!(alone.to_string().parse::<EqualityFingerprint>(), Ok(alone));
    }
});
