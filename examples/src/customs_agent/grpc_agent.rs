//! The customs agent on both of A2A's bindings: its JSON-RPC router and
//! the SDK's gRPC server over one request handler ([`Bindings`]).

use a2a_grpc::GrpcHandler;
use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::DefaultRequestHandler;
use axum::Router;

/// The agent on both of its bindings, over one request handler and task
/// store: the JSON-RPC router ([`router_with_push_sender`](super::router_with_push_sender)'s) and the SDK's
/// gRPC server under Learnables' gRPC layer.
pub struct Bindings {
    /// The JSON-RPC router (the card, the teacher's page, the Learnables
    /// methods).
    pub json_rpc: Router,
    /// The gRPC server.
    pub grpc: GrpcAgent,
}

/// The SDK's gRPC server over the agent's request handler, with
/// Learnables' gRPC layer (activation from the `a2a-extensions` metadata,
/// its echo, teach blocks kept from clients that did not activate).
pub struct GrpcAgent {
    pub(super) layer: Option<learnables::a2a::GrpcExtensionLayer>,
    pub(super) service: A2aServiceServer<GrpcHandler<DefaultRequestHandler>>,
}

impl GrpcAgent {
    /// Serves it on `listener` (plain HTTP/2) until `shutdown` resolves.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send,
    ) -> Result<(), tonic::transport::Error> {
        let incoming = tonic::transport::server::TcpIncoming::from(listener);
        let mut server = tonic::transport::Server::builder();
        match self.layer {
            Some(layer) => {
                server
                    .layer(layer)
                    .add_service(self.service)
                    .serve_with_incoming_shutdown(incoming, shutdown)
                    .await
            }
            None => {
                server
                    .add_service(self.service)
                    .serve_with_incoming_shutdown(incoming, shutdown)
                    .await
            }
        }
    }
}
