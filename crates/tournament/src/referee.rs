//! The two kinds of game the referee plays through one match loop: the
//! compiled variants (`menagerie_variants`) and the variants defined as data
//! (`menagerie_rules`, Fairy-Stockfish's `variants.ini`). [`Referee`] is what
//! the loop in [`crate::game`] asks of a game: whose turn it is, whether the
//! rules have ended it, how to tell an engine about it and read its move,
//! and the PGN record.

use crate::engine::{Engine, EngineError, GoLimits, Thought};
use menagerie_notation::pgn::{DataPgnGame, GameResult, PgnGame, PgnMove, PgnPosition};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Game, Move, Outcome};
use std::time::Duration;

/// How the rules ended a game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RulesEnd {
    /// A compiled variant's ending (mate, stalemate, a variant's win, a draw rule).
    Compiled(Outcome),
    /// A data variant's ending: checkmate, stalemate or extinction, or one
    /// of Fairy-Stockfish's optional game ends (n-fold repetition, the
    /// n-move rule, counting), which the referee applies.
    Data(menagerie_rules::Outcome),
}

impl RulesEnd {
    /// A sentence (lower case), e.g. `checkmate, White wins`.
    pub fn describe(&self) -> String {
        match self {
            RulesEnd::Compiled(o) => o.describe(),
            RulesEnd::Data(o) => o.to_string(),
        }
    }

    /// The game's result.
    pub fn result(&self) -> GameResult {
        match self {
            RulesEnd::Compiled(o) => GameResult::from_outcome(*o),
            RulesEnd::Data(o) => GameResult::from(o.result),
        }
    }
}

/// A finished game's PGN.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per finished game; both kinds are a few hundred bytes")]
pub enum Pgn {
    /// A compiled variant's game.
    Compiled(PgnGame),
    /// A data variant's game.
    Data(DataPgnGame),
}

impl Pgn {
    /// The game in PGN export format, ending with a blank line.
    pub fn to_pgn(&self) -> String {
        match self {
            // The referee pushed only legal moves, so writing cannot fail.
            Pgn::Compiled(g) => g.to_pgn().unwrap_or_default(),
            Pgn::Data(g) => g.to_pgn().unwrap_or_default(),
        }
    }

    /// The value of tag `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        match self {
            Pgn::Compiled(g) => g.tag(name),
            Pgn::Data(g) => g.tag(name),
        }
    }

    /// Plies in the main line (book moves included).
    pub fn plies(&self) -> usize {
        match self {
            Pgn::Compiled(g) => g.moves.len(),
            Pgn::Data(g) => g.moves.len(),
        }
    }
}

/// The positions of a game record that a [`Pgn`] holds.
pub(crate) trait Recorded: PgnPosition + Sized {
    /// The finished game's record as a [`Pgn`].
    fn pgn(record: PgnGame<Self>) -> Pgn;
}

impl Recorded for AnyPosition {
    fn pgn(record: PgnGame) -> Pgn {
        Pgn::Compiled(record)
    }
}

impl Recorded for menagerie_rules::Position {
    fn pgn(record: DataPgnGame) -> Pgn {
        Pgn::Data(record)
    }
}

/// What the match loop needs of a game.
pub(crate) trait Referee {
    /// The game's moves.
    type Move: Copy;
    /// The positions of the game's PGN record.
    type Record: Recorded;

