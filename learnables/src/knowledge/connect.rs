//! `Knowledge::connect`: knowledge kept in PostgreSQL, shared by replicas.

use super::{Knowledge, KnowledgeError, PostgresStorage};

impl Knowledge {
    /// Connects to the PostgreSQL database at `url` and opens the knowledge
    /// kept there, with every version it holds, creating or upgrading its
    /// tables first (see [`PostgresStorage`] for what the back end
    /// guarantees).
    ///
    /// Every replica of an agent connects to the same database and they
    /// behave as one knowledge: a lesson taught to any replica becomes one
    /// version of one linear history, and reaches the others promptly
    /// (they are notified; no polling). A task's pinned [`Snapshot`]
    /// never changes, whoever teaches meanwhile.
    ///
    /// `url` is `postgres://user:password@host:port/dbname` (or
    /// `postgresql://`, or the `key=value` form); errors name the database
    /// but never show the password. It takes libpq's TLS parameters:
    /// `sslmode` (`disable`, `prefer` (the default), `require`,
    /// `verify-ca`, `verify-full`) and `sslrootcert=PATH`, with libpq's
    /// meaning (see [`PostgresStorage`]). Lessons taught to replicas at the
    /// same moment wait for each other in the database; none is refused
    /// for it. Safe to call from async code (see also `connect_async`).
    ///
    /// ```no_run
    /// use learnables::{Knowledge, Learnable, Lesson, LessonValue};
    /// # #[derive(Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules",
    /// #     describes = "Chapter {entry} now goes to the {desk} desk")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let url = std::env::var("DATABASE_URL")?; // postgres://agent:secret@db.internal/customs
    /// let replica_one = Knowledge::connect(&url)?;
    /// let replica_two = Knowledge::connect(&url)?; // another process, in real life
    /// replica_one.register::<RoutingRule>()?;
    /// replica_two.register::<RoutingRule>()?;
    ///
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// let lesson = Lesson::new("routing_rules", "84", value, "alice@example.com");
    /// let result = replica_one.teach(&lesson)?;
    ///
    /// // The other replica is notified and catches up by itself within
    /// // moments; `catch_up` makes sure of it now.
    /// replica_two.catch_up()?;
    /// let learned = replica_two.pin().version("routing_rules").map(|v| v.version_id);
    /// assert_eq!(learned, result.version_id);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Snapshot`]: super::Snapshot
    pub fn connect(url: &str) -> Result<Knowledge, KnowledgeError> {
        Knowledge::with_storage(PostgresStorage::connect(url)?)
    }
}
