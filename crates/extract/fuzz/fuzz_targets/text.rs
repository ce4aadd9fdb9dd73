//! The text extractor on arbitrary bytes: any outcome but a panic, hang or abort is fine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_extract::{Format, Limits, extract};
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let limits = Limits { max_time: Duration::from_secs(2), max_decompressed_bytes: 8 << 20, ..Limits::default() };
    let _ = extract(data, Format::Text, &limits);
});
