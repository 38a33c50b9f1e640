//! What the kernel compile tests share (`gpu_codegen`, `gpu_cast`): every kernel compiled to the
//! images the kernel cache loads, each checked — a CUBIN for sm_80 and sm_90 that is an ELF for
//! that architecture, and the PTX fallback for compute_90.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use layout_gpu::kernels;

/// The real architectures every kernel is compiled for, with the SM number its CUBIN must carry.
pub(crate) const CUBIN_ARCHS: [(&str, u32); 2] = [("sm_80", 80), ("sm_90", 90)];

/// The virtual architecture of the PTX fallback checked.
pub(crate) const PTX_ARCH: &str = "compute_90";

/// The PTX fallback is compiled for every this-many-th kernel, in name order (so every kernel
/// shape and element size is in the sample). It runs NVRTC's same front end as the CUBIN
/// compiles, with a virtual target: for every kernel it would add about a third to these
/// tests' compile time, for a sample of a quarter about a tenth.
pub(crate) const PTX_EVERY: usize = 4;

/// The SM number a CUBIN is built for, read from its ELF header, or why it is not a CUBIN.
///
/// A CUBIN is a 64-bit little-endian ELF with `e_machine` = `EM_CUDA` (190). Where the SM sits
/// in `e_flags` depends on the CUDA ELF ABI version (byte 8 of the header). Found by compiling
/// one kernel with NVRTC 13.5 for sm_75 … sm_120: the images say OS/ABI 0x41 (CUDA), ABI version
/// 8, and `e_flags` 0x0600_5004 for sm_80, 0x0600_5a04 for sm_90 (0x4b04 for sm_75, 0x5604 for
/// sm_86, 0x6402 for sm_100, 0x7802 for sm_120): the SM is bits 8..16 (LLVM's ELF.h names the
/// mask `EF_CUDA_SM_MASK` = 0xff00 for this ABI); the low byte and the top byte are other flags
/// (sm_90a's image has the same `e_flags` as sm_90's). The older ABI (version 7 and below, the
/// NVRTCs of CUDA 12 and before; not checked here) keeps the SM in the low byte (`EF_CUDA_SM`,
/// mask 0xff) and the virtual SM in bits 16..24.
pub(crate) fn cubin_sm(elf: &[u8]) -> Result<u32, String> {
    if elf.len() < 64 || !elf.starts_with(b"\x7fELF") {
        return Err(format!("not an ELF image ({} bytes)", elf.len()));
    }
    let (class, data, abi_version) = (elf[4], elf[5], elf[8]);
    if (class, data) != (2, 1) {
        return Err(format!("ELF class {class}, data {data}: expected 64-bit (2), little-endian (1)"));
    }
    let machine = u16::from_le_bytes([elf[18], elf[19]]);
    if machine != 190 {
        return Err(format!("e_machine {machine}: expected EM_CUDA (190)"));
    }
    let flags = u32::from_le_bytes([elf[48], elf[49], elf[50], elf[51]]);
    Ok(if abi_version >= 8 { (flags >> 8) & 0xff } else { flags & 0xff })
}

/// Compiles every `name → source` on all cores: a CUBIN for each of [`CUBIN_ARCHS`], checked to
/// be an ELF for its SM with the PTX entry beside it, and PTX for [`PTX_ARCH`] for every
/// `ptx_every`-th kernel ([`PTX_EVERY`]; 1 for all). Returns the failures (as text) and the time taken.
pub(crate) fn compile_images(
    kernels: &BTreeMap<String, String>,
    ptx_every: usize,
) -> (Vec<String>, Duration) {
    let start = Instant::now();
    let list: Vec<(usize, (&String, &String))> = kernels.iter().enumerate().collect();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()).max(2);
    let failures = std::thread::scope(|scope| {
        let workers: Vec<_> = list
            .chunks(list.len().div_ceil(threads).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .flat_map(|&(i, (name, source))| check(i, name, source, ptx_every))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    (failures, start.elapsed())
}

/// The failures of one kernel's images.
fn check(index: usize, name: &str, source: &str, ptx_every: usize) -> Vec<String> {
    let entry = format!(".entry {name}");
    let mut bad = Vec::new();
    for (arch, sm) in CUBIN_ARCHS {
        match kernels::compile(source, name, arch) {
            Ok(k) => match k.cubin().map(cubin_sm) {
                Some(Ok(got)) if got == sm && k.ptx().contains(&entry) => {}
                Some(Ok(got)) if got != sm => {
                    bad.push(format!("{name} for {arch}: the CUBIN is for SM {got}"))
                }
                Some(Ok(_)) => bad.push(format!("{name} for {arch}: no `{entry}` in the PTX")),
                Some(Err(why)) => bad.push(format!("{name} for {arch}: {why}")),
                None => bad.push(format!("{name} for {arch}: NVRTC gave no CUBIN")),
            },
            Err(e) => bad.push(e.to_string()),
        }
    }
    if index.is_multiple_of(ptx_every) {
        match kernels::compile(source, name, PTX_ARCH) {
            Ok(k) if k.cubin().is_none() && k.ptx().contains(&entry) => {}
            Ok(_) => bad.push(format!("{name} for {PTX_ARCH}: expected PTX with `{entry}` and no CUBIN")),
            Err(e) => bad.push(e.to_string()),
        }
    }
    bad
}
