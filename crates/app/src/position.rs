//! Positions from requests: a variant by name, a FEN and the moves played
//! from it.

use menagerie_game::{Game as FaceGame, MoveError as FaceMoveError};
use menagerie_notation::fen::{self, FenError};
use menagerie_notation::{parse_move_in, twin};
use menagerie_rules::{
    DefinitionError, Definitions, Game as DataGame, LoadOptions, Loaded, MENAGERIE_INI, Position as DataPosition,
    VariantDef,
};
use menagerie_variants::{AnyPosition, Game, Move, VariantId};
use std::sync::Arc;
use thiserror::Error;

/// How long the list of known names in an unknown-variant error may grow
/// (in characters) before the rest is only counted.
const NAMES_IN_BRIEF: usize = 480;

/// A variant name that no known variant answers to.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("unknown variant '{name}'{} (known: {known})", did_you_mean(.suggestion.as_deref()))]
pub struct UnknownVariant {
    /// The name asked for.
    pub name: String,
    /// The known names, comma-separated.
    pub known: String,
    /// The known name closest to `name`, if one is close enough to be
    /// what was meant ([`Variants::suggest`]).
    pub suggestion: Option<String>,
}

/// `: did you mean 'NAME'?` for a suggestion, else nothing.
pub(crate) fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map(|s| format!(": did you mean '{s}'?")).unwrap_or_default()
}

/// How a name is compared with the known ones: lower case, with spaces
/// and underscores as hyphens (`Camel Rhino` is `camel-rhino`).
fn comparable(name: &str) -> String {
    name.trim().chars().map(|c| if c == ' ' || c == '_' { '-' } else { c.to_ascii_lowercase() }).collect()
}

/// The most edits (Damerau-Levenshtein: insert, delete, replace, swap two
/// neighbours) by which a name of `len` characters may miss a known name
/// and still have it suggested: 1 up to 4 characters, 2 up to 8, else 3.
fn max_edits(len: usize) -> usize {
    match len {
        0..=4 => 1,
        5..=8 => 2,
        _ => 3,
    }
}

/// The variants a request may name: the served games, the built-in
/// `variants.ini` games and those loaded from files.
///
/// Every front end finds variants by name through this type. A served game
/// (a section of `menagerie.ini`, or `chess`/`chess960`) is answered by its
/// compiled game when that game plays the section exactly
/// ([`VariantId::plays`]), else by the data engine under the same name, with
/// one log line saying why.
#[derive(Clone, Debug)]
pub struct Variants {
    /// Variants defined as data: the built-in `variants.ini` and loaded files.
    definitions: Definitions,
    /// The compiled games that answer to their names here, in
    /// [`VariantId::EVERY`]'s order.
    compiled: Vec<VariantId>,
    /// The served games the data engine plays instead, and why.
    not_compiled: Vec<(VariantId, String)>,
}

impl Default for Variants {
    fn default() -> Variants {
        Variants::builtin()
    }
}

/// A variant found by name: one of the compiled games, or one defined as
/// data (built in or loaded from a file).
#[derive(Clone, Debug)]
pub enum VariantRef {
    /// A compiled variant: every task, analysis included.
    Compiled(VariantId),
    /// A variant defined as data: positions, moves, validation and perft.
    Data(Arc<VariantDef>),
}

/// A position of a compiled variant or of one defined as data.
// Read once per request or suite line: the sizes of the two (a few hundred
// bytes each, varying with the crates' layouts) do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum GamePosition {
    /// A compiled variant's position.
    Compiled(AnyPosition),
    /// A position of a variant defined as data.
    Data(DataPosition),
}

impl From<menagerie_game::Position> for GamePosition {
    fn from(p: menagerie_game::Position) -> GamePosition {
        match (p.compiled(), p.data()) {
            (Some(&c), _) => GamePosition::Compiled(c),
            (_, Some(d)) => GamePosition::Data(d.clone()),
            (None, None) => unreachable!("a position is compiled or defined as data"),
        }
    }
}

/// The depth from which a position defined as data is counted on its
/// compiled twin ([`twin::compiled`]): below it, reading the position into
/// the compiled core costs more than counting.
pub const TWIN_DEPTH: u32 = 3;

/// [`twin::compiled`] when counting to `depth` is worth the conversion.
pub fn compiled_twin_for(pos: &DataPosition, depth: u32) -> Option<AnyPosition> {
    if depth < TWIN_DEPTH { None } else { twin::compiled(pos) }
}

impl VariantRef {
    /// The variant's name.
    pub fn name(&self) -> &str {
        match self {
            VariantRef::Compiled(v) => v.name(),
            VariantRef::Data(def) => &def.name,
        }
    }

    /// The FEN of the variant's start position.
    pub fn start_fen(&self) -> &str {
        match self {
            VariantRef::Compiled(v) => v.start_fen(),
            VariantRef::Data(def) => &def.start_fen,
        }
    }
}

