//! The example agent over HTTP on 127.0.0.1: activation, teaching, shutdown, the hostile catalogue, the layer over the official SDK, scrubbed responses (and what they look like on the wire), a lesson resuming the task that asked.

mod agent_export_import;
mod agent_over_http;
mod agent_shutdown;
mod docs_curl;
mod hidden_characters;
mod hostile_requests;
mod layer_over_sdk;
mod look_alike_teachers;
mod one_admission;
mod plain_axum_agent;
mod push_configs;
mod question_answered;
mod readme_agent;
mod resumed_task_privacy;
mod retract_over_http;
mod review_bounds;
mod review_over_http;
mod scrubbed_bodies;
mod scrubbed_on_the_wire;
mod scrubbed_over_sdk;
mod service_accounts_over_http;
mod show_back_after_alias;
mod show_back_history;
