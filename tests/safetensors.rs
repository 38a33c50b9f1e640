//! `.safetensors` files (feature `safetensors`): every named layout and data type written and
//! read back (as a runtime tensor, typed, converted, and viewed without a copy), a file written
//! by the reference Python library read element by element, a file we write read by that
//! library (where `TL_PYTHON` names a Python with `safetensors` and `numpy`), and each refusal.

use std::process::Command;

mod support;
use support::samples::{every_named_layout_and_type, logical, Sample};

use half::f16;
use safetensors::tensor::{serialize, Dtype, TensorView as RefView};
use typed_layout::interop::safetensors::{MappedFile, Safetensors, SafetensorsError, Writer};
use typed_layout::{
    layout, Bmn, Chwn, ColMajor, DataType, DynLayout, DynTensor, Kcrs, Krsc, Layout, LayoutError, Ncdhw,
    Nchw, NcxHwx, Ndhwc, Nhwc, RowMajor, Shape, Tensor,
};

/// One type and layout through a file: every way back.
fn round_trip<T: Sample, L: Layout>(dims: &[usize]) {
    let t = logical::<T, L>(dims);
    let what = format!("{} {}", L::NOTATION, T::DATA_TYPE);
    let bytes = Writer::new().add("t", &t).unwrap().to_bytes().unwrap();
    let file = Safetensors::new(&bytes).unwrap();
    assert_eq!(file.layout("t").unwrap(), Some(DynLayout::of::<L>()), "{what}");
    let physical: Vec<usize> = t.shape().placement().axes().iter().map(|a| a.extent).collect();
    assert_eq!(file.shape("t").unwrap(), physical, "{what}");
    // As a runtime tensor, typed, and viewed in place.
    assert_eq!(file.load("t").unwrap().try_into_tensor::<T, L>().unwrap(), t, "{what}");
    assert_eq!(file.load_as::<T, L>("t").unwrap(), t, "{what}");
    let view = file.view::<T, L>("t").unwrap();
    let inside = bytes.as_ptr_range();
    assert!(inside.contains(&view.as_slice().as_ptr().cast()), "{what}: the view is a copy");
    assert_eq!(view.to_layout::<L>().unwrap(), t, "{what}");
    // Another type is refused, naming both.
    let e = file.load_as::<T::Other, L>("t").unwrap_err();
    assert!(
        matches!(e, SafetensorsError::Layout { error: LayoutError::DataTypeMismatch { found, .. }, .. } if found == T::DATA_TYPE),
        "{what}: {e}"
    );
}

#[test]
fn every_named_layout_and_type_comes_back_as_itself() {
    every_named_layout_and_type!(round_trip);
}

layout! {
    /// Clips: volumes over time (a user family).
    pub family Clip = "NTCDHW";
    /// Clips stored channels-last.
    pub struct ClipLast: Clip = "NTDHWC";
}

#[test]
fn a_stored_layout_converts_into_the_one_asked_for() {
    let t = logical::<f32, Nhwc>(&[2, 4, 4, 5]);
    let u = logical::<i8, NcxHwx<32>>(&[1, 64, 2, 3]);
    let clip = logical::<f16, ClipLast>(&[2, 2, 3, 2, 2, 3]);
    let mut w = Writer::new();
    w.add("t", &t).unwrap().add("u", &u).unwrap().add("clip", &clip).unwrap();
    let bytes = w.to_bytes().unwrap();
    let file = Safetensors::new(&bytes).unwrap();
    assert_eq!(file.load_as::<f32, Nchw>("t").unwrap(), t.to_layout::<Nchw>().unwrap());
    assert_eq!(file.load_as::<f32, NcxHwx<4>>("t").unwrap(), t.to_layout::<NcxHwx<4>>().unwrap());
    assert_eq!(file.load_as::<i8, Nhwc>("u").unwrap(), u.to_layout::<Nhwc>().unwrap());
    // A user family comes back as itself: its letters are recorded beside the notation.
    assert_eq!(file.layout("clip").unwrap(), Some(DynLayout::of::<ClipLast>()));
    assert_eq!(file.load_as::<f16, ClipLast>("clip").unwrap(), clip);
    // A view needs the stored layout itself.
    let e = file.view::<f32, Nchw>("t").unwrap_err();
    assert_eq!(e.to_string(), "tensor \"t\": the tensor is in layout NHWC but NCHW was asked for: a typed tensor keeps the layout its bytes are in (convert it instead)");
    // Another family is refused by name.
    let e = file.load_as::<f32, Ncdhw>("t").unwrap_err();
    assert!(matches!(e, SafetensorsError::Layout { error: LayoutError::FamilyMismatch { .. }, .. }), "{e}");
}

