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

/// Edit distance over characters, a swap of two neighbours counting as one
/// edit (optimal string alignment: `lable` is one edit from `label`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![(0..=b.len()).collect::<Vec<usize>>()];
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(row[j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            row[j] = best;
        }
        rows.push(row);
    }
    rows[a.len()][b.len()]
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
        assert_eq!(edit_distance("lable", "label"), 1);
    }

    #[test]
    fn the_nearest_wins_and_far_names_get_nothing() {
        assert_eq!(closest("dsk", ["desk", "disk_x"]), Some("desk"));
        assert_eq!(closest("zzzz", ["desk"]), None);
        assert_eq!(closest(&"x".repeat(100), ["desk"]), None);
    }
}
