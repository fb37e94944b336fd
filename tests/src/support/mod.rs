//! What the tests share: running agents, PostgreSQL servers, browsers,
//! the spec's schema and the suite every knowledge back end passes.

pub mod agent;
pub mod backend_suite;
pub mod browser;
pub mod chat_server;
pub mod oidc;
pub mod postgres;
pub mod review_suite;
pub mod script;
pub mod spec_schema;
pub mod webdriver;
