//! The back-end suite on `Knowledge::in_memory()`.

use learnables_tests::backend_suite;

backend_suite!(Knowledge::in_memory);
