//! The `menagerie.v1` gRPC API: messages, the `Analysis` client and server
//! stubs, generated at build time from `proto/menagerie/v1/analysis.proto`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use menagerie_api::pb::{analysis_client::AnalysisClient, LegalMovesRequest, Position};
//! let mut client = AnalysisClient::connect("http://127.0.0.1:50051").await?;
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
