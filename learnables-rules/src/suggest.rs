//! "Did you mean ...?": the known name closest to a misspelt one.

/// The candidate closest to `name`, if one is close enough to be a typo of
/// it (an edit distance of at most a third of the candidate's length).
///
/// ```
/// use learnables_rules::closest;
/// assert_eq!(closest("chaptr", ["chapter", "desk"]), Some("chapter"));
/// assert_eq!(closest("colour", ["chapter", "desk"]), None);
/// ```
pub fn closest<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if name.chars().count() > 64 {
        return None;
    }
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.chars().count() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("desk", "desk"), 0);
        assert_eq!(edit_distance("dsk", "desk"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn the_nearest_wins_and_far_names_get_nothing() {
        assert_eq!(closest("dsk", ["desk", "disk_x"]), Some("desk"));
        assert_eq!(closest("zzzz", ["desk"]), None);
        assert_eq!(closest(&"x".repeat(100), ["desk"]), None);
    }
}
