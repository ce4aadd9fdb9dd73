//! `priorart index` and `priorart dedup` end to end on real documents: the
//! extractor's fixtures hold the same article in several encodings and
//! formats (known duplicates) and unrelated documents.

use priorart_nip_testkit::priorart;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extract/tests/data").join(name)
}

const SAME_ARTICLE: [&str; 5] = [
    "html-latin1-undeclared.html",
    "html-mislabelled.html",
    "html-utf16.html",
    "html-utf8.html",
    "text-utf16be.txt",
];
const OTHERS: [&str; 5] = ["html-shiftjis.html", "jats.xml", "tei.xml", "article.pdf", "book.epub"];

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn dedup_finds_the_known_duplicates_and_nothing_else() {
    let out = tempfile::tempdir().unwrap();
    let mut command = priorart();
    command.arg("dedup").arg("--out").arg(out.path());
    for name in OTHERS.iter().chain(&SAME_ARTICLE) {
        command.arg(data(name));
    }
    command.assert().success();
    let clusters = jsonl(&out.path().join("clusters.jsonl"));
    assert_eq!(clusters.len(), 1, "{clusters:?}");
    let members: Vec<String> =
        clusters[0]["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_owned()).collect();
    let expected: Vec<String> = SAME_ARTICLE.iter().map(|name| data(name).display().to_string()).collect();
    assert_eq!(members, expected);
    // The representative is the earliest in input order.
    assert_eq!(clusters[0]["representative"], expected[0].as_str());
    let pairs = jsonl(&out.path().join("pairs.jsonl"));
    assert_eq!(pairs.len(), 10, "every pair of the five copies");
    assert!(pairs.iter().all(|pair| pair["jaccard"].as_f64().unwrap() >= 0.8));
}

#[test]
fn index_build_add_query_compact() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).args(OTHERS.map(data)).assert().success();
    priorart()
        .args(["index", "add"])
        .arg(&index)
        .args(SAME_ARTICLE[..2].iter().map(|n| data(n)))
        .assert()
        .success();
    let query = |args: &[&str]| -> Value {
        let output = priorart().args(["index", "query", "--json"]).arg(&index).args(args).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let probe = data("html-utf8.html").display().to_string();
    let answer = query(&[&probe]);
    let near: Vec<&str> =
        answer["near"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(near.len(), 2, "{answer}");
    assert!(answer["near"].as_array().unwrap().iter().all(|m| m["jaccard_estimate"].as_f64() == Some(1.0)));
    assert_eq!(answer["same_x"].as_array().unwrap().len(), 2);
    // By simhash-doc value, and by X alone.
    let simhash = answer["simhash-doc"].as_str().unwrap().to_owned();
    assert_eq!(query(&["--simhash", &simhash])["near"].as_array().unwrap().len(), 2);
    let x = answer["minhash-equality-v1"].as_str().unwrap().to_owned();
    assert_eq!(query(&["--x", &x])["same_x"].as_array().unwrap().len(), 2);
    // Compacting keeps every answer.
    priorart().args(["index", "compact"]).arg(&index).assert().success();
    assert_eq!(query(&[&probe])["near"], answer["near"]);
    // A distance beyond the layout is refused; a damaged segment too.
    priorart().args(["index", "query", "-k", "5"]).arg(&index).arg(&probe).assert().code(1);
    let segment = std::fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "pai"))
        .unwrap();
    let mut bytes = std::fs::read(&segment).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&segment, bytes).unwrap();
    priorart()
        .args(["index", "query"])
        .arg(&index)
        .arg(&probe)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("checksum"));
}

