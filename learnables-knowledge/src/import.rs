//! [`Knowledge::import`](crate::Knowledge::import): a file
//! [`Knowledge::export`](crate::Knowledge::export) wrote, loaded into
//! an empty knowledge on any back end, every id kept, each version checked
//! as a lesson would be, and each record of a proposal as a lesson or a
//! decision would be ([`imported_reviews`](crate::imported_reviews)).

use std::io::BufRead;

use serde::Deserialize;

use crate::export::{FORMAT, FORMAT_VERSION, VERSION_LINE};
use crate::imported_version::{Unfitting, check, describes};
use crate::off_runtime::off_runtime;
use crate::proposal::ReviewRecord;
use crate::proposal_lines::{REVIEW_LINE, read_line};
use crate::registry::Registry;
use crate::shared::Shared;
use crate::state::State;
use crate::{ImportError, UnreadableReport, VersionRecord};

/// The first line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    version: u64,
}

/// The last line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct End {
    end: String,
    versions: u64,
    #[serde(default)]
    reviews: u64,
}

/// Loads an export into the empty knowledge `shared`: see
/// [`Knowledge::import`](crate::Knowledge::import).
pub(crate) fn import(shared: &Shared, input: impl std::io::Read) -> Result<u64, ImportError> {
    let versions = shared.current().position();
    if versions != 0 {
        return Err(ImportError::NotEmpty { versions });
    }
    let registry = shared.registry();
    let input = std::io::BufReader::with_capacity(1 << 16, input);
    let (state, records, reviews) = read(input, &registry)?;
    let count = records.len() as u64;
    let writer = &shared.writer;
    match off_runtime(|| writer.import(state, &records))? {
        true => {
            for review in &reviews {
                off_runtime(|| writer.storage().append_review(review))?;
            }
            Ok(count)
        }
        false => Err(ImportError::NotEmpty {
            versions: shared.current().position(),
        }),
    }
}

/// Reads and checks a whole export, each version against the learnables
/// of `registry`: the state its versions make, and the versions.
fn read(
    mut input: impl BufRead,
    registry: &Registry,
) -> Result<(State, Vec<VersionRecord>, Vec<ReviewRecord>), ImportError> {
    let refused = |line: u64, reason: String| ImportError::Refused { line, reason };
    let mut line = Vec::with_capacity(1024);
    let mut number = 0;
    let mut next_line = |line: &mut Vec<u8>, number: &mut u64| -> Result<bool, ImportError> {
        line.clear();
        if input.read_until(b'\n', line)? == 0 {
            return Ok(false);
        }
        *number += 1;
        if line.pop() != Some(b'\n') {
            return Err(refused(
                *number,
                "the line is cut short (it has no line end): the file is not whole".to_owned(),
            ));
        }
        Ok(true)
    };
    if !next_line(&mut line, &mut number)? {
        return Err(refused(1, "the file is empty, not an export".to_owned()));
    }
    match serde_json::from_slice::<Header>(&line) {
        Ok(header) if header.format == FORMAT && header.version == FORMAT_VERSION => {}
        Ok(header) if header.format == FORMAT => {
            return Err(refused(
                1,
                format!(
                    "the export is of version {} of the format; this release reads version \
                     {FORMAT_VERSION}",
                    header.version
                ),
            ));
        }
        _ => {
            return Err(refused(
                1,
                format!(
                    "it does not start as a learnables export (`{{\"format\":\"{FORMAT}\"...`)"
                ),
            ));
        }
    }
    let mut state = State::default();
    let mut records = Vec::new();
    let mut record_lines = Vec::new();
    let mut reviews = Vec::new();
    let mut review_lines = Vec::new();
    let mut unreadable = UnreadableReport::default();
    let mut first_unreadable = None;
    loop {
        if !next_line(&mut line, &mut number)? {
            return Err(refused(
                number + 1,
                format!(
                    "the file ends without its last line (after {} versions): it is not whole",
                    records.len()
                ),
            ));
        }
        if line.starts_with(REVIEW_LINE) {
            let review = read_line(&line, &reviews).map_err(|reason| refused(number, reason))?;
            reviews.push(review);
            review_lines.push(number);
            continue;
        }
        if !reviews.is_empty() && line.starts_with(VERSION_LINE) {
            return Err(refused(
                number,
                "a version follows the records of proposals, which come last".to_owned(),
            ));
        }
        if !line.starts_with(VERSION_LINE) {
            let end: End = serde_json::from_slice(&line).map_err(|_| {
                refused(
                    number,
                    "it is neither a version nor the last line".to_owned(),
                )
            })?;
            if end.reviews != reviews.len() as u64 {
                return Err(refused(
                    number,
                    format!(
                        "the last line says {} records of proposals, the file holds {}",
                        end.reviews,
                        reviews.len()
                    ),
                ));
            }
            if end.end != FORMAT || end.versions != records.len() as u64 {
                return Err(refused(
                    number,
                    format!(
                        "the last line says {} versions, the file holds {}",
                        end.versions,
                        records.len()
                    ),
                ));
            }
            break;
        }
        let mut record = version(&line).map_err(|reason| refused(number, reason))?;
        state
            .follows_on(&record)
            .map_err(|reason| refused(number, format!("it does not follow on: {reason}")))?;
        match check(&record, registry, &mut unreadable) {
            Ok(()) => {
                if let Some(describes) = describes(&record, registry) {
                    record.describes = describes;
                }
            }
            Err(Unfitting::Field(field, reason)) => {
                return Err(ImportError::Invalid {
                    line: number,
                    field,
                    reason,
                });
            }
            Err(Unfitting::Unreadable) => {
                first_unreadable.get_or_insert(number);
            }
        }
        state.apply(&record);
        records.push(record);
        record_lines.push(number);
    }
    if next_line(&mut line, &mut number)? {
        return Err(refused(number, "lines follow the last line".to_owned()));
    }
    if let Some(line) = first_unreadable {
        return Err(ImportError::Unreadable {
            line,
            report: unreadable,
        });
    }
    crate::imported_reviews::check(
        &records,
        &record_lines,
        &mut reviews,
        &review_lines,
        registry,
    )?;
    Ok((state, records, reviews))
}

/// The version a version line holds, its checksum checked.
fn version(line: &[u8]) -> Result<VersionRecord, String> {
    crate::checked_line::checked_body(line, VERSION_LINE.len())?;
    serde_json::from_slice(line).map_err(|error| format!("it does not read as a version: {error}"))
}
