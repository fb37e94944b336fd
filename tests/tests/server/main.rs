//! The HTTP server and hostile clients: logs of untrusted text, bounded task stores, slow and idle clients, slow bodies, unread responses, running out of file descriptors.

mod hostile_server;
mod json_rpc_ids;
mod server_limits;
mod slow_clients;
