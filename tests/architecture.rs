//! The layering that ARCHITECTURE.md declares, checked on the source: every import between rooms
//! runs down the declared order (so there is no circle), no room reaches another through the
//! crate root, every room is declared, long files say why, and a crate's public modules are
//! namespaces whose items are not also re-exported at its root (one path per item).
//!
//! A room is a top-level module of a crate: `src/<room>.rs` or the folder `src/<room>/`. Unit
//! tests (`tests.rs` files, `#[cfg(test)] mod tests` blocks) may import from anywhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files longer than this must say at their top why they are (`Longer than 500 lines: …`).
const LONG_FILE: usize = 500;
const LONG_REASON: &str = "Longer than 500 lines:";

/// One crate's declared rooms, lowest first, from ARCHITECTURE.md's `layers` block.
#[derive(Debug)]
struct Layers {
    krate: String,
    rooms: Vec<String>,
}

/// Reads lines `crate-name: room room …` from the fenced block that starts with ```` ```layers ````.
fn declared_layers(architecture: &str) -> Vec<Layers> {
    let block = architecture.split("```layers\n").nth(1).and_then(|rest| rest.split("```").next());
    let block = block.expect("ARCHITECTURE.md has a ```layers block");
    block
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(krate, rooms)| Layers {
            krate: krate.trim().to_owned(),
            rooms: rooms.split_whitespace().map(str::to_owned).collect(),
        })
        .collect()
}

/// The code of a file without comments and unit-test blocks.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines.peek().is_some_and(|next| next.trim_start().starts_with("mod tests {"))
        {
            break; // the tests block closes the file, by convention here
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" // ").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The first path segment after every `crate::` in `code`, including each name of a
/// `use crate::{a, b::c}` group.
fn crate_references(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident =
            rest[..at].chars().last().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        rest = &rest[at + "crate::".len()..];
        if preceded_by_ident {
            continue; // `$crate::`, `some_crate::`
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = matching_brace(group);
            for item in split_top_level(&group[..end]) {
                let first = item.trim().split("::").next().unwrap_or("").trim();
                let first = first.split_whitespace().next().unwrap_or("");
                if !first.is_empty() && first != "self" {
                    names.push(first.to_owned());
                }
            }
        } else {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

fn matching_brace(s: &str) -> usize {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    s.len()
}

fn split_top_level(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// The room a source file belongs to (`loops/geometry.rs` → `loops`), `None` for `lib.rs`.
fn room_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    if relative.components().count() == 1 {
        let stem = first.strip_suffix(".rs")?;
        return (stem != "lib").then(|| stem.to_owned());
    }
    Some(first.to_owned())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// How many modules down from its room's top a file is: `room.rs` and `room/mod.rs` are 0,
/// `room/a.rs` 1, `room/a/b.rs` 2; so `super::` taken one more time than that reaches the root.
fn depth_in_room(relative: &Path) -> usize {
    let parts = relative.components().count();
    let is_mod = relative.file_name().is_some_and(|n| n == "mod.rs");
    parts.saturating_sub(1).saturating_sub(usize::from(is_mod))
}

/// `code` with every path that climbs to the crate root through `super::` written `crate::`.
fn supers_to_crate(code: &str, depth: usize) -> String {
    code.replace(&"super::".repeat(depth + 1), "crate::")
}

/// Where `unsafe` may appear: `crate: room room` lines of the ```` ```unsafe ```` block.
fn unsafe_rooms(architecture: &str, krate: &str) -> Vec<String> {
    let block = architecture.split("```unsafe\n").nth(1).and_then(|rest| rest.split("```").next());
    block
        .into_iter()
        .flat_map(str::lines)
        .filter_map(|line| line.split_once(':'))
        .filter(|(k, _)| k.trim() == krate)
        .flat_map(|(_, rooms)| rooms.split_whitespace().map(str::to_owned))
        .collect()
}

/// Rooms declared `#[cfg(test)] mod room;` in `lib.rs`: unit tests, which may import anything.
fn test_rooms(lib: &str) -> Vec<String> {
    let lines: Vec<&str> = lib.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "#[cfg(test)]")
        .filter_map(|w| w[1].strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned))
        .collect()
}

/// Every breach of the declared layering in one crate's sources (`relative path → text`).
fn breaches(layers: &Layers, files: &BTreeMap<PathBuf, String>, unsafe_ok: &[String]) -> Vec<String> {
    let position = |room: &str| layers.rooms.iter().position(|r| r == room);
    let tests = files.get(Path::new("lib.rs")).map(|lib| test_rooms(lib)).unwrap_or_default();
    let mut found = Vec::new();
    for (path, text) in files {
        let lines = text.lines().count();
        let head: String = text.lines().take(20).collect::<Vec<_>>().join("\n");
        if lines > LONG_FILE && !head.contains(LONG_REASON) {
            found.push(format!(
                "{}: {lines} lines, and its top does not say why (`{LONG_REASON} …`)",
                path.display()
            ));
        }
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let Some(room) = room_of(path) else { continue };
        if tests.contains(&room) {
            continue;
        }
        let Some(here) = position(&room) else {
            found.push(format!("{}: room `{room}` is not declared in ARCHITECTURE.md", path.display()));
            continue;
        };
        let code = code_of(text);
        let has_unsafe = code.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|w| w == "unsafe");
        if has_unsafe && !unsafe_ok.contains(&room) {
            found
                .push(format!("{}: `unsafe` outside the rooms ARCHITECTURE.md allows it in", path.display()));
        }
        for name in crate_references(&supers_to_crate(&code, depth_in_room(path))) {
            match position(&name) {
                Some(there) if there > here => found.push(format!(
                    "{}: `{room}` imports `crate::{name}`, which sits above it: imports run down the layers",
                    path.display()
                )),
                Some(_) => {}
                None => found.push(format!(
                    "{}: `crate::{name}` reaches another room through the crate root: name the room",
                    path.display()
                )),
            }
        }
    }
    found
}

