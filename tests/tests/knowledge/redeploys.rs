//! Redeploys: a store written by one build's type, opened by the next
//! build's changed type, for every change of the table, without and
//! with the attribute that fixes it, on the embedded store and on
//! PostgreSQL. The two builds are two types of one collection in this test
//! binary; each deploy opens the store afresh, as a new process would.
//! Pins taken before a redeploy read the same knowledge after it; what does
//! not read is reported, every entry and version, with the fix.

use learnables_tests::support::postgres as postgres_harness;

use learnables::knowledge::{OnUnreadable, UnreadableReport};
use learnables::{Knowledge, KnowledgeError, Learnable, Lesson, LessonProblem, LessonValue};
use serde_json::{Value, json};

const COLLECTION: &str = "refund_policies";

fn lesson(entry: &str, value: Value) -> Lesson {
    Lesson::new(
        COLLECTION,
        entry,
        LessonValue::try_from(value).unwrap(),
        "alice@example.com",
    )
}

/// The first build's type, every later one a change of it.
mod v1 {
    use learnables::{Choice, Learnable};

    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum Channel {
        Shop,
        Online,
        Phone,
    }

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approver
        pub approver: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Note
        pub note: Option<String>,
    }
}

/// The first build: three versions, the first of `north` the only one on
/// the phone, the second the only one with a limit that is not whole.
/// Positions: 1 and 2 are `north`, 3 `south`.
fn first_build(open: &dyn Fn() -> Knowledge) {
    let knowledge = open();
    knowledge.register::<v1::Policy>().unwrap();
    for (entry, value) in [
        (
            "north",
            json!({"approver": "kim", "limit": "50", "days": "14", "channel": "phone"}),
        ),
        (
            "north",
            json!({"approver": "kim", "limit": "75.5", "days": "14", "channel": "shop"}),
        ),
        (
            "south",
            json!({"approver": "lee", "limit": "20", "days": "30", "channel": "online",
                   "note": "weekends too"}),
        ),
    ] {
        assert!(knowledge.teach(&lesson(entry, value)).unwrap().learned);
    }
}

/// The next build opens the store with `T`: the knowledge, and what
/// registering `T` said.
fn redeploy<T>(
    open: &dyn Fn() -> Knowledge,
) -> (Knowledge, Result<UnreadableReport, KnowledgeError>)
where
    T: Learnable + Send + Sync + 'static,
{
    let knowledge = open();
    let registered = knowledge.register_with::<T>(OnUnreadable::Refuse);
    (knowledge, registered)
}

/// The next build's `T` reads every stored version.
fn reads<T>(open: &dyn Fn() -> Knowledge) -> Knowledge
where
    T: Learnable + Send + Sync + 'static,
{
    let (knowledge, registered) = redeploy::<T>(open);
    let report = registered.unwrap_or_else(|error| panic!("refused: {error}"));
    assert!(report.is_empty(), "{report}");
    knowledge
}

/// The next build's `T` is refused at start with a report of one cause:
/// `field` at fault in `versions` stored versions of `entries`.
fn refused<T>(
    open: &dyn Fn() -> Knowledge,
    field: &str,
    versions: u64,
    entries: &[&str],
) -> UnreadableReport
where
    T: Learnable + Send + Sync + 'static,
{
    let (knowledge, registered) = redeploy::<T>(open);
    let Err(KnowledgeError::Unreadable(report)) = registered else {
        panic!("not refused with a report: {registered:?}");
    };
    assert_eq!(report.causes().len(), 1, "{report}");
    let cause = &report.causes()[0];
    assert_eq!(cause.collection(), COLLECTION);
    assert_eq!(cause.field(), Some(field), "{report}");
    assert_eq!(cause.versions(), versions, "{report}");
    assert_eq!(cause.entries(), entries, "{report}");
    // Refused: the collection is not taught, and nothing was rewritten.
    assert!(knowledge.collections().is_empty());
    assert_eq!(knowledge.history(COLLECTION).len(), 3);
    report
}

/// Row: add an `Option` field, or a field with a `default`: reads.
mod added_optional {
    use learnables::Learnable;

    pub use super::v1::Channel;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approver
        pub approver: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Note
        pub note: Option<String>,
        /// Reason
        pub reason: Option<String>,
        /// Contact
        #[learnable(default = "email")]
        pub contact: String,
    }
}

