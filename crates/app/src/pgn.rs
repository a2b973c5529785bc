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

use crate::play::{GameStatus, ValidMove, describe_line, describe_moves, status};
use crate::{DataPosition, PositionError, PositionRequest, Variants};
use menagerie_game::{Game as FaceGame, Move as FaceMove};
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

/// The most tags [`Variants::write_pgn`] sets.
pub const MAX_TAGS: usize = 256;

/// Why [`Variants::write_pgn`] wrote no PGN.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum WritePgnError {
    /// The request's position.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// More tags than [`MAX_TAGS`].
    #[error("{count} tags is more than the {max} accepted")]
    TooManyTags {
        /// How many were given.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// Tag `index` (0-based) has a name that is not 1 to 255 letters,
    /// digits or `_`.
    #[error("tag name '{name}' must be 1 to 255 letters, digits or '_'")]
    TagName {
        /// Its index in the list.
        index: usize,
        /// The name.
        name: String,
    },
    /// Tag `index` has a value of more than one line or 4096 bytes.
    #[error("a tag value is one line of at most 4096 bytes")]
    TagValue {
        /// Its index in the list.
        index: usize,
    },
    /// Tag `index` is one the position and result give (`FEN`, `Result`...).
    #[error("'{name}' comes from the position and result, not from a tag")]
    TagFromGame {
        /// Its index in the list.
        index: usize,
        /// The name.
        name: String,
    },
    /// The result is not a PGN result token.
    #[error("'{0}' is not a result (1-0, 0-1, 1/2-1/2 or *)")]
    Result(String),
    /// The result contradicts the game's end.
    #[error("{0}")]
    Contradiction(String),
    /// The game could not be written.
    #[error("{0}")]
    Internal(String),
}

/// Why a PGN text does not hold exactly one game.
#[derive(Debug, thiserror::Error)]
pub enum OneGameError {
    /// The text does not read as PGN of known variants.
    #[error(transparent)]
    Read(#[from] PgnError),
    /// It holds no game.
    #[error("the PGN holds no game")]
    None,
    /// It holds this many games.
    #[error("the PGN holds {0} games; annotate one game per call")]
    Several(usize),
}

/// `game`'s start and moves as a PGN game (roster tags `?`, result `*`).
pub fn pgn_of(game: &FaceGame) -> AnyPgnGame {
    if let Some(g) = game.compiled() {
        let mut pgn = PgnGame::from_position(*g.start());
        pgn.moves = g.moves().iter().map(|&m| PgnMove::new(m)).collect();
        return AnyPgnGame::Compiled(pgn);
    }
    let start = game.start().data().cloned().unwrap_or_else(|| unreachable!("a game is compiled or defined as data"));
    let mut pgn = PgnGame::from_position(start);
    pgn.moves = game.moves().iter().filter_map(|m| m.data()).map(PgnMove::new).collect();
    AnyPgnGame::Data(pgn)
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
            let played: Vec<FaceMove> = g.moves.iter().map(|m| m.mv.into()).collect();
            (&g.tags, g.variant.name.clone(), start, describe_line(&g.start.clone().into(), &played))
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
        let lookup = move |tag: Option<&str>| tag.and_then(|name| variants.definition(name.trim()));
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
        let played = self.game(request)?;
        let status = status(&played);
        let mut game = pgn_of(&played);
        let result =
            status.ended.as_ref().and_then(|e| GameResult::from_token(e.result)).unwrap_or(GameResult::Unknown);
        match &mut game {
            AnyPgnGame::Compiled(g) => g.result = result,
            AnyPgnGame::Data(g) => g.result = result,
        }
        Ok(PlayedGame { game, status })
    }

    /// WritePgn's text of the game `request` describes ([`Variants::pgn_game`]),
    /// with `tags` (name, value) and `result` (a PGN result token; the
    /// game's own when empty). A game the rules have decided (checkmate,
    /// stalemate, a variant's win, ...) takes no other result; an undecided
    /// one takes any (a resignation, a draw by agreement, a loss on time).
    pub fn write_pgn<S: AsRef<str>>(
        &self,
        request: &PositionRequest<'_, S>,
        tags: &[(&str, &str)],
        result: &str,
    ) -> Result<String, WritePgnError> {
        let played = self.pgn_game(request)?;
        // An ended game's result (a draw the side to move may claim is not one).
        let ended = played.status.ended;
        let mut game = played.game;
        if tags.len() > MAX_TAGS {
            return Err(WritePgnError::TooManyTags { count: tags.len(), max: MAX_TAGS });
        }
        for (index, &(name, value)) in tags.iter().enumerate() {
            let name_ok =
                !name.is_empty() && name.len() <= 255 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !name_ok {
                return Err(WritePgnError::TagName { index, name: name.to_string() });
            }
            if value.len() > 4096 || value.contains(['\n', '\r']) {
                return Err(WritePgnError::TagValue { index });
            }
            let set = match &mut game {
                AnyPgnGame::Compiled(g) => g.set_tag(name, value),
                AnyPgnGame::Data(g) => g.set_tag(name, value),
            };
            if !set {
                return Err(WritePgnError::TagFromGame { index, name: name.to_string() });
            }
        }
        if !result.is_empty() {
            let token = GameResult::from_token(result).ok_or_else(|| WritePgnError::Result(result.to_string()))?;
            if let Some(o) = ended.filter(|o| o.result != token.as_str()) {
                return Err(WritePgnError::Contradiction(format!(
                    "'{}' contradicts the game: it is over, {} ({}); give {} or leave the result empty",
                    token.as_str(),
                    o.result,
                    o.description,
                    o.result
                )));
            }
            match &mut game {
                AnyPgnGame::Compiled(g) => g.result = token,
                AnyPgnGame::Data(g) => g.result = token,
            }
        }
        game.to_pgn().map_err(|e| WritePgnError::Internal(e.to_string()))
    }

    /// The one game of the PGN `text` to annotate: an error if the text
    /// does not read, or holds no game or several.
    pub fn one_pgn_game(&self, text: &str) -> Result<AnyPgnGame, OneGameError> {
        let mut games = self.read_pgn(text, ReadOptions::default())?;
        match games.len() {
            1 => Ok(games.remove(0)),
            0 => Err(OneGameError::None),
            n => Err(OneGameError::Several(n)),
        }
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
