//! PGN for every variant: a streaming reader of multi-game files, a data
//! model with comments, NAGs and nested variations, and an export-format
//! writer.
//!
//! ```
//! use menagerie_notation::pgn::{self, GameResult, PgnGame};
//! use menagerie_variants::VariantId;
//! let text = "[Variant \"alpaca\"]\n\n1. accept 1. A@g 1... A@b 1. Nf3 {gates} Nc6 *\n";
//! let game = pgn::read_str(text)?.remove(0);
//! assert_eq!(game.variant, VariantId::Alpaca);
//! assert_eq!(game.san_moves()?, ["accept", "A@g", "A@b", "Nf3(A@g1)", "Nc6(A@b8)"]);
//! assert_eq!(game.result, GameResult::Unknown);
//! let again = pgn::read_str(&game.to_pgn()?)?.remove(0);
//! assert_eq!(again, game);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Tags
//! The seven-tag roster (`Event`, `Site`, `Date`, `Round`, `White`, `Black`,
//! `Result`) is always written first, a missing one as `?` (`????.??.??`
//! for the date; reading fills them in the same way); other tags follow in
//! the order read, and a tag given twice is an error. `Variant`, `SetUp`,
//! `FEN` and `Result` are not kept among [`PgnGame::tags`]: they are read
//! into [`PgnGame::variant`], [`PgnGame::start`] and [`PgnGame::result`] and
//! written from them, so they can never disagree with the game.
//!
//! The `Variant` tag takes Menagerie's names (`alpaca-samefile`) in any
//! case; spaces and underscores count as hyphens and a trailing ` chess`
//! is dropped (`Alpaca Chess`, `Alseid_Weak`). Orthodox chess is also
//! `Standard`, `Normal`, `Orthodox`, `FIDE` or no tag at all, and is
//! written without one; Camel and Rhino Chess is also `Camel and Rhino`;
//! Chess960 (`Chess960`, lichess's spelling) is also `Chess 960`,
//! `Fischerandom`, `Fischer Random` or `FRC`;
//! `camel-rhino-plain` (its movement without takeovers and swaps, played
//! against Fairy-Stockfish by `menagerie match`) is read and written too
//! when test-only rule sets are served (`MENAGERIE_TEST_VARIANTS`).
//! Any other name is an error. `FEN` is in the variant's dialect
//! ([`crate::fen`], e.g. alpaca's reserve bracket); it is written, with
//! `SetUp "1"`, only when the game does not start from the variant's start
//! position. A `FEN` without `SetUp` is accepted; `SetUp "1"` without a
//! `FEN`, `SetUp "0"` with one, or a `SetUp` other than `0` or `1`, is an
//! error.
//!
//! # Variants defined as data
//! The same model, reader and writer serve the variants defined as data
//! ([`menagerie_rules`], Fairy-Stockfish's `variants.ini`): a
//! [`DataPgnGame`] is a [`PgnGame`] over [`menagerie_rules::Position`]
//! (both positions implement [`PgnPosition`]). Its `Variant` tag is the
//! definition's name, always written; `SetUp`/`FEN` as above, the FEN in
//! Fairy-Stockfish's form; moves are the rules core's SAN
//! ([`menagerie_rules::Position::san`]: `Nf3`, `e8=Q`, `O-O`, `Nf3/H`).
//! A reader made with [`PgnReader::with_data`] reads both kinds
//! ([`PgnReader::read_any_game`], [`read_str_any`]): a `Variant` tag with
//! a compiled variant's name (any case) is that variant; any other is
//! asked of the caller's lookup of data definitions first and only then
//! read as one of the other spellings above, so a data variant named like
//! one of them (`standard`, `frc`) reads back as itself. The lookup also
//! decides the variant of a game without the tag.
//!
//! # Movetext
//! Moves are SAN as [`crate::san`] writes it (`accept`, `A@g`,
//! `Nf3(A@g1)`, `Sd4-d6(Nd1-d4)`, `Nxg4(=h3)`, `Qe2<>Kf2`); with
//! [`ReadOptions::coordinates`] coordinate moves (`g1f3`, `h2g4t`) are
//! accepted too. Tokens:
//! - `{...}` comments (may span lines; runs of whitespace inside are read
//!   as one space), `;` comments to the end of the line, `%` escape lines;
//! - NAGs `$n` (0–255), the suffixes `!`, `?`, `!!`, `??`, `!?`, `?!`
//!   (read as `$1`–`$6`) and the evaluation glyphs `=`, `+=`, `=+`, `+/-`,
//!   `-/+`, `+-`, `-+` (`$10`–`$19`), glued to the move or standing alone;
//!   NAGs are written as `$n`;
//! - move numbers `12.` and `12...` (checked by nothing: the position
//!   decides whose move it is), also glued to the move (`12...e5`);
//! - variations `( ... )`, nested up to [`MAX_VARIATION_DEPTH`] deep; a
//!   variation holds the alternatives to the move before it;
//! - results `1-0`, `0-1`, `1/2-1/2`, `*`, which end the game.
//!
//! SAN suffixes contain parentheses too. A `(` glued to a move (no space
//! before it) stays part of the move when what it encloses is a SAN
//! suffix — `=` and a square (`(=h3)`), a letter, `@` and a square
//! (`(A@g1)`), or a letter and two squares joined by `-` (`(Nd1-d4)`);
//! any other `(` starts a variation, so `e4(e5)` and `e4 (1. d4)` are
//! variations and `Nf3(A@g1)+` is one move. The writer always puts a space
//! before a variation. A move written with suffixes must carry exactly its
//! own: `Nf3(A@h1)` where the move is `Nf3(A@g1)`, or a takeover naming a
//! wrong square, is an error (a takeover written without its suffix is the
//! plain leap, as in [`crate::san`]).
//!
//! A game's movetext ends at its result (what follows on that line starts
//! the next game) or at a tag line; a movetext without a result, or one
//! whose result differs from the `Result` tag, is an error. [`PgnReader`]
//! reads one game at a time from any [`BufRead`], so a file is never held
//! in memory whole.
//!
//! Errors ([`PgnError`]) name the game (its 1-based index and players),
//! the line, and for a move the move number, side and the token (tokens
//! longer than 32 characters are cut). After an error the reader goes on
//! with the next game.
//!
//! # Writing
//! [`PgnGame::to_pgn`] writes the export format: tags, a blank line,
//! movetext in lines of at most 79 characters (80 columns), the result, a
//! blank line. Lines break between tokens only, never inside a comment
//! (its runs of whitespace are written as one space): a comment that does
//! not fit starts a line, and one longer than a line is written whole on
//! its own. A move number is written before every White move, and
//! before a Black move that does not directly follow White's move of the
//! same number (`12... Nf6` opening a line or after a comment or
//! variation). Prelude actions do not advance the move number, so an
//! alpaca game starts `1. accept 1. A@g A@b 1. e4`. Reading what was
//! written gives an equal [`PgnGame`].

