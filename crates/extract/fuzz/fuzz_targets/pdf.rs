//! The PDF extractor on arbitrary bytes. A panic inside the PDF parser's worker
//! thread is contained by `extract` (it becomes `ExtractError::ParserPanic`), so
//! only panics on other threads count as crashes here.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_extract::{Format, Limits, extract};
use std::sync::Once;
use std::time::Duration;

static HOOK: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    HOOK.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some("priorart-pdf") {
                fuzzer_hook(info);
            }
        }));
    });
    let limits = Limits { max_time: Duration::from_secs(2), ..Limits::default() };
    let _ = extract(data, Format::Pdf, &limits);
});
