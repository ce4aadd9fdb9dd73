//! `priorart key`: create a nostr secret key file, show a key's public half.

use crate::exit::UsageError;
use crate::signing_key::{self, KeyArgs};
use anyhow::{Result, bail};
use clap::{Parser, Subcommand};
use priorart_files::FileError;
use priorart_nip::nostr::prelude::Keys;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
pub struct Args {
    #[command(subcommand)]
    command: KeyCommand,
}

#[derive(Subcommand)]
enum KeyCommand {
    /// Write a new secret key (nsec) to PATH, readable only by you (mode
    /// 0600), and print its npub. The secret itself is never printed.
    Generate {
        /// Where to write the key; refused if it exists, unless --force.
        path: PathBuf,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
        /// Print {"npub", "pubkey", "key_file"} as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the npub and the hex pubkey of a secret key (one per line).
    Public {
        #[command(flatten)]
        key: KeyArgs,
        /// Print {"npub", "pubkey"} as JSON.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        KeyCommand::Generate { path, force, json } => {
            if path.as_os_str() == crate::input::STDIN {
                bail!(UsageError("a secret key is written to a file, never to standard output: give a path".into()));
            }
            let keys = Keys::generate();
            if let Err(err) = signing_key::write_key_file(&path, &keys, force) {
                if let Some(FileError::Exists { .. }) = err.downcast_ref::<FileError>() {
                    bail!(UsageError(format!("{} exists; use --force to replace it", path.display())));
                }
                return Err(err);
            }
            print_public(&keys, json, Some(&path));
        }
        KeyCommand::Public { key, json } => print_public(&key.require()?, json, None),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_public(keys: &Keys, json: bool, key_file: Option<&Path>) {
    if !json {
        // The npub for people, the hex key for `priorart proof --a` and NIP-01 tags.
        println!("{}", signing_key::npub(keys));
        println!("{}", keys.public_key().to_hex());
        return;
    }
    let mut object =
        serde_json::json!({"npub": signing_key::npub(keys), "pubkey": keys.public_key().to_hex()});
    if let Some(path) = key_file {
        object["key_file"] = serde_json::Value::String(path.display().to_string());
    }
    println!("{object}");
}