use crate::fen::FenError;
use crate::san;
use crate::uci::{self, MoveError};
use core::fmt;
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Game, IllegalMove, Move, VariantId};
use std::io::BufRead;
use std::sync::Arc;
use thiserror::Error;

mod position;

pub use position::PgnPosition;

/// A game of a variant defined as data ([`menagerie_rules::Position`]).
pub type DataPgnGame = PgnGame<menagerie_rules::Position>;

/// The longest token quoted whole in an error.
const TOKEN_MAX: usize = 32;

/// The deepest nesting of variations read: deeper ones are an error
/// rather than a reader recursing until the stack overflows.
pub const MAX_VARIATION_DEPTH: usize = 100;

/// The longest movetext line the writer produces.
const LINE_MAX: usize = 79;

/// The seven-tag roster, in export order (`Result` is written from
/// [`PgnGame::result`]).
pub const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// How a game ended, as the PGN result token says.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unfinished or unknown.
    #[default]
    Unknown,
}

impl GameResult {
    /// The PGN token.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// Reads a PGN result token.
    pub fn from_token(s: &str) -> Option<GameResult> {
        match s {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// The result of a finished game's outcome.
    pub fn from_outcome(o: menagerie_variants::Outcome) -> GameResult {
        match o.result() {
            "1-0" => GameResult::WhiteWins,
            "0-1" => GameResult::BlackWins,
            _ => GameResult::Draw,
        }
    }
}

impl From<menagerie_rules::GameResult> for GameResult {
    fn from(r: menagerie_rules::GameResult) -> GameResult {
        match r {
            menagerie_rules::GameResult::WhiteWins => GameResult::WhiteWins,
            menagerie_rules::GameResult::BlackWins => GameResult::BlackWins,
            menagerie_rules::GameResult::Draw => GameResult::Draw,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A move of a game with what is written after it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PgnMove<M = Move> {
    /// The move.
    pub mv: M,
    /// Numeric annotation glyphs (`$1` = `!`), in order.
    pub nags: Vec<u8>,
    /// Comments after the move, in order.
    pub comments: Vec<String>,
    /// Alternatives to this move, each played from the position before it.
    pub variations: Vec<Variation<M>>,
}

impl<M> PgnMove<M> {
    /// A move without annotations.
    pub fn new(mv: M) -> PgnMove<M> {
        PgnMove { mv, nags: Vec::new(), comments: Vec::new(), variations: Vec::new() }
    }
}

/// A variation: a line of moves replacing a move of its parent line.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Variation<M = Move> {
    /// Comments before the variation's first move.
    pub comments: Vec<String>,
    /// The moves.
    pub moves: Vec<PgnMove<M>>,
}

impl<M> Default for Variation<M> {
    fn default() -> Variation<M> {
        Variation { comments: Vec::new(), moves: Vec::new() }
    }
}

/// One game of a PGN file: of a compiled variant ([`AnyPosition`], the
/// default) or of a variant defined as data ([`DataPgnGame`]).
#[derive(Clone)]
pub struct PgnGame<P: PgnPosition = AnyPosition> {
    /// Tags in order, the roster first (without `Result`, `Variant`,
    /// `SetUp` and `FEN`: see the module docs).
    pub tags: Vec<(String, String)>,
    /// The variant.
    pub variant: P::Variant,
    /// The position before the first move.
    pub start: P,
    /// Comments before the first move.
    pub comments: Vec<String>,
    /// The main line.
    pub moves: Vec<PgnMove<P::Move>>,
    /// The result.
    pub result: GameResult,
}

/// Equal games have the same tags, start (hence variant), comments, moves
/// and result.
impl<P: PgnPosition> PartialEq for PgnGame<P> {
    fn eq(&self, other: &PgnGame<P>) -> bool {
        self.tags == other.tags
            && self.start == other.start
            && self.comments == other.comments
            && self.moves == other.moves
            && self.result == other.result
    }
}

impl<P: PgnPosition + Eq> Eq for PgnGame<P> {}

/// The variant shows in the start position.
impl<P: PgnPosition> fmt::Debug for PgnGame<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgnGame")
            .field("tags", &self.tags)
            .field("start", &self.start)
            .field("comments", &self.comments)
            .field("moves", &self.moves)
            .field("result", &self.result)
            .finish()
    }
}

/// Why a [`PgnGame`] could not be written or replayed: one of its moves is
/// not legal where it stands.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("move {number}{} ({side}) is not legal in {fen}", dots(.side))]
pub struct IllegalPgnMove {
    /// The move number.
    pub number: u32,
    /// `White` or `Black`.
    pub side: &'static str,
    /// The position the move was played in.
    pub fen: String,
}

impl PgnGame {
    /// A game from `variant`'s start position with the roster tags set to
    /// `?`, no moves and result `*`.
    pub fn new(variant: VariantId) -> PgnGame {
        PgnGame::from_position(AnyPosition::start(variant))
    }

    /// The main line as a [`Game`] (for repetition and the outcome).
    pub fn to_game(&self) -> Result<Game, IllegalPgnMove> {
        let mut game = Game::new(self.start);
        for m in &self.moves {
            let pos = *game.position();
            game.play(m.mv).map_err(|IllegalMove| illegal(&pos))?;
        }
        Ok(game)
    }

    /// The main line in coordinate (UCI) form.
    pub fn uci_moves(&self) -> Vec<String> {
        self.moves.iter().map(|m| uci::format(self.variant, m.mv)).collect()
    }
}

impl DataPgnGame {
    /// The main line as a [`menagerie_rules::Game`] (for the game-end rules).
    pub fn to_game(&self) -> Result<menagerie_rules::Game, IllegalPgnMove> {
        let mut game = menagerie_rules::Game::new(self.start.clone());
        for m in &self.moves {
            if !game.current().legal_moves().contains(&m.mv) {
                return Err(illegal(game.current()));
            }
            game.play(m.mv);
        }
        Ok(game)
    }

    /// The main line in Fairy-Stockfish's coordinate form (`e2e4`, `g1f3h`).
    pub fn uci_moves(&self) -> Result<Vec<String>, IllegalPgnMove> {
        let positions = self.positions()?;
        Ok(self.moves.iter().zip(&positions).map(|(m, p)| p.move_text(m.mv)).collect())
    }
}

impl<P: PgnPosition> PgnGame<P> {
    /// A game from `start` with the roster tags set to `?`, no moves and
    /// result `*`.
    pub fn from_position(start: P) -> PgnGame<P> {
        let tags = ROSTER[..6].iter().map(|&t| (t.to_string(), roster_default(t).to_string())).collect();
        PgnGame {
            tags,
            variant: start.game_variant(),
            start,
            comments: Vec::new(),
            moves: Vec::new(),
            result: GameResult::Unknown,
        }
    }

    /// The value of tag `name` (case-sensitive, as PGN tags are).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Sets tag `name`, replacing its value or appending it. `Result`,
    /// `Variant`, `SetUp` and `FEN` are derived from the game and cannot be
    /// set: for them this returns false and changes nothing.
    pub fn set_tag(&mut self, name: &str, value: &str) -> bool {
        if DERIVED.contains(&name) {
            return false;
        }
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(slot) => slot.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
        true
    }

    /// Adds `text` as a comment after the main line's last move; false, and
    /// nothing changes, when there is no move yet.
    pub fn comment_last(&mut self, text: impl Into<String>) -> bool {
        match self.moves.last_mut() {
            Some(m) => {
                m.comments.push(text.into());
                true
            }
            None => false,
        }
    }

    /// Adds `text` as a comment before the first move (after any already
    /// there).
    pub fn comment_game(&mut self, text: impl Into<String>) {
        self.comments.push(text.into());
    }

    /// Appends `mv` to the main line if it is legal after the main line.
    pub fn push(&mut self, mv: P::Move) -> Result<(), IllegalPgnMove> {
        let pos = self.final_position()?;
        if !pos.legal().contains(&mv) {
            return Err(illegal(&pos));
        }
        self.moves.push(PgnMove::new(mv));
        Ok(())
    }

    /// The start position and the position after each main-line move.
    pub fn positions(&self) -> Result<Vec<P>, IllegalPgnMove> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut pos = self.start.clone();
        for m in &self.moves {
            let next = play_checked(&pos, m.mv)?;
            out.push(std::mem::replace(&mut pos, next));
        }
        out.push(pos);
        Ok(out)
    }

    /// The position after the main line.
    pub fn final_position(&self) -> Result<P, IllegalPgnMove> {
        let mut pos = self.start.clone();
        for m in &self.moves {
            pos = play_checked(&pos, m.mv)?;
        }
        Ok(pos)
    }

    /// The main line in SAN.
    pub fn san_moves(&self) -> Result<Vec<String>, IllegalPgnMove> {
        let positions = self.positions()?;
        Ok(self.moves.iter().zip(&positions).map(|(m, p)| p.san_of(m.mv, &p.legal())).collect())
    }

    /// The game in PGN export format, ending with a blank line.
    pub fn to_pgn(&self) -> Result<String, IllegalPgnMove> {
        let mut out = String::new();
        for name in &ROSTER[..6] {
            let value = self.tag(name).unwrap_or(roster_default(name));
            write_tag(&mut out, name, value);
        }
        write_tag(&mut out, "Result", self.result.as_str());
        if let Some(name) = P::variant_tag(&self.variant) {
            write_tag(&mut out, "Variant", &name);
        }
        if self.start != P::variant_start(&self.variant) {
            write_tag(&mut out, "SetUp", "1");
            write_tag(&mut out, "FEN", &self.start.fen_text());
        }
        for (name, value) in &self.tags {
            if !ROSTER.contains(&name.as_str()) && !DERIVED.contains(&name.as_str()) {
                write_tag(&mut out, name, value);
            }
        }
        out.push('\n');
        let mut words = Vec::new();
        for c in &self.comments {
            push_comment(&mut words, c);
        }
        write_line(&mut words, &self.start, &self.moves)?;
        words.push(self.result.as_str().to_string());
        wrap(&mut out, &words);
        out.push('\n');
        Ok(out)
    }
}

/// Tags derived from the game's fields rather than kept among its tags.
const DERIVED: [&str; 4] = ["Result", "Variant", "SetUp", "FEN"];

fn roster_default(name: &str) -> &'static str {
    if name == "Date" { "????.??.??" } else { "?" }
}

