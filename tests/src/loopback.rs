//! Serving a test's router on a free port of 127.0.0.1, on a runtime the
//! test keeps until it ends.

use std::net::SocketAddr;

use tokio::runtime::Runtime;

/// A two-thread runtime, for a test's servers.
pub fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Serves `router` on a free port of 127.0.0.1 on `runtime`; its address.
pub fn serve_on(runtime: &Runtime, router: axum::Router) -> SocketAddr {
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let address = listener.local_addr().expect("an address");
        tokio::spawn(async move { axum::serve(listener, router).await });
        address
    })
}
