//! ARCHITECTURE.md kept true: its crate table names every crate of the
//! workspace (as `cargo metadata` lists them) and nothing else, each crate
//! is described below the table, every Rust file the crate sections name
//! exists, and every source file of a crate is named in its section, so
//! that a crate or file added, moved or removed cannot leave the
//! newcomer's map behind. Each failure says what to write where.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .expect("crates/testkit is two levels down")
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The crates the table at the top of ARCHITECTURE.md names (`crates/DIR`).
fn crates_in_the_table() -> BTreeSet<String> {
    let text = architecture();
    let table = text.split("```").nth(1).expect("the crate table is the first code block");
    table
        .lines()
        .filter_map(|line| line.split_whitespace().find_map(|word| word.strip_prefix("crates/")))
        .map(str::to_owned)
        .collect()
}

/// A workspace member as `cargo metadata` describes it.
struct Member {
    package: String,
    description: String,
}

/// The workspace's members by directory under `crates/`, from
/// `cargo metadata --no-deps` (the workspace as cargo sees it, not a
/// listing of directories).
fn crates_in_the_workspace() -> BTreeMap<String, Member> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--no-deps", "--offline", "--format-version", "1"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let crates = root().join("crates");
    let mut members = BTreeMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let manifest = PathBuf::from(package["manifest_path"].as_str().expect("manifest_path"));
        let dir = manifest.parent().expect("a manifest's directory");
        let name = match dir.strip_prefix(&crates) {
            Ok(relative) => relative.to_string_lossy().into_owned(),
            Err(_) => panic!(
                "{} is a workspace member outside crates/: ARCHITECTURE.md's table lists crates/*; update this test",
                dir.display()
            ),
        };
        let member = Member {
            package: package["name"].as_str().expect("name").to_owned(),
            description: package["description"].as_str().unwrap_or("").to_owned(),
        };
        members.insert(name, member);
    }
    members
}

#[test]
fn the_crate_table_names_every_crate_and_only_those() {
    let (table, workspace) = (crates_in_the_table(), crates_in_the_workspace());
    let mut wrong = Vec::new();
    for (dir, member) in &workspace {
        if !table.contains(dir) {
            wrong.push(format!(
                "add a line for crates/{dir} ({}) to the table at the top of ARCHITECTURE.md, in its layer \
                 (front door, services, adapters, pure core or dev-only): `<layer>   crates/{dir}   <what it does>` \
                 (its Cargo.toml says: {:?}), and a `## {dir}` section below",
                member.package, member.description
            ));
        }
    }
    for dir in table.difference(&workspace.keys().cloned().collect()) {
        wrong.push(format!(
            "remove the line for crates/{dir} from the table at the top of ARCHITECTURE.md: \
             cargo metadata lists no such workspace member"
        ));
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md is out of date:\n- {}", wrong.join("\n- "));
}

/// The document below the crate table.
fn below_the_table() -> String {
    architecture().split("```").skip(2).collect::<Vec<_>>().join("```")
}

/// The `## ` sections below the table: (heading, body).
fn sections() -> Vec<(String, String)> {
    below_the_table()
        .split("\n## ")
        .skip(1)
        .map(|section| {
            let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
            (heading.trim().to_owned(), body.to_owned())
        })
        .collect()
}

/// The crates a heading is about: `## relay and relay-server` is about both.
fn crates_of(heading: &str, workspace: &BTreeSet<String>) -> Vec<String> {
    heading.split([' ', ',', '`']).filter(|word| workspace.contains(*word)).map(str::to_owned).collect()
}

fn workspace_dirs() -> BTreeSet<String> {
    crates_in_the_workspace().into_keys().collect()
}

#[test]
fn every_crate_is_described_below_the_table() {
    let below = below_the_table();
    let workspace = workspace_dirs();
    let headed: BTreeSet<String> =
        sections().iter().flat_map(|(heading, _)| crates_of(heading, &workspace)).collect();
    // In a section named after it, alone or with others ("relay and
    // relay-server"), or by name inside the section of the crate it serves.
    let undescribed: Vec<_> = workspace
        .iter()
        .filter(|name| !headed.contains(*name) && !below.contains(&format!("`{name}`")))
        .map(|name| {
            format!("add a `## {name}` section to ARCHITECTURE.md (what crates/{name} holds, file by file)")
        })
        .collect();
    assert!(undescribed.is_empty(), "ARCHITECTURE.md is out of date:\n- {}", undescribed.join("\n- "));
}

/// The words of `text` written in backticks.
fn in_backticks(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// Every `.rs` file under `dir`, as paths relative to it.
fn rust_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                // Build output (a fuzz crate's target/) holds no sources.
                if !path.ends_with("target") {
                    pending.push(path);
                }
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                let relative = path.strip_prefix(dir).expect("under dir");
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_rust_file_a_crate_section_names_exists() {
    let workspace = workspace_dirs();
    let mut wrong = Vec::new();
    for (heading, body) in sections() {
        let crates = crates_of(&heading, &workspace);
        if crates.is_empty() {
            continue;
        }
        // The binary's files (`check_cmd.rs`, `tests/relay_peers.rs`) are
        // named in the sections of the crates they front.
        let searched: Vec<&str> = crates.iter().map(String::as_str).chain(["cli"]).collect();
        let wildcard = |word: &str| word.contains(['*', ' ']);
        for name in in_backticks(&body).filter(|word| word.ends_with(".rs") && !wildcard(word)) {
            // A path from the repository's root (`crates/cli/tests/x.rs`) or
            // from any crate (`tests/tests.rs`, `cli/src/args.rs`), or a
            // file of the section's crates or the binary by name (`x.rs`,
            // `check/x.rs`).
            let exists = root().join(name).is_file()
                || root().join("crates").join(name).is_file()
                || workspace.iter().any(|dir| root().join("crates").join(dir).join(name).is_file())
                || searched.iter().any(|dir| {
                    rust_files(&root().join("crates").join(dir))
                        .iter()
                        .any(|file| file.ends_with(&format!("/{name}")))
                });
            if !exists {
                wrong.push(format!(
                    "`## {heading}` names `{name}`, which is in none of its crates ({}) nor the binary's: \
                     rename or remove it",
                    crates.iter().map(|dir| format!("crates/{dir}")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md is out of date:\n- {}", wrong.join("\n- "));
}

#[test]
fn every_source_file_is_named_in_its_crates_section() {
    let workspace = workspace_dirs();
    let text = architecture();
    let mut wrong = Vec::new();
    for (heading, body) in sections() {
        for dir in crates_of(&heading, &workspace) {
            // The binary's files are named across the document, in the
            // section of what each command fronts.
            let named: BTreeSet<&str> = in_backticks(if dir == "cli" { &text } else { &body }).collect();
            for file in rust_files(&root().join("crates").join(&dir).join("src")) {
                let (parent, base) = file.rsplit_once('/').unwrap_or(("", &file));
                let is_named = match base {
                    // The crate itself (the table names it); a module's unit tests.
                    "lib.rs" | "main.rs" | "tests.rs" => true,
                    // A directory module: named as `dir/`.
                    "mod.rs" => named.contains(format!("{parent}/").as_str()),
                    _ => named.contains(file.as_str()) || named.contains(base),
                };
                if !is_named {
                    wrong.push(format!(
                        "`## {heading}` does not name crates/{dir}/src/{file}: add a row `| `{file}` | <what it does> |` \
                         to its table (or name it in its prose)"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md is out of date:\n- {}", wrong.join("\n- "));
}
