//! `priorart compare --passages A B`, end to end: the side-by-side view,
//! the JSON document and PAN's XML (read back with an XML parser), offsets
//! into the files as read, and the options that go together.

use priorart_nip_testkit::priorart;
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

const BORROWED: &str = "Lighthouse keepers once recorded every passing vessel in heavy leather logbooks, \
    noting weather, cargo flags and the hour each ship rounded the headland. Historians now read these \
    volumes to reconstruct coastal trade routes, estimate seasonal traffic and date shipwrecks whose \
    remains divers still discover beneath shifting sandbanks along the northern estuary.";

const HOST: &str = "Sourdough starters depend on wild yeast and lactic bacteria living together in flour \
    paste. Bakers feed them daily, discarding part of the culture, and judge readiness by smell, bubbles \
    and how quickly the dough rises after mixing.\n\nCompetition judges award points for crumb structure, \
    crust colour, aroma, and whether loaves keep fresh beyond their second morning on kitchen shelves.";

const SOURCE_OTHER: &str = "Mountain railways climb steep gradients using rack systems, cogwheels gripping \
    a toothed rail laid between running rails, so locomotives haul passengers safely toward summit stations.";

/// The source (other text, then the borrowed passage) and the suspicious
/// text (a multibyte prefix, the host's first paragraph, the passage, the
/// rest), so that character and byte offsets differ.
fn pair(dir: &Path) -> (PathBuf, PathBuf, String) {
    let (first, rest) = HOST.split_once("\n\n").expect("two paragraphs");
    let suspicious = format!("Ünïcödé — «{first}»\n\n{BORROWED}\n\n{rest}");
    let a = write(dir, "suspicious.txt", &suspicious);
    let b = write(dir, "source.txt", &format!("{SOURCE_OTHER}\n\n{BORROWED}\n"));
    (a, b, suspicious)
}

fn run_ok(args: &[&str], a: &Path, b: &Path) -> String {
    let output = priorart().args(args).arg(a).arg(b).output().expect("runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

fn chars(text: &str, offset: u64, length: u64) -> String {
    text.chars().skip(offset as usize).take(length as usize).collect()
}

#[test]
fn json_passages_carry_offsets_into_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, suspicious) = pair(dir.path());
    let document: Value =
        serde_json::from_str(&run_ok(&["compare", "--passages", "--json"], &a, &b)).unwrap();
    assert_eq!(document["format"], "priorart-passages/1");
    let passages = document["passages"].as_array().unwrap();
    assert_eq!(passages.len(), 1, "{document:#}");
    let passage = &passages[0];
    let (offset, length) =
        (passage["a"]["char_offset"].as_u64().unwrap(), passage["a"]["char_length"].as_u64().unwrap());
    assert_eq!(chars(&suspicious, offset, length), passage["a"]["text"].as_str().unwrap());
    assert!(BORROWED.starts_with(passage["a"]["text"].as_str().unwrap()));
    assert!(passage["a"]["text"].as_str().unwrap().len() > BORROWED.len() - 20);
    let byte_offset = passage["a"]["byte_offset"].as_u64().unwrap() as usize;
    assert_eq!(byte_offset, suspicious.find("Lighthouse").unwrap());
    assert!(byte_offset > offset as usize, "the prefix has multibyte characters");
    let source = std::fs::read_to_string(&b).unwrap();
    let (offset, length) =
        (passage["b"]["char_offset"].as_u64().unwrap(), passage["b"]["char_length"].as_u64().unwrap());
    assert_eq!(chars(&source, offset, length), passage["b"]["text"].as_str().unwrap());
    assert_eq!(passage["similarity"], 1.0);
}

/// The `feature` elements of PAN's XML and the document's reference.
fn read_pan(xml: &str) -> (String, Vec<Vec<(String, String)>>) {
    let mut reader = Reader::from_str(xml);
    let (mut reference, mut features) = (String::new(), Vec::new());
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(element) | Event::Empty(element) => {
                let attributes: Vec<(String, String)> = element
                    .attributes()
                    .map(|attribute| {
                        let attribute = attribute.expect("well-formed attribute");
                        let key = attribute.key.as_ref().to_owned();
                        (key, attribute.normalized_value(XmlVersion::Implicit1_0).unwrap().into_owned())
                    })
                    .collect();
                if element.name().as_ref() == "document" {
                    reference = attributes.iter().find(|(k, _)| k == "reference").unwrap().1.clone();
                } else {
                    assert_eq!(element.name().as_ref(), "feature");
                    features.push(attributes);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    (reference, features)
}

#[test]
fn pan_xml_is_well_formed_and_agrees_with_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = pair(dir.path());
    let document: Value =
        serde_json::from_str(&run_ok(&["compare", "--passages", "--json"], &a, &b)).unwrap();
    let (reference, features) = read_pan(&run_ok(&["compare", "--passages", "--pan"], &a, &b));
    assert_eq!(reference, "suspicious.txt");
    assert_eq!(features.len(), 1);
    let get = |name: &str| features[0].iter().find(|(k, _)| k == name).unwrap().1.clone();
    assert_eq!(get("name"), "detected-plagiarism");
    assert_eq!(get("source_reference"), "source.txt");
    let passage = &document["passages"][0];
    assert_eq!(get("this_offset"), passage["a"]["char_offset"].to_string());
    assert_eq!(get("this_length"), passage["a"]["char_length"].to_string());
    assert_eq!(get("source_offset"), passage["b"]["char_offset"].to_string());
    assert_eq!(get("source_length"), passage["b"]["char_length"].to_string());

    let unrelated = write(dir.path(), "other.txt", SOURCE_OTHER);
    let (_, none) = read_pan(&run_ok(&["compare", "--passages", "--pan"], &unrelated, &a));
    assert!(none.is_empty());
}

#[test]
fn side_by_side_shows_both_sides_and_where_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = pair(dir.path());
    let text = run_ok(&["compare", "--passages"], &a, &b);
    assert!(text.starts_with("1 passage shared"), "{text}");
    assert!(text.contains("passage 1: similarity 1.00"), "{text}");
    let header =
        text.lines().find(|line| line.contains("suspicious.txt chars")).expect("where, on both sides");
    assert!(header.contains("│") && header.contains("source.txt chars"), "{header}");
    let first_line =
        text.lines().find(|line| line.starts_with("Lighthouse keepers")).expect("the passage's text");
    let (left, right) = first_line.split_once(" │ ").expect("two columns");
    assert_eq!(left.trim_end(), right);
}

