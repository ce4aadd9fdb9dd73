//! How the API says no: a status, a stable snake_case name (`error`) and
//! words (`detail`), as JSON; 429 and 503 also say when to try again.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// A refusal: status, a stable snake_case name, and words.
pub(super) struct Refusal {
    pub(super) status: StatusCode,
    error: String,
    detail: String,
}

impl Refusal {
    pub(super) fn new(status: StatusCode, error: impl Into<String>, detail: impl Into<String>) -> Refusal {
        Refusal { status, error: error.into(), detail: detail.into() }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(json!({"error": self.error, "detail": self.detail}))).into_response();
        if matches!(self.status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE) {
            response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
        }
        response
    }
}