/// Logs, once per process, that the served game `name` runs on the data
/// engine and why.
fn report_not_compiled(name: &str, why: &str) {
    static REPORTED: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());
    let mut reported = REPORTED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !reported.iter().any(|(n, w)| n == name && w == why) {
        tracing::warn!(variant = name, reason = why, "served game not compiled: the data engine plays it");
        reported.push((name.to_string(), why.to_string()));
    }
}

/// A variant definitions file that cannot be used.
#[derive(Debug, Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("cannot read variants file {file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A definition is malformed or asks for a rule Menagerie cannot play
    /// (strict loads), or the file as a whole cannot be read.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
}

impl Variants {
    /// The built-in variants: the compiled games, those of the built-in
    /// `variants.ini`, and the data-only games of `menagerie.ini` (the
    /// Chess960 forms of Alpaca and Alseid Chess).
    pub fn builtin() -> Variants {
        let mut definitions = Definitions::builtin();
        // Embedded and checked by the tests: it always loads.
        if let Err(e) = definitions.load(MENAGERIE_INI, "menagerie.ini") {
            panic!("menagerie.ini: {e}");
        }
        Variants::from_definitions(definitions)
    }

    /// The variants of `definitions`, which hold the served games' sections
    /// (those of `menagerie.ini`, as [`Variants::builtin`] loads them): each
    /// served game on its compiled game if that plays its section exactly,
    /// else on the data engine, logged once per process and game.
    pub fn from_definitions(definitions: Definitions) -> Variants {
        let mut compiled = Vec::new();
        let mut not_compiled = Vec::new();
        for &id in VariantId::DECLARED {
            let Some(def) = definitions.get(id.name()) else {
                if let Some(why) = id.not_compiled() {
                    not_compiled.push((id, why.to_string()));
                }
                continue;
            };
            match id.plays(def) {
                Ok(()) => compiled.push(id),
                Err(why) => not_compiled.push((id, why)),
            }
        }
        for (id, why) in &not_compiled {
            report_not_compiled(id.name(), why);
        }
        Variants { definitions, compiled, not_compiled }
    }

    /// Why the served game called `name` runs on the data engine, if it is
    /// one that does (its definition is not compiled).
    pub fn not_compiled(&self, name: &str) -> Option<&str> {
        self.not_compiled.iter().find(|(id, _)| id.name().eq_ignore_ascii_case(name)).map(|(_, why)| why.as_str())
    }

    /// The compiled game that answers to `name` here.
    fn compiled_named(&self, name: &str) -> Option<VariantId> {
        VariantId::from_name(name).filter(|v| self.compiled.contains(v))
    }

    /// Adds the variants defined in `text` (Fairy-Stockfish's `variants.ini`
    /// format; `file` names it in messages). A section named like a
    /// compiled game is refused ([`DefinitionError::Reserved`]). `strict`:
    /// any section that cannot be played is an error and nothing is added;
    /// else such sections are skipped and listed in [`Loaded::skipped`]
    /// while the others load ([`Definitions::load_with`]).
    pub fn load(&mut self, text: &str, file: &str, strict: bool) -> Result<Loaded, LoadError> {
        let reserved = |name: &str| VariantId::DECLARED.iter().any(|v| v.name().eq_ignore_ascii_case(name));
        let options = LoadOptions { strict, reserved: Some(&reserved) };
        Ok(self.definitions.load_with(text, file, options)?)
    }

    /// From now on, lets the loads add at most `max` more definitions in all
    /// (more: [`DefinitionError::TooMany`], before the extra sections are read).
    pub fn limit_added(&mut self, max: usize) {
        self.definitions.limit_added(max);
    }

