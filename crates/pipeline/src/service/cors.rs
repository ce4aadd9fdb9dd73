//! Which web pages may call the service's API from a browser (CORS): the
//! origins an operator names, checked and normalized as browsers send
//! them, and the tower-http layer that answers preflights and adds the
//! headers.

use super::ServiceError;
use axum::http::{HeaderValue, Method, header};
use std::time::Duration;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may keep a preflight answer (`Access-Control-Max-Age`).
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// Which web pages may call the API from a browser (CORS): a browser
/// lets a page of another origin read the answers only when the service
/// names that origin in `Access-Control-Allow-Origin`. The API needs no
/// cookie or credential, so allowing any origin exposes nothing a plain
/// HTTP client could not read; the list exists for operators who want to
/// say which front ends use their service.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No CORS headers: only same-origin pages and non-browser clients.
    #[default]
    None,
    /// Every origin (`*`).
    Any,
    /// These origins exactly (`scheme://host[:port]`, lowercase).
    Only(Vec<String>),
}

impl CorsOrigins {
    /// The origins as given by an operator: each `scheme://host[:port]`
    /// (a trailing `/` is dropped, scheme and host lowercased, as
    /// browsers send them), or `*` alone for every origin.
    pub fn parse<S: AsRef<str>>(origins: &[S]) -> Result<CorsOrigins, ServiceError> {
        if origins.is_empty() {
            return Ok(CorsOrigins::None);
        }
        if origins.iter().any(|origin| origin.as_ref() == "*") {
            if origins.len() > 1 {
                return Err(bad_origin("*", "`*` allows every origin: give it alone"));
            }
            return Ok(CorsOrigins::Any);
        }
        let mut parsed = Vec::new();
        for origin in origins {
            let origin = normalize_origin(origin.as_ref())?;
            if !parsed.contains(&origin) {
                parsed.push(origin);
            }
        }
        Ok(CorsOrigins::Only(parsed))
    }

    /// The layer answering preflight requests and adding the headers, or
    /// `None` when no origin is allowed.
    pub(super) fn layer(&self) -> Option<CorsLayer> {
        let allowed = match self {
            CorsOrigins::None => return None,
            CorsOrigins::Any => AllowOrigin::any(),
            CorsOrigins::Only(origins) => {
                AllowOrigin::list(origins.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()))
            }
        };
        Some(
            CorsLayer::new()
                .allow_origin(allowed)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE])
                .expose_headers([header::RETRY_AFTER])
                .max_age(PREFLIGHT_MAX_AGE),
        )
    }
}

/// `scheme://host[:port]` as a browser serializes it, or why not.
fn normalize_origin(given: &str) -> Result<String, ServiceError> {
    let origin = given.strip_suffix('/').unwrap_or(given).to_ascii_lowercase();
    let Some((scheme, authority)) = origin.split_once("://") else {
        return Err(bad_origin(given, "an origin is scheme://host[:port], e.g. https://example.org"));
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err(bad_origin(given, "the scheme is letters, digits, +, - or ."));
    }
    if authority.is_empty()
        || authority.contains(['/', '?', '#', '@'])
        || authority.contains(char::is_whitespace)
    {
        return Err(bad_origin(given, "an origin has a host and no path, query, fragment or user"));
    }
    if let Some((_, port)) = authority.rsplit_once(':')
        && !authority.ends_with(']')
        && (port.is_empty() || port.parse::<u16>().is_err())
    {
        return Err(bad_origin(given, "the port is a number 0-65535"));
    }
    if HeaderValue::from_str(&origin).is_err() {
        return Err(bad_origin(given, "not a valid header value"));
    }
    Ok(origin)
}

fn bad_origin(origin: &str, why: &'static str) -> ServiceError {
    ServiceError::CorsOrigin { origin: origin.to_owned(), why }
}

#[cfg(test)]
mod tests {
    use super::CorsOrigins;

    #[test]
    fn origins_are_kept_as_browsers_send_them() {
        let given =
            ["https://Page.Example/", "http://127.0.0.1:5173", "https://page.example", "http://[::1]:80"];
        let expected = ["https://page.example", "http://127.0.0.1:5173", "http://[::1]:80"];
        assert_eq!(
            CorsOrigins::parse(&given).unwrap(),
            CorsOrigins::Only(expected.map(String::from).to_vec())
        );
        assert_eq!(CorsOrigins::parse(&["*"]).unwrap(), CorsOrigins::Any);
        assert_eq!(CorsOrigins::parse::<&str>(&[]).unwrap(), CorsOrigins::None);
    }

    #[test]
    fn what_is_no_origin_is_refused_with_its_reason() {
        for bad in [
            &["page.example"][..],
            &["https://page.example/app"],
            &["https://page.example?q"],
            &["https://user@page.example"],
            &["https://page.example:http"],
            &["https://page.example:70000"],
            &["https://"],
            &["1http://page.example"],
            &["*", "https://page.example"],
        ] {
            let err = CorsOrigins::parse(bad).unwrap_err();
            assert_eq!(err.reason(), "cors_origin", "{bad:?}");
        }
    }
}
