//! Relays as child processes for the CLI's relay tests: `priorart relay`,
//! and the independent relays (PyPI nostr-relay, nostr-rs-relay).

use priorart_nip_testkit::{ServerProcess, priorart_binary};
use priorart_testkit::free_port;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a relay gets to start listening.
const STARTUP: Duration = Duration::from_secs(30);

/// A relay running as a child process; killed when dropped.
pub struct RelayProcess {
    child: Child,
    pub url: String,
}

impl RelayProcess {
    /// `priorart relay --db DB --listen 127.0.0.1:0`; its URL read from stderr.
    pub fn priorart(db: &Path) -> RelayProcess {
        RelayProcess::priorart_with(db, &[])
    }

    /// `priorart relay` with `extra` options (e.g. `--policy FILE`).
    pub fn priorart_with(db: &Path, extra: &[&std::ffi::OsStr]) -> RelayProcess {
        let mut command = Command::new(priorart_binary());
        command.args(["relay", "--listen", "127.0.0.1:0", "--db"]).arg(db).args(extra);
        let server = ServerProcess::start(&mut command).expect("priorart relay prints its URL");
        RelayProcess { url: server.url.clone(), child: server.into_child() }
    }

    /// Any program serving a relay on `port` once started by `command`.
    pub fn spawn(mut command: Command, port: u16) -> RelayProcess {
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("relay starts");
        let relay = RelayProcess { child, url: format!("ws://127.0.0.1:{port}") };
        wait_listening(SocketAddr::from(([127, 0, 0, 1], port)));
        relay
    }

    /// kill -9: no chance to close the store.
    pub fn kill(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("reaped");
    }

    /// SIGTERM, and waits for a clean exit.
    pub fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                assert!(status.success(), "priorart relay exits 0 on SIGTERM: {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("priorart relay did not stop on SIGTERM");
    }
}

impl Drop for RelayProcess {
    /// Kills the relay and every process it started. PyPI nostr-relay runs
    /// gunicorn, whose worker outlives a killed master (orphans piled up
    /// across test runs before this), so the descendants are found first,
    /// while they are still the relay's, and killed after it.
    fn drop(&mut self) {
        let descendants = descendants(self.child.id());
        let _ = self.child.kill();
        let _ = self.child.wait();
        if !descendants.is_empty() {
            let pids: Vec<String> = descendants.iter().map(u32::to_string).collect();
            let _ = Command::new("kill").arg("-KILL").args(&pids).stderr(Stdio::null()).status();
        }
    }
}

/// Every process below `pid` in the process tree, from `/proc` (Linux).
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let parent = stat.get(stat.rfind(')')? + 2..)?.split(' ').nth(1)?.parse().ok()?;
            Some((child, parent))
        })
        .collect();
    let mut found = vec![pid];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(parents.iter().filter(|&&(_, p)| p == parent).map(|&(child, _)| child));
        next += 1;
    }
    found.split_off(1)
}

fn wait_listening(addr: SocketAddr) {
    let deadline = Instant::now() + STARTUP;
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {addr}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Whether `program` is on PATH; panics if it is required (`variable=1`)
/// and missing, else records the skip (`priorart_testkit::peers`).
pub fn peer_on_path(program: &str, variable: &str, install: &str) -> bool {
    let found = priorart_testkit::peers::on_path(program);
    priorart_testkit::peers::optional_peer_available(variable, program, found, install)
}

/// PyPI nostr-relay serving an SQLite file in `dir` on a free port.
pub fn python_relay(dir: &Path) -> RelayProcess {
    let port = free_port();
    let config = dir.join("nostr-relay.yaml");
    let database = dir.join("nostr-relay.sqlite3");
    std::fs::write(
        &config,
        format!(
            "DEBUG: false\nrelay_name: interop\nstorage:\n  sqlalchemy.url: sqlite+aiosqlite:///{}\n  validators:\n    - nostr_relay.validators.is_not_too_large\n    - nostr_relay.validators.is_signed\ngunicorn:\n  bind: 127.0.0.1:{port}\n  workers: 1\n  loglevel: warning\nauthentication:\n  enabled: false\n",
            database.display()
        ),
    )
    .unwrap();
    let mut command = Command::new("nostr-relay");
    command.arg("-c").arg(&config).arg("serve").current_dir(dir);
    RelayProcess::spawn(command, port)
}

/// nostr-rs-relay (SQLite) with its data in `dir`, on a free port.
pub fn nostr_rs_relay(dir: &Path) -> RelayProcess {
    nostr_rs_relay_with(dir, "")
}

/// nostr-rs-relay with `extra` sections in its config.toml (e.g. `[grpc]`).
pub fn nostr_rs_relay_with(dir: &Path, extra: &str) -> RelayProcess {
    let port = free_port();
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[database]\ndata_directory = \"{}\"\n[network]\naddress = \"127.0.0.1\"\nport = {port}\n[limits]\nmessages_per_sec = 100000\nmax_event_bytes = 524288\n{extra}",
            dir.display()
        ),
    )
    .unwrap();
    let mut command = Command::new("nostr-rs-relay");
    command.arg("--config").arg(&config).current_dir(dir);
    RelayProcess::spawn(command, port)
}

/// Writes `lines` to `dir/name`, one per line, and returns the path.
pub fn write_lines(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}
