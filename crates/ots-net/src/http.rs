//! A small blocking HTTP client with the limits every untrusted server gets:
//! a total time budget, a cap on the answer's size, and no redirects (a
//! redirect would let an allowed calendar send us to any host).

use std::time::Duration;

/// Why an HTTP exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum HttpError {
    #[error("{url}: timed out")]
    Timeout { url: String },
    #[error("{url}: answer larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    #[error("{url}: {message}")]
    Transport { url: String, message: String },
}

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

fn http_error(url: &str, err: ureq::Error, limit: u64) -> HttpError {
    let url = url.to_owned();
    match err {
        ureq::Error::Timeout(_) => HttpError::Timeout { url },
        ureq::Error::BodyExceedsLimit(_) => HttpError::TooLarge { url, limit },
        other => HttpError::Transport { url, message: other.to_string() },
    }
}

/// `base` and `path` joined with exactly one slash.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}
