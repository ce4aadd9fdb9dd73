//! The extraction module of the npm package `priorart`: a document's bytes
//! to the text every priorart command fingerprints, by the workspace's
//! `priorart-extract` (html5ever, encoding_rs, chardetng, quick-xml, zip).
//! A module of its own, fetched only when a page reads a file, so that the
//! core module (`bindings/wasm/src`) stays small. This file only converts
//! arguments and errors; the package's `index.js` loads it on first use.
//!
//! Errors are thrown as JavaScript `Error`s with `reason` (the library's
//! `reason()` name) and `kind` (the error class the package throws).

#![forbid(unsafe_code)]

use priorart_extract::{Format, Limits};
use wasm_bindgen::prelude::*;

/// A JavaScript `Error` with `message`, the library's `reason` name and the
/// `kind` of error the package's wrapper throws.
fn error(kind: &str, reason: &str, message: &str) -> JsValue {
    // Messages are cut (to 300 characters) so that none echoes a whole input.
    let message = match message.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &message[..end]),
        None => message.to_owned(),
    };
    let error = js_sys::Error::new(&message);
    // Setting a property on a fresh plain object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"reason".into(), &reason.into());
    let _ = js_sys::Reflect::set(&error, &"kind".into(), &kind.into());
    error.into()
}

fn extraction_error(err: &priorart_extract::ExtractError) -> JsValue {
    error("ExtractionError", err.reason(), &err.to_string())
}

/// The bytes of a `Uint8Array`; anything else is refused. Declared as a
/// `JsValue`, not `&[u8]`: wasm-bindgen's release glue copies whatever it
/// is given by its `length` without checking its type (see the core
/// module's docs, `bindings/wasm/src/lib.rs`).
fn bytes(value: &JsValue, name: &str) -> Result<Vec<u8>, JsValue> {
    match value.dyn_ref::<js_sys::Uint8Array>() {
        Some(array) => Ok(array.to_vec()),
        None => Err(error("InputError", "not_bytes", &format!("{name} must be a Uint8Array"))),
    }
}

/// The text of an HTML document (its bytes, character set declared or
/// detected) as the CLI extracts it.
#[wasm_bindgen(js_name = extractHtml)]
pub fn extract_html(html: JsValue) -> Result<String, JsValue> {
    priorart_extract::document_text(&bytes(&html, "html")?, Some(Format::Html), &Limits::default())
        .map(|document| document.text)
        .map_err(|err| extraction_error(&err))
}

/// The text of a document as every priorart command reads it (format
/// detected, or `format`): plain text and Markdown decoded, HTML, XML and
/// EPUB extracted. PDF is not in this build (`unsupported`).
#[wasm_bindgen(js_name = extractDocument)]
pub fn extract_document(input: JsValue, format: JsValue) -> Result<String, JsValue> {
    let format = match format.is_undefined() || format.is_null() {
        true => None,
        false => match format.as_string() {
            Some(name) => Some(
                name.parse::<Format>().map_err(|err| error("InputError", err.reason(), &err.to_string()))?,
            ),
            None => return Err(error("InputError", "not_a_string", "format must be a string")),
        },
    };
    priorart_extract::document_text(&bytes(&input, "bytes")?, format, &Limits::default())
        .map(|document| document.text)
        .map_err(|err| extraction_error(&err))
}
