//! The ReadPgn and WritePgn RPCs: games replayed and written by
//! `menagerie_app::pgn`, mapped to the API's messages, and WritePgn's tags
//! and result checked.

use super::{AnalysisApi, legal_move_pb, status_pb};
use crate::error::ServiceError;
use menagerie_api::pb;
use menagerie_app::Variants;
use menagerie_notation::pgn;

/// ReadPgn's answer: every game of the text (of a compiled variant or of
/// one of `variants` defined as data), or the first bad game's error.
pub(super) fn read_pgn(text: &str, variants: &Variants) -> Result<pb::ReadPgnResponse, ServiceError> {
    let bad = |message: String| ServiceError::BadField { field: "pgn".into(), message: crate::error::clip(&message) };
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

/// WritePgn's text of `game`: with `tags`, and the result `token` (the
/// game's own when empty) if the game's end (`ended`) allows it.
fn written_pgn<P: pgn::PgnPosition>(
    game: &mut pgn::PgnGame<P>,
    tags: &[pb::PgnTag],
    token: &str,
    ended: Option<&pb::Outcome>,
) -> Result<String, ServiceError> {
    set_pgn_tags(game, tags)?;
    game.result = pgn_result(token, ended, || game.result)?;
    game.to_pgn().map_err(|e| ServiceError::Internal(e.to_string()))
}

/// Sets WritePgn's tags on `game`.
fn set_pgn_tags<P: pgn::PgnPosition>(game: &mut pgn::PgnGame<P>, tags: &[pb::PgnTag]) -> Result<(), ServiceError> {
    if tags.len() > 256 {
        return Err(ServiceError::OutOfRange { field: "tags".into(), value: tags.len() as u64, max: 256 });
    }
    for (i, t) in tags.iter().enumerate() {
        let bad = |message: String| ServiceError::BadField { field: format!("tags[{i}]"), message };
        let name_ok =
            !t.name.is_empty() && t.name.len() <= 255 && t.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !name_ok {
            return Err(bad(format!(
                "tag name '{}' must be 1 to 255 letters, digits or '_'",
                crate::error::clip(&t.name)
            )));
        }
        if t.value.len() > 4096 || t.value.contains(['\n', '\r']) {
            return Err(bad("a tag value is one line of at most 4096 bytes".into()));
        }
        if !game.set_tag(&t.name, &t.value) {
            return Err(bad(format!("'{}' comes from the position and result, not from a tag", t.name)));
        }
    }
    Ok(())
}

/// WritePgn's result: the request's, or the game's own when it is empty.
/// A game the rules have decided (`decided`: checkmate, stalemate, a
/// variant's win, ...) takes no other result (`FAILED_PRECONDITION`); an
/// undecided one takes any (a resignation, a draw by agreement, a loss on time).
fn pgn_result(
    token: &str,
    decided: Option<&pb::Outcome>,
    own: impl FnOnce() -> pgn::GameResult,
) -> Result<pgn::GameResult, ServiceError> {
    if token.is_empty() {
        return Ok(own());
    }
    let result = pgn::GameResult::from_token(token).ok_or_else(|| ServiceError::BadField {
        field: "result".into(),
        message: format!("'{}' is not a result (1-0, 0-1, 1/2-1/2 or *)", crate::error::clip(token)),
    })?;
    match decided {
        Some(o) if o.result != result.as_str() => Err(ServiceError::Contradiction {
            field: "result".into(),
            message: format!(
                "'{}' contradicts the game: it is over, {} ({}); give {} or leave the result empty",
                result.as_str(),
                o.result,
                o.description,
                o.result
            ),
        }),
        _ => Ok(result),
    }
}

impl AnalysisApi {
    /// WritePgn's answer: the position's game with the tags and result.
    pub(super) fn write_pgn_answer(&self, r: &pb::WritePgnRequest) -> Result<pb::WritePgnResponse, ServiceError> {
        let request = self.position_request(r.position.as_ref());
        let played = self.variants.pgn_game(&request).map_err(ServiceError::position)?;
        // An ended game's result (a draw the side to move may claim is not one).
        let ended = status_pb(played.status).0;
        let pgn = match played.game {
            pgn::AnyPgnGame::Compiled(mut g) => written_pgn(&mut g, &r.tags, &r.result, ended.as_ref())?,
            pgn::AnyPgnGame::Data(mut g) => written_pgn(&mut g, &r.tags, &r.result, ended.as_ref())?,
        };
        Ok(pb::WritePgnResponse { pgn })
    }
}