#[test]
fn offsets_of_an_extracted_document_are_into_its_extracted_text() {
    let dir = tempfile::tempdir().unwrap();
    let html = format!(
        "<!doctype html><html><head><title>Log</title></head><body><main><h1>Keepers</h1>\
         <p>{}</p><p><b>{BORROWED}</b></p></main></body></html>",
        HOST.replace("\n\n", "</p><p>")
    );
    let a = write(dir.path(), "page.html", &html);
    let b = write(dir.path(), "source.txt", BORROWED);
    let document: Value =
        serde_json::from_str(&run_ok(&["compare", "--passages", "--json"], &a, &b)).unwrap();
    let extracted = String::from_utf8(priorart().arg("extract").arg(&a).output().unwrap().stdout).unwrap();
    let passage = &document["passages"][0];
    let (offset, length) =
        (passage["a"]["char_offset"].as_u64().unwrap(), passage["a"]["char_length"].as_u64().unwrap());
    assert_eq!(chars(&extracted, offset, length), passage["a"]["text"].as_str().unwrap());
    assert!(passage["a"]["text"].as_str().unwrap().starts_with("Lighthouse keepers"));
}

#[test]
fn pan_implies_passages_and_excludes_json() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = pair(dir.path());
    // --pan asks for passages in PAN's XML: it says --passages by itself.
    assert_eq!(run_ok(&["compare", "--pan"], &a, &b), run_ok(&["compare", "--passages", "--pan"], &a, &b));
    priorart().args(["compare", "--passages", "--pan", "--json"]).arg(&a).arg(&b).assert().code(2);
}

#[test]
fn format_pan_points_to_the_pan_option() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = pair(dir.path());
    let output = priorart().args(["compare", "--format", "pan"]).arg(&a).arg(&b).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`compare --pan`"), "{stderr}");
}

#[test]
fn check_with_an_index_says_it_has_no_text_for_passages() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _, _) = pair(dir.path());
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).arg(&a).assert().success();
    let check = |json: bool| {
        let mut command = priorart();
        command.env("XDG_CONFIG_HOME", dir.path()).arg("check");
        if json {
            command.arg("--json");
        }
        let output = command.arg("--index").arg(&index).arg(&a).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let report: Value = serde_json::from_str(&check(true)).unwrap();
    assert_eq!(report["index"]["answer"]["near"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["index"]["passages"]["shown"], false);
    assert!(report["index"]["passages"]["why"].as_str().unwrap().contains("keeps no text"));
    let text = check(false);
    assert!(text.contains("passages: none shown: the index keeps no text"), "{text}");
    // A document with no near copy gets no such line.
    let other = write(dir.path(), "other.txt", SOURCE_OTHER);
    let output = priorart()
        .env("XDG_CONFIG_HOME", dir.path())
        .arg("check")
        .arg("--index")
        .arg(&index)
        .arg(&other)
        .output()
        .unwrap();
    assert!(!String::from_utf8(output.stdout).unwrap().contains("passages:"));
}

#[test]
fn unrelated_documents_share_no_passage_in_any_format() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "host.txt", HOST);
    let b = write(dir.path(), "other.txt", SOURCE_OTHER);
    let text = run_ok(&["compare", "--passages"], &a, &b);
    assert_eq!(text, format!("no passage shared between {} and {}\n", a.display(), b.display()));
    let document: Value =
        serde_json::from_str(&run_ok(&["compare", "--passages", "--json"], &a, &b)).unwrap();
    assert_eq!(document["passages"], serde_json::json!([]));
    assert!(
        run_ok(&["compare", "--passages", "--pan"], &a, &b)
            .ends_with("<document reference=\"host.txt\">\n</document>\n")
    );
}