    /// The side to move.
    fn side_to_move(&self) -> Color;
    /// Whether the rules end the game now.
    fn rules_end(&self) -> Option<RulesEnd>;
    /// Full moves completed since the game's start.
    fn fullmoves_played(&self) -> u32;
    /// Moves played, book included.
    fn len(&self) -> usize;
    /// Sets an engine up for this game.
    fn new_game(&self, engine: &mut Engine, level: &GoLimits) -> Result<(), EngineError>;
    /// Tells an engine the moves from the `told`-th on.
    fn tell(&self, engine: &mut Engine, told: usize) -> Result<(), EngineError>;
    /// Asks the engine to move.
    fn think(
        &self,
        engine: &mut Engine,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought<Self::Move>, EngineError>;
    /// Plays and records a move; `Err` with its notation if it is illegal.
    fn play(&mut self, m: Self::Move) -> Result<(), String>;
    /// The game's PGN record.
    fn record(&mut self) -> &mut PgnGame<Self::Record>;
    /// The game's PGN record, the game over.
    fn into_record(self) -> PgnGame<Self::Record>;

    /// Adds a comment after the last move (false when there is none).
    fn comment_last(&mut self, text: String) -> bool {
        self.record().comment_last(text)
    }
    /// Adds a comment before the first move.
    fn comment_game(&mut self, text: String) {
        self.record().comment_game(text);
    }
    /// Sets a PGN tag.
    fn set_tag(&mut self, name: &str, value: &str) {
        self.record().set_tag(name, value);
    }
    /// The PGN with its result.
    fn into_pgn(self, result: GameResult) -> Pgn
    where
        Self: Sized,
    {
        let mut pgn = self.into_record();
        pgn.result = result;
        Self::Record::pgn(pgn)
    }
}

/// A game of a compiled variant.
pub(crate) struct CompiledGame {
    game: Game,
    pgn: PgnGame,
}

impl CompiledGame {
    /// The game from `start` after the book `moves`; false if a book move is illegal.
    pub(crate) fn new(start: AnyPosition, book: &[Move]) -> (CompiledGame, bool) {
        let mut g = CompiledGame { game: Game::new(start), pgn: PgnGame::from_position(start) };
        let ok = book.iter().all(|&m| g.game.play(m).is_ok() && g.pgn.push(m).is_ok());
        (g, ok)
    }

    /// The start position followed by the first `n` moves of the game.
    fn replay(&self, n: usize) -> AnyPosition {
        let mut pos = *self.game.start();
        for &m in &self.game.moves()[..n] {
            pos = pos.play_unchecked(m);
        }
        pos
    }
}

impl Referee for CompiledGame {
    type Move = Move;
    type Record = AnyPosition;

    fn side_to_move(&self) -> Color {
        self.game.position().side_to_move()
    }

    fn rules_end(&self) -> Option<RulesEnd> {
        self.game.outcome().map(RulesEnd::Compiled)
    }

    fn fullmoves_played(&self) -> u32 {
        // Prelude actions do not advance the move number.
        let start = self.game.start().fullmove_number();
        self.game.position().fullmove_number().saturating_sub(start)
    }

    fn len(&self) -> usize {
        self.game.moves().len()
    }

    fn new_game(&self, engine: &mut Engine, level: &GoLimits) -> Result<(), EngineError> {
        engine.new_game(self.game.start(), level)
    }

    fn tell(&self, engine: &mut Engine, told: usize) -> Result<(), EngineError> {
        engine.tell(&self.replay(told), &self.game.moves()[told..])
    }

    fn think(&self, engine: &mut Engine, limits: &GoLimits, timeout: Duration) -> Result<Thought, EngineError> {
        engine.think(self.game.start(), self.game.moves(), limits, timeout)
    }

    fn play(&mut self, m: Move) -> Result<(), String> {
        let variant = self.game.position().variant();
        if self.game.play(m).is_err() || self.pgn.push(m).is_err() {
            return Err(menagerie_notation::uci::format(variant, m));
        }
        Ok(())
    }

    fn record(&mut self) -> &mut PgnGame<AnyPosition> {
        &mut self.pgn
    }

    fn into_record(self) -> PgnGame<AnyPosition> {
        self.pgn
    }
}

/// A game of a variant defined as data, played by UCI engines that know
/// it by name (`UCI_Variant`), moves in Fairy-Stockfish's coordinate
/// notation.
pub(crate) struct DataGame {
    game: menagerie_rules::Game,
    pgn: DataPgnGame,
    /// Black moved first (the move count of a FEN start).
    black_starts: bool,
}

impl DataGame {
    /// The game from `start` after the book `moves`; false if a book move is illegal.
    pub(crate) fn new(start: menagerie_rules::Position, book: &[menagerie_rules::Move]) -> (DataGame, bool) {
        let black_starts = !start.white_to_move();
        let mut g = DataGame {
            game: menagerie_rules::Game::new(start.clone()),
            pgn: PgnGame::from_position(start),
            black_starts,
        };
        let ok = book.iter().all(|&m| g.play(m).is_ok());
        (g, ok)
    }
}

impl Referee for DataGame {
    type Move = menagerie_rules::Move;
    type Record = menagerie_rules::Position;

