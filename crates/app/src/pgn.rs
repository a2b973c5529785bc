//! Reading PGN of every variant a front end knows: the one PGN reader of
//! the server (ReadPgn, AnnotateGame) and the CLI (`pgn`, `annotate`).
//!
//! A game's `Variant` tag may name a compiled variant (in any of the
//! spellings [`menagerie_notation::pgn`] reads) or a variant defined as
//! data, built in or loaded ([`Variants::load`]); a game without the tag
//! is orthodox chess. A tag naming no variant is an error that lists every
//! known name and suggests the closest ([`Variants::suggest`]).
//!
//! ```
//! use menagerie_app::Variants;
//! use menagerie_notation::pgn::{AnyPgnGame, ReadOptions};
//! let variants = Variants::builtin();
//! let games = variants.read_pgn("[Variant \"makruk\"]\n\n1. e4 d5 *\n", ReadOptions::default())?;
//! assert!(matches!(&games[0], AnyPgnGame::Data(g) if g.variant.name == "makruk"));
//! let e = variants.read_pgn("[Variant \"makruck\"]\n\n*\n", ReadOptions::default()).unwrap_err();
//! assert!(e.to_string().contains("did you mean 'makruk'?"), "{e}");
//! # Ok::<(), menagerie_notation::pgn::PgnError>(())
//! ```

use crate::play::{GameStatus, ValidMove, data_status, describe_data_moves, describe_moves, status};
use crate::{DataPosition, PositionError, PositionRequest, VariantRef, Variants};
use menagerie_notation::fen;
use menagerie_notation::pgn::{
    AnyPgnGame, GameResult, IllegalPgnMove, PgnError, PgnErrorKind, PgnGame, PgnMove, PgnReader, ReadOptions,
};
use menagerie_variants::AnyPosition;
use std::io::BufRead;

/// A game read from PGN and replayed: its tags, where it starts, and each
/// move described in the position it is played in.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ReplayedGame {
    /// The tags in order (without those the position and result give).
    pub tags: Vec<(String, String)>,
    /// The variant's name.
    pub variant: String,
    /// The start position's FEN; empty for the variant's own start.
    pub start_fen: String,
    /// The main line in coordinate form.
    pub uci_moves: Vec<String>,
    /// The main line, each move described.
    pub moves: Vec<ValidMove>,
    /// The game's result.
    pub result: GameResult,
    /// The game in PGN export format.
    pub pgn: String,
}

/// The game a request describes, to be written as PGN.
#[derive(Clone, PartialEq, Debug)]
pub struct PlayedGame {
    /// Its start and moves, with the roster tags set to `?` and the
    /// result of the game if it has ended (else `*`).
    pub game: AnyPgnGame,
    /// How it stands after the moves.
    pub status: GameStatus,
}

/// Why a PGN text could not be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayPgnError {
    /// The text does not read as PGN of known variants.
    #[error(transparent)]
    Read(#[from] PgnError),
    /// A game's move is not legal where it stands.
    #[error("game {number}: {source}")]
    Game {
        /// The game's 1-based number in the text.
        number: usize,
        /// The move.
        #[source]
        source: IllegalPgnMove,
    },
}

/// `game` replayed: each move of its main line described.
pub fn replay_game(game: &AnyPgnGame) -> Result<ReplayedGame, IllegalPgnMove> {
    let (tags, variant, start_fen, moves) = match game {
        AnyPgnGame::Compiled(g) => {
            g.positions()?;
            let start = if g.start == AnyPosition::start(g.variant) { String::new() } else { fen::format(&g.start) };
            (&g.tags, g.variant.name().to_string(), start, describe_moves(g.start, g.moves.iter().map(|m| m.mv)))
        }
        AnyPgnGame::Data(g) => {
            g.positions()?;
            let start = if g.start == DataPosition::start(&g.variant) { String::new() } else { g.start.fen() };
            let played: Vec<_> = g.moves.iter().map(|m| m.mv).collect();
            (&g.tags, g.variant.name.clone(), start, describe_data_moves(&g.start, &played))
        }
    };
    Ok(ReplayedGame {
        tags: tags.clone(),
        variant,
        start_fen,
        uci_moves: moves.iter().map(|m| m.uci.clone()).collect(),
        moves,
        result: game.result(),
        pgn: game.to_pgn()?,
    })
}

/// The games of a PGN input, read one at a time ([`Variants::pgn_reader`]):
/// an [`Iterator`] of results that goes on with the next game after a bad one.
pub struct PgnGames<R> {
    reader: PgnReader<R>,
    variants: Variants,
}

impl<R: BufRead> Iterator for PgnGames<R> {
    type Item = Result<AnyPgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        let game = self.reader.read_any_game()?;
        Some(game.map_err(|e| self.variants.explain(e)))
    }
}

impl Variants {
    /// A reader of the PGN games of `input`, of every variant these
    /// variants hold (see the [module docs](crate::pgn)).
    pub fn pgn_reader<R: BufRead>(&self, input: R, options: ReadOptions) -> PgnGames<R> {
        let variants = self.clone();
        let lookup = move |tag: Option<&str>| tag.and_then(|name| variants.data_def(name.trim()));
        PgnGames { reader: PgnReader::with_data(input, options, lookup), variants: self.clone() }
    }

    /// Every game of `text` ([`Variants::pgn_reader`]); the first bad game
    /// is the error.
    pub fn read_pgn(&self, text: &str, options: ReadOptions) -> Result<Vec<AnyPgnGame>, PgnError> {
        self.pgn_reader(text.as_bytes(), options).collect()
    }

    /// The game `request` describes (its start, the variant's or its FEN,
    /// and its moves, all legal) as a PGN game, and how it stands.
    pub fn pgn_game<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<PlayedGame, PositionError> {
        let (mut game, status) = match self.find(request.variant)? {
            VariantRef::Compiled(_) => {
                let parsed = self.position(request)?;
                let mut game = PgnGame::from_position(parsed.start);
                game.moves = parsed.moves.iter().map(|&m| PgnMove::new(m)).collect();
                (AnyPgnGame::Compiled(game), status(&parsed.game()))
            }
            VariantRef::Data(_) => {
                let played = self.data_game(request)?;
                let mut game = PgnGame::from_position(played.start().clone());
                game.moves = played.moves().iter().map(|&m| PgnMove::new(m)).collect();
                (AnyPgnGame::Data(game), data_status(&played))
            }
        };
        let result =
            status.ended.as_ref().and_then(|e| GameResult::from_token(e.result)).unwrap_or(GameResult::Unknown);
        match &mut game {
            AnyPgnGame::Compiled(g) => g.result = result,
            AnyPgnGame::Data(g) => g.result = result,
        }
        Ok(PlayedGame { game, status })
    }

    /// Every game of `text`, replayed ([`replay_game`]); the first bad game
    /// is the error.
    pub fn replay_pgn(&self, text: &str, options: ReadOptions) -> Result<Vec<ReplayedGame>, ReplayPgnError> {
        let games = self.read_pgn(text, options)?;
        let replay = |(i, g): (usize, &AnyPgnGame)| {
            replay_game(g).map_err(|source| ReplayPgnError::Game { number: i + 1, source })
        };
        games.iter().enumerate().map(replay).collect()
    }

    /// `e` with an unknown variant's list of names made whole (the data
    /// variants named) and the closest name suggested.
    fn explain(&self, mut e: PgnError) -> PgnError {
        if let PgnErrorKind::UnknownVariant { name, known, suggestion } = &mut *e.kind {
            *known = format!("{}; chess is also Standard", self.names());
            *suggestion = self.suggest(name);
        }
        e
    }
}
