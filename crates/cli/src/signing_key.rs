//! Where signing commands get their signer: a secret key (`--key-file PATH`
//! or the `PRIORART_SECRET_KEY` environment variable, nsec or hex), or a
//! NIP-46 remote signer (`--bunker bunker://…`). Every command that signs
//! as the author goes through [`Signer`]: [`SignerArgs::require`], then
//! [`Signer::public_key`] to build the event and [`Signer::sign`] to sign
//! it. Error messages never echo a key or the bunker URI's secret.

use anyhow::{Context, Result, bail};
use priorart_nip::nostr::prelude::{Event, Keys, PublicKey, SignEvent, ToBech32, UnsignedEvent};
use priorart_relay::{Bunker, BunkerOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The environment variable holding a secret key (nsec or 64 hex digits).
pub const ENV: &str = "PRIORART_SECRET_KEY";

/// Longest key file read: an nsec is 63 characters.
const MAX_KEY_FILE_BYTES: u64 = 1024;

#[derive(clap::Args)]
pub struct KeyArgs {
    /// Secret key file (nsec or hex; `priorart key generate` writes one).
    /// Without it, the PRIORART_SECRET_KEY environment variable is used.
    #[arg(long, value_name = "PATH")]
    pub key_file: Option<PathBuf>,
}

impl KeyArgs {
    /// The key from `--key-file`, else from the environment, else none.
    pub fn load(&self) -> Result<Option<Keys>> {
        if let Some(path) = &self.key_file {
            return read_key_file(path).map(Some);
        }
        match std::env::var(ENV) {
            Ok(secret) => parse_secret(&secret).with_context(|| format!("${ENV}")).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => bail!("${ENV} is not an nsec or hex secret key"),
        }
    }

    /// The key, or an error saying how to give one.
    pub fn require(&self) -> Result<Keys> {
        self.load()?.ok_or_else(|| {
            anyhow::Error::new(crate::exit::UsageError(format!(
                "a secret key is needed: --key-file PATH or ${ENV} (create one with `priorart key generate PATH`)"
            )))
        })
    }
}

/// Who signs as the author: a local key, or the user's NIP-46 bunker.
#[derive(clap::Args)]
pub struct SignerArgs {
    #[command(flatten)]
    pub key: KeyArgs,
    /// Sign through a NIP-46 remote signer: its `bunker://<pubkey>?relay=…&secret=…`
    /// connection string (the secret is never printed).
    #[arg(long, value_name = "URI", conflicts_with = "key_file")]
    pub bunker: Option<String>,
    /// Keep this machine's bunker client key in PATH: created (mode 0600)
    /// after the first accepted `connect`, reused afterwards without one, so
    /// a bunker whose secret works once keeps signing. Without it each run
    /// uses a fresh client key and the URI's secret.
    #[arg(long, value_name = "PATH", requires = "bunker")]
    pub bunker_client_key: Option<PathBuf>,
}

impl SignerArgs {
    /// The signer: the bunker when `--bunker` is given (connected within
    /// `timeout` per wait), else the local key, else a usage error.
    pub fn require(&self, timeout: Duration) -> Result<Signer> {
        let Some(uri) = &self.bunker else { return self.key.require().map(Signer::Local) };
        let options = BunkerOptions {
            timeout,
            on_auth_url: Arc::new(|url: &str| {
                note!("priorart: the bunker asks you to approve this request: open {url}");
            }),
        };
        let bunker = match &self.bunker_client_key {
            None => Bunker::connect(uri, Keys::generate(), options)?,
            Some(path) if path.exists() => {
                let client = read_key_file(path)?;
                Bunker::resume(uri, client, options).with_context(|| {
                    format!(
                        "bunker session of {} (delete it to connect again with the URI's secret)",
                        path.display()
                    )
                })?
            }
            Some(path) => {
                let client = Keys::generate();
                let bunker = Bunker::connect(uri, client.clone(), options)?;
                write_key_file(path, &client, false)?;
                bunker
            }
        };
        note!("priorart: signing through the bunker as {}", npub_of(&bunker.public_key()));
        Ok(Signer::Bunker(Box::new(bunker)))
    }
}

/// A signer for the author's events.
#[derive(Debug)]
pub enum Signer {
    /// A secret key on this machine.
    Local(Keys),
    /// A NIP-46 remote signer, connected.
    Bunker(Box<Bunker>),
}

impl Signer {
    /// The author's public key: the `pubkey` of every event this signs.
    pub fn public_key(&self) -> PublicKey {
        match self {
            Signer::Local(keys) => keys.public_key(),
            Signer::Bunker(bunker) => bunker.public_key(),
        }
    }

    /// Signs `unsigned`, whose pubkey must be [`Signer::public_key`]. A
    /// bunker's answer is checked to be that very event, validly signed.
    pub fn sign(&self, unsigned: UnsignedEvent) -> Result<Event> {
        match self {
            Signer::Local(keys) => keys.sign_event(unsigned).context("cannot sign"),
            Signer::Bunker(bunker) => Ok(bunker.sign_event(unsigned)?),
        }
    }
}

/// Writes the secret key of `keys` (nsec) to `path`, owner-only (mode 0600)
/// from its first byte, complete or not at all; an existing file is
/// replaced only when `replace` (else a [`priorart_files::FileError::Exists`]).
pub fn write_key_file(path: &Path, keys: &Keys, replace: bool) -> Result<()> {
    let nsec = keys.secret_key().to_bech32().context("cannot encode the secret key")?;
    let line = format!("{nsec}\n");
    if replace {
        priorart_files::write_private(path, line.as_bytes())?;
    } else {
        priorart_files::write_new_private(path, line.as_bytes())?;
    }
    Ok(())
}

fn read_key_file(path: &Path) -> Result<Keys> {
    use std::io::Read;
    let name = path.display();
    let file = std::fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    warn_if_readable_by_others(&file, path);
    let mut text = String::new();
    file.take(MAX_KEY_FILE_BYTES)
        .read_to_string(&mut text)
        .with_context(|| format!("{name}: cannot read"))?;
    parse_secret(&text).with_context(|| format!("{name}"))
}

fn parse_secret(text: &str) -> Result<Keys> {
    Keys::parse(text.trim()).map_err(|_| anyhow::anyhow!("not an nsec or 64-hex secret key"))
}

#[cfg(unix)]
fn warn_if_readable_by_others(file: &std::fs::File, path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if file.metadata().is_ok_and(|meta| meta.permissions().mode() & 0o077 != 0) {
        note!("priorart: warning: {} is readable by other users; `chmod 600` it", path.display());
    }
}

#[cfg(not(unix))]
fn warn_if_readable_by_others(_: &std::fs::File, _: &Path) {}

/// The npub of `keys`, for messages.
pub fn npub(keys: &Keys) -> String {
    npub_of(&keys.public_key())
}

/// The npub of a public key, for messages.
pub fn npub_of(key: &PublicKey) -> String {
    key.to_bech32().unwrap_or_else(|_| key.to_hex())
}

/// A `--created-at` value, or now.
pub fn created_at(secs: Option<u64>) -> priorart_nip::nostr::prelude::Timestamp {
    secs.map_or_else(
        priorart_nip::nostr::prelude::Timestamp::now,
        priorart_nip::nostr::prelude::Timestamp::from_secs,
    )
}