/// The fixture's formula for tensor `name`, which its script applies before the cast.
fn fixture<T: Sample>(dims: &[usize], f: impl Fn(i64) -> T) -> Vec<T> {
    (0..dims.iter().product()).map(|p| f(((p * 7 + 3) % 251) as i64)).collect()
}

#[test]
fn a_file_written_by_the_python_library_reads_element_by_element() {
    let bytes =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/python.safetensors")).unwrap();
    let file = Safetensors::new(&bytes).unwrap();
    // No metadata: each tensor is the row-major layout of its rank, or of the family asked for.
    let image = file.load("image_f32").unwrap();
    assert_eq!((image.layout(), image.dims()), (DynLayout::parse("NCHW").unwrap(), &[2, 3, 4, 5][..]));
    assert_eq!(image.as_slice::<f32>().unwrap(), fixture(&[2, 3, 4, 5], |v| v as f32));
    let nhwc = file.load_as::<f32, Nhwc>("image_f32").unwrap();
    let expected = Tensor::<f32, Nchw>::from_vec([2, 3, 4, 5], fixture(&[2, 3, 4, 5], |v| v as f32)).unwrap();
    assert_eq!(nhwc, expected.to_layout::<Nhwc>().unwrap());
    let halves = file.view::<f16, Nchw>("image_f16").unwrap();
    assert_eq!(halves.as_slice(), fixture(&[1, 8, 3, 3], |v| f16::from_f32(v as f32)));
    let volume = file.load("volume_f64").unwrap();
    assert_eq!(volume.layout(), DynLayout::parse("NCDHW").unwrap());
    assert_eq!(volume.as_slice::<f64>().unwrap(), fixture(&[1, 2, 3, 4, 5], |v| v as f64));
    let matrix = file.load_as::<i32, Bmn<RowMajor>>("matrix_i32").unwrap();
    assert_eq!(matrix.as_slice(), fixture(&[2, 3, 7], |v| (v * -3) as i32));
    assert_eq!(file.view::<u8, Nchw>("bytes_u8").unwrap().as_slice(), fixture(&[1, 3, 2, 2], |v| v as u8));
    assert_eq!(
        file.view::<i8, Nchw>("bytes_i8").unwrap().as_slice(),
        fixture(&[1, 3, 2, 2], |v| (v - 125) as i8)
    );
    // A rank-4 tensor asked for as a filter is KCRS, its family's row-major layout.
    let weights = file.load_as::<i64, Krsc>("weights_i64").unwrap();
    let kcrs = Tensor::<i64, Kcrs>::from_vec([4, 3, 3, 3], fixture(&[4, 3, 3, 3], |v| v * -3)).unwrap();
    assert_eq!(weights, kcrs.to_layout::<Krsc>().unwrap());
    // Refused, by name.
    let e = file.load("mask_bool").unwrap_err();
    assert_eq!(e.to_string(), "tensor \"mask_bool\" holds BOOL, which is not one of cuDNN's data types (F32, F64, F16, BF16, I8, U8, I32, I64)");
    assert!(matches!(file.load("rank2_f32").unwrap_err(), SafetensorsError::Metadata { .. }));
    let e = file.load_as::<f32, Nchw>("rank2_f32").unwrap_err();
    assert!(
        matches!(e, SafetensorsError::Layout { error: LayoutError::AxisCount { expected: 4, found: 2 }, .. }),
        "{e}"
    );
    let e = file.load("no_such").unwrap_err();
    assert!(matches!(&e, SafetensorsError::NoSuchTensor { name } if name == "no_such"), "{e}");
}

