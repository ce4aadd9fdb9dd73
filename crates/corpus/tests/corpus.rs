//! A collection read as every front end reads it: what is kept, what is
//! skipped and said, and the texts read again by their places.

use priorart_corpus::{
    CorpusError, DocumentOptions, Fingerprinted, Observer, Rereader, Source, SourceKind, Summary, Wanted,
    WithX, read_all,
};
use priorart_dedup::{Place, Reread};
use priorart_fingerprint::Shingling;
use priorart_jsonl::RecordShape;
use std::cell::RefCell;
use std::path::Path;

/// Notes kept for the test to read.
#[derive(Default)]
struct Notes {
    lines: RefCell<Vec<String>>,
    fingerprinted: RefCell<u64>,
}

impl Observer for Notes {
    fn note(&self, message: &str) {
        self.lines.borrow_mut().push(message.to_owned());
    }

    fn fingerprinted(&self, count: u64) {
        *self.fingerprinted.borrow_mut() += count;
    }
}

fn files(inputs: &[&Path]) -> Source {
    Source {
        inputs: inputs.iter().map(|path| path.display().to_string()).collect(),
        kind: SourceKind::Files,
        document: DocumentOptions::default(),
    }
}

fn jsonl(input: &Path) -> Source {
    let shape = RecordShape { text_field: "text".into(), id_field: Some("id".into()) };
    Source {
        inputs: vec![input.display().to_string()],
        kind: SourceKind::JsonLines(shape),
        document: DocumentOptions::default(),
    }
}

/// Every document read, with the summary and the notes.
fn read(source: &Source) -> (Result<Summary, CorpusError>, Vec<(String, Place)>, Notes) {
    let notes = Notes::default();
    let mut documents = Vec::new();
    let wanted = Wanted::fingerprints(WithX::No, Shingling::Words);
    let summary = read_all(source, &wanted, &notes, |batch: Vec<Fingerprinted>| {
        documents.extend(batch.into_iter().map(|document| (document.id, document.place)));
        Ok::<(), CorpusError>(())
    });
    (summary, documents, notes)
}

#[test]
fn files_named_twice_are_read_once_and_unreadable_ones_are_listed_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.html"));
    std::fs::write(&a, "a plain text document about winnowing").unwrap();
    std::fs::write(&b, "<html><body><p>an HTML page about sorting</p></body></html>").unwrap();
    let missing = dir.path().join("missing.txt");
    let (summary, documents, notes) = read(&files(&[&a, &b, &a, &missing, dir.path()]));
    let summary = summary.unwrap();
    let ids: Vec<&str> = documents.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, [a.display().to_string(), b.display().to_string()]);
    assert_eq!(summary.failed_inputs, 2);
    assert!(summary.had_errors());
    let why: Vec<&str> = summary.unreadable.iter().map(|(_, why)| why.as_str()).collect();
    assert!(why[0].contains("cannot open") && why[0].contains("No such file"), "{why:?}");
    assert!(why[1].contains("a directory, not a document"), "{why:?}");
    let notes = notes.lines.borrow();
    assert!(notes[0].contains("named more than once; read once"), "{notes:?}");
    assert_eq!(notes.len(), 3, "{notes:?}");
}

#[test]
fn bad_records_are_skipped_and_said_and_empty_texts_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"one\", \"text\": \"the first record\"}\nnot json\n\n{\"id\": \"two\", \"text\": \"  \"}\n\
         {\"id\": 3, \"text\": \"the third record\"}\n",
    )
    .unwrap();
    let (summary, documents, notes) = read(&jsonl(&input));
    let summary = summary.unwrap();
    let ids: Vec<&str> = documents.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["one", "3"]);
    assert_eq!((summary.skipped_records, summary.empty, summary.skipped()), (1, 1, 2));
    let notes = notes.lines.borrow();
    assert!(notes[0].starts_with(&format!("{}: line 2", input.display())), "{notes:?}");
    assert!(notes[1].contains("1 empty document(s) skipped"), "{notes:?}");
}

#[test]
fn an_id_given_twice_is_refused_naming_both_places() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    std::fs::write(
        &input,
        "{\"id\": \"same\", \"text\": \"one text\"}\n{\"id\": \"same\", \"text\": \"another\"}\n",
    )
    .unwrap();
    let (summary, _, _) = read(&jsonl(&input));
    let err = summary.unwrap_err();
    assert_eq!(err.reason(), "repeated_id");
    let message = err.to_string();
    assert!(message.contains(&format!("({}:1 and {}:2)", input.display(), input.display())), "{message}");
}

#[test]
fn the_consumers_error_ends_the_run_as_it_was() {
    #[derive(Debug, PartialEq)]
    enum Mine {
        Full,
        Corpus(String),
    }
    impl From<CorpusError> for Mine {
        fn from(err: CorpusError) -> Mine {
            Mine::Corpus(err.to_string())
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("a.txt");
    std::fs::write(&input, "a document").unwrap();
    let wanted = Wanted::fingerprints(WithX::Yes, Shingling::Words);
    let ended = read_all(&files(&[&input]), &wanted, &Notes::default(), |_| Err(Mine::Full));
    assert_eq!(ended, Err(Mine::Full));
}

#[test]
fn documents_read_again_are_the_texts_read_and_a_changed_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let lines = ["{\"id\": \"a\", \"text\": \"alpha text\"}", "{\"id\": \"b\", \"text\": \"beta text\"}"];
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let source = jsonl(&input);
    let (summary, documents, _) = read(&source);
    let summary = summary.unwrap();
    let rereader = Rereader::new(&source, &summary.inputs);
    let places: Vec<Place> = documents.iter().map(|(_, place)| *place).collect();
    assert_eq!(rereader.texts(&places).unwrap(), ["alpha text", "beta text"]);
    assert_eq!(rereader.origin(places[1]), format!("{}:2", input.display()));
    // Same length (the dedup engine compares lengths itself), no record.
    std::fs::write(&input, "#".repeat(lines[0].len()) + "\n" + lines[1] + "\n").unwrap();
    let err = rereader.texts(&places[..1]).unwrap_err().to_string();
    assert!(err.contains("changed since it was read"), "{err}");
}

#[test]
fn a_web_archive_gives_one_document_per_record_found_again_by_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("crawl.warc");
    let record = |uri: &str, body: &str| {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>{body}</p>");
        format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; \
             msgtype=response\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
            http.len()
        )
    };
    let warc =
        record("http://a.example/", "the first page") + &record("http://b.example/", "the second page");
    std::fs::write(&input, warc).unwrap();
    let source = files(&[&input]);
    let (summary, documents, _) = read(&source);
    let summary = summary.unwrap();
    assert_eq!(documents.len(), 2, "{documents:?}");
    assert!(documents[1].0.ends_with(" http://b.example/"), "{documents:?}");
    let rereader = Rereader::new(&source, &summary.inputs);
    let places: Vec<Place> = documents.iter().map(|(_, place)| *place).collect();
    let texts = rereader.texts(&places[1..]).unwrap();
    assert!(texts[0].contains("the second page"), "{texts:?}");
}
