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

/// `From` both ways between two messages with the same fields.
macro_rules! same_fields {
    ($a:path, $b:path { $($field:ident),* $(,)? }) => {
        impl From<$a> for $b {
            fn from(r: $a) -> Self {
                $b { $($field: r.$field),* }
            }
        }

        impl From<$b> for $a {
            fn from(r: $b) -> Self {
                $a { $($field: r.$field),* }
            }
        }
    };
}

// `BestMove` takes the same fields as `Analyze`, as its own message (one
// request type per RPC): a `BestMoveRequest` is read as the analysis it
// asks for, and an `AnalyzeRequest` as a `BestMove` request.
same_fields!(pb::BestMoveRequest, pb::AnalyzeRequest { position, depth, nodes, movetime_ms, multipv, threads });