fn dots(side: &str) -> &'static str {
    if side == "Black" { "..." } else { "." }
}

fn side_name(c: Color) -> &'static str {
    if c == Color::White { "White" } else { "Black" }
}

fn illegal<P: PgnPosition>(pos: &P) -> IllegalPgnMove {
    IllegalPgnMove { number: pos.fullmove(), side: side_name(pos.side()), fen: pos.fen_text() }
}

/// The position after `m` if it is legal in `pos`.
fn play_checked<P: PgnPosition>(pos: &P, m: P::Move) -> Result<P, IllegalPgnMove> {
    if pos.legal().contains(&m) { Ok(pos.after(m)) } else { Err(illegal(pos)) }
}

/// Writes a tag pair in PGN export format (`[Name "value"]` and a newline;
/// `\\` and `"` escaped, control characters as spaces).
fn write_tag(out: &mut String, name: &str, value: &str) {
    let mut v = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => v.push_str("\\\\"),
            '"' => v.push_str("\\\""),
            c if c.is_control() => v.push(' '),
            c => v.push(c),
        }
    }
    out.push_str(&format!("[{name} \"{v}\"]\n"));
}

/// A comment as one word, `{text}`, its runs of whitespace (newlines
/// included) written as one space: lines are broken between words only,
/// so a comment is never broken (a PGN reader would show the line break
/// inside it). A `}` inside the text (which PGN cannot hold) is written
/// as `)`.
fn push_comment(words: &mut Vec<String>, text: &str) {
    let clean = text.replace('}', ")");
    let parts: Vec<&str> = clean.split_whitespace().collect();
    words.push(format!("{{{}}}", parts.join(" ")));
}

/// Appends the words of a line of moves played from `pos`.
fn write_line<P: PgnPosition>(
    words: &mut Vec<String>,
    start: &P,
    moves: &[PgnMove<P::Move>],
) -> Result<(), IllegalPgnMove> {
    // The number of the White move just written, if nothing came between.
    let mut white_before: Option<u32> = None;
    let mut pos = start.clone();
    for m in moves {
        let legal = pos.legal();
        if !legal.contains(&m.mv) {
            return Err(illegal(&pos));
        }
        let number = pos.fullmove();
        let san = pos.san_of(m.mv, &legal);
        // A move number is kept on the line of its move.
        if pos.side() == Color::White {
            words.push(format!("{number}. {san}"));
            white_before = Some(number);
        } else {
            if white_before == Some(number) {
                words.push(san);
            } else {
                words.push(format!("{number}... {san}"));
            }
            white_before = None;
        }
        for n in &m.nags {
            words.push(format!("${n}"));
        }
        for c in &m.comments {
            push_comment(words, c);
            white_before = None;
        }
        for v in &m.variations {
            if v.moves.is_empty() {
                continue;
            }
            let start = words.len();
            for c in &v.comments {
                push_comment(words, c);
            }
            write_line(words, &pos, &v.moves)?;
            if let Some(w) = words.get_mut(start) {
                w.insert(0, '(');
            }
            if let Some(w) = words.last_mut() {
                w.push(')');
            }
            white_before = None;
        }
        pos = pos.after(m.mv);
    }
    Ok(())
}

/// Writes movetext words as lines of at most 79 characters (a comment
/// longer than that on a line of its own), ending with a newline.
fn wrap(out: &mut String, words: &[String]) {
    let mut len = 0;
    for w in words {
        if len > 0 && len + 1 + w.len() > LINE_MAX {
            out.push('\n');
            len = 0;
        }
        if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(w);
        len += w.len();
    }
    out.push('\n');
}

// ----- errors ------------------------------------------------------------------

