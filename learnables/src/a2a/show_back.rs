//! What the show-back method answers: an entry as the agent learned it.
//!
//! The public spec names the operation but not its shape; this is our
//! reading: the entry in the learnable's own lessonFields form, each field's
//! `default` the learned value (the form that would teach it again, as the
//! learnable renders it, so that no client reads the opaque lesson value),
//! its `describes` phrasing, and the ids of the version that taught it.

use serde::{Deserialize, Serialize};

use crate::LessonField;
use crate::knowledge::{Snapshot, VersionRecord};

/// The params of `rsaxb.learnables.ShowBack`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShowBackParams {
    /// The collection.
    pub collection: String,
    /// The entry.
    pub entry: String,
    /// Show the entry as of this version rather than now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
}

/// An entry as learned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowBack {
    /// The collection.
    pub collection: String,
    /// The entry.
    pub entry: String,
    /// The learnable's phrasing of what the entry now means.
    pub describes: String,
    /// The fields as a teach form shows them, each field's `default` the
    /// learned value (none for a field the entry has no value for).
    pub lesson_fields: Vec<LessonField>,
    /// The collection version that taught the entry its value.
    pub definition_version: u64,
    /// That version's id.
    pub version_id: String,
    /// The id of the version before it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version_id: Option<String>,
    /// The collection's latest version in the knowledge shown.
    pub collection_version: u64,
    /// Who taught it.
    pub taught_by: String,
    /// Why, if they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When, as an RFC 3339 UTC timestamp.
    pub taught_at: String,
}

impl ShowBack {
    /// The show-back of the record that gave an entry its value, with the
    /// fields as its learnable shows them.
    pub fn of(
        lesson_fields: Vec<LessonField>,
        snapshot: &Snapshot,
        record: &VersionRecord,
    ) -> ShowBack {
        ShowBack {
            collection: record.collection.clone(),
            entry: record.entry.clone(),
            describes: record.describes.clone(),
            lesson_fields,
            definition_version: record.definition_version,
            version_id: record.version_id.clone(),
            previous_version_id: record.previous_version_id.clone(),
            collection_version: snapshot
                .version(&record.collection)
                .map_or(record.definition_version, |version| {
                    version.definition_version
                }),
            taught_by: record.taught_by.clone(),
            reason: record.reason.clone(),
            taught_at: rfc3339(record.taught_at_ms),
        }
    }
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn rfc3339(ms: u64) -> String {
    let seconds = ms / 1000;
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_796_000_000_000), "2026-11-30T00:53:20.000Z");
    }
}
