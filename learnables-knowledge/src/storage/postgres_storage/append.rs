//! Appending a group of versions: one statement (one round trip) that
//! takes the table's write lock, checks the group follows on from the last
//! stored version, inserts it and notifies the other replicas; and, when
//! other replicas wrote first, a transaction that holds the lock while the
//! knowledge decides the group again on top of their versions, so that a
//! lesson is never refused because another replica wrote at the same time.

use std::cell::RefCell;
use std::sync::atomic::Ordering;
use std::time::{Duration, UNIX_EPOCH};

use postgres::types::Type;
use postgres::{GenericClient, Statement};

use super::super::{Redecide, StoreError};
use super::connection::{Connection, Failure, explain};
use super::listener::Signals;
use super::read::records_after;
use crate::StoreReason;
use crate::VersionRecord;

/// What an append did.
pub(super) enum Appended {
    Stored,
    /// The store's last position is not the one before the group's first:
    /// nothing was stored.
    Behind(u64),
}

/// Appends `records` in one statement, refusing (nothing stored) if they
/// do not follow on from the last stored version.
pub(super) fn append_once(
    connection: &Connection,
    signals: &Signals,
    records: &[VersionRecord],
) -> Result<Appended, StoreError> {
    let rows = Rows::of(records)?;
    let what = describe_group(records);
    let first = rows.position[0];
    let mut check = |client: &mut postgres::Client| stored(client, &rows.version_id[0]);
    let found = connection
        .run(
            |session| {
                let statement = session.append_statement()?;
                call_append(&mut session.client, &statement, &rows, &signals.writer)
            },
            Some((&mut check, first - 1)),
        )
        .map_err(|failure| failed(connection, signals, &what, failure))?;
    if found + 1 == first {
        Ok(Appended::Stored)
    } else {
        Ok(Appended::Behind(u64::try_from(found).unwrap_or(0)))
    }
}

/// Appends `records`, or, if other writers stored versions first, what
/// `redecide` makes of the group once given their versions, deciding while
/// holding the table's write lock.
pub(super) fn append_decided(
    connection: &Connection,
    signals: &Signals,
    records: Vec<VersionRecord>,
    redecide: &mut Redecide<'_>,
) -> Result<(), StoreError> {
    if records.is_empty() {
        return Ok(());
    }
    if let Appended::Stored = append_once(connection, signals, &records)? {
        return Ok(());
    }
    let group = RefCell::new(records);
    let what = describe_group(&group.borrow());
    let mut check = |client: &mut postgres::Client| match group.borrow().first() {
        Some(first) => stored(client, &first.version_id),
        None => Ok(false),
    };
    connection
        .run(
            |session| {
                let statement = session.append_statement()?;
                let mut transaction = session.client.transaction()?;
                transaction.batch_execute(
                    "SET LOCAL lock_timeout = '60s'; \
                     LOCK TABLE learnables_versions IN EXCLUSIVE MODE",
                )?;
                let after = group.borrow().first().map_or(0, |first| first.position - 1);
                let others = match records_after(&mut transaction, after, &connection.location)? {
                    Ok(others) => others,
                    Err(error) => return Ok(Err(error)),
                };
                let decided = match redecide(others) {
                    Ok(decided) => decided,
                    Err(error) => return Ok(Err(error)),
                };
                *group.borrow_mut() = decided;
                let group = group.borrow();
                if group.is_empty() {
                    return Ok(Ok(()));
                }
                let rows = match Rows::of(&group) {
                    Ok(rows) => rows,
                    Err(error) => return Ok(Err(error)),
                };
                let found = call_append(&mut transaction, &statement, &rows, &signals.writer)?;
                if found + 1 != rows.position[0] {
                    // The lock is held: only a table edited by hand gets here.
                    return Ok(Err(StoreError::Damaged(
                        format!(
                            "{what} in {}: the table moved to position {found} while its write \
                         lock was held; nothing was stored",
                            connection.location
                        )
                        .into(),
                    )));
                }
                transaction.commit()?;
                Ok(Ok(()))
            },
            Some((&mut check, Ok(()))),
        )
        .map_err(|failure| failed(connection, signals, &what, failure))?
}

/// Calls the append function (`statement`, prepared on the connection
/// `client` is or is in): the last position stored before the call (the
/// group was stored if and only if it is one before the first).
fn call_append(
    client: &mut impl GenericClient,
    statement: &Statement,
    rows: &Rows,
    writer: &str,
) -> Result<i64, postgres::Error> {
    client
        .query_one(
            statement,
            &[
                &writer,
                &rows.position,
                &rows.collection,
                &rows.definition_version,
                &rows.version_id,
                &rows.previous_version_id,
                &rows.entry,
                &rows.taught_by,
                &rows.taught_at,
                &rows.record,
            ],
        )?
        .try_get(0)
}

