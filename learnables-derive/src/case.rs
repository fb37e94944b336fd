//! Renaming identifiers into choice strings: `rename_all` and its default.

/// A renaming rule of `rename_all`, as serde's `RenameRule`: one table of
/// rules and their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    KebabCase,
    LowerCaseWords,
    TitleCase,
    SnakeCase,
    CamelCase,
    PascalCase,
    LowerCase,
    UpperCase,
    ScreamingSnakeCase,
    ScreamingKebabCase,
}

impl RenameRule {
    /// Every rule with the name `rename_all` takes for it.
    pub const ALL: &'static [(&'static str, RenameRule)] = &[
        ("kebab-case", RenameRule::KebabCase),
        ("lower case", RenameRule::LowerCaseWords),
        ("Title Case", RenameRule::TitleCase),
        ("snake_case", RenameRule::SnakeCase),
        ("camelCase", RenameRule::CamelCase),
        ("PascalCase", RenameRule::PascalCase),
        ("lowercase", RenameRule::LowerCase),
        ("UPPERCASE", RenameRule::UpperCase),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnakeCase),
        ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebabCase),
    ];

    /// The rule of that name.
    pub fn from_name(name: &str) -> Option<RenameRule> {
        RenameRule::ALL
            .iter()
            .find(|(rule_name, _)| *rule_name == name)
            .map(|(_, rule)| *rule)
    }

    /// The names, for a message.
    pub fn names() -> Vec<&'static str> {
        RenameRule::ALL.iter().map(|(name, _)| *name).collect()
    }

    /// The rules `#[learnable(rename_all)]` takes for field names: serde's,
    /// with serde's names.
    pub const FIELD_RULES: &'static [RenameRule] = &[
        RenameRule::LowerCase,
        RenameRule::UpperCase,
        RenameRule::PascalCase,
        RenameRule::CamelCase,
        RenameRule::SnakeCase,
        RenameRule::ScreamingSnakeCase,
        RenameRule::KebabCase,
        RenameRule::ScreamingKebabCase,
    ];

    /// The rule of that name among [`RenameRule::FIELD_RULES`].
    pub fn field_rule(name: &str) -> Option<RenameRule> {
        RenameRule::from_name(name).filter(|rule| RenameRule::FIELD_RULES.contains(rule))
    }

    /// The names of [`RenameRule::FIELD_RULES`], for a message.
    pub fn field_names() -> Vec<&'static str> {
        RenameRule::ALL
            .iter()
            .filter(|(_, rule)| RenameRule::FIELD_RULES.contains(rule))
            .map(|(name, _)| *name)
            .collect()
    }

    /// Renames a snake_case field name (without `r#`) as serde's
    /// `rename_all` does, so that a type serde and this derive both read
    /// gets the same names from both.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            RenameRule::LowerCase | RenameRule::SnakeCase => field.to_owned(),
            RenameRule::UpperCase | RenameRule::ScreamingSnakeCase => field.to_ascii_uppercase(),
            RenameRule::PascalCase => {
                let mut pascal = String::with_capacity(field.len());
                let mut capitalize = true;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.extend(c.to_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(c);
                    }
                }
                pascal
            }
            RenameRule::CamelCase => {
                let pascal = RenameRule::PascalCase.apply_to_field(field);
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map(|first| first.to_lowercase().chain(chars).collect())
                    .unwrap_or_default()
            }
            RenameRule::KebabCase => field.replace('_', "-"),
            RenameRule::ScreamingKebabCase => field.to_ascii_uppercase().replace('_', "-"),
            // Not field rules (see `FIELD_RULES`): as for a variant.
            RenameRule::LowerCaseWords | RenameRule::TitleCase => self.apply(field),
        }
    }

    /// Renames a Rust identifier (without `r#`).
    pub fn apply(self, ident: &str) -> String {
        let words = words(ident);
        let joined = |f: &dyn Fn(&str) -> String, sep: &str| {
            words
                .iter()
                .map(|word| f(word))
                .collect::<Vec<_>>()
                .join(sep)
        };
        let lower = |w: &str| w.to_lowercase();
        let upper = |w: &str| w.to_uppercase();
        match self {
            RenameRule::KebabCase => joined(&lower, "-"),
            RenameRule::LowerCaseWords => joined(&lower, " "),
            RenameRule::TitleCase => joined(&capitalized, " "),
            RenameRule::SnakeCase => joined(&lower, "_"),
            RenameRule::CamelCase => {
                let pascal = joined(&capitalized, "");
                let mut chars = pascal.chars();
                chars
                    .next()
                    .map(|first| first.to_lowercase().chain(chars).collect())
                    .unwrap_or_default()
            }
            RenameRule::PascalCase => joined(&capitalized, ""),
            RenameRule::LowerCase => joined(&lower, ""),
            RenameRule::UpperCase => joined(&upper, ""),
            RenameRule::ScreamingSnakeCase => joined(&upper, "_"),
            RenameRule::ScreamingKebabCase => joined(&upper, "-"),
        }
    }
}

