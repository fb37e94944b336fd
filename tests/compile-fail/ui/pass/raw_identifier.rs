//! A raw identifier names its lesson field without the `r#`, in the
//! descriptor and in a `describes` template.

use learnables::{Choice, Learnable};

#[derive(Learnable, Debug, PartialEq)]
#[learnable(
    collection = "declarations",
    entry = "declaration",
    teaches = "Which form a declaration uses",
    how = "The declaration's type decides the form",
    decided_by = "rules",
    describes = "A {type} declaration, matched {r#match}, uses form {entry}"
)]
pub struct Declaration {
    /// Type
    pub r#type: Type,
    /// Match
    pub r#match: String,
}

#[derive(Choice, Debug, Clone, Copy, PartialEq)]
pub enum Type {
    Import,
    r#Export,
}

fn main() {
    let fields = &Declaration::descriptor().lesson_fields;
    assert_eq!(fields[0].name, "type");
    assert_eq!(fields[1].name, "match");
    assert_eq!(
        fields[0].choices.as_deref(),
        Some(&["import".to_owned(), "export".to_owned()][..])
    );
    let declaration = Declaration {
        r#type: Type::Export,
        r#match: "exactly".to_owned(),
    };
    assert_eq!(
        declaration.describes("C88"),
        "A export declaration, matched exactly, uses form C88"
    );
    let value = declaration.to_lesson_value();
    assert_eq!(Declaration::from_lesson_value(&value).unwrap(), declaration);
}