#[test]
fn jsonl_collections_with_ids() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let text = std::fs::read_to_string(data("jats.xml")).unwrap();
    let lines = [
        serde_json::json!({"id": 1, "body": "A short note about nothing in particular."}),
        serde_json::json!({"id": "two", "body": text}),
        serde_json::json!({"id": 3, "body": text.replace("</article>", " </article>")}),
    ];
    std::fs::write(&input, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let out = dir.path().join("out");
    priorart()
        .args(["dedup", "--jsonl", "--field", "body", "--id-field", "id", "--format", "xml", "--out"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    let pairs = jsonl(&out.join("pairs.jsonl"));
    assert_eq!(pairs.len(), 1);
    assert_eq!((pairs[0]["a"].as_str(), pairs[0]["b"].as_str()), (Some("two"), Some("3")));
}

#[test]
fn check_with_a_local_index_needs_no_relay() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart()
        .args(["index", "build"])
        .arg(&index)
        .args(OTHERS.map(data))
        .arg(data(SAME_ARTICLE[0]))
        .assert()
        .success();
    let probe = data("html-utf8.html");
    let check = |extra: &[&str]| {
        let mut command = priorart();
        // No relay list: only the index is asked.
        command
            .env("XDG_CONFIG_HOME", dir.path())
            .args(["check", "--json", "--index"])
            .arg(&index)
            .arg(&probe);
        command.args(extra).output().unwrap()
    };
    let output = check(&[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"]["status"], "no_relay_asked");
    assert_eq!(report["relays"].as_array().unwrap().len(), 0);
    assert_eq!(report["index"]["documents"], 1, "{report}");
    let near = &report["index"]["answer"]["near"][0];
    assert_eq!(near["id"], data(SAME_ARTICLE[0]).display().to_string().as_str());
    assert_eq!(near["jaccard_estimate"], 1.0);
    assert_eq!(report["index"]["answer"]["minhash-equality-v1"], report["x"]);
    // Relays named too: both parts in one report (here the relay is down,
    // so the check exits 1 but still reports the index).
    let output = check(&["--relay", "ws://127.0.0.1:9", "--timeout", "2"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"]["status"], "no_relay_answered");
    assert_eq!(report["index"]["documents"], 1);
    // The human report lists the near copy before the verdict.
    let output = priorart()
        .env("XDG_CONFIG_HOME", dir.path())
        .args(["check", "--index"])
        .arg(&index)
        .arg(&probe)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let listed = text.find("within distance 3").expect("the index answer");
    assert!(listed < text.find("verdict: no relay asked").expect("the verdict"), "{text}");
    // Without --index, a relay is still required.
    priorart().env("XDG_CONFIG_HOME", dir.path()).arg("check").arg(&probe).assert().code(2);
}

/// Runs `priorart` with `args`, returning (exit code, stdout, stderr).
fn run(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let output = priorart().args(args).output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

fn os<'a>(parts: &'a [&'a dyn AsRef<std::ffi::OsStr>]) -> Vec<&'a std::ffi::OsStr> {
    parts.iter().map(|part| part.as_ref()).collect()
}

#[test]
fn a_failed_dedup_never_replaces_earlier_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dups");
    let copies: Vec<PathBuf> = SAME_ARTICLE.iter().map(|name| data(name)).collect();
    let mut args: Vec<&std::ffi::OsStr> = vec!["dedup".as_ref(), "--out".as_ref(), out.as_ref()];
    args.extend(copies.iter().map(|path| path.as_os_str()));
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let pairs = std::fs::read(out.join("pairs.jsonl")).unwrap();
    let clusters = std::fs::read(out.join("clusters.jsonl")).unwrap();
    assert_eq!(jsonl(&out.join("pairs.jsonl")).len(), 10);
    let missing = dir.path().join("typo.html");
    // A missing file, a directory, and a missing file beside a readable one.
    for inputs in [vec![missing.as_path()], vec![dir.path()], vec![missing.as_path(), copies[0].as_path()]] {
        let mut args: Vec<&std::ffi::OsStr> = vec!["dedup".as_ref(), "--out".as_ref(), out.as_ref()];
        args.extend(inputs.iter().map(|path| path.as_os_str()));
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 1, "{inputs:?}: {stderr}");
        assert!(stderr.contains("left as it was"), "{inputs:?}: {stderr}");
        assert_eq!(std::fs::read(out.join("pairs.jsonl")).unwrap(), pairs, "{inputs:?}");
        assert_eq!(std::fs::read(out.join("clusters.jsonl")).unwrap(), clusters, "{inputs:?}");
    }
    let (_, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &dir.path()]));
    assert!(stderr.contains("a directory, not a document"), "{stderr}");
    // Into a new directory, nothing is written when nothing was read.
    let fresh = dir.path().join("fresh");
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &fresh, &missing]));
    assert_eq!(code, 1);
    assert!(stderr.contains("nothing written"), "{stderr}");
    assert!(!fresh.join("pairs.jsonl").exists());
    // A complete run replaces the results, and says so.
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &copies[0], &copies[1]]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("replaced the earlier results"), "{stderr}");
    assert_eq!(jsonl(&out.join("pairs.jsonl")).len(), 1);
}

