//! `priorart serve` as a child process, and a small HTTP client for it.

use priorart_nip_testkit::{ServerProcess, priorart_binary};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A running `priorart serve`; killed when dropped.
pub struct ServeProcess {
    server: ServerProcess,
    pub url: String,
}

impl ServeProcess {
    /// `priorart serve --listen 127.0.0.1:0 --state STATE ARGS…`, with the
    /// failpoint `failpoint` set when given.
    pub fn start(state: &Path, args: &[&str], failpoint: Option<&str>) -> ServeProcess {
        let mut command = Command::new(priorart_binary());
        command.args(["serve", "--listen", "127.0.0.1:0", "--state"]).arg(state).args(args);
        command.env_remove(priorart_pipeline::failpoint::FAILPOINT_ENV);
        if let Some(point) = failpoint {
            command.env(priorart_pipeline::failpoint::FAILPOINT_ENV, point);
        }
        let server = ServerProcess::start(&mut command).expect("priorart serve prints its URL");
        let url = server.url.clone();
        ServeProcess { server, url }
    }

    /// The lines it wrote on stderr so far.
    pub fn log(&self) -> Vec<String> {
        self.server.log()
    }

    /// Waits (bounded) for the process to end by itself; its signal, if any.
    pub fn wait_for_exit(mut self, within: Duration) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.server.child().try_wait().expect("waitable") {
                return status.signal();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("priorart serve did not stop within {within:?}");
    }
}

/// An HTTP client that returns every status as an answer.
pub fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// `(status, body as JSON or as a string)`; `None` when the connection failed.
pub fn post(agent: &ureq::Agent, url: &str, body: &[u8]) -> Option<(u16, Value)> {
    let response = agent.post(url).header("Content-Type", "application/json").send(body).ok()?;
    Some(answer(response))
}

pub fn get(agent: &ureq::Agent, url: &str) -> (u16, Value) {
    answer(agent.get(url).call().expect("GET answered"))
}

fn answer(mut response: ureq::http::Response<ureq::Body>) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}

/// Polls `url` until `done` holds for its JSON (bounded).
pub fn wait_until(agent: &ureq::Agent, url: &str, within: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let (_, value) = get(agent, url);
        if done(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "not reached within {within:?}: {value:#}");
        std::thread::sleep(Duration::from_millis(100));
    }
}
