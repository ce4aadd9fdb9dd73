//! The PDF extractor on arbitrary bytes. A panic inside the PDF parser's worker
//! thread is contained by `extract` (it becomes `ExtractError::ParserPanic`), so
//! only panics on other threads count as crashes here.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

use std::sync::Once;

static HOOK: Once = Once::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Only panics on other threads than the contained PDF worker are crashes.
    HOOK.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some("priorart-pdf") {
                fuzzer_hook(info);
            }
        }));
    });
    checks::pdf(data);
});
