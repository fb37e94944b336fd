//! The teacher's page in headless Chromium.

mod field_kinds;
mod history_and_revert;
mod leaves_nothing;
mod lists_and_checks;
mod question_sources;
mod review_page;
mod teaching_page;
mod untrusted_text;
