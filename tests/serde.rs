//! Serde (feature `serde`): layouts as their cuDNN notation, shapes, descriptors and data types
//! round-trip through JSON on every named layout and data type, and every stored form that
//! breaks a rule is refused with an error naming it.

use proptest::prelude::*;
use typed_layout::interop::serde::FORMAT_VERSION;
use typed_layout::{
    DataType, DynLayout, Kcrs, Layout, NamedLayout, Ncdhw, Nchw, NcxHwx, Ndhwc, Nhwc, Shape, TensorDesc,
};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
    v: &T,
) -> String {
    let json = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&json).unwrap();
    assert_eq!(&back, v, "{json}");
    json
}

#[test]
fn every_data_type_is_its_cudnn_name() {
    for t in DataType::ALL {
        assert_eq!(round_trip(&t), format!("\"{}\"", t.cudnn_name()));
    }
    let err = serde_json::from_str::<DataType>("\"CUDNN_DATA_FP8\"").unwrap_err().to_string();
    assert!(err.contains("unknown data type") && err.contains("CUDNN_DATA_HALF"), "{err}");
}

#[test]
fn every_named_layout_is_its_notation() {
    for named in NamedLayout::ALL {
        let layout = DynLayout::parse(named.notation()).unwrap();
        assert_eq!(round_trip(&layout), format!("\"{}\"", named.notation()));
    }
    for spec in ["NC/4HW4", "NC/32HW32", "KC/32RS32", "NC/8DHW8", "NHWC, WC-packed"] {
        let layout = DynLayout::parse(spec).unwrap();
        let back: DynLayout = serde_json::from_str(&serde_json::to_string(&layout).unwrap()).unwrap();
        assert_eq!(back, layout, "{spec}");
    }
    // A family the notation does not name by itself keeps its letters.
    let clips = DynLayout::parse_in("NTDHWC", "NTCDHW").unwrap();
    let json = round_trip(&clips);
    assert_eq!(json, r#"{"notation":"NTDHWC","letters":"NTCDHW"}"#);
    // A broken notation names the rule.
    let err = serde_json::from_str::<DynLayout>(r#""NC/32HW4""#).unwrap_err().to_string();
    assert!(err.contains("NC/32HW4") && err.contains("vector"), "{err}");
}

#[test]
fn shapes_carry_their_layout_and_version() {
    fn check<L: Layout>(dims: &[usize]) {
        let shape = Shape::<L>::from_slice(dims).unwrap();
        let json = round_trip(&shape);
        assert!(json.starts_with(&format!("{{\"version\":{FORMAT_VERSION},\"layout\":")), "{json}");
    }
    check::<Nchw>(&[2, 3, 5, 7]);
    check::<Nhwc>(&[1, 64, 5, 4]);
    check::<NcxHwx<32>>(&[1, 64, 5, 4]);
    check::<Ncdhw>(&[1, 3, 2, 5, 7]);
    check::<Ndhwc>(&[1, 3, 2, 5, 7]);
    check::<Kcrs>(&[8, 3, 3, 3]);
    let nhwc = serde_json::to_string(&Shape::<Nhwc>::new([1, 64, 5, 4]).unwrap()).unwrap();
    let err = serde_json::from_str::<Shape<Nchw>>(&nhwc).unwrap_err().to_string();
    assert!(err.contains("NHWC") && err.contains("NCHW"), "{err}");
    // The layout's rules hold on reading: C = 48 is not whole vectors of 32.
    let bad = r#"{"version":1,"layout":"NC/32HW32","dims":[1,48,5,4]}"#;
    let err = serde_json::from_str::<Shape<NcxHwx<32>>>(bad).unwrap_err().to_string();
    assert!(err.contains("48"), "{err}");
    let future = r#"{"version":2,"layout":"NHWC","dims":[1,64,5,4]}"#;
    let err = serde_json::from_str::<Shape<Nhwc>>(future).unwrap_err().to_string();
    assert!(err.contains("format version 2"), "{err}");
    let extra = r#"{"version":1,"layout":"NHWC","dims":[1,64,5,4],"align":128}"#;
    let err = serde_json::from_str::<Shape<Nhwc>>(extra).unwrap_err().to_string();
    assert!(err.starts_with("unknown field `align`, expected one of `version`, `layout`, `dims`"), "{err}");
}

/// A newer version's stored form is refused by its version, not by the fields it adds or
/// changes: in a map wherever the version stands, in a sequence (binary formats) before the
/// rest is read.
#[test]
fn a_newer_version_speaks_first() {
    let later = [
        r#"{"version":2,"layout":"NHWC","dims":[1,64,5,4],"align":128}"#,
        r#"{"align":128,"version":2,"layout":"NHWC","dims":[1,64,5,4]}"#,
        r#"{"version":2,"layout":"NHWC","dims":"1x64x5x4"}"#,
        r#"[2,"NHWC",[1,64,5,4],128]"#,
        r#"[2,{"notation":"NHWC"},"1x64x5x4"]"#,
    ];
    for json in later {
        let err = serde_json::from_str::<Shape<Nhwc>>(json).unwrap_err().to_string();
        assert!(err.starts_with("format version 2: this typed-layout reads version 1"), "{json}: {err}");
    }
    let desc = r#"{"version":3,"data_type":"CUDNN_DATA_FP8_E4M3","dims":[1,2,3,4],"strides":[24,12,4,1],"scale":0.5}"#;
    let err = serde_json::from_str::<TensorDesc>(desc).unwrap_err().to_string();
    assert!(err.starts_with("format version 3"), "{err}");
    let tensor = r#"{"version":2,"data_type":"CUDNN_DATA_INT8","layout":"NCHW","letters":"NCHW","dims":[1,1,1,2],"data":"AAE=","encoding":"base64"}"#;
    let err = serde_json::from_str::<typed_layout::DynTensor>(tensor).unwrap_err().to_string();
    assert!(err.starts_with("format version 2"), "{err}");
    // Sequences of this version read as maps do (what a binary format writes); a short one
    // says what it lacks.
    let shape: Shape<Nhwc> = serde_json::from_str(r#"[1,"NHWC",[1,64,5,4]]"#).unwrap();
    assert_eq!(shape, Shape::<Nhwc>::new([1, 64, 5, 4]).unwrap());
    let t: typed_layout::DynTensor =
        serde_json::from_str(r#"[1,"CUDNN_DATA_INT8","NCHW","NCHW",[1,1,1,2],[0,1]]"#).unwrap();
    assert_eq!(t.as_bytes(), &[0, 1]);
    let err = serde_json::from_str::<Shape<Nhwc>>(r#"[1,"NHWC"]"#).unwrap_err().to_string();
    assert!(err.starts_with("invalid length 2, expected a stored form {version, layout, dims}"), "{err}");
    // A field given twice is refused, not overwritten.
    let twice = r#"{"version":1,"layout":"NCHW","layout":"NHWC","dims":[1,64,5,4]}"#;
    let err = serde_json::from_str::<Shape<Nhwc>>(twice).unwrap_err().to_string();
    assert!(err.starts_with("duplicate field `layout`"), "{err}");
    let twice = r#"{"version":1,"version":1,"layout":"NHWC","dims":[1,64,5,4]}"#;
    let err = serde_json::from_str::<Shape<Nhwc>>(twice).unwrap_err().to_string();
    assert!(err.starts_with("duplicate field `version`"), "{err}");
    // A descriptor's letters may be missing from a map (they are optional); its dims may not.
    let desc: TensorDesc = serde_json::from_str(
        r#"{"version":1,"data_type":"CUDNN_DATA_FLOAT","dims":[1,2,3],"strides":[6,3,1]}"#,
    )
    .unwrap();
    assert_eq!(desc, TensorDesc::new(DataType::Float, &[1, 2, 3], &[6, 3, 1]).unwrap());
    let err = serde_json::from_str::<TensorDesc>(
        r#"{"version":1,"data_type":"CUDNN_DATA_FLOAT","strides":[6,3,1]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("missing field `dims`"), "{err}");
}

#[test]
fn descriptors_are_checked_on_reading() {
    let desc = TensorDesc::new(DataType::Int8, &[1, 64, 5, 4], &[1280, 1, 256, 64]).unwrap();
    let json = round_trip(&desc);
    assert_eq!(
        json,
        r#"{"version":1,"data_type":"CUDNN_DATA_INT8","dims":[1,64,5,4],"strides":[1280,1,256,64],"letters":"NCHW"}"#
    );
    let three = TensorDesc::new(DataType::Float, &[2, 3, 4], &[12, 4, 1]).unwrap();
    let json = round_trip(&three);
    // The letters field is always written, so formats that count fields read it back.
    assert!(json.contains(r#""letters":"#), "{json}");
    let filter = desc.with_letters("KCRS").unwrap();
    assert!(round_trip(&filter).contains(r#""letters":"KCRS""#));
    // What TensorDesc::new refuses, reading refuses: a negative dim's stride, a rank of 2.
    let two = r#"{"version":1,"data_type":"CUDNN_DATA_FLOAT","dims":[4,4],"strides":[4,1]}"#;
    let err = serde_json::from_str::<TensorDesc>(two).unwrap_err().to_string();
    assert!(err.contains("rank 2"), "{err}");
    let short = r#"{"version":1,"data_type":"CUDNN_DATA_FLOAT","dims":[1,2,3],"strides":[6,3]}"#;
    assert!(serde_json::from_str::<TensorDesc>(short).is_err());
}

proptest! {
    /// Any valid descriptor of any data type, rank 3 to 6, round-trips exactly.
    #[test]
    fn any_descriptor_round_trips(
        t in 0usize..8,
        dims in prop::collection::vec(1usize..9, 3..=6),
        pad in prop::collection::vec(0isize..3, 6),
    ) {
        // Packed strides, innermost last, each padded a little.
        let mut strides = vec![0isize; dims.len()];
        let mut stride = 1isize;
        for k in (0..dims.len()).rev() {
            strides[k] = stride;
            stride = stride * dims[k] as isize + pad[k];
        }
        let desc = TensorDesc::new(DataType::ALL[t], &dims, &strides).unwrap();
        let back: TensorDesc = serde_json::from_str(&serde_json::to_string(&desc).unwrap()).unwrap();
        prop_assert_eq!(back, desc);
    }

    /// Any NHWC shape round-trips, and reading it as NCHW fails.
    #[test]
    fn any_shape_round_trips(n in 1usize..5, c in 1usize..70, h in 1usize..9, w in 1usize..9) {
        let shape = Shape::<Nhwc>::new([n, c, h, w]).unwrap();
        let json = serde_json::to_string(&shape).unwrap();
        prop_assert_eq!(serde_json::from_str::<Shape<Nhwc>>(&json).unwrap(), shape);
        prop_assert!(serde_json::from_str::<Shape<Nchw>>(&json).is_err());
    }

    /// Any runtime tensor (every data type, a named or parsed layout of each family, any
    /// bytes) round-trips exactly, and the same form with one byte missing is refused.
    #[test]
    fn any_runtime_tensor_round_trips(
        t in 0usize..8,
        l in 0usize..8,
        dims in prop::collection::vec(1usize..5, 5),
        seed in any::<u64>(),
    ) {
        let (notation, rank) = [
            ("NCHW", 4), ("NHWC", 4), ("CHWN", 4), ("NC/4HW4", 4), ("NDHWC", 5), ("BNM", 3), ("KRSC", 4), ("KC/4RS4", 4),
        ][l];
        let layout = typed_layout::DynLayout::parse(notation).unwrap();
        let mut dims = dims[..rank].to_vec();
        if layout.format().vector().is_some() {
            dims[1] *= 4;
        }
        let mut tensor = typed_layout::DynTensor::zeros(DataType::ALL[t], layout, &dims).unwrap();
        let mut x = seed;
        for b in tensor.as_bytes_mut() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *b = (x >> 56) as u8;
        }
        let json = serde_json::to_string(&tensor).unwrap();
        let back: typed_layout::DynTensor = serde_json::from_str(&json).unwrap();
        prop_assert_eq!((back.data_type(), back.layout(), back.dims()), (tensor.data_type(), tensor.layout(), tensor.dims()));
        prop_assert_eq!(back.as_bytes(), tensor.as_bytes());
        let cut = json.rfind(',').unwrap();
        let short = format!("{}]}}", &json[..cut]);
        prop_assert!(serde_json::from_str::<typed_layout::DynTensor>(&short).is_err());
    }

}

#[test]
fn a_padded_runtime_tensor_is_refused_not_written_wrong() {
    typed_layout::layout! {
        /// NHWC images with room between them.
        pub struct NhwcSpaced = "NHWC, HWC-packed";
    }
    let shape = Shape::<NhwcSpaced>::with_strides([2, 1, 2, 2], [5, 1, 2, 1]).unwrap();
    let padded = typed_layout::DynTensor::from(
        typed_layout::Tensor::<f32, NhwcSpaced>::filled_in(shape, 1.0).unwrap(),
    );
    let e = serde_json::to_string(&padded).unwrap_err();
    assert!(e.to_string().starts_with("a padded runtime tensor cannot be stored"), "{e}");
    let packed = padded.to_layout(padded.layout()).unwrap();
    let back: typed_layout::DynTensor =
        serde_json::from_str(&serde_json::to_string(&packed).unwrap()).unwrap();
    assert_eq!(back, packed);
}

#[test]
fn a_padded_shape_is_refused_not_written_wrong() {
    typed_layout::layout! {
        /// NHWC whose rows may be padded.
        pub struct NhwcRows = "NHWC, WC-packed";
    }
    let padded = Shape::<NhwcRows>::with_strides([1, 2, 2, 2], [100, 1, 40, 2]).unwrap();
    let e = serde_json::to_string(&padded).unwrap_err();
    assert!(e.to_string().starts_with("a padded shape cannot be stored"), "{e}");
    let packed = Shape::<NhwcRows>::new(padded.dims()).unwrap();
    let back: Shape<NhwcRows> = serde_json::from_str(&serde_json::to_string(&packed).unwrap()).unwrap();
    assert_eq!(back, packed);
}