fn adding_an_optional_field_or_one_with_a_default_reads(open: &dyn Fn() -> Knowledge) {
    use added_optional::{Channel, Policy};
    first_build(open);
    let knowledge = reads::<Policy>(open);
    let then = knowledge.pin_at(1).get::<Policy>("north").unwrap();
    assert_eq!((then.limit, then.channel), (50.0, Channel::Phone));
    assert_eq!((then.reason, then.contact.as_str()), (None, "email"));
}

/// Row: add a field without a default: refused; with a `default`, reads.
mod added_required {
    use learnables::Learnable;

    pub use super::v1::Channel;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approver
        pub approver: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Region
        pub region: String,
    }

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Fixed {
        /// Approver
        pub approver: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Region
        #[learnable(default = "eu")]
        pub region: String,
    }
}

fn adding_a_required_field_is_refused_and_reads_with_a_default(open: &dyn Fn() -> Knowledge) {
    use added_required::{Fixed, Policy};
    first_build(open);
    let report = refused::<Policy>(open, "region", 3, &["north", "south"]);
    assert!(matches!(
        report.causes()[0].problem(),
        LessonProblem::Missing { .. }
    ));
    assert_eq!(
        report.to_string(),
        "3 stored versions do not read as their types:\n- `refund_policies`: `region` (Region) \
         is missing in 3 stored versions of 2 entries (north, south): give it a `default`, make \
         it an `Option`, give it its earlier name as an `alias` if it was renamed, or `migrate`\n\
         Or start anyway, those entries read as unknown (the agent asks for them again; their \
         history stays): register with `OnUnreadable::TreatAsUnknown` \
         (`Knowledge::register_declaration` or `Knowledge::register_with`) before building the \
         service."
    );
    let knowledge = reads::<Fixed>(open);
    assert_eq!(
        knowledge.pin_at(1).get::<Fixed>("north").unwrap().region,
        "eu"
    );
}

/// Row: remove a field, optional or not: stored versions still read.
mod removed {
    use learnables::Learnable;

    pub use super::v1::Channel;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
    }
}

fn removing_fields_reads_and_a_new_lesson_holding_one_is_refused(open: &dyn Fn() -> Knowledge) {
    use removed::Policy;
    first_build(open);
    let knowledge = reads::<Policy>(open);
    assert_eq!(
        knowledge.pin_at(1).get::<Policy>("north").unwrap().limit,
        50.0
    );
    assert_eq!(knowledge.pin().get::<Policy>("south").unwrap().days, 30);
    let holding_note = lesson(
        "east",
        json!({"limit": "5", "days": "7", "channel": "shop", "note": "x"}),
    );
    let error = knowledge.teach(&holding_note).unwrap_err();
    assert!(
        error.to_string().contains("`note` is not a field"),
        "{error}"
    );
}

/// Row: rename a field: refused; with `alias`, reads.
mod renamed_field {
    use learnables::Learnable;

    pub use super::v1::Channel;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approved by
        pub approved_by: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Note
        pub note: Option<String>,
    }

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Fixed {
        /// Approved by
        #[learnable(alias = "approver")]
        pub approved_by: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
        /// Note
        pub note: Option<String>,
    }
}

fn renaming_a_field_is_refused_and_reads_with_an_alias(open: &dyn Fn() -> Knowledge) {
    use renamed_field::{Fixed, Policy};
    first_build(open);
    let report = refused::<Policy>(open, "approved_by", 3, &["north", "south"]);
    assert!(report.causes()[0].fix().contains("`alias`"), "{report}");
    let knowledge = reads::<Fixed>(open);
    assert_eq!(
        knowledge
            .pin_at(1)
            .get::<Fixed>("north")
            .unwrap()
            .approved_by,
        "kim"
    );
    let note = knowledge.pin().get::<Fixed>("south").unwrap().note;
    assert_eq!(note.as_deref(), Some("weekends too"));
    // A teacher using the earlier name is understood too.
    let old_name = lesson(
        "east",
        json!({"approver": "ana", "limit": "5", "days": "7", "channel": "shop"}),
    );
    assert!(knowledge.teach(&old_name).unwrap().learned);
}

/// Row: add a `Choice` variant, widen a type: reads.
mod widened {
    use learnables::{Choice, Learnable};

    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum Channel {
        Shop,
        Online,
        Phone,
        Mail,
    }

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approver
        pub approver: String,
        /// Limit in EUR
        pub limit: f64,
        /// Days to ask
        pub days: u32,
        /// Channel
        pub channel: Channel,
        /// Note
        pub note: Option<String>,
    }
}

