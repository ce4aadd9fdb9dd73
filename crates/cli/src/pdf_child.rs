//! PDF extraction in a child process of this binary, so that a time limit
//! really stops it.
//!
//! The PDF parser runs in a worker thread inside `priorart-extract`, under
//! `catch_unwind` and a time budget; but a thread cannot be killed, so a
//! parser stuck in a loop keeps a core busy after its timeout until the
//! process ends. For a file given on the command line the CLI therefore
//! extracts PDFs in a child (`priorart __pdf-worker`, reading the PDF on
//! stdin and writing the text on stdout), and kills it at the deadline.
//! PDFs inside web archives are still read in-process (one worker thread
//! per timed-out record at most, ended with the command).

use anyhow::{Context, Result, bail};
use priorart_extract::{DocumentText, Format, Limits};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden first argument that makes this binary a PDF worker.
pub const WORKER_ARG: &str = "__pdf-worker";

/// The worker: the PDF on stdin, its text on stdout, the error on stderr.
pub fn worker() -> std::process::ExitCode {
    let limits = Limits { max_time: Duration::MAX, ..Limits::default() };
    let mut bytes = Vec::new();
    let read = std::io::stdin().take(limits.max_input_bytes + 1).read_to_end(&mut bytes);
    let result = read
        .map_err(anyhow::Error::from)
        .and_then(|_| Ok(priorart_extract::document_text(&bytes, Some(Format::Pdf), &limits)?.text));
    match result {
        Ok(text) => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            std::process::ExitCode::SUCCESS
        }
        Err(err) => {
            note!("{err:#}");
            std::process::ExitCode::from(crate::exit::BAD_INPUT)
        }
    }
}

/// The text of a PDF, extracted by a child that is killed at `limits.max_time`.
pub fn extract(bytes: &[u8], limits: &Limits) -> Result<DocumentText> {
    let exe = std::env::current_exe().context("cannot find the priorart binary to run the PDF worker")?;
    let mut child = Command::new(exe)
        .arg(WORKER_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start the PDF worker")?;
    let (mut stdin, mut stdout, stderr) = (
        child.stdin.take().expect("piped"),
        child.stdout.take().expect("piped"),
        child.stderr.take().expect("piped"),
    );
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        stdout.read_to_end(&mut text).map(|_| text)
    });
    let errors = std::thread::spawn(move || {
        let mut message = String::new();
        let _ = stderr.take(64 << 10).read_to_string(&mut message);
        message
    });
    let deadline = Instant::now().checked_add(limits.max_time);
    let status = loop {
        if let Some(status) = child.try_wait().context("cannot wait for the PDF worker")? {
            break status;
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            let _ = child.kill();
            let _ = child.wait();
            bail!(priorart_extract::ExtractError::Timeout { limit: limits.max_time });
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let text = reader.join().map_err(|_| anyhow::anyhow!("the PDF worker's reader failed"))??;
    let message = errors.join().unwrap_or_default();
    if !status.success() {
        bail!("{}", message.trim());
    }
    Ok(DocumentText {
        format: Format::Pdf,
        text: String::from_utf8(text).context("the PDF worker wrote non-UTF-8")?,
    })
}
