//! The annotated PGN.

use crate::position::ReviewPosition;
use crate::{Classification, GameReview, ReviewError};
use menagerie_notation::pgn::{PgnGame, PgnMove, Variation};

/// The `Annotator` tag's value.
pub const ANNOTATOR: &str = concat!("Menagerie ", env!("CARGO_PKG_VERSION"));

impl GameReview {
    /// `game` annotated with this review (see [`GameReview::annotated_pgn`]).
    ///
    /// Errors with [`ReviewError::Mismatch`] when `game` is not the game
    /// reviewed (another variant, start position or main line).
    pub fn annotate<P: ReviewPosition>(&self, game: &PgnGame<P>) -> Result<PgnGame<P>, ReviewError> {
        self.check_same(game)?;
        let positions = game.positions()?;
        let mut out = game.clone();
        out.set_tag("Annotator", ANNOTATOR);
        let last = out.moves.len();
        for (i, (pm, m)) in out.moves.iter_mut().zip(&self.moves).enumerate() {
            pm.comments = pm.comments.iter().filter_map(|c| without_eval(c)).collect();
            if let Some(value) = m.eval_after.pgn_value() {
                pm.comments.push(format!("[%eval {value}]"));
            }
            if let Some(nag) = m.classification.nag() {
                pm.nags.retain(|n| !(1..=6).contains(n));
                pm.nags.push(nag);
                pm.comments.push(format!("{}. {} was best.", m.classification.name(), m.best_san));
            }
            if m.classification >= Classification::Mistake {
                let pos = &positions[i];
                let mut line = Vec::new();
                let mut p = pos.clone();
                for text in &m.best_line_uci {
                    let Some(mv) = p.parse_coordinates(text) else { break };
                    line.push(PgnMove::new(mv));
                    p = p.after(mv);
                }
                if !line.is_empty() {
                    pm.variations.push(Variation { comments: Vec::new(), moves: line });
                }
            }
            if i + 1 == last
                && let Some(end) = self.positions.last().and_then(|p| p.outcome.as_ref())
            {
                pm.comments.push(capitalised(&end.description));
            }
        }
        Ok(out)
    }

    /// `game` in PGN with the review written in: on every move a
    /// `[%eval 0.35]` / `[%eval #-3]` comment (the evaluation after it,
    /// White's point of view, as lichess and python-chess read it; none
    /// after a move that wins the game, which the syntax cannot say), on
    /// inaccuracies, mistakes and blunders the NAG `$6`, `$2` or `$4`
    /// (replacing `$1`–`$6` given before) and a comment such as `Mistake.
    /// Nf3 was best.`, on mistakes and blunders a variation with the
    /// engine's line, a comment on how the game ended when it did, and the
    /// tag `Annotator "Menagerie <version>"`. The game's own comments,
    /// NAGs and variations are kept, less any `[%eval]` they held.
    pub fn annotated_pgn<P: ReviewPosition>(&self, game: &PgnGame<P>) -> Result<String, ReviewError> {
        Ok(self.annotate(game)?.to_pgn()?)
    }

    fn check_same<P: ReviewPosition>(&self, game: &PgnGame<P>) -> Result<(), ReviewError> {
        let variant = P::variant_name(&game.variant);
        if variant != self.variant {
            return Err(ReviewError::Mismatch(format!("variant {variant} instead of {}", self.variant)));
        }
        let start = game.start.fen_text();
        if self.positions.first().map(|p| p.fen.as_str()) != Some(start.as_str()) {
            return Err(ReviewError::Mismatch(format!("start position {start}")));
        }
        let played: Vec<&str> = self.moves.iter().map(|m| m.played_uci.as_str()).collect();
        let positions = game.positions()?;
        let moves: Vec<String> = game.moves.iter().zip(&positions).map(|(m, p)| p.coordinates(m.mv)).collect();
        if moves != played {
            return Err(ReviewError::Mismatch("another main line".into()));
        }
        Ok(())
    }
}

/// A comment less its `[%eval ...]` commands; none if nothing is left.
fn without_eval(comment: &str) -> Option<String> {
    let mut rest = comment;
    let mut out = String::new();
    while let Some(at) = rest.find("[%eval") {
        out.push_str(&rest[..at]);
        match rest[at..].find(']') {
            Some(close) => rest = &rest[at + close + 1..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    (!out.is_empty()).then_some(out)
}

fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(first) => format!("{}{}.", first.to_uppercase(), c.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_commands_are_removed() {
        assert_eq!(without_eval("[%eval 0.35]"), None);
        assert_eq!(without_eval("good [%eval #-3] move [%clk 0:01:00]").as_deref(), Some("good move [%clk 0:01:00]"));
        assert_eq!(without_eval("[%eval 1.0").as_deref(), None);
        assert_eq!(capitalised("checkmate, White wins"), "Checkmate, White wins.");
    }
}
