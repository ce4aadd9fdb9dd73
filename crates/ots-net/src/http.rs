//! A small blocking HTTP client with the limits every untrusted server gets:
//! a total time budget, a cap on the answer's size, and no redirects (a
//! redirect would let an allowed calendar send us to any host).

use std::time::Duration;

/// Why an HTTP exchange failed.
#[derive(Debug, Clone, thiserror::Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum HttpError {
    #[error("{url}: timed out")]
    Timeout { url: String },
    #[error("{url}: answer larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    /// No answer: DNS, connection, TLS, or a broken exchange. The cause is
    /// ureq's error, behind a shared pointer (its type is not part of this
    /// crate's API, and reports holding it stay cheap to clone).
    #[error("{url}: request failed")]
    Transport {
        url: String,
        #[source]
        cause: priorart_ots::Cause,
    },
}

/// Two failures are equal when they name the same URL and say the same:
/// a transport cause is compared by its message (ureq's errors have no
/// equality of their own).
impl PartialEq for HttpError {
    fn eq(&self, other: &HttpError) -> bool {
        match (self, other) {
            (HttpError::Timeout { url: a }, HttpError::Timeout { url: b }) => a == b,
            (HttpError::TooLarge { url: a, limit: x }, HttpError::TooLarge { url: b, limit: y }) => {
                a == b && x == y
            }
            (HttpError::Transport { url: a, cause: x }, HttpError::Transport { url: b, cause: y }) => {
                a == b && x.to_string() == y.to_string()
            }
            _ => false,
        }
    }
}

impl Eq for HttpError {}

reason_names!(HttpError {
    Timeout => "timeout",
    TooLarge => "too_large",
    Transport => "transport",
});

/// A status code and body.
pub(crate) struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

pub(crate) struct Http {
    agent: ureq::Agent,
}

impl Http {
    pub(crate) fn new(timeout: Duration) -> Http {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(concat!("priorart/", env!("CARGO_PKG_VERSION")))
            .build();
        Http { agent: config.into() }
    }

    pub(crate) fn get(&self, url: &str, headers: &[(&str, &str)], limit: u64) -> Result<Answer, HttpError> {
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        read_answer(url, request.call(), limit)
    }

    pub(crate) fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &[u8],
        limit: u64,
    ) -> Result<Answer, HttpError> {
        let mut request = self.agent.post(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        read_answer(url, request.send(body), limit)
    }
}

fn read_answer(
    url: &str,
    response: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    limit: u64,
) -> Result<Answer, HttpError> {
    let mut response = response.map_err(|err| http_error(url, err, limit))?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(limit)
        .read_to_vec()
        .map_err(|err| http_error(url, err, limit))?;
    Ok(Answer { status, body })
}

impl HttpError {
    /// The URL asked.
    pub fn url(&self) -> &str {
        match self {
            HttpError::Timeout { url }
            | HttpError::TooLarge { url, .. }
            | HttpError::Transport { url, .. } => url,
        }
    }

    /// Whether the host's name did not resolve: when every server's name
    /// fails so, the machine most likely has no network (or no DNS), and
    /// naming other servers would not help.
    pub fn name_not_resolved(&self) -> bool {
        let HttpError::Transport { cause, .. } = self else { return false };
        match (**cause).downcast_ref::<ureq::Error>() {
            Some(ureq::Error::HostNotFound) => true,
            // The system resolver's failure reaches ureq as an I/O error
            // that only its text tells apart (std has no kind for it).
            Some(ureq::Error::Io(io)) => io.to_string().starts_with("failed to lookup address information"),
            _ => false,
        }
    }

    /// What went wrong in a few words, without the URL: the innermost
    /// cause ("Connection refused (os error 111)"), or "name not resolved".
    pub fn brief(&self) -> String {
        match self {
            HttpError::Transport { .. } if self.name_not_resolved() => "name not resolved".to_owned(),
            HttpError::Transport { cause, .. } => {
                let mut innermost: &(dyn std::error::Error + 'static) = &**cause;
                while let Some(next) = innermost.source() {
                    innermost = next;
                }
                // ureq wraps an I/O error without giving it as its source,
                // and prefixes its text with "io: ": the OS's words alone.
                match innermost.downcast_ref::<ureq::Error>() {
                    Some(ureq::Error::Io(io)) => io.to_string(),
                    _ => innermost.to_string(),
                }
            }
            HttpError::Timeout { .. } => "timed out".to_owned(),
            HttpError::TooLarge { limit, .. } => format!("answer larger than {limit} bytes"),
        }
    }
}

fn http_error(url: &str, err: ureq::Error, limit: u64) -> HttpError {
    let url = url.to_owned();
    match err {
        ureq::Error::Timeout(_) => HttpError::Timeout { url },
        ureq::Error::BodyExceedsLimit(_) => HttpError::TooLarge { url, limit },
        other => HttpError::Transport { url, cause: std::sync::Arc::new(other) },
    }
}

/// `base` and `path` joined with exactly one slash.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transport_failure_keeps_ureqs_error_as_its_source() {
        let port = priorart_testkit::free_port();
        let url = format!("http://127.0.0.1:{port}/digest");
        let error = Http::new(Duration::from_secs(5)).get(&url, &[], 100).err().expect("refused");
        assert!(matches!(&error, HttpError::Transport { .. }), "{error:?}");
        assert_eq!(error.to_string(), format!("{url}: request failed"));
        let cause = std::error::Error::source(&error).expect("the cause is kept").to_string();
        assert!(!cause.is_empty() && !error.to_string().contains(&cause), "{cause}");
        assert_eq!(error.clone(), error);
        // In a few words: the operating system's, without ureq's "io: ".
        let brief = error.brief();
        assert!(brief.starts_with("Connection refused"), "{brief}");
    }
}
