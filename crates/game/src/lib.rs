//! One face for a game of any Menagerie variant.
//!
//! Menagerie plays its games on two rules engines: the compiled core
//! (`menagerie-variants`, with `menagerie-notation` for text), fast and
//! monomorphic per game, and the data engine (`menagerie-rules`), which
//! plays any game its definition describes. This crate is the one
//! vocabulary every consumer above the rules uses: a [`Position`], a
//! [`Move`] and a [`Game`] of any variant, with legal moves, play, check,
//! outcome, FEN, coordinate and SAN text, move parsing and keys. The
//! backend is chosen once, when the position is built; moves never cross
//! backends as text.
//!
//! A game defined as data that a compiled game plays exactly (its "twin",
//! [`menagerie_notation::twin`]) keeps its data engine's notation, and is
//! searched on the compiled core: [`Game::search_root`] says which core a
//! search runs on and maps the compiled search's moves back. Only the
//! search engine asks; nothing else needs to know which backend plays.
//!
//! ```
//! use menagerie_game::{Game, Position};
//! use menagerie_rules::Definitions;
//! use menagerie_variants::{AnyPosition, VariantId};
//!
//! // A compiled game and a game defined as data, through the same calls.
//! let chess = Position::from(AnyPosition::start(VariantId::Chess));
//! let capablanca = Position::from(menagerie_rules::Position::start(Definitions::builtin().get("capablanca").unwrap()));
//! for start in [chess, capablanca] {
//!     let mut game = Game::new(start);
//!     let m = game.current().parse_move("e2e4").unwrap();
//!     assert_eq!(game.current().san(m), "e4");
//!     game.play(m).unwrap();
//!     assert!(!game.current().white_to_move());
//!     assert_eq!(game.current().legal_moves().len(), if game.current().variant_name() == "chess" { 20 } else { 28 });
//! }
//! ```

use menagerie_notation::{fen, san, twin, uci};
use menagerie_pieces::Color;
use menagerie_rules::{EndReason, Move as DataMove, Position as DataPosition, VariantDef};
use menagerie_variants::{AnyPosition, Move as CompiledMove, Outcome as CompiledOutcome, WinReason};
use std::sync::Arc;

/// A move of a [`Position`] of any variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(MoveOf);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MoveOf {
    Compiled(CompiledMove),
    Data(DataMove),
}

impl From<CompiledMove> for Move {
    fn from(m: CompiledMove) -> Move {
        Move(MoveOf::Compiled(m))
    }
}

impl From<DataMove> for Move {
    fn from(m: DataMove) -> Move {
        Move(MoveOf::Data(m))
    }
}

impl Move {
    /// The compiled core's move, when this is one (the search's fast path
    /// and code written for compiled games only).
    pub fn compiled(self) -> Option<CompiledMove> {
        match self.0 {
            MoveOf::Compiled(m) => Some(m),
            MoveOf::Data(_) => None,
        }
    }

    /// The data engine's move, when this is one.
    pub fn data(self) -> Option<DataMove> {
        match self.0 {
            MoveOf::Data(m) => Some(m),
            MoveOf::Compiled(_) => None,
        }
    }
}

/// A move that is not legal in the position it was to be played in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{text} is not legal here")]
pub struct IllegalMove {
    /// The move, as text.
    pub text: String,
}