/// What is wrong in a game (see [`PgnError`] for where).
#[derive(Clone, PartialEq, Eq, Debug, Error)]
pub enum PgnErrorKind {
    /// A tag line that does not read as `[Name "value"]`.
    #[error("bad tag line '{text}': {reason}")]
    Tag {
        /// The line (cut to 32 characters).
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The same tag twice.
    #[error("tag '{0}' is given twice")]
    DuplicateTag(String),
    /// A `Variant` tag naming no variant Menagerie plays.
    #[error("unknown variant '{name}'{} (known: {known})", did_you_mean(.suggestion.as_deref()))]
    UnknownVariant {
        /// The tag's value (cut).
        name: String,
        /// The names accepted.
        known: String,
        /// The accepted name the tag most likely misspells, if the reader
        /// was told one (`menagerie_app` fills it in: it knows every name).
        suggestion: Option<String>,
    },
    /// A `FEN` tag that is not a valid position of the game's variant.
    #[error("bad FEN tag '{fen}' for {variant}: {error}")]
    Fen {
        /// The tag's value (cut).
        fen: String,
        /// The variant it was read for.
        variant: VariantId,
        /// Why.
        error: FenError,
    },
    /// A `FEN` tag that is not a valid position of the game's variant
    /// defined as data.
    #[error("bad FEN tag '{fen}' for {variant}: {error}")]
    DataFen {
        /// The tag's value (cut).
        fen: String,
        /// The name of the variant it was read for.
        variant: String,
        /// Why.
        error: menagerie_rules::FenError,
    },
    /// A `SetUp` tag other than `0` or `1`, `SetUp "1"` without a `FEN`,
    /// or `SetUp "0"` with one.
    #[error("bad SetUp tag: {0}")]
    SetUp(String),
    /// A move token that is not a legal move (syntax, illegal, ambiguous).
    #[error("move {number}{} ({side}): {error}", dots(.side))]
    Move {
        /// The move number.
        number: u32,
        /// `White` or `Black`.
        side: &'static str,
        /// The token (cut).
        token: String,
        /// Why it was not accepted.
        error: MoveError,
    },
    /// A token that is not PGN (or a NAG over 255, or a null move `--`).
    #[error("unexpected token '{token}' {place}")]
    Token {
        /// The token (cut).
        token: String,
        /// Where: `before the first move` or `after move 12...`.
        place: String,
    },
    /// A NAG, suffix or variation before any move of its line.
    #[error("'{0}' comes before any move it could belong to")]
    Dangling(String),
    /// A `{` comment never closed.
    #[error("comment opened with '{{' is never closed")]
    UnterminatedComment,
    /// A `(` never closed by `)`.
    #[error("variation opened with '(' is never closed ({0})")]
    UnclosedVariation(String),
    /// A `)` with no variation open.
    #[error("')' without an open variation ({0})")]
    UnopenedVariation(String),
    /// `()` with no move.
    #[error("empty variation '()' ({0})")]
    EmptyVariation(String),
    /// A variation nested deeper than [`MAX_VARIATION_DEPTH`].
    #[error("variations nested more than {MAX_VARIATION_DEPTH} deep ({0})")]
    TooDeep(String),
    /// A result token inside a variation.
    #[error("result '{0}' inside a variation")]
    ResultInVariation(String),
    /// The movetext ends without `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[error("the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)")]
    MissingResult,
    /// The `Result` tag and the movetext's result differ.
    #[error("Result tag '{tag}' differs from the movetext's result '{movetext}'")]
    ResultMismatch {
        /// The tag's value (cut).
        tag: String,
        /// The result token ending the movetext.
        movetext: GameResult,
    },
    /// The file could not be read.
    #[error("read error: {0}")]
    Io(String),
}

/// A game that could not be read: which game, where, and what is wrong.
#[derive(Clone, PartialEq, Eq, Debug, Error)]
#[error("game {game}{}, line {line}: {kind}", players(.white.as_deref(), .black.as_deref()))]
pub struct PgnError {
    /// The game's 1-based index in the file.
    pub game: usize,
    /// Its `White` tag, if any (cut).
    pub white: Option<String>,
    /// Its `Black` tag, if any (cut).
    pub black: Option<String>,
    /// The 1-based line of the file where the problem is.
    pub line: usize,
    /// What is wrong.
    pub kind: Box<PgnErrorKind>,
}

/// `: did you mean 'NAME'?` for a suggestion, else nothing.
fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map(|s| format!(": did you mean '{s}'?")).unwrap_or_default()
}

fn players(white: Option<&str>, black: Option<&str>) -> String {
    match (white, black) {
        (None, None) => String::new(),
        (w, b) => format!(" ({} - {})", w.unwrap_or("?"), b.unwrap_or("?")),
    }
}

