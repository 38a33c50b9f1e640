//! DLPack of device tensors (features `gpu` and `dlpack`). Without a GPU (CI): foreign CUDA
//! tensors' metadata is checked (device, data type, dims and strides of every named layout and
//! type, the size-1 rule, each refusal naming its rule), and host and device readers refuse
//! each other's tensors. On a GPU (the GPU kit): every named layout and type uploaded,
//! exported without a copy (its geometry the host export's), imported by a copy and downloaded
//! equal; a tensor for another device is refused.
//!
//! The device tests print `SKIPPED: <reason>` without a device; `TL_REQUIRE_GPU=1` turns a
//! missing device into a failure.

mod support;
use support::gpu_or_skip;
use support::samples::{every_named_layout_and_type, logical, Sample};

use core::ffi::c_void;

use dlpark::ffi::DLDevice;
use dlpark::metadata::Dynamic;
use layout_gpu::dlpack::{self as device, DeviceDlpackRef};
use layout_gpu::{DeviceTensor, Gpu, GpuError};
use typed_layout::interop::dlpack::{self, dl_data_type, Dlpack, DlpackError, DlpackInfo, DlpackRef};
use typed_layout::{DataType, DynLayout, Layout, LayoutError, Nchw, NcxHwx, Nhwc, Tensor};

/// A DLPack tensor that claims CUDA memory of `device` at an address nothing ever reads: these
/// tests inspect metadata only (DeviceDlpackRef::new and shape_as read no element; import is
/// never called on it).
fn claimed(device: DLDevice, data_type: DataType, shape: &[usize], strides: &[usize]) -> Dlpack {
    let as_i64 = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
    let mut t = Dynamic::new(as_i64(shape), as_i64(strides)).initialize(Box::new(())).unwrap();
    t.set_data(0x7f00_0000_0000usize as *mut c_void).set_device(device).set_dtype(dl_data_type(data_type));
    // SAFETY: the pointer is never dereferenced (see above); the shape and strides are copied
    // into the tensor's own allocation.
    unsafe { t.finish() }
}

/// The geometry a host tensor of `L` is exported with, as a claimed CUDA tensor: the device
/// reader accepts it as `L` (and the data type checked), as the host reader accepts the host one.
fn claimed_as_exported<T: Sample, L: Layout>(dims: &[usize]) {
    let what = format!("{} {}", L::NOTATION, T::DATA_TYPE);
    let host = logical::<T, L>(dims);
    let (shape, strides) = dlpack::geometry(&DynLayout::of::<L>(), host.shape().placement());
    let exported = claimed(DLDevice::cuda(0), T::DATA_TYPE, &shape, &strides);
    // SAFETY: metadata only (see `claimed`).
    let r = unsafe { DeviceDlpackRef::new(&exported) }.unwrap();
    assert_eq!((r.ordinal(), r.info().device_type()), (0, 2), "{what}");
    assert_eq!(r.shape_as::<T, L>().unwrap(), *host.shape(), "{what}");
    // Another element type of the same size is still another data type.
    let other = if T::DATA_TYPE == DataType::Int32 { DataType::Float } else { DataType::Int32 };
    // SAFETY: metadata only (see `claimed`).
    let e = unsafe { DeviceDlpackRef::new(&claimed(DLDevice::cuda(0), other, &shape, &strides)) }
        .unwrap()
        .shape_as::<T, L>()
        .unwrap_err();
    assert_eq!(e, LayoutError::DataTypeMismatch { expected: T::DATA_TYPE, found: other }, "{what}");
}

#[test]
fn every_named_layout_and_type_is_read_from_its_exported_geometry() {
    every_named_layout_and_type!(claimed_as_exported);
}

