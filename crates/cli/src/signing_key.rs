//! Where signing commands get their secret key: `--key-file PATH` or the
//! `PRIORART_SECRET_KEY` environment variable, nsec or hex. Error messages
//! never echo the key.

use anyhow::{Context, Result, bail};
use priorart_nip::nostr::prelude::{Keys, ToBech32};
use std::path::{Path, PathBuf};

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
    keys.public_key().to_bech32().unwrap_or_else(|_| keys.public_key().to_hex())
}

/// A `--created-at` value, or now.
pub fn created_at(secs: Option<u64>) -> priorart_nip::nostr::prelude::Timestamp {
    secs.map_or_else(
        priorart_nip::nostr::prelude::Timestamp::now,
        priorart_nip::nostr::prelude::Timestamp::from_secs,
    )
}
