//! The async face of [`Knowledge`]: the same calls, for async code that
//! must not block its runtime's threads while a back end works.
//!
//! Every blocking call of `Knowledge` is already safe from async code (it
//! never panics there: a back end that needs a runtime of its own runs on a
//! thread of its own), but it blocks the calling thread until the back end
//! answers. `teach_async` waits for the commit thread on the task, not the
//! thread; the others run the call on tokio's blocking pool.

use super::knowledge::Dispatch;
use super::{Knowledge, KnowledgeError, StoreError, TeachError};
use crate::{Lesson, LessonResult};

impl Knowledge {
    /// [`Knowledge::teach`] for async code: the lesson is absorbed on the
    /// calling task, and the task, not its thread, waits while the commit
    /// thread stores it. A knowledge whose back end does not wait
    /// ([`Knowledge::in_memory`]) stores it in place, with no wait at all.
    /// Needs a tokio runtime with its timers enabled (the `tokio` feature),
    /// as the wait is bounded by
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
        if self.review_rule(&lesson.collection).is_some() {
            // A proposal is one record: stored on this thread, as a
            // back end that does not wait stores a lesson.
            return self.commit_or_propose(pending);
        }
        match self.dispatch(pending) {
            Dispatch::Done(result) => result,
            Dispatch::Queued(thread, pending, timeout) => {
                thread.submit_async(pending, timeout).await
            }
        }
    }

    /// [`Knowledge::catch_up`] for async code, on tokio's blocking pool.
    pub async fn catch_up_async(&self) -> Result<(), KnowledgeError> {
        let knowledge = self.clone();
        tokio::task::spawn_blocking(move || knowledge.catch_up())
            .await
            .unwrap_or_else(|joined| {
                Err(KnowledgeError::Store(StoreError::Failed(
                    format!("catching up was cut short: {joined}").into(),
                )))
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
                Err(KnowledgeError::Store(StoreError::Failed(
                    format!("connecting was cut short: {joined}").into(),
                )))
            })
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
    fn an_in_memory_lesson_is_stored_at_the_first_poll_whatever_becomes_of_its_task() {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RoutingRule>().unwrap();
        let value = LessonValue::try_from(serde_json::json!({"desk": "general"}));
        let lesson = Lesson::new("routing_rules", "84", value.unwrap(), "alice@example.com");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let _in_runtime = runtime.enter();
        let mut teach = Box::pin(knowledge.teach_async(lesson));
        let mut context = Context::from_waker(Waker::noop());
        assert!(teach.as_mut().poll(&mut context).is_ready());
        drop(teach);
        assert_eq!(knowledge.history("routing_rules").len(), 1);
    }
}
