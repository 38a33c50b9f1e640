//! A machine without CUDA: no driver and no NVRTC are error values, never panics. The checks run
//! in a child process whose library path is emptied, so they hold even where CI has installed
//! NVRTC; if the system itself has the library, the child prints `SKIPPED:`.

use std::process::Command;

use typed_layout::gpu::{kernels, Gpu, GpuError};

const CHILD: &str = "TL_GPU_ABSENT_CHILD";

/// Runs this test binary's `test` alone with no CUDA on the library path; returns its output.
fn in_child(test: &str) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "child failed:\n{text}");
    // The child's verdict, shown in this test's output too: a skip is never silent.
    for line in text.lines() {
        if let Some(at) = line.find("CHECKED:").or_else(|| line.find("SKIPPED:")) {
            println!("{}", &line[at..]);
        }
    }
    text
}

#[test]
fn no_nvrtc_is_an_error() {
    if std::env::var_os(CHILD).is_none() {
        let text = in_child("no_nvrtc_is_an_error");
        assert!(text.contains("CHECKED: NoNvrtc") || text.contains("SKIPPED:"), "{text}");
        return;
    }
    if kernels::nvrtc_available() {
        println!("SKIPPED: this system has NVRTC outside LD_LIBRARY_PATH");
        return;
    }
    let e = kernels::compile("extern \"C\" __global__ void k() {}", "k", "sm_80").unwrap_err();
    assert_eq!(e, GpuError::NoNvrtc);
    assert!(e.to_string().contains("NVRTC"), "{e}");
    assert_eq!(kernels::compile("extern \"C\" __global__ void k() {}", "k", "compute_90").unwrap_err(), e);
    assert_eq!(kernels::nvrtc_version().unwrap_err(), e);
    assert_eq!(kernels::nvrtc_library(), None);
    println!("CHECKED: NoNvrtc");
}

#[test]
fn no_driver_is_an_error() {
    if std::env::var_os(CHILD).is_none() {
        let text = in_child("no_driver_is_an_error");
        assert!(text.contains("CHECKED: NoDriver") || text.contains("SKIPPED:"), "{text}");
        return;
    }
    match Gpu::new(0) {
        Err(GpuError::NoDriver) => println!("CHECKED: NoDriver"),
        Err(e) => println!("SKIPPED: this system has a CUDA driver ({e})"),
        Ok(gpu) => println!("SKIPPED: this system has a GPU (ordinal {})", gpu.ordinal()),
    }
}