/// Text that is not a legal move of the position it was read in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Read by the compiled core's notation.
    #[error(transparent)]
    Compiled(#[from] menagerie_notation::MoveError),
    /// Read by the data engine.
    #[error(transparent)]
    Data(#[from] menagerie_rules::MoveError),
}

impl MoveError {
    /// True if the text is not even written like a move of the variant
    /// (as opposed to a move that is illegal or ambiguous here).
    pub fn is_malformed(&self) -> bool {
        use menagerie_notation::MoveError as C;
        use menagerie_rules::MoveError as D;
        match self {
            MoveError::Compiled(e) => !matches!(e, C::Illegal { .. } | C::Ambiguous(_)),
            MoveError::Data(e) => !matches!(e, D::Illegal(_) | D::Ambiguous(_)),
        }
    }

    /// True if the text is written like a move of the variant and names
    /// exactly one move, which is not legal here (as opposed to text that
    /// is malformed or fits more than one legal move).
    pub fn is_illegal(&self) -> bool {
        use menagerie_notation::MoveError as C;
        use menagerie_rules::MoveError as D;
        match self {
            MoveError::Compiled(e) => matches!(e, C::Illegal { .. }),
            MoveError::Data(e) => matches!(e, D::Illegal(_)),
        }
    }
}

/// A position of any variant: a compiled game's or one defined as data.
#[derive(Clone, Debug, PartialEq)]
pub struct Position(PositionOf);

// A compiled position stays inline: playing a move makes one without
// allocating (the data engine's, boxed, allocates anyway).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
enum PositionOf {
    Compiled(AnyPosition),
    Data(Box<DataPosition>),
}

impl From<AnyPosition> for Position {
    fn from(p: AnyPosition) -> Position {
        Position(PositionOf::Compiled(p))
    }
}

impl From<DataPosition> for Position {
    fn from(p: DataPosition) -> Position {
        Position(PositionOf::Data(Box::new(p)))
    }
}

impl Position {
    /// The compiled core's position, when a compiled game plays this one
    /// (code written for compiled games only: XBoard's notation, pictures).
    pub fn compiled(&self) -> Option<&AnyPosition> {
        match &self.0 {
            PositionOf::Compiled(p) => Some(p),
            PositionOf::Data(_) => None,
        }
    }

    /// The data engine's position, when the game is defined as data.
    pub fn data(&self) -> Option<&DataPosition> {
        match &self.0 {
            PositionOf::Data(p) => Some(p),
            PositionOf::Compiled(_) => None,
        }
    }

    /// The variant's name.
    pub fn variant_name(&self) -> String {
        match &self.0 {
            PositionOf::Compiled(p) => p.variant().name().to_string(),
            PositionOf::Data(p) => p.variant().name.clone(),
        }
    }

    /// The board's size: files, then ranks.
    pub fn size(&self) -> (u8, u8) {
        match &self.0 {
            PositionOf::Compiled(p) => p.variant().size(),
            PositionOf::Data(p) => (p.variant().files, p.variant().ranks),
        }
    }

    /// The FEN of the variant's start position.
    pub fn start_fen(&self) -> String {
        match &self.0 {
            PositionOf::Compiled(p) => p.variant().start_fen().to_string(),
            PositionOf::Data(p) => p.variant().start_fen.clone(),
        }
    }

    /// The variant's start position.
    pub fn start(&self) -> Position {
        match &self.0 {
            PositionOf::Compiled(p) => AnyPosition::start(p.variant()).into(),
            PositionOf::Data(p) => DataPosition::start(p.variant()).into(),
        }
    }

    /// A position of this variant read from `text` (its FEN).
    pub fn with_fen(&self, text: &str) -> Result<Position, FenError> {
        match &self.0 {
            PositionOf::Compiled(p) => {
                fen::parse(p.variant(), text).map(Position::from).map_err(|e| FenError(e.to_string()))
            }
            PositionOf::Data(p) => {
                DataPosition::from_fen(p.variant(), text).map(Position::from).map_err(|e| FenError(e.to_string()))
            }
        }
    }

    /// The position's FEN.
    pub fn fen(&self) -> String {
        match &self.0 {
            PositionOf::Compiled(p) => fen::format(p),
            PositionOf::Data(p) => p.fen(),
        }
    }

    /// True if White is to move.
    pub fn white_to_move(&self) -> bool {
        match &self.0 {
            PositionOf::Compiled(p) => p.side_to_move() == Color::White,
            PositionOf::Data(p) => p.white_to_move(),
        }
    }

    /// True if the side to move is in check.
    pub fn is_check(&self) -> bool {
        match &self.0 {
            PositionOf::Compiled(p) => p.is_check(),
            PositionOf::Data(p) => p.in_check(),
        }
    }

    /// The position's hash key (equal positions, equal keys).
    pub fn key(&self) -> u64 {
        match &self.0 {
            PositionOf::Compiled(p) => p.hash(),
            PositionOf::Data(p) => p.key(),
        }
    }

    /// The legal moves.
    pub fn legal_moves(&self) -> Vec<Move> {
        match &self.0 {
            PositionOf::Compiled(p) => p.legal_moves().iter().map(|&m| Move::from(m)).collect(),
            PositionOf::Data(p) => p.legal_moves().into_iter().map(Move::from).collect(),
        }
    }

    /// True if `m` is a legal move here.
    pub fn is_legal(&self, m: Move) -> bool {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(m)) => p.legal_moves().contains(&m),
            (PositionOf::Data(p), MoveOf::Data(m)) => p.legal_moves().contains(&m),
            _ => false,
        }
    }

    /// The position after the legal move `m`.
    pub fn play(&self, m: Move) -> Result<Position, IllegalMove> {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => {
                p.play(cm).map(Position::from).map_err(|_| IllegalMove { text: uci::format(p.variant(), cm) })
            }
            (PositionOf::Data(p), MoveOf::Data(dm)) if p.legal_moves().contains(&dm) => Ok(p.play(dm).into()),
            _ => Err(IllegalMove { text: format!("{m:?}") }),
        }
    }

    /// The position after `m`, which must be a legal move here (one of
    /// [`Position::legal_moves`], or read by [`Position::parse_move`]): it
    /// is not checked again. A move of the other backend changes nothing.
    pub fn play_unchecked(&self, m: Move) -> Position {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => p.play_unchecked(cm).into(),
            (PositionOf::Data(p), MoveOf::Data(dm)) => p.play(dm).into(),
            _ => self.clone(),
        }
    }

    /// `m` in coordinate notation (Menagerie's for compiled games, with
    /// `accept`, `decline` and `A@fg` for the prelude; Fairy-Stockfish's
    /// for games defined as data).
    pub fn move_text(&self, m: Move) -> String {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => uci::format(p.variant(), cm),
            (PositionOf::Data(p), MoveOf::Data(dm)) => p.move_text(dm),
            _ => format!("{m:?}"),
        }
    }

    /// `m` as a UCI engine writes it: for compiled games with
    /// `chess960`, castling as king-takes-rook (`e1h1`), otherwise as the
    /// king's move (`e1g1`); games defined as data in their own
    /// coordinate notation.
    pub fn wire_text(&self, m: Move, chess960: bool) -> String {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) if chess960 => uci::format_wire(p, cm),
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => uci::format_wire_orthodox_castling(p, cm),
            (PositionOf::Data(p), MoveOf::Data(dm)) => p.move_text(dm),
            _ => format!("{m:?}"),
        }
    }

    /// The moves of `line` from here as [`Position::wire_text`] writes
    /// them; a move that is not legal where it stands ends the list.
    pub fn line_text(&self, line: &[Move], chess960: bool) -> Vec<String> {
        let mut p = self.clone();
        let mut out = Vec::with_capacity(line.len());
        for &m in line {
            let text = p.wire_text(m, chess960);
            match p.play(m) {
                Ok(next) => p = next,
                Err(_) => break,
            }
            out.push(text);
        }
        out
    }

    /// True if `m` (legal here) captures or converts material.
    pub fn is_capture(&self, m: Move) -> bool {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => p.is_capture(cm),
            (PositionOf::Data(p), MoveOf::Data(dm)) => p.is_capture(dm),
            _ => false,
        }
    }

    /// `m` (legal here) in SAN.
    pub fn san(&self, m: Move) -> String {
        match (&self.0, m.0) {
            (PositionOf::Compiled(p), MoveOf::Compiled(cm)) => san::format(p, cm),
            (PositionOf::Data(p), MoveOf::Data(dm)) => p.san(dm),
            _ => format!("{m:?}"),
        }
    }

    /// The legal move written `text`, in coordinate notation or SAN.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        match &self.0 {
            PositionOf::Compiled(p) => Ok(menagerie_notation::parse_move(p, text)?.into()),
            PositionOf::Data(p) => Ok(p.parse_any(text)?.into()),
        }
    }

    /// How the position itself ends the game, if it does (checkmate,
    /// stalemate and each variant's own wins; see [`Game::outcome`] for
    /// the ends that depend on the game's history).
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.0 {
            PositionOf::Compiled(p) => p.outcome().map(compiled_outcome),
            PositionOf::Data(p) => p.outcome().map(|o| rules_outcome(p, o)),
        }
    }
}