#[test]
fn a_failed_index_build_never_replaces_an_index() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).args(OTHERS.map(data)).assert().success();
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(&index).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        (names, std::fs::read(index.join("manifest.json")).unwrap())
    };
    let before = listing();
    let missing = dir.path().join("typo.html");
    for inputs in
        [vec![missing.as_path()], vec![dir.path()], vec![missing.as_path(), data(SAME_ARTICLE[0]).leak()]]
    {
        let mut command = priorart();
        command.args(["index", "build", "--replace"]).arg(&index).args(&inputs);
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{inputs:?}: {stderr}");
        assert!(stderr.contains("left as it was"), "{inputs:?}: {stderr}");
        assert_eq!(listing(), before, "{inputs:?}");
    }
    let output =
        priorart().args(["index", "query", "--json"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    assert!(output.status.success());
    // Without --replace, nothing is read or replaced, and the way is named.
    let output = priorart().args(["index", "build"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("already holds an index of 5 documents") && stderr.contains("--replace"),
        "{stderr}"
    );
    assert_eq!(listing(), before);
    // A complete build with --replace replaces it, and says so.
    let output =
        priorart().args(["index", "build", "--replace"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("replaced the earlier index"));
}

#[test]
fn a_damaged_index_is_named_and_replaced_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).args(OTHERS.map(data)).assert().success();
    // A segment cut short: `query` refuses the index, and so does `build`.
    let segment = std::fs::read_dir(&index)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.file_name().unwrap() != "manifest.json")
        .unwrap();
    let bytes = std::fs::read(&segment).unwrap();
    std::fs::write(&segment, &bytes[..bytes.len() / 2]).unwrap();
    let query = priorart().args(["index", "query"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    assert!(!query.status.success());
    let output = priorart().args(["index", "build"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds a damaged index (") && stderr.contains("--replace"), "{stderr}");
    assert_eq!(std::fs::read(&segment).unwrap().len(), bytes.len() / 2, "left as it was");
    let output =
        priorart().args(["index", "build", "--replace"]).arg(&index).arg(data("jats.xml")).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("replaced the damaged index"), "{stderr}");
    priorart().args(["index", "query"]).arg(&index).arg(data("jats.xml")).assert().success();
}

#[test]
fn a_document_given_twice_is_never_its_own_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dups");
    let a = data(SAME_ARTICLE[0]);
    let b = data(SAME_ARTICLE[1]);
    // The same path twice, and another path to the same file (as overlapping globs give).
    let other_path = data(&format!("../data/{}", SAME_ARTICLE[0]));
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &a, &b, &a, &other_path]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("named more than once; read once"), "{stderr}");
    assert!(stderr.contains("is the same file as"), "{stderr}");
    let pairs = jsonl(&out.join("pairs.jsonl"));
    assert_eq!(pairs.len(), 1, "{pairs:?}");
    assert!(pairs.iter().all(|pair| pair["a"] != pair["b"]));
    let clusters = jsonl(&out.join("clusters.jsonl"));
    assert_eq!(clusters[0]["size"], 2);
    // A repeated --id-field value is refused, and nothing is written.
    let input = dir.path().join("docs.jsonl");
    let text = std::fs::read_to_string(data("jats.xml")).unwrap();
    let lines = [
        serde_json::json!({"id": 7, "body": text}),
        serde_json::json!({"id": 8, "body": "A short note about nothing in particular."}),
        serde_json::json!({"id": 7, "body": text}),
    ];
    std::fs::write(&input, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    let fresh = dir.path().join("fresh");
    let (code, _, stderr) = run(&os(&[
        &"dedup",
        &"--jsonl",
        &"--field",
        &"body",
        &"--id-field",
        &"id",
        &"--out",
        &fresh,
        &input,
    ]));
    assert_eq!(code, 1, "{stderr}");
    let input_name = input.display().to_string();
    assert!(
        stderr.contains(&format!("the id \"7\" names two documents ({input_name}:1 and {input_name}:3)")),
        "{stderr}"
    );
    assert!(!fresh.exists() || !fresh.join("pairs.jsonl").exists());
    // index add of a file the index holds: not listed twice.
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).arg(&a).assert().success();
    let output = priorart().args(["index", "add"]).arg(&index).arg(&a).arg(&b).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("already in"));
    let answer = priorart().args(["index", "query", "--json"]).arg(&index).arg(&a).output().unwrap();
    let answer: Value = serde_json::from_slice(&answer.stdout).unwrap();
    let near: Vec<&str> =
        answer["near"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(near.len(), 2, "{near:?}");
    assert_ne!(near[0], near[1]);
    // An id the index holds with other fingerprints is refused.
    let changed = dir.path().join("changed");
    std::fs::create_dir(&changed).unwrap();
    let copy = changed.join("note.txt");
    std::fs::write(&copy, "A first version of a note about tide mills and their ponds.").unwrap();
    let copy_name = copy.display().to_string();
    priorart().args(["index", "add"]).arg(&index).arg(&copy_name).assert().success();
    std::fs::write(&copy, "A second, different note about lighthouses and their keepers.").unwrap();
    let output = priorart().args(["index", "add"]).arg(&index).arg(&copy_name).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("with other fingerprints"));
}