fn adding_a_variant_and_widening_a_type_reads(open: &dyn Fn() -> Knowledge) {
    use widened::{Channel, Policy};
    first_build(open);
    let knowledge = reads::<Policy>(open);
    let then = knowledge.pin_at(1).get::<Policy>("north").unwrap();
    assert_eq!((then.days, then.channel), (14, Channel::Phone));
}

/// Row: rename or remove a variant that stored values use: refused, though
/// only an earlier version uses it; with `#[choice(alias)]` or `migrate`,
/// reads.
mod renamed_variant {
    use learnables::{Choice, Learnable};
    use serde_json::{Map, Value};

    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum Channel {
        Shop,
        Online,
        Call,
    }

    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum FixedChannel {
        Shop,
        Online,
        #[choice(alias = "phone")]
        Call,
    }

    /// `phone` removed.
    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum Fewer {
        Shop,
        Online,
    }

    macro_rules! policy {
        ($name:ident, $channel:ty $(, $migrate:literal)?) => {
            #[derive(Learnable, Debug, Clone, PartialEq)]
            #[learnable(
                collection = "refund_policies",
                entry = "shop",
                teaches = "Who approves a refund, up to how much, and for how long",
                how = "A rule per shop, kept by the finance team",
                decided_by = "rules",
                describes = "{entry}: refunds within {days} days"
                $(, migrate = $migrate)?
            )]
            pub struct $name {
                /// Approver
                pub approver: String,
                /// Limit in EUR
                pub limit: f64,
                /// Days to ask
                pub days: u8,
                /// Channel
                pub channel: $channel,
                /// Note
                pub note: Option<String>,
            }
        };
    }

    policy!(Renamed, Channel);
    policy!(RenamedWithAlias, FixedChannel);
    policy!(Removed, Fewer);
    policy!(RemovedWithMigration, Fewer, "phone_to_shop");

    /// The phone desk closed: its refunds go to the shops.
    fn phone_to_shop(mut stored: Map<String, Value>) -> Result<Map<String, Value>, String> {
        if stored.get("channel").and_then(Value::as_str) == Some("phone") {
            stored.insert("channel".into(), "shop".into());
        }
        Ok(stored)
    }
}

fn renaming_a_variant_is_refused_and_reads_with_a_choice_alias(open: &dyn Fn() -> Knowledge) {
    use renamed_variant::{FixedChannel, Renamed, RenamedWithAlias};
    first_build(open);
    // Only `north`'s first version says "phone": register reads it too.
    let report = refused::<Renamed>(open, "channel", 1, &["north"]);
    let shown = report.to_string();
    assert!(
        shown.contains("`channel` (Channel) holds \"phone\", no longer one of its choices"),
        "{shown}"
    );
    assert!(shown.contains("#[choice(alias = "), "{shown}");
    let knowledge = reads::<RenamedWithAlias>(open);
    let channel = |pin: learnables::Snapshot| pin.get::<RenamedWithAlias>("north").unwrap().channel;
    assert_eq!(channel(knowledge.pin_at(1)), FixedChannel::Call);
    assert_eq!(channel(knowledge.pin()), FixedChannel::Shop);
}

fn removing_a_variant_is_refused_and_reads_with_a_migration(open: &dyn Fn() -> Knowledge) {
    use renamed_variant::{Fewer, Removed, RemovedWithMigration};
    first_build(open);
    refused::<Removed>(open, "channel", 1, &["north"]);
    let knowledge = reads::<RemovedWithMigration>(open);
    let then = knowledge.pin_at(1).get::<RemovedWithMigration>("north");
    assert_eq!(then.unwrap().channel, Fewer::Shop);
    // History is not rewritten: the stored value still says "phone".
    assert_eq!(
        serde_json::to_value(&knowledge.history(COLLECTION)[0].value).unwrap()["channel"],
        "phone"
    );
}

/// Row: narrow a type (`f64` to `u32`): refused; with `migrate`, reads.
mod narrowed {
    use learnables::Learnable;
    use serde_json::{Map, Value};

    pub use super::v1::Channel;

