//! The teacher's page in headless Chromium.

mod teaching_page;
