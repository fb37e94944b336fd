//! The example agent over HTTP on 127.0.0.1: activation, teaching, shutdown, the hostile catalogue, the layer over the official SDK, scrubbed responses (and what they look like on the wire), a lesson resuming the task that asked.

mod agent_export_import;
mod agent_over_http;
mod agent_shutdown;
mod hostile_requests;
mod layer_over_sdk;
mod question_answered;
mod retract_over_http;
mod scrubbed_bodies;
mod scrubbed_on_the_wire;
mod scrubbed_over_sdk;
mod show_back_history;
