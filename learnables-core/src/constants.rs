//! The extension's fixed names.

/// The extension's URI, as the spec publishes it.
///
/// ```
/// # extern crate learnables_core as learnables;
/// assert_eq!(learnables::EXTENSION_URI, "https://rsaxb.com/a2a/learnables/v1");
/// ```
pub const EXTENSION_URI: &str = "https://rsaxb.com/a2a/learnables/v1";

/// The JSON-RPC method through which a lesson is taught.
pub const TEACH_METHOD: &str = "rsaxb.learnables.Teach";

/// The JSON-RPC method through which an entry is retracted, when the
/// declaration names it as its `retractMethod` (our addition to the spec).
pub const RETRACT_METHOD: &str = "rsaxb.learnables.Retract";

/// The JSON-RPC method through which a teacher approves or rejects a
/// proposed lesson of a reviewed learnable, when the declaration names it
/// as its `reviewMethod` (our addition to the spec).
///
/// ```
/// # extern crate learnables_core as learnables;
/// assert_eq!(learnables::REVIEW_METHOD, "rsaxb.learnables.Review");
/// ```
pub const REVIEW_METHOD: &str = "rsaxb.learnables.Review";

/// The JSON-RPC method through which an agent shows back what it learned.
pub const SHOW_BACK_METHOD: &str = "rsaxb.learnables.ShowBack";

/// The JSON-RPC method through which a teacher's tool asks whom its bearer
/// token names: `{"teacher": "alice@example.com"}`, under
/// the same activation and token as the other learnables methods, with no
/// params. The page signs in as that person and the command teaches in
/// their name, so nobody types who they are.
///
/// ```
/// # extern crate learnables_core as learnables;
/// assert_eq!(learnables::TEACHER_METHOD, "rsaxb.learnables.Teacher");
/// ```
pub const TEACHER_METHOD: &str = "rsaxb.learnables.Teacher";

/// The HTTP header that activates extensions (A2A v1.0).
pub const ACTIVATION_HEADER: &str = "A2A-Extensions";
