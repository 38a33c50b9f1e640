//! Named layouts and static shapes against their definitions.

use super::*;

#[test]
fn notations() {
    assert_eq!(Nchw::NOTATION, "NCHW");
    assert_eq!(Cdhwn::NOTATION, "CDHWN");
    assert_eq!(NcxHwx::<32>::NOTATION, "NC/32HW32");
    assert_eq!(Bmn::<ColMajor>::NOTATION, "BNM");
    for n in NamedLayout::ALL {
        let (f, letters) = n.format();
        assert_eq!(f.notation(letters).as_str(), n.notation());
    }
}

#[test]
fn static_equals_runtime() {
    const S: [isize; 4] = StaticShape::<Nhwc, ImageDims<1, 64, 5, 4>>::STRIDES;
    assert_eq!(S, [1280, 1, 256, 64]);
    assert_eq!(S, Shape::<Nhwc>::new([1, 64, 5, 4]).unwrap().strides());
    const V: [isize; 4] = StaticShape::<NcxHwx<32>, ImageDims<2, 64, 5, 4>>::GROUP_STRIDES;
    assert_eq!(V, Shape::<NcxHwx<32>>::new([2, 64, 5, 4]).unwrap().group_strides());
    assert_eq!(StaticShape::<Bmn<ColMajor>, MatmulDims<2, 3, 4>>::STRIDES, [12, 1, 3]);
    assert_eq!(StaticShape::<Ndhwc, VolumeDims<1, 2, 3, 4, 5>>::LEN, 120);
}

#[test]
fn layouts_are_zero_sized() {
    assert_eq!(core::mem::size_of::<Nchw>(), 0);
    assert_eq!(core::mem::size_of::<NcxHwx<32>>(), 0);
    assert_eq!(core::mem::size_of::<Bmn<RowMajor>>(), 0);
}