/// A FEN that is not a position of the variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FenError(String);

/// The result of a game that has ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// White wins.
    WhiteWins,
    /// Black wins.
    BlackWins,
    /// Draw.
    Draw,
}

impl GameResult {
    /// The PGN form: `1-0`, `0-1` or `1/2-1/2`.
    pub fn text(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

/// How a game has ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The result.
    pub result: GameResult,
    /// Why, in a few words (`White mates`, `Draw by repetition`).
    pub reason: String,
}

/// The face's outcome of the compiled core's outcome `o`.
fn compiled_outcome(o: CompiledOutcome) -> Outcome {
    let result = match o {
        CompiledOutcome::Win { winner: Color::White, .. } => GameResult::WhiteWins,
        CompiledOutcome::Win { winner: Color::Black, .. } => GameResult::BlackWins,
        CompiledOutcome::Draw(_) => GameResult::Draw,
    };
    let reason = match o {
        CompiledOutcome::Win { winner, reason: WinReason::Checkmate } => format!("{} mates", winner.name()),
        CompiledOutcome::Win { winner, reason: WinReason::NoCamelOrRhino } => {
            format!("{} has no Camel or Rhino", winner.flip().name())
        }
        CompiledOutcome::Draw(_) => o.describe(),
    };
    Outcome { result, reason }
}

/// The face's outcome of the data engine's (`menagerie_rules`) outcome `o`
/// of a game now at `pos`.
fn rules_outcome(pos: &DataPosition, o: menagerie_rules::Outcome) -> Outcome {
    let result = match o.result {
        menagerie_rules::GameResult::WhiteWins => GameResult::WhiteWins,
        menagerie_rules::GameResult::BlackWins => GameResult::BlackWins,
        menagerie_rules::GameResult::Draw => GameResult::Draw,
    };
    let side = |white: bool| if white { "White" } else { "Black" };
    let reason = match o.reason {
        EndReason::Checkmate => format!("{} mates", side(!o.white_ended)),
        EndReason::Stalemate => "Stalemate".to_string(),
        EndReason::Extinction => format!("{} {}", side(o.white_ended), extinction_text(pos.variant())),
        EndReason::Repetition => "Draw by repetition".to_string(),
        EndReason::MoveRule => format!("Draw by the {}-move rule", pos.variant().game_end.n_move_rule),
        EndReason::Counting => "Draw by the counting rule".to_string(),
        EndReason::Flag if result == GameResult::Draw => "Both kings reached the goal".to_string(),
        EndReason::Flag => format!("{} reached the goal", side(result == GameResult::WhiteWins)),
        EndReason::Checks => format!("{} gave the last check", side(!o.white_ended)),
        EndReason::Passes => "Both sides passed".to_string(),
        EndReason::Bikjang => "The kings faced each other twice (bikjang)".to_string(),
        EndReason::Connect => format!("{} connected", side(o.white_ended)),
        EndReason::FullBoard => "The board is full".to_string(),
        EndReason::Castling if result == GameResult::WhiteWins => {
            "White castled, or Black lost its castling".to_string()
        }
        EndReason::Castling => "Black castled, or White lost its castling".to_string(),
    };
    Outcome { result, reason }
}

/// What a side that lost by extinction in `def` has come to (`has no
/// pieces left`, `has a bare king`, `has no king left`, `has at most 2
/// kings left`).
fn extinction_text(def: &VariantDef) -> String {
    let end = &def.game_end;
    let types = end.extinction_piece_types.as_str();
    let n = end.extinction_piece_count;
    match (types, n) {
        ("*", 0) => "has no pieces left".to_string(),
        ("*", 1) => "has a bare king".to_string(),
        ("*", n) => format!("has at most {n} pieces left"),
        _ => {
            let plural = if n == 0 { "" } else { "s" };
            let mut names: Vec<String> = def
                .pieces()
                .filter(|p| types.contains(p.letter.to_ascii_lowercase()))
                .map(|p| match p.letter.to_ascii_lowercase() {
                    // A non-royal king (atomic's commoner) is still its side's king.
                    'k' => format!("king{plural}"),
                    l if p.name.starts_with("customPiece") => format!("'{l}' piece{plural}"),
                    _ => format!("{}{plural}", p.name),
                })
                .collect();
            if names.is_empty() {
                names.push(format!("'{types}' pieces"));
            }
            let list = names.join(" or ");
            if n == 0 { format!("has no {list} left") } else { format!("has at most {n} {list} left") }
        }
    }
}

/// A game of any variant: a start position, the moves played, and the
/// positions along the way (for repetition).
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    current: Position,
    moves: Vec<Move>,
    /// The keys of the positions before the current one, oldest first.
    keys: Vec<u64>,
    of: GameOf,
}

