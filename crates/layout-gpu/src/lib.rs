//! The GPU backend of typed-layout (not yet implemented).
//!
//! It will hold the device handle (bound to one device, owning a stream and a cache of
//! NVRTC-compiled kernels), typed device tensors, and conversion kernels generated per
//! (source layout, destination layout, element size, architecture). It will load CUDA
//! dynamically, so the workspace builds and its CPU tests pass on machines without CUDA. Until
//! then this crate exports nothing; the CPU backend in `layout_types::convert` is the reference
//! it will be checked against.