    macro_rules! policy {
        ($name:ident $(, $migrate:literal)?) => {
            #[derive(Learnable, Debug, Clone, PartialEq)]
            #[learnable(
                collection = "refund_policies",
                entry = "shop",
                teaches = "Who approves a refund, up to how much, and for how long",
                how = "A rule per shop, kept by the finance team",
                decided_by = "rules",
                describes = "{entry}: refunds within {days} days"
                $(, migrate = $migrate)?
            )]
            pub struct $name {
                /// Approver
                pub approver: String,
                /// Limit in EUR
                pub limit: u32,
                /// Days to ask
                pub days: u8,
                /// Channel
                pub channel: Channel,
                /// Note
                pub note: Option<String>,
            }
        };
    }

    policy!(Policy);
    policy!(Fixed, "whole_euros");

    /// Limits in whole euros, rounded up.
    fn whole_euros(mut stored: Map<String, Value>) -> Result<Map<String, Value>, String> {
        let limit = stored
            .get("limit")
            .and_then(Value::as_str)
            .and_then(|limit| limit.parse::<f64>().ok())
            .ok_or("no limit")?;
        stored.insert("limit".into(), format!("{}", limit.ceil()).into());
        Ok(stored)
    }
}

fn narrowing_a_type_is_refused_and_reads_with_a_migration(open: &dyn Fn() -> Knowledge) {
    use narrowed::{Fixed, Policy};
    first_build(open);
    let report = refused::<Policy>(open, "limit", 1, &["north"]);
    assert!(matches!(
        report.causes()[0].problem(),
        LessonProblem::Invalid { value, .. } if value == "75.5"
    ));
    let knowledge = reads::<Fixed>(open);
    let limit = |pin: learnables::Snapshot| pin.get::<Fixed>("north").unwrap().limit;
    assert_eq!(limit(knowledge.pin_at(1)), 50);
    assert_eq!(limit(knowledge.pin()), 76);
}

/// Starting anyway: the entries that do not read are unknown (the agent
/// asks again), said so by `try_get` and `entries`, their history kept; a
/// new lesson teaches them again.
fn starting_anyway_treats_what_does_not_read_as_unknown(open: &dyn Fn() -> Knowledge) {
    use narrowed::Policy;
    first_build(open);
    let knowledge = open();
    let report = knowledge
        .register_with::<Policy>(OnUnreadable::TreatAsUnknown)
        .unwrap();
    assert_eq!(report.versions(), 1);
    assert!(report.names(COLLECTION, "north") && !report.names(COLLECTION, "south"));
    let now = knowledge.pin();
    assert_eq!(now.get::<Policy>("north"), None);
    assert_eq!(
        now.try_get::<Policy>("north").unwrap_err().field(),
        Some("limit")
    );
    assert_eq!(now.try_get::<Policy>("east"), Ok(None));
    let read: Vec<(&str, bool)> = now
        .entries::<Policy>()
        .map(|(entry, policy)| (entry, policy.is_ok()))
        .collect();
    assert_eq!(read, [("north", false), ("south", true)]);
    // The version before, which reads, is still what a pin there sees.
    assert_eq!(
        knowledge.pin_at(1).get::<Policy>("north").unwrap().limit,
        50
    );
    assert_eq!(knowledge.history(COLLECTION).len(), 3);
    let again = lesson(
        "north",
        json!({"approver": "kim", "limit": "80", "days": "14", "channel": "shop"}),
    );
    assert!(knowledge.teach(&again).unwrap().learned);
    assert_eq!(knowledge.pin().get::<Policy>("north").unwrap().limit, 80);
}

/// A task of an `AgentExecutor`, as the SDK gives it to the executor:
/// `stored` is the task as its last turn left it.
fn turn(stored: Option<a2a::Task>) -> a2a_server::ExecutorContext {
    a2a_server::ExecutorContext {
        message: None,
        task_id: "task-1".into(),
        stored_task: stored,
        context_id: "context-1".into(),
        metadata: None,
        user: None,
        service_params: Default::default(),
        tenant: None,
    }
}