// One per game: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum GameOf {
    Compiled(menagerie_variants::Game),
    Data(menagerie_rules::Game),
}

impl Game {
    /// A game from `start`, no move played yet.
    pub fn new(start: Position) -> Game {
        let of = match &start.0 {
            PositionOf::Compiled(p) => GameOf::Compiled(menagerie_variants::Game::new(*p)),
            PositionOf::Data(p) => GameOf::Data(menagerie_rules::Game::new((**p).clone())),
        };
        Game { current: start.clone(), start, moves: Vec::new(), keys: Vec::new(), of }
    }

    /// The game from `start` after `moves`; the index of the first move
    /// that is not legal where it stands otherwise.
    pub fn from_moves(start: Position, moves: &[Move]) -> Result<Game, (usize, IllegalMove)> {
        let mut game = Game::new(start);
        for (i, &m) in moves.iter().enumerate() {
            game.play(m).map_err(|e| (i, e))?;
        }
        Ok(game)
    }

    /// The compiled core's game, when a compiled game plays this one
    /// (policies written for the compiled games' own rules).
    pub fn compiled(&self) -> Option<&menagerie_variants::Game> {
        match &self.of {
            GameOf::Compiled(g) => Some(g),
            GameOf::Data(_) => None,
        }
    }

    /// The data engine's game, when the game is defined as data.
    pub fn data(&self) -> Option<&menagerie_rules::Game> {
        match &self.of {
            GameOf::Data(g) => Some(g),
            GameOf::Compiled(_) => None,
        }
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The position now.
    pub fn current(&self) -> &Position {
        &self.current
    }

    /// The moves played, in order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The keys ([`Position::key`]) of the positions before the current
    /// one, oldest first: what a search counts repetitions against.
    pub fn history_keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plays the legal move `m`.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        let next = self.current.play(m)?;
        match (&mut self.of, m.0) {
            (GameOf::Compiled(g), MoveOf::Compiled(cm)) => g.play_unchecked(cm),
            (GameOf::Data(g), MoveOf::Data(dm)) => g.play(dm),
            // `play` above accepts only moves of the position's backend.
            _ => return Err(IllegalMove { text: format!("{m:?}") }),
        }
        self.keys.push(self.current.key());
        self.moves.push(m);
        self.current = next;
        Ok(())
    }