#[test]
fn empty_documents_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let (e1, e2) = (dir.path().join("empty1.txt"), dir.path().join("empty2.txt"));
    std::fs::write(&e1, "").unwrap();
    std::fs::write(&e2, "  \n").unwrap();
    let out = dir.path().join("dups");
    let (a, b) = (data(SAME_ARTICLE[0]), data(SAME_ARTICLE[1]));
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &e1, &a, &e2, &b]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("2 empty document(s) skipped"), "{stderr}");
    let pairs = jsonl(&out.join("pairs.jsonl"));
    assert_eq!(pairs.len(), 1, "only the two copies pair: {pairs:?}");
    // Only empty documents: nothing to deduplicate.
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &dir.path().join("none"), &e1, &e2]));
    assert_eq!(code, 1);
    assert!(stderr.contains("no document to deduplicate"), "{stderr}");
}

#[test]
fn a_k_too_large_names_the_largest_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&os(&[&"dedup", &"-k", &"30", &"--out", &dir.path(), &data("jats.xml")]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("the largest k that works is 21"), "{stderr}");
    assert!(!stderr.contains("at most 256 are supported"), "{stderr}");
}

#[test]
fn index_query_calls_its_similarity_an_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("docs.idx");
    priorart().args(["index", "build"]).arg(&index).arg(data(SAME_ARTICLE[0])).assert().success();
    let probe = data(SAME_ARTICLE[3]);
    let output = priorart().args(["index", "query"]).arg(&index).arg(&probe).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("estimated from sketches"), "{text}");
    assert!(!text.contains("verified"), "{text}");
    let output = priorart().args(["index", "query", "--json"]).arg(&index).arg(&probe).output().unwrap();
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    let near = &answer["near"][0];
    assert!(near["jaccard_estimate"].is_f64(), "{answer}");
    assert!(near.get("jaccard").is_none(), "{answer}");
    let help = priorart().args(["index", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("estimated similarity") && !help.contains("verified similarity"), "{help}");
}

/// A text long enough that dropping one word can keep its X.
const HARBOUR: &str = "Harbour towns kept their archives in the cellars of customs houses, where damp \
    ledgers recorded every cargo of salt, timber, wool and copper that crossed the quay. Historians \
    who read those ledgers today reconstruct trade routes, family fortunes and the slow decline of \
    sailing ships against steam. A careful reader notices marginal notes written by clerks who \
    complained about weather, wages, smugglers and the endless arithmetic of tariffs. Such small \
    complaints reveal how ordinary people experienced the grand movements of commerce, and why \
    preserving fragile paper matters for understanding the past.";

