//! The `menagerie.v1` gRPC API: messages, the `Analysis` client and server
//! stubs, generated at build time from `proto/menagerie/v1/analysis.proto`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use menagerie_api::pb::{analysis_service_client::AnalysisServiceClient, LegalMovesRequest, Position};
//! let mut client = AnalysisServiceClient::connect("http://127.0.0.1:50051").await?;
//! let position = Position { variant: "chess".into(), fen: String::new(), moves: vec!["e4".into()] };
//! let reply = client.legal_moves(LegalMovesRequest { position: Some(position) }).await?;
//! assert_eq!(reply.into_inner().moves.len(), 20);
//! # Ok(()) }
//! ```

/// Generated protobuf messages and gRPC stubs (package `menagerie.v1`).
#[allow(missing_docs, clippy::all, clippy::pedantic)]
pub mod pb {
    tonic::include_proto!("menagerie.v1");
}

/// The encoded `FileDescriptorSet` of the API (for gRPC server reflection).
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/menagerie_v1_descriptor.bin"));

/// `BestMove` takes the same fields as `Analyze`, as its own message (one
/// request type per RPC): a `BestMoveRequest` read as the analysis it asks for.
impl From<pb::BestMoveRequest> for pb::AnalyzeRequest {
    fn from(r: pb::BestMoveRequest) -> Self {
        pb::AnalyzeRequest {
            position: r.position,
            depth: r.depth,
            nodes: r.nodes,
            movetime_ms: r.movetime_ms,
            multipv: r.multipv,
            threads: r.threads,
        }
    }
}

/// The analysis an `Analyze` request asks for, as a `BestMove` request.
impl From<pb::AnalyzeRequest> for pb::BestMoveRequest {
    fn from(r: pb::AnalyzeRequest) -> Self {
        pb::BestMoveRequest {
            position: r.position,
            depth: r.depth,
            nodes: r.nodes,
            movetime_ms: r.movetime_ms,
            multipv: r.multipv,
            threads: r.threads,
        }
    }
}
