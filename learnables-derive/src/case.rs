//! Renaming identifiers into choice strings: `rename_all` and its default.

/// The renaming rules `rename_all` accepts, by name.
pub const RULES: &[&str] = &[
    "kebab-case",
    "lower case",
    "Title Case",
    "snake_case",
    "camelCase",
    "PascalCase",
    "lowercase",
    "UPPERCASE",
    "SCREAMING_SNAKE_CASE",
    "SCREAMING-KEBAB-CASE",
];

/// Renames a Rust identifier (without `r#`) by `rule`, one of [`RULES`];
/// `None` for an unknown rule.
pub fn rename(ident: &str, rule: &str) -> Option<String> {
    let words = words(ident);
    let lower = |w: &str| w.to_lowercase();
    let upper = |w: &str| w.to_uppercase();
    let joined = |f: &dyn Fn(&str) -> String, sep: &str| {
        words
            .iter()
            .map(|word| f(word))
            .collect::<Vec<_>>()
            .join(sep)
    };
    Some(match rule {
        "kebab-case" => joined(&lower, "-"),
        "lower case" => joined(&lower, " "),
        "Title Case" => joined(&capitalized, " "),
        "snake_case" => joined(&lower, "_"),
        "camelCase" => {
            let pascal = joined(&capitalized, "");
            let mut chars = pascal.chars();
            chars
                .next()
                .map(|first| first.to_lowercase().chain(chars).collect())
                .unwrap_or_default()
        }
        "PascalCase" => joined(&capitalized, ""),
        "lowercase" => joined(&lower, ""),
        "UPPERCASE" => joined(&upper, ""),
        "SCREAMING_SNAKE_CASE" => joined(&upper, "_"),
        "SCREAMING-KEBAB-CASE" => joined(&upper, "-"),
        _ => return None,
    })
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
    use super::rename;

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
    fn snake_case_variants_split_at_underscores() {
        assert_eq!(rename("cold_chain", "kebab-case").unwrap(), "cold-chain");
    }
}
