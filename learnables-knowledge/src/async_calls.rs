//! The async face of [`Knowledge`](crate::Knowledge): the same calls, for async code that
//! must not block its runtime's threads while a back end works.
//!
//! Every blocking call of `Knowledge` is already safe from async code (it
//! never panics there: a back end that needs a runtime of its own runs on a
//! thread of its own), but it blocks the calling thread until the back end
//! answers. `teach_async` waits for the commit thread on the task, not the
//! thread; the others run the call on tokio's blocking pool.
//! What the calls share is here.

use crate::shared::{Dispatch, Shared};
use crate::{KnowledgeError, StoreError, TeachError};
use crate::{Lesson, LessonResult};

/// Absorbs `lesson` on the calling task, and waits on the task, not its
/// thread, while the commit thread stores it.
pub(crate) async fn teach(shared: &Shared, lesson: &Lesson) -> Result<LessonResult, TeachError> {
    let pending = shared.absorb(lesson)?;
    if shared.review_rule(&lesson.collection).is_some() {
        // A proposal is one record: stored on this thread, as a back end
        // that does not wait stores a lesson.
        return shared.commit_or_propose(pending);
    }
    match shared.dispatch(pending) {
        Dispatch::Done(result) => result,
        Dispatch::Queued(thread, pending, timeout) => thread.submit_async(pending, timeout).await,
    }
}

/// Runs `work` on tokio's blocking pool; `doing` names it should the
/// pool drop it ("catching up").
pub(crate) async fn on_blocking_pool<T: Send + 'static>(
    doing: &str,
    work: impl FnOnce() -> Result<T, KnowledgeError> + Send + 'static,
) -> Result<T, KnowledgeError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|joined| {
            Err(KnowledgeError::Store(StoreError::Failed(
                format!("{doing} was cut short: {joined}").into(),
            )))
        })
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
