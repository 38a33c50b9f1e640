//! The parser against every rule of the notation.

use super::*;
use NotationErrorKind as K;

const NCHW: &str = "NCHW";

fn kind(spec: &str) -> NotationErrorKind {
    Format::parse(spec, NCHW).unwrap_err().kind()
}

#[test]
fn accepts_and_prints_back() {
    for spec in ["NCHW", "NHWC", "CHWN", "CNHW", "NC/32HW32", "NC/4HW4", "NC/1HW1", "NHWC/8"] {
        match Format::parse(spec, NCHW) {
            Ok(f) => assert_eq!(f.notation(NCHW).as_str(), spec),
            Err(e) => assert_eq!(spec, "NHWC/8", "{spec}: {e}"),
        }
    }
    assert_eq!(Format::parse("NC/32DHW32", "NCDHW").unwrap().notation("NCDHW").as_str(), "NC/32DHW32");
}

#[test]
fn order_is_logical_indices_outer_first() {
    assert_eq!(Format::parse("NHWC", NCHW).unwrap().order(), &[0, 2, 3, 1]);
    assert_eq!(Format::parse("CHWN", NCHW).unwrap().order(), &[1, 2, 3, 0]);
}

#[test]
fn each_rule_has_its_error() {
    assert_eq!(kind(""), K::Empty);
    assert_eq!(kind("NC-HW"), K::UnexpectedChar);
    assert_eq!(kind("NcHW"), K::LowercaseLetter);
    assert_eq!(kind("NCHX"), K::UnknownLetter);
    assert_eq!(kind("NCHWW"), K::RepeatedLetter);
    assert_eq!(kind("NCH"), K::MissingLetter);
    assert_eq!(kind("/32NCHW32"), K::SlashWithoutLetter);
    assert_eq!(kind("NC/HW"), K::VectorWidthMissing);
    assert_eq!(kind("NC/0HW0"), K::VectorWidthZero);
    assert_eq!(kind("NC/99999999999999999999999HW1"), K::VectorWidthOverflow);
    assert_eq!(kind("NC/4H/4W4"), K::SecondVector);
    assert_eq!(kind("NCH/4W4"), K::GroupedNotChannel);
    assert_eq!(kind("NC/32HW"), K::VectorSuffixMissing);
    assert_eq!(kind("NC/32HW4"), K::VectorSuffixMismatch);
    assert_eq!(kind("N4CHW"), K::UnexpectedNumber);
    assert_eq!(kind("NC/4HW4x"), K::TrailingCharacters);
    assert_eq!(Format::parse("AB", "AB").unwrap_err().kind(), K::FamilyLetters);
    assert_eq!(kind("NHWC, -packed"), K::PackedEmpty);
    assert_eq!(kind("NHWC, WC"), K::PackedSuffixMissing);
    assert_eq!(kind("NHWC, WC-pack"), K::PackedSuffixMissing);
    assert_eq!(kind("NHWC, DC-packed"), K::PackedLetterNotInFormat);
    assert_eq!(kind("NHWC, CW-packed"), K::PackedOutOfOrder);
    assert_eq!(kind("NHWC, WWC-packed"), K::PackedRepeated);
    assert_eq!(kind("NHWC, wC-packed"), K::LowercaseLetter);
    assert_eq!(kind("NHWC, W C-packed"), K::UnexpectedChar);
}

#[test]
fn packing_clause() {
    let rows = Format::parse("NHWC, WC-packed", NCHW).unwrap();
    assert_eq!(rows.packed(), &[false, true, false, true]);
    assert!(!rows.is_fully_packed());
    assert_eq!(rows.notation(NCHW).as_str(), "NHWC, WC-packed");
    // Spaces after the comma are optional; every letter packed is the fully packed format.
    assert_eq!(Format::parse("NHWC,WC-packed", NCHW), Ok(rows));
    assert_eq!(Format::parse("NHWC, NHWC-packed", NCHW), Format::parse("NHWC", NCHW));
    let n_only = Format::parse("NC/4HW4, N-packed", NCHW).unwrap();
    assert_eq!(n_only.notation(NCHW).as_str(), "NC/4HW4, N-packed");
    assert_eq!(Format::parse("NHWC, DC-packed", NCHW).unwrap_err().span(), (6, 7));
}

#[test]
fn error_positions_point_at_the_token() {
    assert_eq!(Format::parse("NC/32HW4", NCHW).unwrap_err().span(), (7, 8));
    assert_eq!(Format::parse("NCHWW", NCHW).unwrap_err().span(), (4, 5));
}

#[test]
fn with_vector_matches_parsing() {
    let built = Format::parse("NCHW", NCHW).unwrap().with_vector(1, 32).unwrap();
    assert_eq!(built, Format::parse("NC/32HW32", NCHW).unwrap());
    assert_eq!(
        Format::parse("NCHW", NCHW).unwrap().with_vector(1, 0).unwrap_err().kind(),
        K::VectorWidthZero
    );
}