/// `pub use room::Item` at the root of a crate whose `room` is also `pub mod`: two paths.
fn second_paths(lib: &str) -> Vec<String> {
    let code = code_of(lib);
    let public: Vec<&str> = code
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches([';', '{', ' ']))
        .collect();
    code.lines()
        .filter_map(|l| l.trim().strip_prefix("pub use "))
        .filter_map(|l| l.split("::").next())
        .filter(|room| public.contains(room))
        .map(|room| {
            format!("`pub use {room}::…` re-exports items of the public module `{room}`: one path per item")
        })
        .collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_layering_in_architecture_md_holds() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let declared = declared_layers(&architecture);
    assert!(declared.iter().any(|l| l.krate == "layout-types"), "layout-types is declared");
    let mut all = Vec::new();
    for layers in &declared {
        let src = root().join("crates").join(&layers.krate).join("src");
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        let files: BTreeMap<PathBuf, String> = paths
            .into_iter()
            .map(|p| (p.strip_prefix(&src).unwrap().to_path_buf(), std::fs::read_to_string(&p).unwrap()))
            .collect();
        assert!(files.len() > 1, "{}: no sources found", layers.krate);
        for room in &layers.rooms {
            let exists = files.keys().any(|p| room_of(p).as_deref() == Some(room.as_str()));
            assert!(exists, "{}: declared room `{room}` has no file", layers.krate);
        }
        let unsafe_ok = unsafe_rooms(&architecture, &layers.krate);
        all.extend(
            breaches(layers, &files, &unsafe_ok).into_iter().map(|b| format!("{}: {b}", layers.krate)),
        );
        all.extend(
            second_paths(&files[Path::new("lib.rs")]).into_iter().map(|b| format!("{}: {b}", layers.krate)),
        );
    }
    // Beyond the crates' sources, the same rule for every other Rust file of the repository.
    for dir in ["src", "tests", "examples", "benches", "bench"] {
        let mut paths = Vec::new();
        if root().join(dir).is_dir() {
            rust_files(&root().join(dir), &mut paths);
        }
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let head: String = text.lines().take(20).collect::<Vec<_>>().join("\n");
            if text.lines().count() > LONG_FILE && !head.contains(LONG_REASON) {
                all.push(format!("{}: over {LONG_FILE} lines, and its top does not say why", path.display()));
            }
        }
    }
    assert!(all.is_empty(), "the architecture is breached:\n{}", all.join("\n"));
}