#[test]
fn device_and_host_readers_refuse_each_others_tensors() {
    let cuda = claimed(DLDevice::cuda(1), DataType::Float, &[1, 2, 3, 4], &[24, 12, 4, 1]);
    // SAFETY: metadata only: the host reader refuses before it borrows any byte.
    let e = unsafe { DlpackRef::new(&cuda) }.unwrap_err();
    assert!(matches!(e, DlpackError::Device { device_type: 2, device_id: 1, .. }), "{e}");
    assert!(e.to_string().contains("not in host memory (kDLCPU, 1)"), "{e}");
    assert!(e.to_string().contains("through gpu::dlpack"), "{e}");
    // And the device reader refuses a host tensor (a real one: ours).
    let host = dlpack::export(Tensor::<f32, Nchw>::filled([1, 2, 3, 4], 1.0).unwrap()).unwrap();
    // SAFETY: ours, alive and unwritten; refused before anything else.
    let e = unsafe { DeviceDlpackRef::new(&host) }.unwrap_err();
    assert!(matches!(e, DlpackError::Device { device_type: 1, device_id: 0, .. }), "{e}");
    assert!(e.to_string().contains("not in CUDA device memory (kDLCUDA, 2)"), "{e}");
    // The metadata itself reads on either side, safely.
    let info = DlpackInfo::read(&cuda).unwrap();
    assert_eq!((info.device_type(), info.device_id(), info.address()), (2, 1, 0x7f00_0000_0000));
    assert_eq!(info.byte_len(), 24 * 4);
}

#[test]
fn refusals_name_the_rule() {
    let read = |t: &Dlpack| {
        // SAFETY: metadata only (see `claimed`).
        unsafe { DeviceDlpackRef::new(t) }.map(|r| r.shape_as::<f32, Nhwc>())
    };
    // NCHW strides are no NHWC tensor: the first dim that differs is named.
    let t = claimed(DLDevice::cuda(0), DataType::Float, &[2, 3, 4, 5], &[60, 20, 5, 1]);
    let e = read(&t).unwrap().unwrap_err();
    assert!(
        e.to_string()
            .starts_with("dimension C (logical index 1) has stride 20 in the array but 1 in the layout"),
        "{e}"
    );
    // One pixel: W's and H's strides say nothing; NHWC (asked for) wins.
    let t = claimed(DLDevice::cuda(0), DataType::Float, &[2, 3, 1, 1], &[3, 1, 99, 7]);
    assert_eq!(read(&t).unwrap().unwrap().dims(), [2, 3, 1, 1]);
    // A gapped tensor is not packed NHWC either.
    let t = claimed(DLDevice::cuda(0), DataType::Float, &[2, 3, 4, 5], &[120, 1, 15, 3]);
    assert!(matches!(read(&t).unwrap().unwrap_err(), LayoutError::StrideMismatch { .. }));
    // Wrong rank; a lane axis of another width than NC/32HW32's.
    let t = claimed(DLDevice::cuda(0), DataType::Float, &[2, 3, 4], &[12, 4, 1]);
    assert!(matches!(read(&t).unwrap().unwrap_err(), LayoutError::DimCount { expected: 4, found: 3 }));
    let t = claimed(DLDevice::cuda(0), DataType::Int8, &[1, 2, 3, 2, 4], &[48, 24, 8, 4, 1]);
    // SAFETY: metadata only.
    let r = unsafe { DeviceDlpackRef::new(&t) }.unwrap();
    assert!(matches!(
        r.shape_as::<i8, NcxHwx<32>>().unwrap_err(),
        LayoutError::LaneCount { found: 4, width: 32, .. }
    ));
    assert_eq!(r.shape_as::<i8, NcxHwx<4>>().unwrap().dims(), [1, 8, 3, 2]);
    // Mirrored axes and a null pointer are refused while reading the metadata.
    let mut m = Dynamic::new(vec![1i64, 2, 3, 4], vec![24i64, 12, 4, -1]).initialize(Box::new(())).unwrap();
    m.set_data(0x7f00_0000_1000usize as *mut c_void)
        .set_device(DLDevice::cuda(0))
        .set_dtype(dl_data_type(DataType::Float));
    // SAFETY: never dereferenced.
    let m: Dlpack = unsafe { m.finish() };
    assert!(matches!(read(&m).unwrap_err(), DlpackError::Strides { .. }));
    let mut n = Dynamic::new(vec![1i64, 2, 3, 4], vec![24i64, 12, 4, 1]).initialize(Box::new(())).unwrap();
    n.set_device(DLDevice::cuda(0)).set_dtype(dl_data_type(DataType::Float));
    // SAFETY: a null pointer, refused before any use.
    let n: Dlpack = unsafe { n.finish() };
    let e = read(&n).unwrap_err();
    assert!(matches!(e, DlpackError::Address { .. }), "{e}");
    assert!(e.to_string().contains("null"), "{e}");
    // A span running past the end of the address space.
    let mut w = Dynamic::new(vec![1i64, 2, 3, 4], vec![24i64, 12, 4, 1]).initialize(Box::new(())).unwrap();
    w.set_data((usize::MAX - 63) as *mut c_void)
        .set_device(DLDevice::cuda(0))
        .set_dtype(dl_data_type(DataType::Float));
    // SAFETY: never dereferenced: refused while reading the metadata.
    let w: Dlpack = unsafe { w.finish() };
    let e = read(&w).unwrap_err();
    assert!(matches!(e, DlpackError::Address { .. }), "{e}");
}