#[test]
fn the_python_library_reads_what_we_write() {
    let Some(python) = std::env::var_os("TL_PYTHON") else {
        assert!(
            std::env::var_os("TL_REQUIRE_PYTHON").is_none(),
            "TL_REQUIRE_PYTHON is set but TL_PYTHON is not"
        );
        println!("SKIPPED: TL_PYTHON names no Python with safetensors and numpy (CI sets it)");
        return;
    };
    let path = std::env::temp_dir().join(format!("typed-layout-{}.safetensors", std::process::id()));
    let tensors = (
        logical::<f32, Nhwc>(&[2, 3, 4, 5]),
        logical::<f16, NcxHwx<32>>(&[1, 64, 2, 3]),
        logical::<i8, NcxHwx<4>>(&[2, 8, 3, 2]),
        logical::<u8, Chwn>(&[2, 3, 4, 5]),
        logical::<f64, Ndhwc>(&[2, 3, 2, 4, 5]),
        logical::<i32, Bmn<ColMajor>>(&[2, 3, 7]),
        logical::<i64, Krsc>(&[4, 3, 3, 5]),
    );
    let mut w = Writer::new();
    w.add("nhwc_f32", &tensors.0).unwrap();
    w.add("nc32hw32_f16", &tensors.1).unwrap();
    w.add("nc4hw4_i8", &tensors.2).unwrap();
    w.add("chwn_u8", &tensors.3).unwrap();
    w.add("ndhwc_f64", &tensors.4).unwrap();
    w.add("bmn_col_i32", &tensors.5).unwrap();
    w.add("krsc_i64", &tensors.6).unwrap();
    w.write(&path).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/check_ours.py");
    let out = Command::new(python).arg(script).arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.ends_with(" equal")).count(), 7, "{stdout}");
    print!("{stdout}");
}

