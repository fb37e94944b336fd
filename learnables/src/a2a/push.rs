//! Push notifications without teach blocks for those who did not activate
//! the extension: a push notification config store, over any other, that
//! saves only configs registered by a request that activated it.

use a2a::{A2AError, TaskPushNotificationConfig, error_code};
use a2a_server::PushConfigStore;

use super::layer::REQUEST_ACTIVATED;
use crate::EXTENSION_URI;

/// A [`PushConfigStore`] that saves a push notification config only when
/// the request registering it activated the Learnables extension, and
/// refuses any other with `-32008` (`ExtensionSupportRequiredError`),
/// saying so.
///
/// The SDK's push sender posts every event of a task (the task, its
/// artifact and status updates, teach blocks included) to every config of
/// the task, outside the [`LearnablesLayer`] and so outside its scrubber.
/// A config registered without activation (by
/// `CreateTaskPushNotificationConfig`, REST `POST
/// /tasks/{id}/pushNotificationConfigs`, or a `SendMessage` carrying one in
/// A2A v1.0's `configuration.taskPushNotificationConfig`) could otherwise
/// carry a block to a webhook that never asked for one: refused, none can.
/// (A2A 0.3's `pushNotificationConfig` is no member of v1.0: the SDK drops
/// it unread, and no store is asked to save it.) The layer tells this store how the request it
/// serves was activated; a save made outside a request the layer answered
/// (the host's own code) is refused too: save straight into the inner
/// store instead.
///
/// ```
/// use a2a::TaskPushNotificationConfig;
/// use a2a_server::{InMemoryPushConfigStore, PushConfigStore};
/// use learnables::a2a::ActivatedPushConfigs;
///
/// let configs = ActivatedPushConfigs::new(InMemoryPushConfigStore::new());
/// let config = TaskPushNotificationConfig {
///     url: "https://client.example/hook".into(),
///     id: None,
///     task_id: "task-1".into(),
///     token: None,
///     authentication: None,
///     tenant: None,
/// };
/// let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// // Outside a request the layer answered: refused, and nothing saved.
/// let refused = runtime.block_on(configs.save(config)).unwrap_err();
/// assert_eq!(refused.code, a2a::error_code::EXTENSION_SUPPORT_REQUIRED);
/// assert!(runtime.block_on(configs.list("task-1")).unwrap().is_empty());
/// ```
///
/// On the SDK's request handler:
/// `DefaultRequestHandler::new(executor, task_store).with_push_config_store(ActivatedPushConfigs::new(InMemoryPushConfigStore::new()))`.
///
/// [`LearnablesLayer`]: super::LearnablesLayer
#[derive(Debug)]
pub struct ActivatedPushConfigs<S> {
    inner: S,
}

impl<S: PushConfigStore> ActivatedPushConfigs<S> {
    /// `inner`, saving only configs registered with the extension activated.
    ///
    /// ```
    /// use a2a_server::InMemoryPushConfigStore;
    /// let configs = learnables::a2a::ActivatedPushConfigs::new(InMemoryPushConfigStore::new());
    /// # let _ = configs;
    /// ```
    pub fn new(inner: S) -> ActivatedPushConfigs<S> {
        ActivatedPushConfigs { inner }
    }
}

#[async_trait::async_trait]
impl<S: PushConfigStore> PushConfigStore for ActivatedPushConfigs<S> {
    async fn save(
        &self,
        config: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        match REQUEST_ACTIVATED.try_with(|activated| *activated) {
            Ok(true) => self.inner.save(config).await,
            Ok(false) | Err(_) => Err(A2AError::new(
                error_code::EXTENSION_SUPPORT_REQUIRED,
                format!(
                    "push notifications from this agent can carry the questions it asks to be taught: \
                     register a push notification config with the extension {EXTENSION_URI} activated \
                     (header A2A-Extensions)"
                ),
            )),
        }
    }

    async fn get(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.get(task_id, config_id).await
    }

    async fn list(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>, A2AError> {
        self.inner.list(task_id).await
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<(), A2AError> {
        self.inner.delete(task_id, config_id).await
    }

    async fn delete_all(&self, task_id: &str) -> Result<(), A2AError> {
        self.inner.delete_all(task_id).await
    }
}
