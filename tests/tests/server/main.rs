//! The HTTP server and hostile clients: logs of untrusted text, bounded task stores, slow and idle clients, running out of file descriptors.

mod hostile_server;
mod server_limits;