/// A task pinned on its first message before a redeploy reads the same
/// knowledge on its next turn after it, through the new build's alias,
/// while a new task reads the latest.
fn a_task_pinned_before_a_redeploy_reads_the_same_knowledge_after_it(open: &dyn Fn() -> Knowledge) {
    use learnables::a2a::TaskPin;
    let knowledge = open();
    knowledge.register::<v1::Policy>().unwrap();
    let teach = |knowledge: &Knowledge, approver: &str| {
        let value = json!({"approver": approver, "limit": "50", "days": "14", "channel": "shop"});
        assert!(knowledge.teach(&lesson("north", value)).unwrap().learned);
    };
    teach(&knowledge, "kim");
    let pin = TaskPin::of(&knowledge, &turn(None));
    let mut task = a2a::Task {
        id: "task-1".into(),
        context_id: "context-1".into(),
        status: a2a::TaskStatus {
            state: a2a::TaskState::InputRequired,
            message: None,
            timestamp: None,
        },
        artifacts: None,
        history: None,
        metadata: None,
    };
    pin.record(&mut task);
    teach(&knowledge, "lee");
    drop((pin, knowledge));

    let knowledge = reads::<renamed_field::Fixed>(open);
    let approver = |pin: TaskPin| {
        pin.get::<renamed_field::Fixed>("north")
            .unwrap()
            .approved_by
    };
    assert_eq!(approver(TaskPin::of(&knowledge, &turn(Some(task)))), "kim");
    assert_eq!(approver(TaskPin::of(&knowledge, &turn(None))), "lee");
}

/// An agent's service refuses the next build's declaration with the
/// report; an agent that registers its declaration leniently first starts,
/// with those entries unknown.
fn a_service_refuses_to_start_unless_told_to_start_anyway(open: &dyn Fn() -> Knowledge) {
    use learnables::a2a::{LearnablesService, Tokens};
    use learnables::{Declaration, TEACH_METHOD};
    first_build(open);
    let declaration = || {
        Declaration::new()
            .learnable::<narrowed::Policy>()
            .teach_method(TEACH_METHOD)
    };
    let knowledge = open();
    let refused = LearnablesService::try_new(knowledge.clone(), declaration(), Tokens::new());
    let Err(KnowledgeError::Unreadable(report)) = refused else {
        panic!("built on versions that do not read");
    };
    assert_eq!(report.causes()[0].entries(), ["north"]);
    drop(knowledge);

    let knowledge = open();
    let report = knowledge
        .register_declaration(&declaration(), OnUnreadable::TreatAsUnknown)
        .unwrap();
    assert_eq!(report.versions(), 1);
    LearnablesService::try_new(knowledge.clone(), declaration(), Tokens::new())
        .expect("started anyway");
    assert_eq!(knowledge.pin().get::<narrowed::Policy>("north"), None);
    assert!(knowledge.pin().get::<narrowed::Policy>("south").is_some());
}

/// Every row of the table, reported together: one error naming every
/// cause, when the next build changes several things at once.
mod many_changes {
    use learnables::{Choice, Learnable};

    #[derive(Choice, Debug, Clone, Copy, PartialEq)]
    pub enum Channel {
        Shop,
        Online,
    }

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "shop",
        teaches = "Who approves a refund, up to how much, and for how long",
        how = "A rule per shop, kept by the finance team",
        decided_by = "rules",
        describes = "{entry}: refunds within {days} days"
    )]
    pub struct Policy {
        /// Approved by
        pub approved_by: String,
        /// Limit in EUR
        pub limit: u32,
        /// Days to ask
        pub days: u8,
        /// Channel
        pub channel: Channel,
    }
}

fn several_changes_are_reported_at_once_by_cause(open: &dyn Fn() -> Knowledge) {
    first_build(open);
    let (_knowledge, registered) = redeploy::<many_changes::Policy>(open);
    let Err(KnowledgeError::Unreadable(report)) = registered else {
        panic!("not refused with a report: {registered:?}");
    };
    let causes: Vec<(Option<&str>, u64)> = report
        .causes()
        .iter()
        .map(|cause| (cause.field(), cause.versions()))
        .collect();
    assert_eq!(
        causes,
        // In the order first met: a version's own keys, then the fields
        // it lacks.
        [
            (Some("channel"), 1),
            (Some("approved_by"), 3),
            (Some("limit"), 1),
        ]
    );
    assert_eq!(report.versions(), 3);
}

/// Each row as a test on the embedded store and on PostgreSQL; every
/// deploy opens the store afresh.
macro_rules! on_every_store {
    ($($row:ident),* $(,)?) => {
        mod embedded {
            $(
                #[test]
                fn $row() {
                    let dir = tempfile::tempdir().unwrap();
                    let path = dir.path().to_owned();
                    super::$row(&|| learnables::Knowledge::open(&path).unwrap());
                }
            )*
        }

        mod postgres {
            $(
                #[test]
                fn $row() {
                    let Some(database) = super::postgres_harness::fresh_database() else {
                        return;
                    };
                    let url = database.url().to_owned();
                    super::$row(&|| learnables::Knowledge::connect(&url).unwrap());
                }
            )*
        }
    };
}

