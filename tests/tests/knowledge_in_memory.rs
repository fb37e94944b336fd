//! The back-end suite on `Knowledge::in_memory()`.

mod backend_suite;

backend_suite!(Knowledge::in_memory);