/// The checker itself finds what it must: an import running back up, a shortcut through the
/// root, an undeclared room, a long file, a second path; and accepts what is allowed.
#[test]
fn the_checker_finds_each_kind_of_breach() {
    let layers = Layers { krate: "demo".into(), rooms: vec!["low".into(), "high".into()] };
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_owned());
    let ok: BTreeMap<_, _> = [
        file("low.rs", "use core::fmt;\n"),
        file("high/mod.rs", "use crate::low::{A, b::C};\nuse crate::{low, high::x};\n"),
        file("high/tests.rs", "use crate::Anything;\n"),
        file("low/inner.rs", "//! see crate::high\n#[cfg(test)]\nmod tests {\n    use crate::high::X;\n}\n"),
        file("lib.rs", "mod low;\n#[cfg(test)]\nmod checks;\n"),
        file("checks.rs", "use crate::run;\n"),
    ]
    .into();
    assert_eq!(breaches(&layers, &ok, &[]), Vec::<String>::new());

    let up: BTreeMap<_, _> = [file("low.rs", "fn f() -> crate::high::X { todo!() }\n")].into();
    assert!(breaches(&layers, &up, &[])[0].contains("sits above it"));
    let grouped_up: BTreeMap<_, _> = [file("low.rs", "use crate::{low::a, high::X};\n")].into();
    assert!(breaches(&layers, &grouped_up, &[])[0].contains("sits above it"));
    let shortcut: BTreeMap<_, _> = [file("high.rs", "use crate::Tensor;\n")].into();
    assert!(breaches(&layers, &shortcut, &[])[0].contains("through the crate root"));
    let stranger: BTreeMap<_, _> = [file("middle.rs", "\n")].into();
    assert!(breaches(&layers, &stranger, &[])[0].contains("not declared"));
    let long: BTreeMap<_, _> = [file("low.rs", &"x\n".repeat(LONG_FILE + 1))].into();
    assert!(breaches(&layers, &long, &[])[0].contains("does not say why"));
    let reasoned = format!("//! {LONG_REASON} one table.\n{}", "x\n".repeat(LONG_FILE));
    assert!(breaches(&layers, &[file("low.rs", &reasoned)].into(), &[]).is_empty());

    // `super::` climbing to the root counts as `crate::`, at every depth.
    let climbs: BTreeMap<_, _> = [file("low/mod.rs", "use super::high::X;\n")].into();
    assert!(breaches(&layers, &climbs, &[])[0].contains("sits above it"));
    let nested: BTreeMap<_, _> =
        [file("low/a/b.rs", "use super::super::super::high::X;\nuse super::c;\n")].into();
    assert!(breaches(&layers, &nested, &[])[0].contains("sits above it"));
    // `unsafe` only where allowed.
    let ffi: BTreeMap<_, _> =
        [file("high.rs", "fn f() { unsafe { g() } }\n"), file("low.rs", "#![forbid(unsafe_code)]\n")].into();
    assert!(breaches(&layers, &ffi, &[])[0].contains("`unsafe` outside"));
    assert!(breaches(&layers, &ffi, &["high".to_owned()]).is_empty());

    assert!(second_paths("pub mod cast;\npub use cast::Scale;\n")[0].contains("one path per item"));
    assert!(second_paths("mod cast;\npub use cast::Scale;\npub mod cudnn {\n}\n").is_empty());
}