on_every_store!(
    adding_an_optional_field_or_one_with_a_default_reads,
    adding_a_required_field_is_refused_and_reads_with_a_default,
    removing_fields_reads_and_a_new_lesson_holding_one_is_refused,
    renaming_a_field_is_refused_and_reads_with_an_alias,
    adding_a_variant_and_widening_a_type_reads,
    renaming_a_variant_is_refused_and_reads_with_a_choice_alias,
    removing_a_variant_is_refused_and_reads_with_a_migration,
    narrowing_a_type_is_refused_and_reads_with_a_migration,
    starting_anyway_treats_what_does_not_read_as_unknown,
    several_changes_are_reported_at_once_by_cause,
    a_task_pinned_before_a_redeploy_reads_the_same_knowledge_after_it,
    a_service_refuses_to_start_unless_told_to_start_anyway,
);

/// The example agent's routing rules as an earlier build stored them: a
/// desk that is no longer one of the choices.
mod earlier_customs_agent {
    use learnables::Learnable;

    #[derive(Learnable, Debug, Clone, PartialEq)]
    #[learnable(
        collection = "routing_rules",
        entry = "routing rule",
        teaches = "Which desk handles a declaration",
        how = "A table keyed on the HS chapter, kept by the desk leads",
        decided_by = "rules",
        describes = "Chapter {chapter}: {desk}"
    )]
    pub struct RoutingRule {
        /// HS chapter
        pub chapter: u8,
        /// Desk
        pub desk: String,
    }
}

#[test]
fn the_example_agent_refuses_to_start_on_versions_it_does_not_read_and_prints_the_report() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    {
        let knowledge = Knowledge::open(dir.path()).unwrap();
        knowledge
            .register::<earlier_customs_agent::RoutingRule>()
            .unwrap();
        for (chapter, desk) in [
            ("85", "customs hall"),
            ("12", "customs hall"),
            ("12", "annex"),
        ] {
            let value = json!({"chapter": chapter, "desk": desk});
            let lesson = Lesson::new(
                "routing_rules",
                chapter,
                LessonValue::try_from(value).unwrap(),
                "alice@example.com",
            );
            knowledge.teach(&lesson).unwrap();
        }
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_customs_agent"))
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(dir.path())
        .args(["--teacher", "alice@example.com=alice-token"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the agent starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the agent started on versions it does not read");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stdout.contains("listening"), "{stdout}");
    assert!(
        stderr.contains(
            "customs_agent: cannot start: 3 stored versions do not read as their types:\n\
             - `routing_rules`: `desk` (Desk) holds \"customs hall\", no longer one of its \
             choices, in 2 stored versions of 2 entries (85, 12): give the variant"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "holds \"annex\", no longer one of its choices, in 1 stored version of 1 entry (12)"
        ),
        "{stderr}"
    );
    // Nothing was rewritten: the earlier build still reads every version.
    let knowledge = Knowledge::open(dir.path()).unwrap();
    assert!(
        knowledge
            .register::<earlier_customs_agent::RoutingRule>()
            .is_ok()
    );
    assert_eq!(knowledge.history("routing_rules").len(), 3);
}

/// An agent started anyway says, at warn, which entries it treats as
/// unknown: an operator hears of them from the log, not from the agent's
/// questions.
#[test]
fn starting_anyway_logs_the_entries_treated_as_unknown() {
    use std::sync::{Arc, Mutex};

    struct Captured(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    let dir = tempfile::tempdir().expect("a data directory");
    let open = || Knowledge::open(dir.path()).expect("the store opens");
    first_build(&open);
    let log = Arc::new(Mutex::new(Vec::new()));
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || Captured(writer.clone()))
        .finish();
    let knowledge = open();
    let report = tracing::subscriber::with_default(subscriber, || {
        knowledge
            .register_with::<narrowed::Policy>(OnUnreadable::TreatAsUnknown)
            .unwrap()
    });
    assert!(report.to_string().contains("Or start anyway"), "{report}");
    let log = String::from_utf8(log.lock().unwrap().clone()).unwrap();
    let warned = log
        .lines()
        .find(|line| line.contains("treated as unknown"))
        .unwrap_or_else(|| panic!("no warning of the entries treated as unknown: {log}"));
    assert!(warned.contains("WARN"), "{warned}");
    assert!(
        warned.contains("north") && !warned.contains("south"),
        "{warned}"
    );
}