/// Whether the version `version_id` is stored, once any transaction
/// writing it has ended (a share lock waits for the write lock).
fn stored(client: &mut postgres::Client, version_id: &str) -> Result<bool, postgres::Error> {
    let mut transaction = client.transaction()?;
    transaction.batch_execute(
        "SET LOCAL lock_timeout = '120s'; \
         LOCK TABLE learnables_versions IN SHARE MODE",
    )?;
    let found = transaction.query_typed_opt(
        "SELECT 1 FROM learnables_versions WHERE version_id = $1",
        &[(&version_id, Type::TEXT)],
    )?;
    transaction.commit()?;
    Ok(found.is_some())
}

fn describe_group(records: &[VersionRecord]) -> String {
    let first = records.first().map_or(0, |record| record.position);
    match records.len() {
        1 => format!("storing the version at position {first}"),
        n => format!("storing {n} versions from position {first}"),
    }
}

/// The error for a failed append.
fn failed(connection: &Connection, signals: &Signals, what: &str, failure: Failure) -> StoreError {
    let location = &connection.location;
    match failure {
        Failure::Refused(error) => StoreError::Failed(StoreReason::with_source(
            format!(
                "{what} in {location} failed: {}; nothing was stored",
                explain(&error)
            ),
            error,
        )),
        Failure::Lost(error) => StoreError::Failed(StoreReason::with_source(
            format!(
                "{what} in {location} failed: the connection was lost ({}); nothing was stored",
                explain(&error)
            ),
            error,
        )),
        Failure::Unknown(why, error) => {
            // Its notification, if it was stored, was taken for this
            // storage's own: have the listeners look instead.
            signals.wake_soon.store(true, Ordering::Release);
            StoreError::OutcomeUnknown(StoreReason::with_source(
                format!(
                    "{what} in {location}: the connection was lost while committing ({}), and \
                 whether the versions were stored could not be checked ({why}); if they were, \
                 the knowledge picks them up from the database",
                    explain(&error)
                ),
                error,
            ))
        }
    }
}

/// A group of versions as the columns of `learnables_versions`.
pub(super) struct Rows {
    position: Vec<i64>,
    collection: Vec<String>,
    definition_version: Vec<i64>,
    version_id: Vec<String>,
    previous_version_id: Vec<Option<String>>,
    entry: Vec<String>,
    taught_by: Vec<String>,
    taught_at: Vec<std::time::SystemTime>,
    record: Vec<String>,
}

impl Rows {
    fn of(records: &[VersionRecord]) -> Result<Rows, StoreError> {
        let mut rows = Rows {
            position: Vec::with_capacity(records.len()),
            collection: Vec::with_capacity(records.len()),
            definition_version: Vec::with_capacity(records.len()),
            version_id: Vec::with_capacity(records.len()),
            previous_version_id: Vec::with_capacity(records.len()),
            entry: Vec::with_capacity(records.len()),
            taught_by: Vec::with_capacity(records.len()),
            taught_at: Vec::with_capacity(records.len()),
            record: Vec::with_capacity(records.len()),
        };
        for pair in records.windows(2) {
            if pair[1].position != pair[0].position + 1 {
                return Err(StoreError::Failed(
                    format!(
                        "a group of versions must hold consecutive positions, and position {} is \
                     followed by {}; nothing was stored",
                        pair[0].position, pair[1].position
                    )
                    .into(),
                ));
            }
        }
        for record in records {
            let too_large = |what: &str, value: u64| {
                StoreError::Failed(
                    format!("the {what} {value} is too large for PostgreSQL; nothing was stored")
                        .into(),
                )
            };
            let identifiers = [
                Some(&record.collection),
                Some(&record.version_id),
                record.previous_version_id.as_ref(),
            ];
            if identifiers
                .into_iter()
                .flatten()
                .any(|id| id.contains('\0'))
            {
                return Err(StoreError::Failed(
                    format!(
                        "the version at position {} names a collection or version id that holds \
                     the NUL character, which PostgreSQL text cannot hold; nothing was stored",
                        record.position
                    )
                    .into(),
                ));
            }
            rows.position.push(
                i64::try_from(record.position)
                    .map_err(|_| too_large("position", record.position))?,
            );
            rows.definition_version.push(
                i64::try_from(record.definition_version)
                    .map_err(|_| too_large("version number", record.definition_version))?,
            );
            rows.collection.push(record.collection.clone());
            rows.version_id.push(record.version_id.clone());
            rows.previous_version_id
                .push(record.previous_version_id.clone());
            // These two columns are for queries; the record keeps the exact
            // text, NUL characters included.
            rows.entry.push(record.entry.replace('\0', "\u{fffd}"));
            rows.taught_by
                .push(record.taught_by.replace('\0', "\u{fffd}"));
            rows.taught_at.push(
                UNIX_EPOCH
                    .checked_add(Duration::from_millis(record.taught_at_ms))
                    .unwrap_or(UNIX_EPOCH),
            );
            rows.record
                .push(serde_json::to_string(record).map_err(|error| {
                    StoreError::Failed(format!(
                        "the version at position {} cannot be written as JSON: {error}; nothing \
                     was stored",
                        record.position
                    ).into())
                })?);
        }
        Ok(rows)
    }
}
