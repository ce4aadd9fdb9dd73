//! The `priorart` binary, and its servers (`serve`, `relay`, `policy
//! grpc`) as child processes started on port 0 that say on standard error
//! where they listen.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How long a server gets to say where it listens.
const STARTUP: Duration = Duration::from_secs(30);

/// What a `priorart` server writes before its URL.
const LISTENING: &str = "listening on ";

/// The `priorart` binary: `PRIORART_BIN` when set, else the one cargo
/// built beside the running test (`target/*/deps/..`) or example
/// (`target/*/examples/..`).
pub fn priorart_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("PRIORART_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the running executable's path");
    let mut dir = exe.parent().expect("a directory").to_owned();
    if dir.ends_with("deps") || dir.ends_with("examples") {
        dir.pop();
    }
    dir.join(format!("priorart{}", std::env::consts::EXE_SUFFIX))
}

/// The binary as a test command that never touches the user's secret key
/// (`PRIORART_SECRET_KEY` removed) or header cache (`XDG_CACHE_HOME` set
/// to a scratch directory under the temporary directory).
pub fn priorart() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::new(priorart_binary());
    command
        .env_remove("PRIORART_SECRET_KEY")
        .env("XDG_CACHE_HOME", std::env::temp_dir().join("priorart-test-cache"));
    command
}

/// A server running as a child process, started on port 0: its URL is the
/// word after `listening on ` on its standard error. Every line it writes
/// there is kept (and echoed when `PRIORART_TEST_VERBOSE` is set); killed
/// when dropped.
pub struct ServerProcess {
    /// `None` only once handed over ([`ServerProcess::into_child`]).
    child: Option<Child>,
    /// Where it listens, as it printed it (`http://…`, `ws://…`).
    pub url: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl ServerProcess {
    /// Starts `command` (its standard input and output closed) and waits
    /// for it to say where it listens; an error when it does not within 30 s.
    pub fn start(command: &mut Command) -> Result<ServerProcess, String> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|err| format!("{command:?} does not start: {err}"))?;
        let stderr = child.stderr.take().expect("a piped stderr");
        let (sender, receiver) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let kept = log.clone();
        let verbose = std::env::var_os("PRIORART_TEST_VERBOSE").is_some();
        // Reads every line, so that the pipe never fills.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find(LISTENING) {
                    let url = line[at + LISTENING.len()..].split_whitespace().next().unwrap_or_default();
                    let _ = sender.send(url.to_owned());
                }
                if verbose {
                    eprintln!("{line}");
                }
                kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(line);
            }
        });
        match receiver.recv_timeout(STARTUP) {
            Ok(url) => Ok(ServerProcess { child: Some(child), url, log }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("{command:?} said nowhere it listens within {STARTUP:?}"))
            }
        }
    }

    /// The lines it wrote on standard error so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    /// The process.
    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("not handed over")
    }

    /// The process, no longer killed when this is dropped: for a caller
    /// that stops it its own way (its standard error is still read).
    pub fn into_child(mut self) -> Child {
        self.child.take().expect("not handed over")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