    /// Takes back the last move; returns it (None at the start).
    pub fn undo(&mut self) -> Option<Move> {
        let last = self.moves.last().copied()?;
        let earlier = &self.moves[..self.moves.len() - 1];
        // Every move was legal when played: replaying them cannot fail.
        let back = Game::from_moves(self.start.clone(), earlier).ok()?;
        *self = back;
        Some(last)
    }

    /// How the game has ended, if it has, by the rules the engine's own
    /// referee applies: checkmate, stalemate and each variant's wins,
    /// repetition (threefold, or the variant's n-fold rule), and for games
    /// defined as data their n-move and counting rules.
    pub fn outcome(&self) -> Option<Outcome> {
        match &self.of {
            GameOf::Compiled(g) => g.outcome().map(compiled_outcome),
            GameOf::Data(g) => g.outcome().or_else(|| g.claimable()).map(|o| rules_outcome(g.current(), o)),
        }
    }

    /// Where a search of the current position runs: on the compiled core
    /// (a compiled game, or a game defined as data whose every position of
    /// the game has an exact compiled twin) or on the data engine.
    pub fn search_root(&self) -> SearchRoot {
        match &self.current.0 {
            PositionOf::Compiled(p) => {
                SearchRoot::Compiled(CompiledRoot { position: *p, history: self.keys.clone(), data: None })
            }
            PositionOf::Data(current) => self
                .twin_root(current)
                .map(SearchRoot::Compiled)
                .unwrap_or_else(|| SearchRoot::Data { position: current.clone(), history: self.keys.clone() }),
        }
    }

