//! The compile-time invariants, one per file under `ui-tests/`, with the messages users see.
//!
//! One trybuild batch (it compiles every case in one project): the fail cases of each category
//! and the pass cases. With a pass case in the batch trybuild runs `cargo build`, so errors that
//! only appear after monomorphization are really checked too. Regenerate the `.stderr`
//! snapshots with `ui-tests/regenerate.sh` and review the diff.

use std::path::Path;

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/notation/*.rs");
    t.compile_fail("ui-tests/types/*.rs");
    // The opt-in features' invariants, each where the run enables its feature (CI enables all:
    // `--features ndarray,safetensors,dlpack`); a case's name starts with its feature.
    #[cfg(feature = "ndarray")]
    t.compile_fail("ui-tests/features/ndarray_*.rs");
    #[cfg(feature = "safetensors")]
    t.compile_fail("ui-tests/features/safetensors_*.rs");
    #[cfg(feature = "dlpack")]
    t.compile_fail("ui-tests/features/dlpack_*.rs");
    #[cfg(feature = "gpu")]
    t.compile_fail("ui-tests/features/gpu_*.rs");
    #[cfg(all(feature = "dlpack", feature = "gpu"))]
    t.compile_fail("ui-tests/features/device_dlpack_*.rs");
    t.pass("ui-tests/pass/*.rs");
}

/// Every snapshot belongs to a case, and every fail case has a snapshot and quotes its rule.
#[test]
fn every_case_has_its_snapshot_and_rule() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui-tests");
    let mut cases = 0;
    for category in ["notation", "types", "features", "pass"] {
        for entry in std::fs::read_dir(root.join(category)).unwrap() {
            let path = entry.unwrap().path();
            match path.extension().and_then(|e| e.to_str()) {
                Some("rs") => {
                    cases += 1;
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        text.starts_with("// Rule: "),
                        "{} must start by quoting its rule",
                        path.display()
                    );
                    if category != "pass" {
                        assert!(path.with_extension("stderr").exists(), "{} has no .stderr", path.display());
                    }
                }
                Some("stderr") => {
                    assert!(path.with_extension("rs").exists(), "{} has no test case", path.display());
                }
                _ => panic!("unexpected file {}", path.display()),
            }
        }
    }
    assert!(cases >= 30, "{cases} cases");
}