/// `text`, or its first [`TOKEN_MAX`] characters and `…`.
fn cut(text: &str) -> String {
    match text.char_indices().nth(TOKEN_MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

// ----- variant names -------------------------------------------------------------

/// The variant a PGN `Variant` tag names (see the module docs for the
/// accepted spellings).
pub fn variant_from_tag(value: &str) -> Option<VariantId> {
    let mut name: String =
        value.trim().chars().map(|c| if c == ' ' || c == '_' { '-' } else { c.to_ascii_lowercase() }).collect();
    if name.len() > "-chess".len()
        && let Some(stem) = name.strip_suffix("-chess")
    {
        name = stem.to_string();
    }
    let other_spelling = match name.as_str() {
        "" | "standard" | "normal" | "orthodox" | "fide" => Some(VariantId::Chess),
        "camel-and-rhino" | "camelrhino" => Some(VariantId::CamelRhino),
        "chess-960" | "fischerandom" | "fischer-random" | "frc" => Some(VariantId::Chess960),
        _ => None,
    };
    // Only a compiled game (one the build could compile) is named here.
    match other_spelling {
        Some(v) => v.not_compiled().is_none().then_some(v),
        None => VariantId::from_name(&name),
    }
}

// ----- lexing --------------------------------------------------------------------

/// A movetext token.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Tok {
    Move(String),
    Number,
    Nag(u8),
    Comment(String),
    Open,
    Close,
    Result(GameResult),
    Bad(String),
}

/// Splits movetext into tokens, line by line; carries an open `{` comment
/// and the variation depth across lines.
#[derive(Default)]
struct Lexer {
    tokens: Vec<(Tok, usize)>,
    /// The text of a comment still open, and the line it opened on.
    open_comment: Option<(String, usize)>,
    depth: usize,
}

fn is_symbol(c: char) -> bool {
    c.is_ascii_alphanumeric() || "+#=:-<>@/_".contains(c)
}

/// Evaluation glyphs read as NAGs, standing alone or glued after a move
/// (longest first).
const GLYPHS: [(&str, u8); 7] = [("+/-", 16), ("-/+", 17), ("+=", 14), ("=+", 15), ("+-", 18), ("-+", 19), ("=", 10)];

fn nag_of_suffix(s: &str) -> Option<u8> {
    Some(match s {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// True if `s` is a square name (`a1`, `j10`).
fn is_square(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_lowercase())
        && !c.as_str().is_empty()
        && c.as_str().len() <= 2
        && c.as_str().bytes().all(|b| b.is_ascii_digit())
}

/// True if `s` (the text between a glued `(` and `)`) is a SAN suffix.
fn is_san_suffix(s: &str) -> bool {
    if let Some(sq) = s.strip_prefix('=') {
        return is_square(sq);
    }
    let mut c = s.chars();
    if !c.next().is_some_and(|p| p.is_ascii_uppercase()) {
        return false;
    }
    let rest = c.as_str();
    if let Some(sq) = rest.strip_prefix('@') {
        return is_square(sq);
    }
    rest.split_once('-').is_some_and(|(a, b)| is_square(a) && is_square(b))
}

/// The results that can start at `s`, longest first.
fn result_at(s: &str) -> Option<(GameResult, usize)> {
    for r in [GameResult::Draw, GameResult::WhiteWins, GameResult::BlackWins, GameResult::Unknown] {
        let t = r.as_str();
        if s.starts_with(t) && !s[t.len()..].starts_with(is_symbol) {
            return Some((r, t.len()));
        }
    }
    None
}

impl Lexer {
    /// Lexes one line; stops after a result at depth 0 and returns the rest
    /// of the line (the start of the next game), if any.
    fn line(&mut self, text: &str, line: usize) -> Option<String> {
        let mut s = text;
        if self.open_comment.is_none() && s.starts_with('%') {
            return None;
        }
        loop {
            if let Some((mut body, start)) = self.open_comment.take() {
                match s.find('}') {
                    Some(i) => {
                        body.push(' ');
                        body.push_str(&s[..i]);
                        self.tokens.push((Tok::Comment(normalise(&body)), start));
                        s = &s[i + 1..];
                    }
                    None => {
                        body.push(' ');
                        body.push_str(s);
                        self.open_comment = Some((body, start));
                        return None;
                    }
                }
            }
            s = s.trim_start();
            let c = s.chars().next()?;
            match c {
                '{' => {
                    self.open_comment = Some((String::new(), line));
                    s = &s[1..];
                }
                ';' => {
                    self.tokens.push((Tok::Comment(normalise(&s[1..])), line));
                    return None;
                }
                '(' => {
                    self.depth += 1;
                    self.tokens.push((Tok::Open, line));
                    s = &s[1..];
                }
                ')' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.tokens.push((Tok::Close, line));
                    s = &s[1..];
                }
                '$' => {
                    let digits = s[1..].bytes().take_while(u8::is_ascii_digit).count();
                    let text = &s[..1 + digits];
                    match text[1..].parse::<u8>() {
                        Ok(n) => self.tokens.push((Tok::Nag(n), line)),
                        Err(_) => self.tokens.push((Tok::Bad(text.to_string()), line)),
                    }
                    s = &s[1 + digits..];
                }
                '!' | '?' => {
                    let n = s.bytes().take_while(|&b| b == b'!' || b == b'?').count();
                    self.push_suffix(&s[..n], line);
                    s = &s[n..];
                }
                '*' | '0'..='9' => {
                    if let Some((r, len)) = result_at(s) {
                        self.tokens.push((Tok::Result(r), line));
                        s = &s[len..];
                        if self.depth == 0 {
                            let rest = s.trim();
                            return (!rest.is_empty()).then(|| rest.to_string());
                        }
                        continue;
                    }
                    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
                    let dots = s[digits..].bytes().take_while(|&b| b == b'.').count();
                    if digits > 0 && dots > 0 {
                        self.tokens.push((Tok::Number, line));
                        s = &s[digits + dots..];
                    } else {
                        s = self.symbol(s, line);
                    }
                }
                c if is_symbol(c) => s = self.symbol(s, line),
                _ => {
                    let n = s.find(char::is_whitespace).unwrap_or(s.len());
                    self.tokens.push((Tok::Bad(s[..n].to_string()), line));
                    s = &s[n..];
                }
            }
        }
    }

    fn push_suffix(&mut self, text: &str, line: usize) {
        match nag_of_suffix(text) {
            Some(n) => self.tokens.push((Tok::Nag(n), line)),
            None => self.tokens.push((Tok::Bad(text.to_string()), line)),
        }
    }

    /// Lexes a move (or other symbol) token at the start of `s`, with glued
    /// SAN suffixes and annotation suffixes; returns the rest.
    fn symbol<'a>(&mut self, s: &'a str, line: usize) -> &'a str {
        let mut end = 0;
        loop {
            end += s[end..].find(|c: char| !is_symbol(c)).unwrap_or(s.len() - end);
            let rest = &s[end..];
            if let Some(inner) = rest.strip_prefix('(')
                && let Some(close) = inner.find(')')
                && is_san_suffix(&inner[..close])
            {
                end += close + 2;
                continue;
            }
            break;
        }
        if end == 0 {
            let n = s.find(char::is_whitespace).unwrap_or(s.len());
            self.tokens.push((Tok::Bad(s[..n].to_string()), line));
            return &s[n..];
        }
        let mut token = &s[..end];
        // An evaluation glyph glued to a move (`Nf3+-`) is its own NAG.
        let mut glued = None;
        for (glyph, n) in GLYPHS {
            if let Some(head) = token.strip_suffix(glyph)
                && head.len() > 1
                && !head.ends_with(['=', '-', '/'])
            {
                token = head;
                glued = Some(n);
                break;
            }
        }
        if let Some((_, n)) = GLYPHS.iter().find(|(g, _)| *g == token) {
            self.tokens.push((Tok::Nag(*n), line));
        } else if token == "--" || token.starts_with(['-', '+', '=', '/', ':', '<', '>', '@', '#', '_']) {
            self.tokens.push((Tok::Bad(token.to_string()), line));
        } else {
            self.tokens.push((Tok::Move(token.to_string()), line));
        }
        if let Some(n) = glued {
            self.tokens.push((Tok::Nag(n), line));
        }
        let rest = &s[end..];
        let n = rest.bytes().take_while(|&b| b == b'!' || b == b'?').count();
        if n > 0 {
            self.push_suffix(&rest[..n], line);
        }
        &rest[n..]
    }
}

/// Runs of whitespace as one space, trimmed.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ----- reading -------------------------------------------------------------------

/// Options for reading PGN.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct ReadOptions {
    /// Also accept moves in coordinate form (`g1f3`, `h2g4t`, `e7e8q`).
    pub coordinates: bool,
}

/// A game's text, split into tags and movetext tokens.
struct RawGame {
    tags: Vec<(String, String, usize)>,
    tokens: Vec<(Tok, usize)>,
    /// The first problem met while splitting, with its line.
    error: Option<(PgnErrorKind, usize)>,
    /// The last line of the game.
    last_line: usize,
}

/// Finds the variant defined as data that a `Variant` tag names (`None`:
/// the game has no `Variant` tag), or `None` if there is none.
pub type DataLookupFn = dyn Fn(Option<&str>) -> Option<Arc<menagerie_rules::VariantDef>> + Send + Sync;