    /// The compiled twin of a data game's current position `current`, with
    /// the compiled keys of the positions before it, when every position
    /// of the game has one and their moves correspond.
    fn twin_root(&self, current: &DataPosition) -> Option<CompiledRoot> {
        let mut pos = self.start.data()?.clone();
        let mut keys = Vec::with_capacity(self.moves.len());
        for m in &self.moves {
            keys.push(twin::compiled(&pos)?.hash());
            pos = pos.play(m.data()?);
        }
        let twin = twin::compiled(current).filter(|t| twin::moves_correspond(current, t))?;
        Some(CompiledRoot { position: twin, history: keys, data: Some(Arc::new(current.clone())) })
    }
}

impl From<menagerie_variants::Game> for Game {
    /// The same game (its moves were legal when played).
    fn from(g: menagerie_variants::Game) -> Game {
        let start = *g.start();
        let mut keys = Vec::with_capacity(g.moves().len());
        let mut pos = start;
        for &m in g.moves() {
            keys.push(pos.hash());
            pos = pos.play_unchecked(m);
        }
        let moves = g.moves().iter().map(|&m| Move::from(m)).collect();
        Game { start: start.into(), current: (*g.position()).into(), moves, keys, of: GameOf::Compiled(g) }
    }
}

impl From<menagerie_rules::Game> for Game {
    /// The same game (its moves were legal when played).
    fn from(g: menagerie_rules::Game) -> Game {
        let mut keys = Vec::with_capacity(g.moves().len());
        let mut pos = g.start().clone();
        for &m in g.moves() {
            keys.push(pos.key());
            pos = pos.play(m);
        }
        let moves = g.moves().iter().map(|&m| Move::from(m)).collect();
        let (start, current) = (g.start().clone().into(), g.current().clone().into());
        Game { start, current, moves, keys, of: GameOf::Data(g) }
    }
}

/// Where a search runs (see [`Game::search_root`]).
// One per search: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum SearchRoot {
    /// On the compiled core.
    Compiled(CompiledRoot),
    /// On the data engine: the position and the keys of the positions
    /// before it.
    Data {
        /// The position searched.
        position: Box<DataPosition>,
        /// The keys of the positions before it, oldest first.
        history: Vec<u64>,
    },
}

/// A position searched on the compiled core, and how the search's moves
/// translate to and from the game's.
pub struct CompiledRoot {
    /// The compiled position searched.
    pub position: AnyPosition,
    /// The compiled keys of the positions before it, oldest first.
    pub history: Vec<u64>,
    /// The game's own position when it is defined as data (the compiled
    /// position is its twin).
    data: Option<Arc<DataPosition>>,
}

impl CompiledRoot {
    /// The game's moves of a line of compiled moves from the root, up to
    /// the first that has none.
    pub fn line(&self, line: &[CompiledMove]) -> Vec<Move> {
        match &self.data {
            None => line.iter().map(|&m| Move::from(m)).collect(),
            Some(d) => twin::line_to_data(d, &self.position, line).into_iter().map(Move::from).collect(),
        }
    }

    /// The compiled move that plays the game's root move `m`.
    pub fn to_compiled(&self, m: Move) -> Option<CompiledMove> {
        match (&self.data, m.0) {
            (None, MoveOf::Compiled(cm)) => Some(cm),
            (Some(d), MoveOf::Data(dm)) => twin::to_compiled(d, &self.position, dm),
            _ => None,
        }
    }

