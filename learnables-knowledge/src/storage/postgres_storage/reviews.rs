//! The records of proposals (`learnables_reviews`): appending one at its
//! proposal's next number, which the table's key makes the step of one
//! reviewer only, and reading back those a listing or a decision needs.

use postgres::types::Type;

use super::super::StoreError;
use super::connection::{Check, Connection, Failure, explain};
use crate::{ReviewRecord, ReviewsOf, StoreReason};

/// Stores `record` if it is its proposal's next: `Ok(true)`; `Ok(false)`
/// when the proposal has another record at that number, or fewer records
/// than the number (nothing stored).
pub(super) fn append(connection: &Connection, record: &ReviewRecord) -> Result<(), StoreError> {
    let json = serde_json::to_string(record).map_err(|error| {
        StoreError::Failed(format!("a proposal's record could not be written: {error}").into())
    })?;
    let seq = i32::try_from(record.seq).map_err(|_| {
        StoreError::Failed("a proposal has more records than a back end keeps".into())
    })?;
    let decides = crate::storage::decides(record);
    let makes_version = crate::storage::makes_version(record);
    // Whole milliseconds as seconds: exact in a float8.
    let at = record.at_ms as f64 / 1000.0;
    let insert = |session: &mut super::connection::Session| {
        session.client.execute_typed(
            "INSERT INTO learnables_reviews (proposal_id, seq, collection, entry, teacher, at, \
             record, decides, makes_version) \
             SELECT $1, $2, $3, $4, $5, to_timestamp($6), $7::json, $8, $9 \
             WHERE (SELECT count(*) FROM learnables_reviews WHERE proposal_id = $1) = $2 \
             ON CONFLICT DO NOTHING",
            &[
                (&record.proposal_id, Type::TEXT),
                (&seq, Type::INT4),
                (&record.collection, Type::TEXT),
                (&record.entry, Type::TEXT),
                (&record.teacher, Type::TEXT),
                (&at, Type::FLOAT8),
                (&json, Type::TEXT),
                (&decides, Type::BOOL),
                (&makes_version, Type::TEXT),
            ],
        )
    };
    // A write whose answer was lost is looked for: stored if its record is.
    let mut stored = |client: &mut postgres::Client| -> Result<bool, postgres::Error> {
        let row = client.query_typed_one(
            "SELECT count(*) FROM learnables_reviews \
             WHERE proposal_id = $1 AND seq = $2 AND record::jsonb = $3::jsonb",
            &[
                (&record.proposal_id, Type::TEXT),
                (&seq, Type::INT4),
                (&json, Type::TEXT),
            ],
        )?;
        Ok(row.try_get::<_, i64>(0)? > 0)
    };
    let check: &mut Check<'_> = &mut stored;
    match connection.run(insert, Some((check, 1))) {
        Ok(1) => Ok(()),
        Ok(_) => {
            let found = count(connection, &record.proposal_id).unwrap_or(0);
            Err(StoreError::Conflict {
                expected: u64::from(record.seq),
                found,
            })
        }
        Err(failure) => Err(failed(connection, "storing a proposal's record", failure)),
    }
}

/// How many records the proposal has.
fn count(connection: &Connection, proposal_id: &str) -> Result<u64, Failure> {
    connection.run(
        |session| {
            let row = session.client.query_typed_one(
                "SELECT count(*) FROM learnables_reviews WHERE proposal_id = $1",
                &[(&proposal_id, Type::TEXT)],
            )?;
            Ok(u64::try_from(row.try_get::<_, i64>(0)?).unwrap_or(0))
        },
        None,
    )
}

/// Every record, each proposal's in number order, proposals in the order
/// they were made.
pub(super) fn load(connection: &Connection) -> Result<Vec<ReviewRecord>, StoreError> {
    select(connection, "TRUE", &[])
}

/// The records of the proposals `which` selects, read by the indexes
/// that migration 5 made.
pub(super) fn load_of(
    connection: &Connection,
    which: ReviewsOf<'_>,
) -> Result<Vec<ReviewRecord>, StoreError> {
    match which {
        ReviewsOf::Proposal(id) => select(connection, "r.proposal_id = $1", &[id]),
        ReviewsOf::Entry { collection, entry } => select(
            connection,
            "r.collection = $1 AND r.entry = $2",
            &[collection, entry],
        ),
        ReviewsOf::Undecided => select(
            connection,
            "NOT EXISTS (SELECT 1 FROM learnables_reviews d \
             WHERE d.proposal_id = r.proposal_id AND d.decides)",
            &[],
        ),
        ReviewsOf::MakingVersion(version) => select(
            connection,
            "r.proposal_id = (SELECT m.proposal_id FROM learnables_reviews m \
             WHERE m.makes_version = $1 LIMIT 1)",
            &[version],
        ),
    }
}

/// The records `condition` (on `r`, with `texts` as `$1`, `$2`, ...)
/// keeps, each proposal's in number order, proposals in the order they
/// were made.
fn select(
    connection: &Connection,
    condition: &str,
    texts: &[&str],
) -> Result<Vec<ReviewRecord>, StoreError> {
    let location = &connection.location;
    let query = format!(
        "SELECT r.record::text FROM learnables_reviews r \
         JOIN learnables_reviews p ON p.proposal_id = r.proposal_id AND p.seq = 0 \
         WHERE {condition} ORDER BY p.at, p.proposal_id, r.seq"
    );
    let rows = connection
        .run(
            |session| {
                let params: Vec<(&(dyn postgres::types::ToSql + Sync), Type)> = texts
                    .iter()
                    .map(|text| (text as &(dyn postgres::types::ToSql + Sync), Type::TEXT))
                    .collect();
                session.client.query_typed(&query, &params)
            },
            None,
        )
        .map_err(|failure| failed(connection, "reading the proposals", failure))?;
    rows.iter()
        .map(|row| {
            let json: String = row.try_get(0).map_err(|error| {
                StoreError::Damaged(StoreReason::with_source(
                    format!(
                        "a proposal's record in {location} cannot be read: {}",
                        explain(&error)
                    ),
                    error,
                ))
            })?;
            serde_json::from_str(&json).map_err(|error| {
                StoreError::Damaged(
                    format!("a proposal's record in {location} cannot be read: {error}").into(),
                )
            })
        })
        .collect()
}

fn failed(connection: &Connection, what: &str, failure: Failure) -> StoreError {
    match failure {
        Failure::Lost(error) | Failure::Refused(error) => {
            StoreError::Failed(StoreReason::with_source(
                format!(
                    "{what} in {} failed: {}",
                    connection.location,
                    explain(&error)
                ),
                error,
            ))
        }
        Failure::Unknown(why, error) => StoreError::OutcomeUnknown(StoreReason::with_source(
            format!(
                "{what} in {}: the connection was lost and whether it was stored is unknown \
                 ({why})",
                connection.location
            ),
            error,
        )),
    }
}