/// A game read by [`PgnReader::read_any_game`]: of a compiled variant or
/// of a variant defined as data.
#[derive(Clone, PartialEq, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per game read; both kinds hold a game's moves on the heap")]
pub enum AnyPgnGame {
    /// A game of a compiled variant.
    Compiled(PgnGame),
    /// A game of a variant defined as data.
    Data(DataPgnGame),
}

impl AnyPgnGame {
    /// The variant's name as its `Variant` tag writes it (`chess` for orthodox chess).
    pub fn variant_name(&self) -> String {
        match self {
            AnyPgnGame::Compiled(g) => g.variant.name().to_string(),
            AnyPgnGame::Data(g) => g.variant.name.clone(),
        }
    }

    /// The game in PGN export format ([`PgnGame::to_pgn`]).
    pub fn to_pgn(&self) -> Result<String, IllegalPgnMove> {
        match self {
            AnyPgnGame::Compiled(g) => g.to_pgn(),
            AnyPgnGame::Data(g) => g.to_pgn(),
        }
    }

    /// The value of tag `name` ([`PgnGame::tag`]).
    pub fn tag(&self, name: &str) -> Option<&str> {
        match self {
            AnyPgnGame::Compiled(g) => g.tag(name),
            AnyPgnGame::Data(g) => g.tag(name),
        }
    }

    /// The game's result.
    pub fn result(&self) -> GameResult {
        match self {
            AnyPgnGame::Compiled(g) => g.result,
            AnyPgnGame::Data(g) => g.result,
        }
    }

    /// The number of moves of the main line.
    pub fn plies(&self) -> usize {
        match self {
            AnyPgnGame::Compiled(g) => g.moves.len(),
            AnyPgnGame::Data(g) => g.moves.len(),
        }
    }

    /// The FEN after the main line (each kind of variant in its own FEN form).
    pub fn final_fen(&self) -> Result<String, IllegalPgnMove> {
        match self {
            AnyPgnGame::Compiled(g) => Ok(g.final_position()?.fen_text()),
            AnyPgnGame::Data(g) => Ok(g.final_position()?.fen_text()),
        }
    }

    /// The main line in coordinate form ([`PgnGame::uci_moves`],
    /// [`DataPgnGame::uci_moves`]).
    pub fn uci_moves(&self) -> Result<Vec<String>, IllegalPgnMove> {
        match self {
            AnyPgnGame::Compiled(g) => Ok(g.uci_moves()),
            AnyPgnGame::Data(g) => g.uci_moves(),
        }
    }
}

/// Reads the games of a PGN file one at a time (an [`Iterator`] of
/// results; after a bad game it goes on with the next one).
pub struct PgnReader<R> {
    input: R,
    options: ReadOptions,
    /// Finds variants defined as data, for [`PgnReader::read_any_game`].
    data: Option<Box<DataLookupFn>>,
    line: usize,
    /// A line (or the rest of one) read but not yet used.
    pending: Option<String>,
    games: usize,
    done: bool,
}

impl<R: BufRead> PgnReader<R> {
    /// A reader of `input` with default options (SAN only).
    pub fn new(input: R) -> PgnReader<R> {
        PgnReader::with_options(input, ReadOptions::default())
    }

    /// A reader of `input` with `options`.
    pub fn with_options(input: R, options: ReadOptions) -> PgnReader<R> {
        PgnReader { input, options, data: None, line: 0, pending: None, games: 0, done: false }
    }

    /// A reader of `input` with `options` that also reads games of variants
    /// defined as data ([`PgnReader::read_any_game`]): `lookup` finds the
    /// variant a `Variant` tag names that no compiled variant has (and is
    /// asked with `None` first for a game without the tag, which is chess
    /// when it answers `None`).
    pub fn with_data(
        input: R,
        options: ReadOptions,
        lookup: impl Fn(Option<&str>) -> Option<Arc<menagerie_rules::VariantDef>> + Send + Sync + 'static,
    ) -> PgnReader<R> {
        PgnReader { data: Some(Box::new(lookup)), ..PgnReader::with_options(input, options) }
    }

    /// The next line, without its line ending; `Ok(None)` at the end.
    fn next_line(&mut self) -> Result<Option<String>, std::io::Error> {
        if let Some(p) = self.pending.take() {
            return Ok(Some(p));
        }
        let mut buf = Vec::new();
        if self.input.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut text = String::from_utf8_lossy(&buf).into_owned();
        if text.starts_with('\u{feff}') {
            text.remove(0);
        }
        while text.ends_with(['\n', '\r']) {
            text.pop();
        }
        Ok(Some(text))
    }

    /// Splits off the next game's text; `Ok(None)` at the end of the input.
    fn raw(&mut self) -> Result<Option<RawGame>, (std::io::Error, usize)> {
        // Skip blank and escape lines.
        let first = loop {
            match self.next_line().map_err(|e| (e, self.line))? {
                None => return Ok(None),
                Some(l) if l.trim().is_empty() || l.starts_with('%') => {}
                Some(l) => break l,
            }
        };
        let mut raw = RawGame { tags: Vec::new(), tokens: Vec::new(), error: None, last_line: self.line };
        let mut line = Some(first);
        while let Some(l) = line.take() {
            if !l.trim_start().starts_with('[') {
                line = Some(l);
                break;
            }
            if let Err(reason) = parse_tags(&l, self.line, &mut raw.tags)
                && raw.error.is_none()
            {
                raw.error = Some((PgnErrorKind::Tag { text: cut(l.trim()), reason }, self.line));
            }
            raw.last_line = self.line;
            line = self.next_line().map_err(|e| (e, self.line))?;
        }
        let mut lexer = Lexer::default();
        while let Some(l) = line.take() {
            let here = self.line;
            let blank = l.trim().is_empty();
            if lexer.open_comment.is_none() && l.trim_start().starts_with('[') {
                self.pending = Some(l);
                break;
            }
            if lexer.open_comment.is_some() && looks_like_tag(&l) {
                // A tag line inside an open comment: the comment was never
                // closed, and the next game starts here.
                self.pending = Some(l);
                break;
            }
            if !blank {
                raw.last_line = here;
            }
            if !blank && let Some(rest) = lexer.line(&l, here) {
                self.pending = Some(rest);
                break;
            }
            if matches!(lexer.tokens.last(), Some((Tok::Result(_), _))) && lexer.depth == 0 {
                break;
            }
            line = self.next_line().map_err(|e| (e, self.line))?;
        }
        if let Some((_, start)) = lexer.open_comment.take()
            && raw.error.is_none()
        {
            raw.error = Some((PgnErrorKind::UnterminatedComment, start));
        }
        raw.tokens = lexer.tokens;
        Ok(Some(raw))
    }