    fn side_to_move(&self) -> Color {
        if self.game.current().white_to_move() { Color::White } else { Color::Black }
    }

    fn rules_end(&self) -> Option<RulesEnd> {
        self.game.outcome().or_else(|| self.game.claimable()).map(RulesEnd::Data)
    }

    fn fullmoves_played(&self) -> u32 {
        // Black's moves played: each completes a full move.
        ((self.game.moves().len() + usize::from(self.black_starts)) / 2) as u32
    }

    fn len(&self) -> usize {
        self.game.moves().len()
    }

    fn new_game(&self, engine: &mut Engine, _level: &GoLimits) -> Result<(), EngineError> {
        let def = self.game.start().variant();
        let name = engine.config().variant_name(&def.name);
        engine.new_data_game(&name, def.chess960)
    }

    fn tell(&self, _engine: &mut Engine, _told: usize) -> Result<(), EngineError> {
        // UCI engines get the whole game with each move.
        Ok(())
    }

    fn think(
        &self,
        engine: &mut Engine,
        limits: &GoLimits,
        timeout: Duration,
    ) -> Result<Thought<menagerie_rules::Move>, EngineError> {
        engine.think_data(&self.game, limits, timeout)
    }

    fn play(&mut self, m: menagerie_rules::Move) -> Result<(), String> {
        let pos = self.game.current();
        if !pos.legal_moves().contains(&m) {
            return Err(pos.move_text(m));
        }
        self.game.play(m);
        self.pgn.moves.push(PgnMove::new(m));
        Ok(())
    }

    fn record(&mut self) -> &mut PgnGame<menagerie_rules::Position> {
        &mut self.pgn
    }

    fn into_record(self) -> PgnGame<menagerie_rules::Position> {
        self.pgn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_notation::pgn::{self, AnyPgnGame, ReadOptions};
    use std::sync::Arc;

    /// A data variant's game record is the notation crate's PGN: it reads
    /// back to the same start, moves, comments and tags.
    #[test]
    fn defined_game_pgn_reads_back() {
        let defs = menagerie_rules::Definitions::builtin();
        let def = defs.get("makruk").cloned().expect("built in");
        let start =
            menagerie_rules::Position::from_fen(&def, "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1")
                .expect("a makruk FEN");
        let mut book = Vec::new();
        let mut pos = start.clone();
        for text in ["e6e5", "d3d4", "e5d4"] {
            let m = pos.parse_move(text).expect("legal");
            pos = pos.play(m);
            book.push(m);
        }
        let (mut game, ok) = DataGame::new(start.clone(), &book);
        assert!(ok);
        game.comment_game("book".into());
        assert!(game.comment_last("out of book".into()));
        game.set_tag("White", "A");
        game.set_tag("Result", "1-0");
        assert!(game.play(book[0]).is_err(), "no longer legal");
        let record = game.into_pgn(GameResult::BlackWins);
        assert_eq!(record.plies(), 3);
        assert_eq!(record.tag("White"), Some("A"));
        let text = record.to_pgn();
        assert!(text.contains("[Result \"0-1\"]\n[Variant \"makruk\"]\n[SetUp \"1\"]\n"), "{text}");
        assert!(text.contains("{book} 1... e5 2. d4 exd4 {out of book} 0-1"), "{text}");
        let lookup_def = Arc::clone(&def);
        let read = pgn::read_str_any(&text, ReadOptions::default(), move |_| Some(Arc::clone(&lookup_def)))
            .expect("reads back");
        let Some(AnyPgnGame::Data(g)) = read.first() else { panic!("{read:?}") };
        assert_eq!(g.start.fen(), start.fen());
        assert_eq!(g.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), book);
        assert_eq!(g.moves[2].comments, ["out of book"]);
        assert_eq!(g.tag("White"), Some("A"));
    }
}
