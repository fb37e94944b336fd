//! The shapes of a field's type the derive reads itself: a list
//! (`Vec<T>`), an optional value (`Option<T>`), a shared text
//! (`Box<str>`, `Arc<str>`, `Rc<str>`), each by its last segment's name.

use syn::{GenericArgument, PathArguments, Type};

/// Whether `ty` is `Box<str>`, `Arc<str>` or `Rc<str>` (by the last
/// segment's name): a text the support reads itself.
pub fn is_text_pointer(ty: &Type) -> bool {
    ["Box", "Arc", "Rc"].iter().any(|pointer| {
        matches!(generic_inner(ty, pointer), Some(Type::Path(inner))
            if inner.qself.is_none() && inner.path.is_ident("str"))
    })
}

/// `Some(T)` when `ty` is `Vec<T>` (also as `std::vec::Vec<T>`).
pub fn vec_inner(ty: &Type) -> Option<&Type> {
    generic_inner(ty, "Vec")
}

/// `Some(T)` when `ty` is `Option<T>` (also as `std::option::Option<T>`).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    generic_inner(ty, "Option")
}

/// `Some(T)` when `ty` is `{wrapper}<T>`, by its last segment's name.
fn generic_inner<'a>(ty: &'a Type, wrapper: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}