    /// Reads and adds a variants file (see [`Variants::load`]).
    pub fn load_file(&mut self, path: &std::path::Path, strict: bool) -> Result<Loaded, LoadError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read { file: file.clone(), source })?;
        self.load(&text, &file, strict)
    }

    /// The compiled variant called `name` (any letter case).
    pub fn lookup(&self, name: &str) -> Result<VariantId, UnknownVariant> {
        self.compiled_named(name).ok_or_else(|| self.unknown(name))
    }

    /// The error for `name`, which no variant answers to: the known names
    /// (the first ones, then how many more: the catalogue lists them all),
    /// and the closest of them if it is close enough ([`Variants::suggest`]).
    pub fn unknown(&self, name: &str) -> UnknownVariant {
        UnknownVariant { name: name.to_string(), known: self.names_in_brief(), suggestion: self.suggest(name) }
    }

    /// The names of the variants, compiled then data, comma-separated, up
    /// to about [`NAMES_IN_BRIEF`] characters, then how many more there are.
    fn names_in_brief(&self) -> String {
        let names = self.all_names();
        let mut out = String::new();
        for (i, n) in names.iter().enumerate() {
            if !out.is_empty() && out.len() + n.len() > NAMES_IN_BRIEF {
                return format!("{out}, and {} more", names.len() - i);
            }
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str(n);
        }
        out
    }

    /// The known variant name (compiled or defined as data) that `name` most
    /// likely misspells: the one fewest edits away (Damerau-Levenshtein,
    /// ignoring letter case, with spaces and underscores read as hyphens),
    /// if that is at most 1 edit for a name of up to 4 characters, 2 up to
    /// 8, else 3, and fewer than half the known name's length; the first in
    /// listing order on a tie. `None` for a name that is known.
    pub fn suggest(&self, name: &str) -> Option<String> {
        let wanted = comparable(name);
        let limit = max_edits(wanted.chars().count());
        let names = self.all_names();
        let mut best: Option<(usize, &str)> = None;
        for known in names.iter().map(String::as_str) {
            let distance = strsim::damerau_levenshtein(&wanted, &known.to_ascii_lowercase());
            let fits = distance <= limit && 2 * distance < known.chars().count();
            if fits && best.is_none_or(|(d, _)| distance < d) {
                best = Some((distance, known));
            }
        }
        // A name that is known (`Camel Rhino` spells `camel-rhino`) needs
        // no suggestion unless it is spelt differently.
        best.filter(|(_, known)| !known.eq_ignore_ascii_case(name.trim())).map(|(_, known)| known.to_string())
    }

    /// The variant called `name`, compiled or defined as data.
    pub fn find(&self, name: &str) -> Result<VariantRef, UnknownVariant> {
        if let Some(v) = self.compiled_named(name) {
            return Ok(VariantRef::Compiled(v));
        }
        self.data(name).map(VariantRef::Data)
    }

    /// The variant defined as data called `name` (any letter case).
    pub fn data(&self, name: &str) -> Result<Arc<VariantDef>, UnknownVariant> {
        self.definition(name).ok_or_else(|| self.unknown(name))
    }

    /// The definition the data engine plays under `name` (any letter
    /// case), if one does: [`Variants::data`] without the error.
    pub(crate) fn definition(&self, name: &str) -> Option<Arc<VariantDef>> {
        self.names_served().find(|n| n.eq_ignore_ascii_case(name)).and_then(|n| self.definitions.get(n)).cloned()
    }

    /// Every compiled variant served, in listing order.
    pub fn iter(&self) -> impl Iterator<Item = VariantId> + '_ {
        VariantId::ALL.iter().copied().filter(|v| self.compiled.contains(v))
    }

    /// The names of the definitions the data engine plays, in name order:
    /// not those a compiled game answers, nor test-only rule sets (the
    /// catalogue's entries after the compiled games).
    pub(crate) fn names_served(&self) -> impl Iterator<Item = &str> + '_ {
        self.definitions.names().filter(|n| {
            let declared = VariantId::DECLARED.iter().find(|v| v.name().eq_ignore_ascii_case(n));
            declared.is_none_or(|v| !self.compiled.contains(v) && !v.is_test_only())
        })
    }

    /// The names of every variant, compiled then data, comma-separated.
    pub fn names(&self) -> String {
        self.all_names().join(", ")
    }

    /// The game `request` describes, compiled or defined as data: its
    /// start (the variant's or its FEN) and its moves (coordinate notation
    /// or SAN), played in order, with the positions along the way for the
    /// game's rules (repetition, n-move rule, counting).
    pub fn game<S: AsRef<str>>(&self, request: &PositionRequest<'_, S>) -> Result<FaceGame, PositionError> {
        let def = match self.find(request.variant)? {
            VariantRef::Compiled(_) => return Ok(self.position(request)?.game().into()),
            VariantRef::Data(def) => def,
        };
        let fen = request.fen.trim();
        let start = if fen.is_empty() {
            DataPosition::start(&def)
        } else {
            DataPosition::from_fen(&def, fen).map_err(|e| PositionError::DataFen(e.to_string()))?
        };
        if let Some(max) = request.max_moves
            && request.moves.len() > max
        {
            return Err(PositionError::TooManyMoves { count: request.moves.len(), max });
        }
        let mut game = DataGame::new(start);
        let mut texts = request.moves.iter().map(AsRef::as_ref).enumerate().peekable();
        while let Some((index, text)) = texts.next() {
            let m = match game.current().parse_any(text) {
                Ok(m) => m,
                Err(source) => {
                    // A walling move split at its comma (`--moves e2e4,e4d5`
                    // on the command line): its two parts, joined again.
                    let joined =
                        texts.peek().and_then(|(_, next)| game.current().parse_any(&format!("{text},{next}")).ok());
                    match joined {
                        Some(m) => {
                            texts.next();
                            m
                        }
                        None => {
                            return Err(PositionError::Move { index, text: text.to_string(), source: source.into() });
                        }
                    }
                }
            };
            game.play(m);
        }
        Ok(game.into())
    }

    /// The position `request` describes, compiled or defined as data.
    pub fn game_position<S: AsRef<str>>(
        &self,
        request: &PositionRequest<'_, S>,
    ) -> Result<GamePosition, PositionError> {
        match self.find(request.variant)? {
            VariantRef::Compiled(_) => self.position(request).map(|p| GamePosition::Compiled(p.current)),
            VariantRef::Data(_) => Ok(self.game(request)?.current().clone().into()),
        }
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
    /// The FEN does not parse as a position of a variant defined as data.
    #[error("bad FEN: {0}")]
    DataFen(String),
    /// A move that is malformed, ambiguous or illegal where it is played,
    /// whichever rules engine plays the variant.
    #[error("moves[{index}]: {source}")]
    Move {
        /// Its 0-based index in the list.
        index: usize,
        /// The move as given.
        text: String,
        /// What is wrong with it.
        #[source]
        source: FaceMoveError,
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
    /// The same as a game (with its repetition history).
    history: Game,
}

impl ParsedPosition {
    /// The moves as a game (with its repetition history).
    pub fn game(&self) -> Game {
        self.history.clone()
    }
}

/// Plays `moves` (coordinate or SAN, one move each) from `start`,
/// generating the legal moves of each position once.
pub fn play_moves<S: AsRef<str>>(start: AnyPosition, moves: &[S]) -> Result<ParsedPosition, PositionError> {
    let mut history = Game::new(start);
    let mut played = Vec::with_capacity(moves.len());
    for (index, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        let current = history.position();
        let m = parse_move_in(current, text, &current.legal_moves()).map_err(|source| PositionError::Move {
            index,
            text: text.to_string(),
            source: source.into(),
        })?;
        history.play_unchecked(m);
        played.push(m);
    }
    Ok(ParsedPosition { start, moves: played, current: *history.position(), history })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walling_move_split_at_its_comma_is_joined_again() {
        let v = Variants::builtin();
        let moves = ["e2e4", "e4d5", "e7e5,e5e6", "Nf3", "d4"];
        let game = v.game(&PositionRequest::new("duck", "", &moves)).expect("three duck moves");
        assert_eq!(game.current().fen(), "rnbqkbnr/pppp1ppp/8/4p3/3*P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
        let e = v.game(&PositionRequest::new("duck", "", &["e2e4", "e4e4"])).unwrap_err();
        assert!(e.to_string().contains("e2e4"), "{e}");
    }

    #[test]
    fn errors_name_what_is_wrong() {
        let v = Variants::builtin();
        let none: &[&str] = &[];
        let e = v.position(&PositionRequest::new("tamerlane", "", none)).unwrap_err();
        assert!(e.to_string().starts_with("unknown variant 'tamerlane' (known: chess, "), "{e}");
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
    fn a_misspelt_name_gets_the_closest_one_suggested() {
        let mut v = Variants::builtin();
        for (wrong, meant) in [
            ("camel-rino", "camel-rhino"),
            ("Camel Rhino", "camel-rhino"),
            ("camelrhino", "camel-rhino"),
            ("makruck", "makruk"),
            ("chess96", "chess960"),
            ("alpacca", "alpaca"),
            ("alsied-weak", "alseid-weak"),
            ("capablance", "capablanca"),
        ] {
            assert_eq!(v.suggest(wrong).as_deref(), Some(meant), "{wrong}");
            let e = v.find(wrong).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("unknown variant '{wrong}': did you mean '{meant}'? (known: chess, ")),
                "{e}"
            );
        }
        // Far from every name, or known: no suggestion, and the list alone.
        for name in ["tamerlane", "ouk", "queenless", "", "x", "chess", "MAKRUK"] {
            assert_eq!(v.suggest(name), None, "{name}");
        }
        assert!(
            v.lookup("tamerlane").unwrap_err().to_string().starts_with("unknown variant 'tamerlane' (known: chess, ")
        );
        // Loaded variants are suggested too.
        v.load("[queenless:chess]\n", "test.ini", true).expect("loads");
        assert_eq!(v.suggest("queenles").as_deref(), Some("queenless"));
        assert_eq!(v.data("qeeunless").unwrap_err().suggestion.as_deref(), Some("queenless"));
    }

    #[test]
    fn the_game_keeps_the_moves() {
        let v = Variants::builtin();
        let p = v.position(&PositionRequest::new("CHESS", "", &["Nf3", "Nf6", "Ng1", "Ng8"])).unwrap();
        assert_eq!(p.start.hash(), p.current.hash());
        assert_eq!(p.game().repetitions(), 2);
    }
}
