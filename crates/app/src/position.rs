//! Positions from requests: a variant by name, a FEN and the moves played
//! from it.

use menagerie_notation::fen::{self, FenError};
use menagerie_notation::{MoveError, parse_move};
use menagerie_variants::{AnyPosition, Game, Move, VariantId};
use thiserror::Error;

/// A variant name that no known variant answers to.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("unknown variant '{name}' (known: {known})")]
pub struct UnknownVariant {
    /// The name asked for.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
}

/// The variants a request may name: today the built-in ones.
///
/// Every front end finds variants by name through this type, so that
/// variants defined at run time can later be offered beside the built-in
/// ones in one place.
#[derive(Clone, Debug, Default)]
pub struct Variants {
    _builtin: (),
}

impl Variants {
    /// The built-in variants.
    pub fn builtin() -> Variants {
        Variants::default()
    }

    /// The variant called `name` (any letter case).
    pub fn lookup(&self, name: &str) -> Result<VariantId, UnknownVariant> {
        VariantId::from_name(name).ok_or_else(|| UnknownVariant { name: name.to_string(), known: self.names() })
    }

    /// Every variant, in listing order.
    pub fn iter(&self) -> impl Iterator<Item = VariantId> + '_ {
        VariantId::ALL.iter().copied()
    }

    /// The names of every variant, comma-separated.
    pub fn names(&self) -> String {
        VariantId::names()
    }

    /// The position `request` describes: its variant's start position or
    /// its FEN, with its moves (coordinate or SAN) played in order.
    pub fn position<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<ParsedPosition, PositionError> {
        let variant = self.lookup(request.variant)?;
        let start = fen::parse_or_start(variant, request.fen)?;
        if let Some(max) = request.max_moves
            && request.moves.len() > max
        {
            return Err(PositionError::TooManyMoves { count: request.moves.len(), max });
        }
        play_moves(start, request.moves)
    }
}

/// A position as a front end receives it.
#[derive(Clone, Copy, Debug)]
pub struct PositionRequest<'a, S> {
    /// The variant's name.
    pub variant: &'a str,
    /// The starting FEN; blank for the variant's start position.
    pub fen: &'a str,
    /// Moves played from there, each one move in coordinate form or SAN.
    pub moves: &'a [S],
    /// The most moves accepted, if capped.
    pub max_moves: Option<usize>,
}

impl<'a, S> PositionRequest<'a, S> {
    /// A request with no cap on its moves.
    pub fn new(variant: &'a str, fen: &'a str, moves: &'a [S]) -> Self {
        PositionRequest { variant, fen, moves, max_moves: None }
    }
}

/// Why a request's position could not be set up.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum PositionError {
    /// The variant is not known.
    #[error(transparent)]
    UnknownVariant(#[from] UnknownVariant),
    /// The FEN does not parse.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// More moves than the cap.
    #[error("{count} moves is more than the {max} accepted")]
    TooManyMoves {
        /// How many moves were given.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// A move that is malformed or illegal where it is played.
    #[error("moves[{index}]: {source}")]
    Move {
        /// Its 0-based index in the list.
        index: usize,
        /// The move as given.
        text: String,
        /// What is wrong with it.
        #[source]
        source: MoveError,
    },
}

/// A request's position: where it starts, the moves played, where they lead.
#[derive(Clone, Debug)]
pub struct ParsedPosition {
    /// The starting position.
    pub start: AnyPosition,
    /// The moves played from `start`, all legal.
    pub moves: Vec<Move>,
    /// The position after the moves.
    pub current: AnyPosition,
}

impl ParsedPosition {
    /// The moves as a game (with its repetition history).
    pub fn game(&self) -> Game {
        let mut g = Game::new(self.start);
        for &m in &self.moves {
            let _ = g.play(m);
        }
        g
    }
}

/// Plays `moves` (coordinate or SAN, one move each) from `start`.
pub fn play_moves<S: AsRef<str>>(start: AnyPosition, moves: &[S]) -> Result<ParsedPosition, PositionError> {
    let mut current = start;
    let mut played = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let m = parse_move(&current, text).map_err(|source| PositionError::Move {
            index,
            text: text.to_string(),
            source,
        })?;
        current = current.play_unchecked(m);
        played.push(m);
    }
    Ok(ParsedPosition { start, moves: played, current })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_what_is_wrong() {
        let v = Variants::builtin();
        let none: &[&str] = &[];
        let e = v.position(&PositionRequest::new("shogi", "", none)).unwrap_err();
        assert!(e.to_string().starts_with("unknown variant 'shogi' (known: chess, "), "{e}");
        let e = v.position(&PositionRequest::new("chess", "8/8 w", none)).unwrap_err();
        assert!(matches!(e, PositionError::Fen(_)), "{e}");
        assert!(e.to_string().starts_with("bad FEN: "), "{e}");
        let e = v.position(&PositionRequest::new("chess", "", &["e4", "e4"])).unwrap_err();
        assert!(matches!(&e, PositionError::Move { index: 1, text, .. } if text == "e4"), "{e}");
        assert!(e.to_string().starts_with("moves[1]: 'e4' is illegal here"), "{e}");
        let capped = PositionRequest { max_moves: Some(1), ..PositionRequest::new("chess", "", &["e4", "e5"]) };
        assert_eq!(v.position(&capped).unwrap_err(), PositionError::TooManyMoves { count: 2, max: 1 });
    }

    #[test]
    fn the_game_keeps_the_moves() {
        let v = Variants::builtin();
        let p = v.position(&PositionRequest::new("CHESS", "", &["Nf3", "Nf6", "Ng1", "Ng8"])).unwrap();
        assert_eq!(p.start.hash(), p.current.hash());
        assert_eq!(p.game().repetitions(), 2);
    }
}
