//! The teacher's page in headless Chromium.

mod history_and_revert;
mod teaching_page;
