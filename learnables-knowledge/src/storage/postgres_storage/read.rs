//! Reading versions back: the tail after a position, through the primary
//! key's index, each row checked against the record it holds.

use postgres::GenericClient;
use postgres::types::Type;

use super::super::StoreError;
use super::connection::explain;
use crate::StoreReason;
use crate::VersionRecord;

/// The versions after `position`, in position order: `Err` if the query
/// failed, `Ok(Err)` if a row cannot be read back as it was written.
pub(super) fn records_after(
    client: &mut impl GenericClient,
    position: u64,
    location: &str,
) -> Result<Result<Vec<VersionRecord>, StoreError>, postgres::Error> {
    let after = i64::try_from(position).unwrap_or(i64::MAX);
    let rows = client.query_typed(
        "SELECT position, collection, definition_version, version_id, record::text \
         FROM learnables_versions WHERE position > $1 ORDER BY position",
        &[(&after, Type::INT8)],
    )?;
    Ok(rows.iter().map(|row| record_of(row, location)).collect())
}

fn record_of(row: &postgres::Row, location: &str) -> Result<VersionRecord, StoreError> {
    let columns = || -> Result<(i64, String, i64, String, String), postgres::Error> {
        Ok((
            row.try_get(0)?,
            row.try_get(1)?,
            row.try_get(2)?,
            row.try_get(3)?,
            row.try_get(4)?,
        ))
    };
    let (position, collection, definition_version, version_id, json) =
        columns().map_err(|error| {
            StoreError::Damaged(StoreReason::with_source(
                format!(
                    "a version in {} cannot be read: {}",
                    location,
                    explain(&error)
                ),
                error,
            ))
        })?;
    let record: VersionRecord = serde_json::from_str(&json).map_err(|error| {
        StoreError::Damaged(
            format!(
                "the version at position {position} in {} cannot be read: {error}",
                location
            )
            .into(),
        )
    })?;
    let agrees = i64::try_from(record.position) == Ok(position)
        && record.collection == collection
        && i64::try_from(record.definition_version) == Ok(definition_version)
        && record.version_id == version_id;
    if !agrees {
        return Err(StoreError::Damaged(
            format!(
                "the version stored at position {position} in {} does not match its columns \
             (it says position {}, collection `{}`, version {} `{}`); was the table edited \
             by hand?",
                location,
                record.position,
                record.collection,
                record.definition_version,
                record.version_id
            )
            .into(),
        ));
    }
    Ok(record)
}
