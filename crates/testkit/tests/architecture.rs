//! ARCHITECTURE.md kept true: its crate table names every crate of the
//! workspace (`crates/*`, the root Cargo.toml's members) and nothing else,
//! so that a crate added or removed cannot leave the newcomer's map behind.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("crates/testkit is two levels down")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The crates the table at the top of ARCHITECTURE.md names.
fn crates_in_the_table() -> BTreeSet<String> {
    let text = architecture();
    let table = text.split("```").nth(1).expect("the crate table is the first code block");
    table
        .lines()
        .filter_map(|line| line.split_whitespace().find_map(|word| word.strip_prefix("crates/")))
        .map(str::to_owned)
        .collect()
}

/// The workspace's crates: every `crates/*` with a Cargo.toml.
fn crates_in_the_workspace() -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    assert!(
        manifest.contains(r#"members = ["crates/*"]"#),
        "the workspace's members are no longer crates/*: update this test"
    );
    std::fs::read_dir(root().join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .map(|dir| dir.file_name().expect("a name").to_string_lossy().into_owned())
        .collect()
}

#[test]
fn the_crate_table_names_every_crate_and_only_those() {
    let (table, workspace) = (crates_in_the_table(), crates_in_the_workspace());
    let missing: Vec<_> = workspace.difference(&table).collect();
    let gone: Vec<_> = table.difference(&workspace).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "not in ARCHITECTURE.md: {missing:?}; no such crate: {gone:?}"
    );
}

#[test]
fn every_crate_is_described_below_the_table() {
    let text = architecture();
    let below = text.split("```").skip(2).collect::<Vec<_>>().join("```");
    let headings: Vec<&str> = below.lines().filter_map(|line| line.strip_prefix("## ")).collect();
    // In a section named after it, alone or with others ("relay and
    // relay-server"), or by name inside the section of the crate it serves.
    let described = |name: &str| {
        headings.iter().any(|heading| heading.split([' ', ',']).any(|word| word == name))
            || below.contains(&format!("`{name}`"))
    };
    let undescribed: Vec<_> = crates_in_the_workspace().into_iter().filter(|name| !described(name)).collect();
    assert!(undescribed.is_empty(), "crates ARCHITECTURE.md does not describe: {undescribed:?}");
}
