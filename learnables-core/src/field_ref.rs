//! Typed references to a learnable's lesson fields.

use std::fmt;
use std::marker::PhantomData;

/// The lesson field of learnable `L` whose values are `V`s. The derive
/// generates one per field, as `L::FIELDS.<field>`; there is no other way
/// to make one, so code holding a `FieldRef<L, V>` names a field `L` has.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldRef, Learnable};
/// # #[derive(Learnable)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{chapter}")]
/// # struct RoutingRule { #[learnable(label = "HS chapter")] chapter: u8,
/// #     #[learnable(label = "Note", rename = "brokerNote")] note: Option<String> }
/// let chapter: FieldRef<RoutingRule, u8> = RoutingRule::FIELDS.chapter;
/// assert_eq!(chapter.name(), "chapter");
/// assert_eq!(RoutingRule::FIELDS.note.name(), "brokerNote");
/// ```
pub struct FieldRef<L, V> {
    name: &'static str,
    _types: PhantomData<fn() -> (L, V)>,
}

impl<L, V> FieldRef<L, V> {
    /// For the derive only.
    #[doc(hidden)]
    pub const fn __from_derive(name: &'static str) -> FieldRef<L, V> {
        FieldRef {
            name,
            _types: PhantomData,
        }
    }

    /// The field's name: its key in a lesson value.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

impl<L, V> Clone for FieldRef<L, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L, V> Copy for FieldRef<L, V> {}

impl<L, V> fmt::Debug for FieldRef<L, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FieldRef({})", self.name)
    }
}
