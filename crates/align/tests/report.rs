//! The JSON document and PAN's XML: what they say about a found passage,
//! and that the XML reads back with a real XML parser.

use crate::align::prose;
use priorart_align::report::{self, Named};
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use std::collections::HashMap;

/// Every `feature` element's attributes, and the document's reference.
fn read_pan(xml: &str) -> (String, Vec<HashMap<String, String>>) {
    let mut reader = Reader::from_str(xml);
    let (mut reference, mut features) = (String::new(), Vec::new());
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(element) | Event::Empty(element) => {
                let attributes: HashMap<String, String> = element
                    .attributes()
                    .map(|attribute| {
                        let attribute = attribute.expect("a well-formed attribute");
                        let value = attribute
                            .normalized_value(XmlVersion::Implicit1_0)
                            .expect("escaped properly")
                            .into_owned();
                        (attribute.key.as_ref().to_owned(), value)
                    })
                    .collect();
                match element.name().as_ref() {
                    "document" => reference = attributes["reference"].clone(),
                    "feature" => features.push(attributes),
                    other => panic!("unexpected element {other:?}"),
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    (reference, features)
}

#[test]
fn pan_xml_names_each_passage_in_characters_and_reads_back() {
    let source = format!("« {} »", prose(5, 200));
    let suspicious = format!("{} «{}» {}", prose(6, 100), &source[3..source.len() - 3], prose(7, 100));
    let passages = priorart_align::align(&suspicious, &source).unwrap();
    assert_eq!(passages.len(), 1);
    let xml = report::pan_xml("susp <1>.txt", "src & \"2\".txt", &passages);
    let (reference, features) = read_pan(&xml);
    assert_eq!(reference, "susp <1>.txt");
    assert_eq!(features.len(), 1);
    let feature = &features[0];
    assert_eq!(feature["name"], "detected-plagiarism");
    assert_eq!(feature["source_reference"], "src & \"2\".txt");
    assert_eq!(feature["this_offset"], passages[0].a.char_offset.to_string());
    assert_eq!(feature["this_length"], passages[0].a.char_length.to_string());
    assert_eq!(feature["source_offset"], passages[0].b.char_offset.to_string());
    assert_eq!(feature["source_length"], passages[0].b.char_length.to_string());
}

#[test]
fn the_json_document_holds_each_passages_text_and_offsets() {
    let source = prose(8, 200);
    let suspicious = format!("{}\n{}", prose(9, 50), source);
    let passages = priorart_align::align(&suspicious, &source).unwrap();
    let document = report::json(
        Named { name: "a.txt", text: &suspicious },
        Named { name: "b.txt", text: &source },
        &passages,
    );
    assert_eq!(document["format"], report::FORMAT);
    assert_eq!(document["a"]["name"], "a.txt");
    assert_eq!(document["b"]["chars"], source.chars().count());
    let passage = &document["passages"][0];
    let offset = passage["a"]["byte_offset"].as_u64().unwrap() as usize;
    let length = passage["a"]["byte_length"].as_u64().unwrap() as usize;
    assert_eq!(passage["a"]["text"], &suspicious[offset..offset + length]);
    assert_eq!(passage["a"]["text"], passage["b"]["text"]);
    assert_eq!(passage["similarity"], 1.0);
}

#[test]
fn the_json_text_keeps_the_documented_member_order_in_every_build() {
    let source = prose(8, 200);
    let suspicious = format!("{}\n{}", prose(9, 50), source);
    let passages = priorart_align::align(&suspicious, &source).unwrap();
    let (a, b) = (Named { name: "a.txt", text: &suspicious }, Named { name: "b.txt", text: &source });
    let text = report::json_text(a, b, &passages);
    // Without serde_json's preserve_order a Value would sort these.
    let at = |key: &str| text.find(&format!("\"{key}\":")).unwrap_or_else(|| panic!("no {key}"));
    assert!(at("format") < at("offsets") && at("offsets") < at("a") && at("b") < at("passages"), "{text}");
    let side = &text[at("passages")..];
    let inner = |key: &str| side.find(&format!("\"{key}\":")).unwrap();
    assert!(inner("char_offset") < inner("char_length") && inner("byte_length") < inner("text"), "{side}");
    assert!(inner("similarity") < inner("seeds"));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), report::json(a, b, &passages));
}
