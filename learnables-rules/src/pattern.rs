//! What a field's `pattern` means: a regular expression of the `regex`
//! crate that a whole value must match. One function, so that the derive
//! (which refuses a pattern that does not compile, at compile time) and
//! the run-time check read a pattern alike.

/// The most memory a compiled pattern may take: a pattern from another
/// agent's descriptor is outside input.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// `pattern` compiled so that it matches a whole value only.
///
/// ```
/// let country = learnables_rules::whole_match("[A-Z]{2}").unwrap();
/// assert!(country.is_match("NL"));
/// assert!(!country.is_match("NLD"));
/// assert!(learnables_rules::whole_match("(").is_err());
/// ```
pub fn whole_match(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(&format!("^(?:{pattern})$"))
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
}
