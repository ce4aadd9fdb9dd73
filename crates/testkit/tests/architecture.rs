//! ARCHITECTURE.md kept true: its crate table names every crate of the
//! workspace (as `cargo metadata` lists them) and nothing else, each crate
//! is described below the table, every Rust file the crate sections name
//! exists, and every source file of a crate is named in its section, so
//! that a crate or file added, moved or removed cannot leave the
//! newcomer's map behind. Each failure says what to write where. And the
//! map's rule that dependencies point one way holds between files too: no
//! two files of a crate import each other, directly or around a circle.

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
        let crates = crates_of(&heading, &workspace);
        let files: Vec<(String, Vec<String>)> = crates
            .iter()
            .map(|dir| (dir.clone(), rust_files(&root().join("crates").join(dir).join("src"))))
            .collect();
        // A name two crates of one section share (`limits.rs` of relay and
        // relay-server) must be named once for each of them.
        let holding = |name: &str| {
            files
                .iter()
                .flat_map(|(_, files)| files)
                .filter(|file| file.rsplit('/').next() == Some(name))
                .count()
        };
        for (dir, sources) in &files {
            // The binary's files are named across the document, in the
            // section of what each command fronts.
            let words: Vec<&str> = in_backticks(if dir == "cli" { &text } else { &body }).collect();
            let mentions = |name: &str| words.iter().filter(|word| **word == name).count();
            for file in sources {
                let (parent, base) = file.rsplit_once('/').unwrap_or(("", file));
                let is_named = match base {
                    // The crate itself (the table names it); a module's unit tests.
                    "lib.rs" | "main.rs" | "tests.rs" => true,
                    // A directory module: named as `dir/`.
                    "mod.rs" => mentions(&format!("{parent}/")) > 0,
                    _ => {
                        let by_name = mentions(base) + if file == base { 0 } else { mentions(file) };
                        mentions(&format!("{dir}/src/{file}")) > 0
                            || (by_name > 0 && by_name >= holding(base))
                    }
                };
                if !is_named {
                    let how = if holding(base) > 1 {
                        format!(", as `{dir}/src/{file}`: another crate of the section has a {base}")
                    } else {
                        String::new()
                    };
                    wrong.push(format!(
                        "`## {heading}` does not name crates/{dir}/src/{file}: add a row `| `{file}` | <what it does> |` \
                         to its table (or name it in its prose{how})"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md is out of date:\n- {}", wrong.join("\n- "));
}

/// A source file's code as far as imports go: comments dropped, and
/// nothing from its first `#[cfg(test)]` on (unit tests may use anything).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if !trimmed.starts_with("//") {
            code.push_str(line.split(" // ").next().unwrap_or(line));
            code.push('\n');
        }
    }
    code
}

/// The module path of a source file (`check/near.rs` → `check::near`;
/// `lib.rs`, `main.rs` → the root; `x/mod.rs` → `x`).
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "main" | "mod")) {
        parts.pop();
    }
    parts
}

/// The file of the longest prefix of `path` that is a module of `files`.
fn file_of(path: &[String], files: &BTreeMap<Vec<String>, String>) -> Option<String> {
    (0..=path.len()).rev().find_map(|len| files.get(&path[..len]).cloned())
}

/// Which files of one crate's `src/` each file names by a `crate::` or
/// `super::` path.
fn imports(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeMap<Vec<String>, String> =
        rust_files(src).into_iter().map(|file| (module_of(&file), file)).collect();
    let mut edges = BTreeMap::new();
    for (module, file) in &files {
        let code = code_of(&std::fs::read_to_string(src.join(file)).expect("a source file"));
        let is_dir_module = file.ends_with("mod.rs") || file == "lib.rs" || file == "main.rs";
        let parent: Vec<String> = if is_dir_module {
            module[..module.len().saturating_sub(1)].to_vec()
        } else {
            module[..module.len() - 1].to_vec()
        };
        let mut named = BTreeSet::new();
        for (start, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
            let preceded = code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            if preceded {
                continue;
            }
            let (base, rest) = match code[start..].strip_prefix("crate::") {
                Some(rest) => (Vec::new(), rest),
                None => (parent.clone(), &code[start + "super::".len()..]),
            };
            let segments: Vec<String> = rest
                .split("::")
                .map(|segment| {
                    segment.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>()
                })
                .take_while(|segment| !segment.is_empty())
                .collect();
            let path: Vec<String> = base.into_iter().chain(segments).collect();
            if let Some(target) = file_of(&path, &files)
                && &target != file
            {
                named.insert(target);
            }
        }
        edges.insert(file.clone(), named);
    }
    edges
}

/// The import circles of a crate: each a list of files, in order, whose
/// last imports the first.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    for start in edges.keys() {
        // Breadth first from `start`, back to it: the shortest circle through it.
        let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        'search: while let Some(file) = queue.pop_front() {
            for next in edges.get(file).into_iter().flatten() {
                if next == start {
                    let mut circle = vec![file.clone()];
                    let mut at = file;
                    while at != start {
                        at = came_from[at];
                        circle.push(at.clone());
                    }
                    circle.reverse();
                    let mut key = circle.clone();
                    key.sort();
                    if !found.iter().any(|known| {
                        let mut known = known.clone();
                        known.sort();
                        known == key
                    }) {
                        found.push(circle);
                    }
                    break 'search;
                }
                if !came_from.contains_key(next) && next != start {
                    came_from.insert(next, file);
                    queue.push_back(next);
                }
            }
        }
    }
    found
}

#[test]
fn no_import_circle_between_the_files_of_a_crate() {
    let mut wrong = Vec::new();
    for dir in workspace_dirs() {
        let src = root().join("crates").join(&dir).join("src");
        for circle in circles(&imports(&src)) {
            let mut shown = circle.clone();
            shown.push(circle[0].clone());
            wrong.push(format!(
                "crates/{dir}/src: {}: move what they share into a module of its own (or into the one that \
                 needs it), so that the imports point one way",
                shown.join(" → ")
            ));
        }
    }
    assert!(wrong.is_empty(), "import circles (issue 35 item 8):\n- {}", wrong.join("\n- "));
}