fn capitalized(word: &str) -> String {
    let lower = word.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Splits `DangerousGoods`, `HTTPServer`, `cold_chain` into words: a new
/// word at `_`, before an upper-case letter that follows a lower-case one or
/// a digit, and before the last capital of a run that a lower-case letter follows.
fn words(ident: &str) -> Vec<String> {
    let chars: Vec<char> = ident.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (index, &c) in chars.iter().enumerate() {
        if c == '_' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let previous = index.checked_sub(1).map(|i| chars[i]);
        let next = chars.get(index + 1).copied();
        let starts_word = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if starts_word && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.push(c);
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    fn rename(ident: &str, rule: &str) -> Option<String> {
        RenameRule::from_name(rule).map(|rule| rule.apply(ident))
    }

    #[test]
    fn kebab_case_is_the_default_style() {
        assert_eq!(
            rename("DangerousGoods", "kebab-case").unwrap(),
            "dangerous-goods"
        );
        assert_eq!(rename("HTTPServer", "kebab-case").unwrap(), "http-server");
        assert_eq!(rename("Chapter84", "kebab-case").unwrap(), "chapter84");
        assert_eq!(rename("General", "kebab-case").unwrap(), "general");
    }

    #[test]
    fn every_rule_renames() {
        let cases = [
            ("lower case", "cold chain"),
            ("Title Case", "Cold Chain"),
            ("snake_case", "cold_chain"),
            ("camelCase", "coldChain"),
            ("PascalCase", "ColdChain"),
            ("lowercase", "coldchain"),
            ("UPPERCASE", "COLDCHAIN"),
            ("SCREAMING_SNAKE_CASE", "COLD_CHAIN"),
            ("SCREAMING-KEBAB-CASE", "COLD-CHAIN"),
        ];
        for (rule, expected) in cases {
            assert_eq!(rename("ColdChain", rule).unwrap(), expected, "{rule}");
        }
        assert_eq!(rename("ColdChain", "Sentence"), None);
    }

    #[test]
    fn fields_are_renamed_as_serde_renames_them() {
        let cases = [
            ("lowercase", "review_after"),
            ("UPPERCASE", "REVIEW_AFTER"),
            ("PascalCase", "ReviewAfter"),
            ("camelCase", "reviewAfter"),
            ("snake_case", "review_after"),
            ("SCREAMING_SNAKE_CASE", "REVIEW_AFTER"),
            ("kebab-case", "review-after"),
            ("SCREAMING-KEBAB-CASE", "REVIEW-AFTER"),
        ];
        for (rule, expected) in cases {
            let rule = RenameRule::field_rule(rule).unwrap();
            assert_eq!(rule.apply_to_field("review_after"), expected);
        }
        assert_eq!(
            RenameRule::CamelCase.apply_to_field("amount_eur_2"),
            "amountEur2"
        );
        assert_eq!(RenameRule::field_rule("Title Case"), None);
        assert_eq!(RenameRule::field_names().len(), 8);
    }

    #[test]
    fn snake_case_variants_split_at_underscores() {
        assert_eq!(rename("cold_chain", "kebab-case").unwrap(), "cold-chain");
    }
}
