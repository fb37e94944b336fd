//! The async face of [`Knowledge`]: the same calls, for async code that
//! must not block its runtime's threads while a back end works.
//!
//! Every blocking call of `Knowledge` is already safe from async code (it
//! never panics there: a back end that needs a runtime of its own runs on a
//! thread of its own), but it blocks the calling thread until the back end
//! answers. `teach_async` waits for the commit thread on the task, not the
//! thread; the others run the call on tokio's blocking pool.

use std::sync::MutexGuard;

use super::knowledge::{Pending, late_as_error};

/// How many times a lesson for a back end that appends without waiting
/// lets its thread run other tasks while the writer lock is held, before
/// it waits on the lock.
const WRITER_TURNS: usize = 64;
use super::{Knowledge, KnowledgeError, StoreError, TeachError};
use crate::{Lesson, LessonResult};

impl Knowledge {
    /// [`Knowledge::teach`] for async code: the lesson is absorbed on the
    /// calling task, and the task, not its thread, waits while the commit
    /// thread stores it. A back end that appends without waiting
    /// ([`Storage::appends_without_waiting`](super::Storage::appends_without_waiting))
    /// stores it in place, with no wait at all. Needs a tokio runtime with
    /// its timers enabled (the `tokio` feature), as the wait is bounded by
    /// the commit timeout. A lesson whose task is dropped while it waits is
    /// still stored.
    ///
    /// ```
    /// # #[derive(learnables::Learnable, Clone, Debug, PartialEq)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use learnables::{Knowledge, Lesson, LessonValue};
    /// let knowledge = Knowledge::in_memory();
    /// knowledge.register::<RoutingRule>()?;
    /// let value = LessonValue::try_from(serde_json::json!({"desk": "general"}))?;
    /// let lesson = Lesson::new("routing_rules", "84", value, "alice@example.com");
    /// let result = knowledge.teach_async(lesson).await?;
    /// assert_eq!(result.definition_version, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(()) }).unwrap();
    /// ```
    pub async fn teach_async(&self, lesson: Lesson) -> Result<LessonResult, TeachError> {
        self.teach_borrowed_async(&lesson).await
    }

    /// [`Knowledge::teach_async`] of a lesson the caller keeps.
    pub(crate) async fn teach_borrowed_async(
        &self,
        lesson: &Lesson,
    ) -> Result<LessonResult, TeachError> {
        let pending = self.absorb(lesson)?;
        if self.shared.storage.appends_without_waiting() {
            // Another thread holds the writer lock for the few microseconds
            // of its commit: rather than put this thread to sleep until it
            // is free, the task lets the thread run other tasks meanwhile,
            // and waits on the lock only after many turns.
            let waiting = Waiting {
                knowledge: self,
                pending: Some(pending),
            };
            for _ in 0..WRITER_TURNS {
                if let Some(writer) = self.shared.try_lock_writer() {
                    return waiting.commit(Some(&writer));
                }
                tokio::task::yield_now().await;
            }
            return waiting.commit(None);
        }
        let timeout = self.commit_timeout();
        late_as_error(
            self.shared
                .committer
                .submit_async(pending.into_owned(), timeout)
                .await,
            timeout,
        )
    }

    /// [`Knowledge::catch_up`] for async code, on tokio's blocking pool.
    pub async fn catch_up_async(&self) -> Result<(), KnowledgeError> {
        let knowledge = self.clone();
        tokio::task::spawn_blocking(move || knowledge.catch_up())
            .await
            .unwrap_or_else(|joined| {
                Err(KnowledgeError::Store(StoreError::Failed(format!(
                    "catching up was cut short: {joined}"
                ))))
            })
    }

    /// [`Knowledge::connect`] for async code: connects, migrates and loads
    /// on tokio's blocking pool.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), learnables::KnowledgeError> {
    /// let knowledge = learnables::Knowledge::connect_async("postgres://agent@db.internal/k").await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "postgres")]
    pub async fn connect_async(url: &str) -> Result<Knowledge, KnowledgeError> {
        let url = url.to_owned();
        tokio::task::spawn_blocking(move || Knowledge::connect(&url))
            .await
            .unwrap_or_else(|joined| {
                Err(KnowledgeError::Store(StoreError::Failed(format!(
                    "connecting was cut short: {joined}"
                ))))
            })
    }
}

/// A lesson for a back end that appends without waiting, waiting for the
/// writer lock. Dropped before it is committed (its task dropped while it
/// waits), it is committed then, as a lesson handed to the commit thread
/// is stored whatever becomes of its task.
struct Waiting<'k, 'l> {
    knowledge: &'k Knowledge,
    /// `None` once committed.
    pending: Option<Pending<'l>>,
}

impl Waiting<'_, '_> {
    /// Commits the lesson, under `writer` if the caller holds the lock.
    fn commit(mut self, writer: Option<&MutexGuard<'_, ()>>) -> Result<LessonResult, TeachError> {
        let Some(pending) = self.pending.take() else {
            return Err(TeachError::Store(StoreError::OutcomeUnknown(
                "the lesson was committed already".to_owned(),
            )));
        };
        match writer {
            Some(writer) => self.knowledge.commit_in_place_holding(writer, pending),
            None => self.knowledge.commit_in_place(pending),
        }
    }
}

impl Drop for Waiting<'_, '_> {
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            let _ = self.knowledge.commit_in_place(pending);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::task::{Context, Waker};

    use crate::{Knowledge, Learnable, Lesson, LessonValue};

    #[derive(Learnable, Clone, Debug)]
    #[learnable(
        collection = "routing_rules",
        entry = "routing rule",
        teaches = "Which desk",
        how = "A table keyed on the HS chapter",
        decided_by = "rules",
        describes = "{desk}"
    )]
    struct RoutingRule {
        #[learnable(label = "Desk")]
        desk: String,
    }

    #[test]
    fn a_lesson_dropped_while_it_waits_for_the_writer_lock_is_still_stored() {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RoutingRule>().unwrap();
        let value = LessonValue::try_from(serde_json::json!({"desk": "general"}));
        let lesson = Lesson::new("routing_rules", "84", value.unwrap(), "alice@example.com");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let _in_runtime = runtime.enter();
        let writer = knowledge.shared.lock_writer();
        let mut teach = Box::pin(knowledge.teach_async(lesson));
        let mut context = Context::from_waker(Waker::noop());
        assert!(teach.as_mut().poll(&mut context).is_pending());
        assert!(knowledge.history("routing_rules").is_empty());
        drop(writer);
        drop(teach);
        assert_eq!(knowledge.history("routing_rules").len(), 1);
    }
}