/// Uploads the logical tensor of `L`, exports it, reads it back by a copy and downloads it.
fn device_round_trip<T: Sample + layout_gpu::DeviceElement, L: Layout>(gpu: &Gpu, dims: &[usize]) {
    let what = format!("{} {}", L::NOTATION, T::DATA_TYPE);
    let host = logical::<T, L>(dims);
    let (shape, strides) = dlpack::geometry(&DynLayout::of::<L>(), host.shape().placement());
    let x = gpu.upload(&host).unwrap();
    let exported = device::export(x).unwrap();
    let info = DlpackInfo::read(&exported).unwrap();
    assert_eq!((info.device_type(), info.device_id()), (2, gpu.ordinal() as i32), "{what}");
    assert_eq!((info.shape(), info.strides()), (&shape[..], &strides[..]), "{what}");
    assert_eq!(info.data_type(), T::DATA_TYPE, "{what}");
    // SAFETY: ours: device memory, ready (export waited for its stream), nothing writes it.
    let r = unsafe { DeviceDlpackRef::new(&exported) }.unwrap();
    let back: DeviceTensor<T, L> = device::import(gpu, &r).unwrap();
    assert_eq!(gpu.download(&back).unwrap(), host, "{what}");
    // Read as another layout of the family, the strides name the difference.
    if L::NOTATION == "NHWC" {
        let e = device::import::<T, Nchw>(gpu, &r).unwrap_err();
        assert!(matches!(e, GpuError::Layout(LayoutError::StrideMismatch { .. })), "{what}: {e}");
    }
}

#[test]
fn every_named_layout_and_type_goes_out_and_comes_back_on_the_device() {
    let Some(gpu) = gpu_or_skip("device DLPack round trips") else { return };
    every_named_layout_and_type!(device_round_trip, &gpu);
}

/// A tensor last written on another handle's stream is exported only once that write is done:
/// read back on a third stream (the importing handle's), it is whole.
#[test]
fn an_export_waits_for_writes_on_other_streams() {
    let Some(gpu) = gpu_or_skip("device DLPack export after another stream's write") else { return };
    let other = Gpu::new(0).unwrap();
    let host = logical::<f32, Nchw>(&[8, 64, 64, 64]); // 8 MiB: the conversion takes a while
    let x = gpu.upload(&host).unwrap();
    let y: DeviceTensor<f32, Nhwc> = other.to_layout(&x).unwrap(); // queued on `other`'s stream
    let exported = device::export(y).unwrap();
    let reader = Gpu::new(0).unwrap();
    // SAFETY: ours: device memory, complete (export waited for the write), nothing writes it.
    let r = unsafe { DeviceDlpackRef::new(&exported) }.unwrap();
    let back: DeviceTensor<f32, Nhwc> = device::import(&reader, &r).unwrap();
    assert_eq!(reader.download(&back).unwrap(), host.to_layout::<Nhwc>().unwrap());
}

#[test]
fn a_tensor_of_another_device_is_refused() {
    let Some(gpu) = gpu_or_skip("device DLPack of another device") else { return };
    let t = claimed(DLDevice::cuda(gpu.ordinal() as i32 + 1), DataType::Float, &[1, 2, 3, 4], &[24, 1, 8, 2]);
    // SAFETY: metadata only: refused before any copy.
    let r = unsafe { DeviceDlpackRef::new(&t) }.unwrap();
    let e = device::import::<f32, Nhwc>(&gpu, &r).unwrap_err();
    assert_eq!(e, GpuError::WrongDevice { handle: gpu.ordinal(), tensor: gpu.ordinal() + 1 });
}