    /// True if the game is defined as data and searched on its twin.
    pub fn is_twin(&self) -> bool {
        self.data.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_rules::Definitions;
    use menagerie_variants::VariantId;

    fn data(name: &str) -> Position {
        DataPosition::start(Definitions::builtin().get(name).expect("built in")).into()
    }

    #[test]
    fn the_backend_is_chosen_once_and_moves_do_not_cross() {
        let chess = Position::from(AnyPosition::start(VariantId::Chess));
        let capa = data("capablanca");
        let m = chess.parse_move("e4").expect("legal");
        assert!(chess.is_legal(m));
        assert!(!capa.is_legal(m));
        assert!(capa.play(m).is_err());
        let dm = capa.parse_move("e2e4").expect("legal");
        assert_eq!(capa.move_text(dm), "e2e4");
        assert_eq!(chess.move_text(m), "e2e4");
    }

    #[test]
    fn move_errors_say_the_same_for_both_backends() {
        let fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
        let compiled = Position::from(AnyPosition::start(VariantId::Chess)).with_fen(fen).expect("a chess FEN");
        let data = data("chess").with_fen(fen).expect("a chess FEN");
        for pos in [compiled, data] {
            let ambiguous = pos.parse_move("Nd2").expect_err("two knights reach d2");
            assert!(!ambiguous.is_illegal() && !ambiguous.is_malformed(), "{ambiguous}");
            let illegal = pos.parse_move("e1e3").expect_err("the king steps one square");
            assert!(illegal.is_illegal() && !illegal.is_malformed(), "{illegal}");
            let malformed = pos.parse_move("hello").expect_err("not a move");
            assert!(!malformed.is_illegal() && malformed.is_malformed(), "{malformed}");
        }
    }

    #[test]
    fn extinctions_say_what_was_lost() {
        let ends = [
            ("antichess", "8/8/8/8/8/8/8/k7 w - - 0 1", "White has no pieces left"),
            ("shatranj", "8/8/8/8/3k4/8/8/RR2K3 b - - 0 1", "Black has a bare king"),
            ("atomic", "8/8/8/8/8/8/8/4K3 b - - 0 1", "Black has no king left"),
            ("threekings", "knbqkbnk/pppppppp/8/8/8/8/PPPPPPPP/KNBQKBN1 w - - 0 1", "White has at most 2 kings left"),
        ];
        for (variant, fen, reason) in ends {
            let pos = data(variant).with_fen(fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"));
            let o = pos.outcome().unwrap_or_else(|| panic!("{variant} {fen}: the game is over"));
            assert_eq!(o.reason, reason, "{variant} {fen}");
        }
    }

    #[test]
    fn games_count_repetitions_and_end() {
        for start in [Position::from(AnyPosition::start(VariantId::Chess)), data("capablanca")] {
            let mut g = Game::new(start);
            for _ in 0..2 {
                for t in ["b1c3", "b8c6", "c3b1", "c6b8"] {
                    let m = g.current().parse_move(t).expect("legal");
                    g.play(m).expect("legal");
                }
            }
            let o = g.outcome().expect("threefold repetition");
            assert_eq!(o.result, GameResult::Draw);
            assert_eq!(g.history_keys().len(), 8);
            assert_eq!(g.history_keys()[0], g.current().key());
            assert!(g.undo().is_some());
            assert_eq!(g.moves().len(), 7);
            assert!(g.outcome().is_none());
        }
    }

    #[test]
    fn backend_games_convert_with_their_history() {
        let mut compiled = menagerie_variants::Game::new(AnyPosition::start(VariantId::Chess));
        let mut data = menagerie_rules::Game::new(DataPosition::start(
            Definitions::builtin().get("capablanca").expect("built in"),
        ));
        let mut faces = Vec::new();
        for start in [Position::from(*compiled.start()), Position::from(data.current().clone())] {
            let mut g = Game::new(start);
            for t in ["b1c3", "b8c6", "c3b1"] {
                let m = g.current().parse_move(t).expect("legal");
                match (m.compiled(), m.data()) {
                    (Some(cm), _) => compiled.play_unchecked(cm),
                    (_, Some(dm)) => data.play(dm),
                    _ => unreachable!(),
                }
                g.play(m).expect("legal");
            }
            faces.push(g);
        }
        for (face, converted) in faces.iter().zip([Game::from(compiled), Game::from(data)]) {
            assert_eq!(face.history_keys(), converted.history_keys());
            assert_eq!(face.moves(), converted.moves());
            assert_eq!(face.current(), converted.current());
            assert_eq!(face.start(), converted.start());
            assert_eq!(converted.compiled().is_some(), face.current().compiled().is_some());
            assert_eq!(converted.data().is_some(), face.current().data().is_some());
        }
    }

    #[test]
    fn a_data_game_with_a_compiled_twin_is_searched_on_it() {
        let defs = Definitions::builtin();
        // Orthodox chess as data: compiled chess plays it exactly.
        let def = defs.get("chess").expect("built in");
        let game = Game::new(DataPosition::start(def).into());
        let SearchRoot::Compiled(root) = game.search_root() else { panic!("chess has a compiled twin") };
        assert!(root.is_twin());
        let first = game.current().legal_moves()[0];
        let cm = root.to_compiled(first).expect("a twin move");
        assert_eq!(root.line(&[cm]), vec![first]);
        let crazyhouse = Game::new(data("crazyhouse"));
        assert!(matches!(crazyhouse.search_root(), SearchRoot::Data { .. }));
    }
}