#[test]
fn a_same_x_match_shows_its_estimated_jaccard_and_counts_say_one_document() {
    // An edit with the same X but another simhash-doc value: outside -k 0,
    // so the index lists it as "same X" only, where the estimate is what
    // tells a copy from an advisory collision.
    let x = priorart_fingerprint::minhash_equality_v1(HARBOUR);
    let simhash = priorart_fingerprint::simhash_doc(HARBOUR);
    let words: Vec<&str> = HARBOUR.split_whitespace().collect();
    let edited = (1..words.len())
        .map(|skip| [&words[..skip], &words[skip + 1..]].concat().join(" "))
        .find(|edited| {
            priorart_fingerprint::minhash_equality_v1(edited) == x
                && priorart_fingerprint::simhash_doc(edited) != simhash
        })
        .expect("some word is no bucket minimum yet moves simhash-doc");
    let dir = tempfile::tempdir().unwrap();
    let (original, copy, index) =
        (dir.path().join("a.txt"), dir.path().join("b.txt"), dir.path().join("idx"));
    std::fs::write(&original, HARBOUR).unwrap();
    std::fs::write(&copy, &edited).unwrap();
    priorart().args(["index", "build"]).arg(&index).arg(&original).assert().success();
    let output = priorart().args(["index", "query", "-k", "0"]).arg(&index).arg(&copy).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let line = text.lines().find(|line| line.contains("same X (")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("jaccard ~0.") && line.contains("estimated from sketches)"), "{text}");
    let compacted = priorart().args(["index", "compact"]).arg(&index).output().unwrap();
    let said = String::from_utf8_lossy(&compacted.stderr);
    assert!(said.contains("priorart: 1 document,"), "{said}");
}

#[test]
fn skip_unreadable_finishes_the_run_and_lists_what_it_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dups");
    let index = dir.path().join("docs.idx");
    let copies: Vec<PathBuf> = SAME_ARTICLE.iter().map(|name| data(name)).collect();
    // A stray image among the documents, as archives hold.
    let png = dir.path().join("figure.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0").unwrap();
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &copies[0], &copies[1]]));
    assert_eq!(code, 0, "{stderr}");
    let earlier = std::fs::read(out.join("pairs.jsonl")).unwrap();
    // By default the earlier results stay, and the message names the way on.
    let (code, _, stderr) = run(&os(&[&"dedup", &"--out", &out, &copies[0], &copies[1], &copies[2], &png]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("left as it was") && stderr.contains("--skip-unreadable"), "{stderr}");
    assert_eq!(std::fs::read(out.join("pairs.jsonl")).unwrap(), earlier);
    // With it, the run finishes: three documents paired, the image listed.
    let (code, _, stderr) =
        run(&os(&[&"dedup", &"--skip-unreadable", &"--out", &out, &copies[0], &copies[1], &copies[2], &png]));
    assert_eq!(code, 1, "an input was bad, and said so: {stderr}");
    assert!(stderr.contains("replaced the earlier results"), "{stderr}");
    assert!(stderr.contains("1 unreadable input skipped"), "{stderr}");
    assert_eq!(jsonl(&out.join("pairs.jsonl")).len(), 3);
    let skipped = jsonl(&out.join("skipped.jsonl"));
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["input"], png.to_str().unwrap());
    assert!(skipped[0]["error"].as_str().unwrap().contains("not text"), "{skipped:?}");
    // index build as well.
    priorart().args(["index", "build"]).arg(&index).arg(&copies[0]).assert().success();
    let (code, _, stderr) = run(&os(&[&"index", &"build", &"--replace", &index, &copies[1], &png]));
    assert_eq!(code, 1);
    assert!(stderr.contains("left as it was") && stderr.contains("--skip-unreadable"), "{stderr}");
    let (code, _, stderr) =
        run(&os(&[&"index", &"build", &"--replace", &"--skip-unreadable", &index, &copies[1], &png]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("replaced the earlier index"), "{stderr}");
}
