//! The guide's rules, applied to each declaration by calling layout-types (the runtime parser's
//! own `const fn`s), and the one place where a rejected spec becomes a `syn::Error`.

use layout_types::{check_family_letters, BuiltinFamily};
use layout_types::{Format, NotationError, NotationErrorKind};
use syn::{LitStr, Path};

use crate::parse::{FamilyDecl, Input, Item, LayoutDecl};

/// A declaration after validation: what to emit, and whether it is the real thing or a
/// placeholder standing in for a rejected one.
pub(crate) enum Checked<'a> {
    Family { decl: &'a FamilyDecl, letters: Letters },
    Layout { decl: &'a LayoutDecl, family: FamilyRef, verdict: Verdict },
}

/// Letters of a declared family: the real ones, or a placeholder of the nearest legal rank when
/// they break a rule (so the family still implements `Family` and no error cascades).
pub(crate) enum Letters {
    Valid(String),
    Placeholder(usize),
}

/// The family a layout is declared for.
pub(crate) enum FamilyRef {
    /// A built-in family, stated (`: Image`) or inferred from the letters.
    Builtin { family: BuiltinFamily, path: Option<Path> },
    /// A family declared in the same invocation.
    Local { path: Path, letters: Option<String> },
    /// Any other path: its letters are unknown here, so the spec is checked in `const`
    /// evaluation instead (a backstop `cargo check` still reports).
    Foreign(Path),
}

impl FamilyRef {
    /// The family's letters, when known at expansion time.
    pub(crate) fn letters(&self) -> Option<&str> {
        match self {
            FamilyRef::Builtin { family, .. } => Some(family.letters()),
            FamilyRef::Local { letters, .. } => letters.as_deref(),
            FamilyRef::Foreign(_) => None,
        }
    }
}

/// What validation concluded about a layout's spec.
pub(crate) enum Verdict {
    /// Checked here and legal.
    Valid,
    /// Broke a rule, or its family did (the error is reported): emit a placeholder layout.
    Rejected,
    /// Not checkable here: a family from elsewhere, checked in `const` evaluation.
    Deferred,
}

/// Validates every declaration, collecting all errors.
pub(crate) fn validate(input: &Input) -> (Vec<Checked<'_>>, Option<syn::Error>) {
    let mut errors: Option<syn::Error> = None;
    let mut report = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut locals: Vec<(String, Option<String>)> = Vec::new();
    let mut checked = Vec::new();
    for item in &input.items {
        match item {
            Item::Family(decl) => {
                let value = decl.letters.value();
                let letters = match check_family_letters(&value) {
                    Ok(()) => Letters::Valid(value.clone()),
                    Err(e) => {
                        report(notation_error(
                            &decl.letters,
                            &e,
                            "family letters",
                            &format!("family `{}` lists its letters in logical order", decl.name),
                        ));
                        Letters::Placeholder(
                            value.len().clamp(layout_types::MIN_RANK, layout_types::MAX_RANK),
                        )
                    }
                };
                let known = matches!(letters, Letters::Valid(_)).then_some(value);
                locals.push((decl.name.to_string(), known));
                checked.push(Checked::Family { decl, letters });
            }
            Item::Layout(decl) => {
                let family = resolve_family(decl, &locals);
                let spec = decl.spec.value();
                let verdict = match (&family, family.letters()) {
                    (_, Some(letters)) => match Format::parse(&spec, letters) {
                        Ok(_) => Verdict::Valid,
                        Err(e) => {
                            let mut context = family_note(&family);
                            if e.kind() == NotationErrorKind::MissingLetter {
                                let missing: String =
                                    letters.chars().filter(|&l| !spec.contains(l)).collect();
                                context = format!("missing letters: {missing}\n  = {context}");
                            }
                            report(notation_error(&decl.spec, &e, "layout", &context));
                            Verdict::Rejected
                        }
                    },
                    // The family's own error is reported; a placeholder avoids a cascade.
                    (FamilyRef::Local { .. }, None) => Verdict::Rejected,
                    (_, None) => Verdict::Deferred,
                };
                checked.push(Checked::Layout { decl, family, verdict });
            }
        }
    }
    (checked, errors)
}

fn resolve_family(decl: &LayoutDecl, locals: &[(String, Option<String>)]) -> FamilyRef {
    let Some(path) = &decl.family else {
        return FamilyRef::Builtin { family: BuiltinFamily::for_spec(&decl.spec.value()), path: None };
    };
    if let Some(ident) = path.get_ident() {
        if let Some((_, letters)) = locals.iter().find(|(name, _)| ident == name) {
            return FamilyRef::Local { path: path.clone(), letters: letters.clone() };
        }
    }
    let last = path.segments.last().map(|s| s.ident.to_string());
    match BuiltinFamily::ALL.into_iter().find(|f| last.as_deref() == Some(f.name())) {
        Some(family) => FamilyRef::Builtin { family, path: Some(path.clone()) },
        None => FamilyRef::Foreign(path.clone()),
    }
}

fn family_note(family: &FamilyRef) -> String {
    let spelled = |letters: &str| letters.chars().map(String::from).collect::<Vec<_>>().join(", ");
    match family {
        FamilyRef::Builtin { family, path: None } => format!(
            "family `{}` ({} in logical order), inferred from the letters; state another with `struct Name: Family = \"…\"`",
            family.name(),
            spelled(family.letters())
        ),
        FamilyRef::Builtin { family, path: Some(_) } => {
            format!("family `{}` ({} in logical order)", family.name(), spelled(family.letters()))
        }
        FamilyRef::Local { path, letters } => format!(
            "family `{}` ({} in logical order)",
            quote::quote!(#path),
            spelled(letters.as_deref().unwrap_or(""))
        ),
        FamilyRef::Foreign(path) => format!("family `{}`", quote::quote!(#path)),
    }
}

/// The one mapping from a rejected spec to a compile error: spanned on the literal, worded with
/// the rule, the spec with the offending bytes marked, and the guide's section.
pub(crate) fn notation_error(lit: &LitStr, e: &NotationError, what: &str, context: &str) -> syn::Error {
    let spec = lit.value();
    syn::Error::new(lit.span(), format!("invalid {what} \"{spec}\": {}\n  = {context}", e.explain(&spec)))
}
