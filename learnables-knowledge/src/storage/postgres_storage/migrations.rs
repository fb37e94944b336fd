//! The schema of the PostgreSQL back end and the versioned migrations that
//! create and upgrade it, safely from any number of replicas at once.

use postgres::Client;
use postgres::types::Type;

/// The advisory lock that serializes migrations ("learnabl" in ASCII).
const MIGRATION_LOCK: i64 = 0x6c65_6172_6e61_626c;

/// The schema, one step per version: step `n` takes the schema from
/// version `n - 1` to `n`. Never edit a released step; add one.
/// A step that changes `learnables_append` keeps its arguments and uses
/// `CREATE OR REPLACE`: running replicas hold it prepared on their
/// connections (`connection.rs`), which a dropped function would break.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: the versions.
    "CREATE TABLE learnables_versions (
        position bigint PRIMARY KEY CHECK (position > 0),
        collection text NOT NULL,
        definition_version bigint NOT NULL CHECK (definition_version > 0),
        version_id text NOT NULL UNIQUE,
        previous_version_id text UNIQUE REFERENCES learnables_versions (version_id),
        entry text NOT NULL,
        taught_by text NOT NULL,
        taught_at timestamptz NOT NULL,
        record json NOT NULL,
        UNIQUE (collection, definition_version),
        CHECK ((definition_version = 1) = (previous_version_id IS NULL))
    );
    COMMENT ON TABLE learnables_versions IS
        'Every version of a learnables knowledge, in position order. Written only by the \
         learnables PostgreSQL back end; the record column is the version as written, the \
         other columns copy parts of it for constraints and queries.';",
    // 2: appends in one round trip, serialized by the table lock.
    "CREATE FUNCTION learnables_append(
        writer text, positions int8[], collections text[], definition_versions int8[],
        version_ids text[], previous_version_ids text[], entries text[], taught_bys text[],
        taught_ats timestamptz[], records text[]
    ) RETURNS int8 LANGUAGE plpgsql AS $function$
    DECLARE
        found int8;
    BEGIN
        PERFORM set_config('lock_timeout', '60s', true);
        LOCK TABLE learnables_versions IN EXCLUSIVE MODE;
        SELECT coalesce(max(position), 0) INTO found FROM learnables_versions;
        IF found + 1 <> positions[1] THEN
            RETURN found;
        END IF;
        INSERT INTO learnables_versions (position, collection, definition_version,
            version_id, previous_version_id, entry, taught_by, taught_at, record)
        SELECT g.position, g.collection, g.definition_version, g.version_id,
               g.previous_version_id, g.entry, g.taught_by, g.taught_at, g.record::json
        FROM unnest(positions, collections, definition_versions, version_ids,
                    previous_version_ids, entries, taught_bys, taught_ats, records)
             AS g(position, collection, definition_version, version_id, previous_version_id,
                  entry, taught_by, taught_at, record)
        ORDER BY g.position;
        PERFORM pg_notify('learnables_versions',
                          writer || ' ' || positions[array_upper(positions, 1)]);
        RETURN found;
    END
    $function$;
    COMMENT ON FUNCTION learnables_append(text, int8[], text[], int8[], text[], text[], text[],
        text[], timestamptz[], text[]) IS
        'Appends a group of versions of a learnables knowledge if its first position is one \
         past the last stored, holding the table''s EXCLUSIVE lock; returns the last position \
         stored before (the group was stored if and only if it is one before the first).';",
    // 3: retractions, queryable: a version that retracts its entry says so
    // in its record; this column copies it (false for every version
    // written before).
    "ALTER TABLE learnables_versions ADD COLUMN retracted boolean NOT NULL
        GENERATED ALWAYS AS (coalesce((record ->> 'retracted')::boolean, false)) STORED;
    COMMENT ON COLUMN learnables_versions.retracted IS
        'Whether the version retracts its entry (copied from the record).';",
    // 4: proposals waiting for review, and their approvals and
    // rejections: one row per record, numbered per proposal from 0 with no
    // gap, so that two reviewers never take the same step.
    "CREATE TABLE learnables_reviews (
        proposal_id text NOT NULL,
        seq integer NOT NULL CHECK (seq >= 0),
        collection text NOT NULL,
        entry text NOT NULL,
        teacher text NOT NULL,
        at timestamptz NOT NULL,
        record json NOT NULL,
        PRIMARY KEY (proposal_id, seq)
    );
    COMMENT ON TABLE learnables_reviews IS
        'The records of proposals of a learnables knowledge (a lesson waiting for review, \
         each approval, a rejection), numbered per proposal. Written only by the learnables \
         PostgreSQL back end; the record column is the record as written, the other columns \
         copy parts of it.';",
    // 5: what a listing or a decision reads is found without reading every
    // record: a proposal's entry, whether a record decides its proposal,
    // the version an approval makes.
    "ALTER TABLE learnables_reviews
        ADD COLUMN decides boolean NOT NULL DEFAULT false,
        ADD COLUMN makes_version text;
    UPDATE learnables_reviews SET
        makes_version = record->'event'->>'makesVersion',
        decides = (record->'event'->>'kind' = 'rejected'
                   OR record->'event'->>'makesVersion' IS NOT NULL);
    CREATE INDEX learnables_reviews_entry ON learnables_reviews (collection, entry);
    CREATE INDEX learnables_reviews_decided ON learnables_reviews (proposal_id) WHERE decides;
    CREATE INDEX learnables_reviews_makes ON learnables_reviews (makes_version)
        WHERE makes_version IS NOT NULL;",
];

/// Why migrating failed.
pub(super) enum Migration {
    Sql(postgres::Error),
    /// The database is at a schema version this release does not know.
    Newer(i32),
}

impl From<postgres::Error> for Migration {
    fn from(error: postgres::Error) -> Migration {
        Migration::Sql(error)
    }
}

/// Brings the tables to [`MIGRATIONS`]'s last version, holding an advisory
/// lock so that replicas starting together migrate one after the other.
pub(super) fn migrate(client: &mut Client) -> Result<(), Migration> {
    let mut transaction = client.transaction()?;
    transaction.execute_typed(
        "SELECT pg_advisory_xact_lock($1)",
        &[(&MIGRATION_LOCK, Type::INT8)],
    )?;
    let exists: bool = transaction
        .query_typed_one("SELECT to_regclass('learnables_schema') IS NOT NULL", &[])?
        .try_get(0)?;
    if !exists {
        transaction.batch_execute(
            "CREATE TABLE learnables_schema (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            COMMENT ON TABLE learnables_schema IS
                'The versions of the learnables tables applied to this schema.';",
        )?;
    }
    let current: i32 = transaction
        .query_typed_one(
            "SELECT coalesce(max(version), 0) FROM learnables_schema",
            &[],
        )?
        .try_get(0)?;
    let known = MIGRATIONS.len();
    let applied = usize::try_from(current).unwrap_or(0);
    if applied > known {
        return Err(Migration::Newer(current));
    }
    for (index, step) in MIGRATIONS.iter().enumerate().skip(applied) {
        transaction.batch_execute(step)?;
        let version = i32::try_from(index + 1).expect("fewer than 2^31 migrations");
        transaction.execute_typed(
            "INSERT INTO learnables_schema (version) VALUES ($1)",
            &[(&version, Type::INT4)],
        )?;
    }
    transaction.commit()?;
    Ok(())
}
