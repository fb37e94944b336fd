//! The PostgreSQL back end: the back-end suite, TLS, restarts, replicas in threads and processes, agents sharing one database.

mod agents_on_postgres;
mod knowledge_postgres;
mod knowledge_postgres_tls;
mod knowledge_processes;
mod postgres_restart;