    /// Reads the next game (the same as [`Iterator::next`]), which must be
    /// of a compiled variant.
    pub fn read_game(&mut self) -> Option<Result<PgnGame, PgnError>> {
        let data = self.data.take();
        let game = self.read_with(None);
        self.data = data;
        Some(game?.and_then(|g| match g {
            AnyPgnGame::Compiled(g) => Ok(g),
            // Without a data lookup no game is of a variant defined as data.
            AnyPgnGame::Data(g) => {
                let kind = PgnErrorKind::UnknownVariant {
                    name: cut(&g.variant.name),
                    known: VariantId::names(),
                    suggestion: None,
                };
                Err(PgnError { game: self.games, white: None, black: None, line: self.line, kind: Box::new(kind) })
            }
        }))
    }

    /// Reads the next game, of a compiled variant or of a variant defined
    /// as data that the reader's lookup ([`PgnReader::with_data`]) finds.
    pub fn read_any_game(&mut self) -> Option<Result<AnyPgnGame, PgnError>> {
        let data = self.data.take();
        let game = self.read_with(data.as_deref());
        self.data = data;
        game
    }

    fn read_with(&mut self, data: Option<&DataLookupFn>) -> Option<Result<AnyPgnGame, PgnError>> {
        if self.done {
            return None;
        }
        let raw = match self.raw() {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                self.done = true;
                return None;
            }
            Err((e, line)) => {
                self.done = true;
                self.games += 1;
                let kind = PgnErrorKind::Io(e.to_string());
                return Some(Err(PgnError { game: self.games, white: None, black: None, line, kind: Box::new(kind) }));
            }
        };
        self.games += 1;
        Some(build(raw, self.games, self.options, data))
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = Result<PgnGame, PgnError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.read_game()
    }
}

/// Reads every game of `text` with default options; the first bad game is
/// the error.
pub fn read_str(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    PgnReader::new(text.as_bytes()).collect()
}

/// Reads every game of `text` with `options`, of compiled variants or of
/// variants defined as data that `lookup` finds ([`PgnReader::with_data`]);
/// the first bad game is the error.
pub fn read_str_any(
    text: &str,
    options: ReadOptions,
    lookup: impl Fn(Option<&str>) -> Option<Arc<menagerie_rules::VariantDef>> + Send + Sync + 'static,
) -> Result<Vec<AnyPgnGame>, PgnError> {
    let mut reader = PgnReader::with_data(text.as_bytes(), options, lookup);
    std::iter::from_fn(|| reader.read_any_game()).collect()
}

fn looks_like_tag(line: &str) -> bool {
    let t = line.trim();
    let mut v = Vec::new();
    t.starts_with('[') && t.ends_with(']') && parse_tags(t, 0, &mut v).is_ok()
}

/// Reads the `[Name "value"]` pairs of a tag line.
fn parse_tags(text: &str, line: usize, tags: &mut Vec<(String, String, usize)>) -> Result<(), String> {
    let mut s = text.trim();
    while !s.is_empty() {
        s = s.strip_prefix('[').ok_or("a tag starts with '['")?.trim_start();
        let n = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        if n == 0 {
            return Err("the tag has no name".into());
        }
        let name = &s[..n];
        s = s[n..].trim_start().strip_prefix('"').ok_or("the value must be in double quotes")?;
        let mut value = String::new();
        let mut chars = s.char_indices();
        let end = loop {
            match chars.next() {
                None => return Err("the value's closing '\"' is missing".into()),
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, c @ ('"' | '\\'))) => value.push(c),
                    _ => return Err("'\\' must be followed by '\"' or '\\'".into()),
                },
                Some((_, c)) => value.push(c),
            }
        };
        s = s[end + 1..].trim_start().strip_prefix(']').ok_or("the tag must close with ']'")?.trim_start();
        tags.push((name.to_string(), value, line));
    }
    Ok(())
}

/// The game a reader error is about: its index and players.
struct Which {
    index: usize,
    white: Option<String>,
    black: Option<String>,
}

impl Which {
    fn err(&self, kind: PgnErrorKind, line: usize) -> PgnError {
        PgnError { game: self.index, white: self.white.clone(), black: self.black.clone(), line, kind: Box::new(kind) }
    }
}

/// Checks a raw game's tags, finds its variant (compiled, or defined as
/// data through `data`) and plays its movetext.
fn build(
    raw: RawGame,
    index: usize,
    options: ReadOptions,
    data: Option<&DataLookupFn>,
) -> Result<AnyPgnGame, PgnError> {
    let find = |name: &str| raw.tags.iter().find(|(k, _, _)| k == name);
    let which =
        Which { index, white: find("White").map(|(_, v, _)| cut(v)), black: find("Black").map(|(_, v, _)| cut(v)) };
    for (i, (name, _, line)) in raw.tags.iter().enumerate() {
        if raw.tags[..i].iter().any(|(k, _, _)| k == name) {
            return Err(which.err(PgnErrorKind::DuplicateTag(cut(name)), *line));
        }
    }
    // Tag errors first (they come first in the file), then token errors.
    if let Some((kind, line)) = raw.error.clone().filter(|(k, _)| matches!(k, PgnErrorKind::Tag { .. })) {
        return Err(which.err(kind, line));
    }
    let Some((_, name, line)) = find("Variant") else {
        return match data.and_then(|f| f(None)) {
            Some(def) => build_game(&raw, &which, options, def).map(AnyPgnGame::Data),
            None => build_game(&raw, &which, options, VariantId::Chess).map(AnyPgnGame::Compiled),
        };
    };
    // A compiled variant's own name first, then the data variants (whose
    // names the writer writes as they are, and may be one of the other
    // spellings of a compiled variant, such as `standard`), then those
    // spellings.
    if let Some(variant) = VariantId::from_name(name.trim()) {
        return build_game(&raw, &which, options, variant).map(AnyPgnGame::Compiled);
    }
    if let Some(def) = data.and_then(|f| f(Some(name))) {
        return build_game(&raw, &which, options, def).map(AnyPgnGame::Data);
    }
    if let Some(variant) = variant_from_tag(name) {
        return build_game(&raw, &which, options, variant).map(AnyPgnGame::Compiled);
    }
    let also = if data.is_some() { " and the variants defined as data given" } else { "" };
    let known = format!("{}{also}; chess is also Standard", VariantId::names());
    Err(which.err(PgnErrorKind::UnknownVariant { name: cut(name), known, suggestion: None }, *line))
}