#[test]
fn bad_files_and_bad_requests_are_refused_naming_the_rule() {
    let t = logical::<f32, Nchw>(&[1, 2, 2, 2]);
    // A view of data off its alignment: refused; a copy works.
    let bytes = Writer::new().add("t", &t).unwrap().to_bytes().unwrap();
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let file = Safetensors::new(&shifted[1..]).unwrap();
    let e = file.view::<f32, Nchw>("t").unwrap_err();
    assert!(matches!(e, SafetensorsError::Misaligned { align: 4, .. }), "{e}");
    assert_eq!(file.load_as::<f32, Nchw>("t").unwrap(), t);
    // Metadata of another version, a layout that does not parse, a lane axis of the wrong width.
    let data: Vec<u8> = bytemuck::cast_slice(t.as_slice()).to_vec();
    let with = |shape: Vec<usize>, meta: &[(&str, &str)]| {
        let view = RefView::new(Dtype::F32, shape, &data).unwrap();
        let meta = meta.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        serialize([("t", view)], Some(meta)).unwrap()
    };
    let file = with(vec![1, 2, 2, 2], &[("typed_layout.format", "2")]);
    let e = Safetensors::new(&file).unwrap_err();
    assert_eq!(
        e.to_string(),
        "metadata \"typed_layout.format\": version \"2\", but this typed-layout reads version 1"
    );
    let file = with(vec![1, 2, 2, 2], &[("typed_layout.layout.t", "NC/32HW4")]);
    let e = Safetensors::new(&file).unwrap().load("t").unwrap_err();
    assert!(e.to_string().contains("\"NC/32HW4\" is not a layout"), "{e}");
    let file =
        with(vec![1, 1, 2, 4], &[("typed_layout.layout.t", "NC/4HW4"), ("typed_layout.letters.t", "NCHW")]);
    let e = Safetensors::new(&file).unwrap().load("t").unwrap_err();
    assert!(
        matches!(e, SafetensorsError::Layout { error: LayoutError::AxisCount { expected: 5, found: 4 }, .. }),
        "{e}"
    );
    let file = with(
        vec![1, 1, 1, 1, 8],
        &[("typed_layout.layout.t", "NC/4HW4"), ("typed_layout.letters.t", "NCHW")],
    );
    let e = Safetensors::new(&file).unwrap().load("t").unwrap_err();
    assert!(
        matches!(
            e,
            SafetensorsError::Layout { error: LayoutError::LaneCount { found: 8, width: 4, .. }, .. }
        ),
        "{e}"
    );
    // A layout stated for a tensor the file records another for.
    let file =
        with(vec![1, 2, 2, 2], &[("typed_layout.layout.t", "NHWC"), ("typed_layout.letters.t", "NCHW")]);
    let e = Safetensors::new(&file).unwrap().load_in("t", DynLayout::parse("NCHW").unwrap()).unwrap_err();
    assert!(e.to_string().contains("the file records NHWC for this tensor, not NCHW"), "{e}");
    // A loader's own layouts go through `?` into the same error type.
    fn load_stated(bytes: &[u8], layout: &str) -> Result<DynTensor, SafetensorsError> {
        Safetensors::new(bytes)?.load_in("t", DynLayout::parse(layout)?)
    }
    let e = load_stated(&with(vec![1, 2, 2, 2], &[]), "NC/32HW4").unwrap_err();
    assert!(e.to_string().starts_with("invalid layout notation"), "{e}");
    assert_eq!(load_stated(&with(vec![1, 2, 2, 2], &[]), "NHWC").unwrap().dims(), &[1, 2, 2, 2]);
    // Not a file at all.
    assert!(matches!(Safetensors::new(b"not a file").unwrap_err(), SafetensorsError::Format(_)));
    // The writer: one tensor per name, dense storage only.
    let mut w = Writer::new();
    w.add("t", &t).unwrap();
    let e = w.add("t", &t).unwrap_err();
    assert!(e.to_string().contains("names in a file are unique"), "{e}");
    layout! {
        /// NHWC whose rows may be padded.
        pub struct NhwcRows = "NHWC, WC-packed";
    }
    let padded =
        Tensor::<f32, NhwcRows>::filled_in(Shape::with_strides([1, 2, 2, 2], [10, 1, 5, 2]).unwrap(), 0.0)
            .unwrap();
    let e = Writer::new().add("padded", &padded).unwrap_err();
    assert!(e.to_string().contains("its storage is padded"), "{e}");
}

#[test]
fn runtime_tensors_write_and_read_as_themselves() {
    let mut d =
        DynTensor::zeros(DataType::BFloat16, DynLayout::parse("NC/8DHW8").unwrap(), &[1, 16, 2, 2, 3])
            .unwrap();
    d.as_bytes_mut().iter_mut().enumerate().for_each(|(i, b)| *b = (i % 253) as u8);
    let bytes = Writer::new().add_dyn("d", &d).unwrap().to_bytes().unwrap();
    let back = Safetensors::new(&bytes).unwrap().load("d").unwrap();
    assert_eq!((back.data_type(), back.layout(), back.dims()), (d.data_type(), d.layout(), d.dims()));
    assert_eq!(back.as_bytes(), d.as_bytes());
}

#[test]
fn a_memory_mapped_file_is_viewed_where_it_lies() {
    let t = logical::<f16, Nhwc>(&[2, 8, 4, 4]);
    let path = std::env::temp_dir().join(format!("typed-layout-mapped-{}.safetensors", std::process::id()));
    Writer::new().add("t", &t).unwrap().write(&path).unwrap();
    // SAFETY: the file is this test's own, and nothing writes to it while it is mapped.
    let mapped = unsafe { MappedFile::open(&path) }.unwrap();
    let file = Safetensors::new(mapped.as_bytes()).unwrap();
    let view = file.view::<f16, Nhwc>("t").unwrap();
    assert!(mapped.as_bytes().as_ptr_range().contains(&view.as_slice().as_ptr().cast()), "a copy");
    assert_eq!(view.to_layout::<Nhwc>().unwrap(), t);
    drop(file);
    drop(mapped);
    std::fs::remove_file(&path).unwrap();
}
