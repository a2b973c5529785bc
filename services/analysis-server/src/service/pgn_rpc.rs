//! The ReadPgn and WritePgn RPCs: games replayed and written by
//! `menagerie_app::pgn`, mapped to the API's messages.

use super::{AnalysisApi, legal_move_pb};
use crate::error::{ServiceError, clip};
use menagerie_api::pb;
use menagerie_app::Variants;
use menagerie_app::pgn::WritePgnError;
use menagerie_notation::pgn;

/// ReadPgn's answer: every game of the text (of a compiled variant or of
/// one of `variants` defined as data), or the first bad game's error.
pub(super) fn read_pgn(text: &str, variants: &Variants) -> Result<pb::ReadPgnResponse, ServiceError> {
    let bad = |message: String| ServiceError::BadField { field: "pgn".into(), message: clip(&message) };
    let games = variants.replay_pgn(text, pgn::ReadOptions::default()).map_err(|e| bad(e.to_string()))?;
    let games = games
        .into_iter()
        .map(|g| pb::PgnGame {
            tags: g.tags.into_iter().map(|(name, value)| pb::PgnTag { name, value }).collect(),
            position: Some(pb::Position { variant: g.variant, fen: g.start_fen, moves: g.uci_moves }),
            moves: g.moves.into_iter().map(legal_move_pb).collect(),
            result: g.result.as_str().into(),
            pgn: g.pgn,
        })
        .collect();
    Ok(pb::ReadPgnResponse { games })
}

impl AnalysisApi {
    /// WritePgn's answer: the position's game with the tags and result
    /// (`menagerie_app::Variants::write_pgn`), its errors with the
    /// offending text clipped.
    pub(super) fn write_pgn_answer(&self, r: &pb::WritePgnRequest) -> Result<pb::WritePgnResponse, ServiceError> {
        let request = self.position_request(r.position.as_ref());
        let tags: Vec<(&str, &str)> = r.tags.iter().map(|t| (t.name.as_str(), t.value.as_str())).collect();
        let pgn = self.variants.write_pgn(&request, &tags, &r.result).map_err(|e| {
            let bad = |field: String, e: WritePgnError| ServiceError::BadField { field, message: e.to_string() };
            match e {
                WritePgnError::Position(e) => ServiceError::position(e),
                WritePgnError::TooManyTags { count, max } => {
                    ServiceError::OutOfRange { field: "tags".into(), value: count as u64, max: max as u64 }
                }
                WritePgnError::TagName { index, name } => {
                    bad(format!("tags[{index}]"), WritePgnError::TagName { index, name: clip(&name) })
                }
                e @ (WritePgnError::TagValue { index } | WritePgnError::TagFromGame { index, .. }) => {
                    bad(format!("tags[{index}]"), e)
                }
                WritePgnError::Result(token) => bad("result".into(), WritePgnError::Result(clip(&token))),
                WritePgnError::Contradiction(message) => {
                    ServiceError::Contradiction { field: "result".into(), message }
                }
                WritePgnError::Internal(message) => ServiceError::Internal(message),
            }
        })?;
        Ok(pb::WritePgnResponse { pgn })
    }
}