/// Reads the start and plays the movetext of a game of `variant`.
fn build_game<P: PgnPosition>(
    raw: &RawGame,
    which: &Which,
    options: ReadOptions,
    variant: P::Variant,
) -> Result<PgnGame<P>, PgnError> {
    let find = |name: &str| raw.tags.iter().find(|(k, _, _)| k == name);
    let err = |kind: PgnErrorKind, line: usize| which.err(kind, line);
    let setup = find("SetUp");
    let fen_tag = find("FEN");
    let start = match (setup.map(|(_, v, l)| (v.as_str(), *l)), fen_tag) {
        (Some((v, l)), _) if v != "0" && v != "1" => {
            return Err(err(PgnErrorKind::SetUp(format!("'{}' must be \"0\" or \"1\"", cut(v))), l));
        }
        (Some(("1", l)), None) => return Err(err(PgnErrorKind::SetUp("\"1\" but no FEN tag".into()), l)),
        (Some(("0", l)), Some(_)) => return Err(err(PgnErrorKind::SetUp("\"0\" but a FEN tag is given".into()), l)),
        (_, Some((_, f, line))) => P::from_fen_tag(&variant, f).map_err(|kind| err(kind, *line))?,
        (_, None) => P::variant_start(&variant),
    };
    let mut tags: Vec<(String, String)> = Vec::new();
    for name in &ROSTER[..6] {
        let value = find(name).map_or(roster_default(name), |(_, v, _)| v.as_str());
        tags.push((name.to_string(), value.to_string()));
    }
    for (name, value, _) in &raw.tags {
        if !ROSTER.contains(&name.as_str()) && !DERIVED.contains(&name.as_str()) {
            tags.push((name.clone(), value.clone()));
        }
    }
    let mut p = Parser { tokens: &raw.tokens, at: 0, options };
    let (comments, moves, result) = match p.line(&start, 0) {
        Ok(x) => x,
        Err((kind, line)) => {
            // An unterminated comment explains a missing result better.
            if let Some((k, l)) = raw.error.clone() {
                return Err(err(k, l));
            }
            return Err(err(kind, line.unwrap_or(raw.last_line)));
        }
    };
    if let Some((kind, line)) = raw.error.clone() {
        return Err(err(kind, line));
    }
    let Some(result) = result else {
        return Err(err(PgnErrorKind::MissingResult, raw.last_line));
    };
    if let Some((_, tag, line)) = find("Result")
        && GameResult::from_token(tag) != Some(result)
    {
        return Err(err(PgnErrorKind::ResultMismatch { tag: cut(tag), movetext: result }, *line));
    }
    Ok(PgnGame { tags, variant, start, comments, moves, result })
}

/// Recursive-descent reading of a token list into lines of moves.
struct Parser<'a> {
    tokens: &'a [(Tok, usize)],
    at: usize,
    options: ReadOptions,
}

type LineRead<M> = (Vec<String>, Vec<PgnMove<M>>, Option<GameResult>);

/// The label of the last move read (`12.` / `12...`), for errors.
fn move_label<P: PgnPosition>(pos: &P) -> String {
    let n = pos.fullmove();
    if pos.side() == Color::White { format!("{n}.") } else { format!("{n}...") }
}

impl Parser<'_> {
    /// Reads a line of moves from `pos` up to its `)` (depth > 0) or the
    /// result (depth 0); the result is `None` at the end of the tokens.
    fn line<P: PgnPosition>(
        &mut self,
        start: &P,
        depth: usize,
    ) -> Result<LineRead<P::Move>, (PgnErrorKind, Option<usize>)> {
        let mut comments = Vec::new();
        let mut moves: Vec<PgnMove<P::Move>> = Vec::new();
        let mut pos = start.clone();
        let mut before = pos.clone();
        let mut last_label: Option<String> = None;
        let place = |label: &Option<String>| match label {
            Some(l) => format!("after move {l}"),
            None => "before the first move".to_string(),
        };
        while let Some((tok, line)) = self.tokens.get(self.at) {
            let line = *line;
            self.at += 1;
            match tok {
                Tok::Number => {}
                Tok::Comment(c) => match moves.last_mut() {
                    Some(m) => m.comments.push(c.clone()),
                    None => comments.push(c.clone()),
                },
                Tok::Nag(n) => match moves.last_mut() {
                    Some(m) => m.nags.push(*n),
                    None => return Err((PgnErrorKind::Dangling(format!("${n}")), Some(line))),
                },
                Tok::Move(text) => {
                    let mv = pos.read_move(text, self.options).map_err(|error| {
                        let kind = PgnErrorKind::Move {
                            number: pos.fullmove(),
                            side: side_name(pos.side()),
                            token: cut(text),
                            error: shorten(error),
                        };
                        (kind, Some(line))
                    })?;
                    last_label = Some(move_label(&pos));
                    let next = pos.after(mv);
                    before = std::mem::replace(&mut pos, next);
                    moves.push(PgnMove::new(mv));
                }
                Tok::Open => {
                    if moves.is_empty() {
                        return Err((PgnErrorKind::Dangling("(".into()), Some(line)));
                    }
                    if depth >= MAX_VARIATION_DEPTH {
                        return Err((PgnErrorKind::TooDeep(place(&last_label)), Some(line)));
                    }
                    // A variation's line ends at its `)`, never at a result.
                    let (vc, vm, _) = self.line(&before, depth + 1)?;
                    if vm.is_empty() {
                        return Err((PgnErrorKind::EmptyVariation(place(&last_label)), Some(line)));
                    }
                    if let Some(m) = moves.last_mut() {
                        m.variations.push(Variation { comments: vc, moves: vm });
                    }
                }
                Tok::Close => {
                    if depth == 0 {
                        return Err((PgnErrorKind::UnopenedVariation(place(&last_label)), Some(line)));
                    }
                    return Ok((comments, moves, None));
                }
                Tok::Result(r) => {
                    if depth > 0 {
                        return Err((PgnErrorKind::ResultInVariation(r.as_str().into()), Some(line)));
                    }
                    return Ok((comments, moves, Some(*r)));
                }
                Tok::Bad(t) => {
                    return Err((PgnErrorKind::Token { token: cut(t), place: place(&last_label) }, Some(line)));
                }
            }
        }
        if depth > 0 {
            return Err((PgnErrorKind::UnclosedVariation(place(&last_label)), None));
        }
        Ok((comments, moves, None))
    }
}

/// SAN parsing finds a move by the part before a `(` when nothing matches
/// whole; a move written with suffixes must have exactly the suffixes its
/// SAN has (`Nxg4(=h5)` is not the takeover `Nxg4(=h3)`, nor the plain
/// leap `Nxg4`).
fn check_suffix(pos: &AnyPosition, mv: Move, text: &str) -> Result<Move, MoveError> {
    let Some(i) = text.find('(') else { return Ok(mv) };
    let canon = san::format(pos, mv);
    let marks: &[char] = &['+', '#'];
    let want = canon.find('(').map_or("", |j| canon[j..].trim_end_matches(marks));
    if text[i..].trim_end_matches(marks) == want {
        return Ok(mv);
    }
    let reason = format!("its suffix does not fit the move it names, {canon}");
    Err(MoveError::Illegal { mv: text.to_string(), reason })
}

/// `error` with its echoed move text cut like other tokens.
fn shorten(error: MoveError) -> MoveError {
    match error {
        MoveError::Syntax(t) => MoveError::Syntax(cut(&t)),
        MoveError::Ambiguous(t) => MoveError::Ambiguous(cut(&t)),
        MoveError::Illegal { mv, reason } => MoveError::Illegal { mv: cut(&mv), reason },
        MoveError::OffBoard { mv, square, files, ranks } => {
            MoveError::OffBoard { mv: cut(&mv), square: cut(&square), files, ranks }
        }
    }
}
