//! Reader for Fairy-Stockfish's `variants.ini` format.
//!
//! A file is a list of sections `[name]` or `[name:parent]`, each followed by
//! `key = value` lines; lines starting with `#` or `;` are comments. A section
//! with a parent starts from the parent's settings; a section without one
//! starts from Fairy-Stockfish's defaults with no pieces. Keys are applied in
//! Fairy-Stockfish's order (board size, then pieces, then the rest), whatever
//! their order in the file; a repeated key keeps its last value.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use thiserror::Error;

use crate::betza::{self, BetzaError};
use crate::variant::{self, VariantDef};

/// Board width and height limits (Fairy-Stockfish's large-board build).
pub const MAX_FILES: u8 = 12;
/// See [`MAX_FILES`].
pub const MAX_RANKS: u8 = 10;

/// Why a definition file was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DefinitionError {
    /// A line that is neither a section header, a `key = value` pair nor a comment.
    #[error("{file}:{line}: syntax error: {text}")]
    Syntax {
        /// File name as given to [`Definitions::load`].
        file: String,
        /// 1-based line number.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A key that is not a Fairy-Stockfish option, or one this crate does not support.
    #[error("{file}:{line}: unknown or unsupported key '{key}'")]
    UnknownKey {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The key.
        key: String,
    },
    /// A value that does not parse for its key.
    #[error("{file}:{line}: invalid value '{value}' for key '{key}': {reason}")]
    InvalidValue {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A Betza string that does not parse.
    #[error("{file}:{line}: key '{key}': {source}")]
    Betza {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The key.
        key: String,
        /// The Betza error.
        source: BetzaError,
    },
    /// `[name:parent]` with an unknown parent.
    #[error("{file}:{line}: variant '{name}' has unknown parent '{parent}'")]
    UnknownParent {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Section name.
        name: String,
        /// Parent name.
        parent: String,
    },
    /// A section name already defined.
    #[error("{file}:{line}: variant '{name}' is already defined")]
    Duplicate {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// Section name.
        name: String,
    },
    /// A Fairy-Stockfish option whose rule Menagerie does not play (any
    /// value but the option's default).
    #[error("{file}:{line}: '{key} = {value}' needs {mechanism}, which Menagerie does not play")]
    Unsupported {
        /// File name.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// The mechanism the option belongs to (e.g. `drops / pieces in hand`).
        mechanism: &'static str,
    },
    /// `[name:parent]` whose parent was skipped earlier (a lenient load,
    /// [`LoadOptions::strict`] off).
    #[error("{file}:{line}: variant '{name}' derives from '{parent}', which was skipped")]
    SkippedParent {
        /// File name.
        file: String,
        /// 1-based line number of the section header.
        line: usize,
        /// Section name.
        name: String,
        /// Parent name.
        parent: String,
    },
    /// A section named like a variant the caller reserves
    /// ([`LoadOptions::reserved`], e.g. Menagerie's compiled games).
    #[error("{file}:{line}: variant '{name}' is built into Menagerie and cannot be redefined (rename the section)")]
    Reserved {
        /// File name.
        file: String,
        /// 1-based line number of the section header.
        line: usize,
        /// Section name.
        name: String,
    },
    /// More definitions than [`Definitions::limit_added`] allows.
    #[error("{file}:{line}: too many variant definitions: at most {max} may be loaded")]
    TooMany {
        /// File name.
        file: String,
        /// 1-based line number of the first section over the limit.
        line: usize,
        /// The limit.
        max: usize,
    },
    /// The settings are consistent key by key but not as a whole (e.g. the
    /// start position does not parse, too many piece types).
    #[error("{file}:{line}: variant '{name}': {reason}")]
    Invalid {
        /// File name.
        file: String,
        /// 1-based line number of the section header.
        line: usize,
        /// Section name.
        name: String,
        /// What is wrong.
        reason: String,
    },
}

impl DefinitionError {
    /// The file and 1-based line the error is about.
    pub fn location(&self) -> (&str, usize) {
        use DefinitionError::*;
        match self {
            Syntax { file, line, .. }
            | UnknownKey { file, line, .. }
            | InvalidValue { file, line, .. }
            | Betza { file, line, .. }
            | UnknownParent { file, line, .. }
            | Duplicate { file, line, .. }
            | Unsupported { file, line, .. }
            | SkippedParent { file, line, .. }
            | Reserved { file, line, .. }
            | TooMany { file, line, .. }
            | Invalid { file, line, .. } => (file, *line),
        }
    }

    /// What is wrong, without the file and line (and without the section's
    /// name, which a [`Skipped`] section gives beside it).
    pub fn reason(&self) -> String {
        use DefinitionError::*;
        match self {
            UnknownParent { parent, .. } => format!("unknown parent '{parent}'"),
            Duplicate { .. } => "a variant of that name is already defined".to_string(),
            SkippedParent { parent, .. } => format!("its parent '{parent}' was skipped"),
            Reserved { .. } => "the name is built into Menagerie and cannot be redefined".to_string(),
            Invalid { reason, .. } => reason.clone(),
            other => {
                let (file, line) = other.location();
                let text = other.to_string();
                text.strip_prefix(&format!("{file}:{line}: ")).map_or(text.clone(), str::to_string)
            }
        }
    }

    /// True for an error about the whole file (its form, or the number of
    /// definitions), which stops a load even when sections may be skipped.
    fn is_fatal(&self) -> bool {
        matches!(self, DefinitionError::TooMany { .. })
    }
}

/// How [`Definitions::load_with`] reads a file.
#[derive(Clone, Copy, Default)]
pub struct LoadOptions<'a> {
    /// Any section that cannot be played stops the load with its error and
    /// adds nothing (as [`Definitions::load`]); off, such a section is
    /// skipped and reported in [`Loaded::skipped`] while the others load.
    pub strict: bool,
    /// Names no section may take ([`DefinitionError::Reserved`]).
    pub reserved: Option<&'a dyn Fn(&str) -> bool>,
}

/// What a load added and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Names of the variants added, in file order.
    pub added: Vec<String>,
    /// Sections that cannot be played, in file order (none in a strict load).
    pub skipped: Vec<Skipped>,
}

/// A section left out of a lenient load, and why.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}:{}: variant '{name}' skipped: {}", .error.location().0, .error.location().1, .error.reason())]
pub struct Skipped {
    /// Section name.
    pub name: String,
    /// Why it cannot be played; its line is that of the offending key (or
    /// of the section header).
    pub error: DefinitionError,
}

/// Outcome value of a game-end rule, from the point of view of the side it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameValue {
    /// The side wins.
    Win,
    /// The side loses.
    Loss,
    /// Draw.
    Draw,
    /// The rule is disabled.
    None,
}

/// Counting rules (ending the game after a number of moves in some endings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountingRule {
    /// No counting.
    None,
    /// Makruk's board's-honour and pieces'-honour counting.
    Makruk,
    /// ASEAN chess counting.
    Asean,
    /// Cambodian chess counting (`cambodian`): Makruk's with other limits,
    /// the board's honour counted by a side of up to three pieces, pawns
    /// or not.
    Cambodian,
}

/// Game-end rules of a variant. Only extinction ends a game immediately (and
/// so affects move generation and perft); the others are for the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// Value for the side that is checkmated.
    pub checkmate_value: GameValue,
    /// Value for the side that is stalemated.
    pub stalemate_value: GameValue,
    /// Half-moves without progress before a draw (0 = none).
    pub n_move_rule: u32,
    /// Repetitions that end the game.
    pub n_fold_rule: u32,
    /// Value of an n-fold repetition.
    pub n_fold_value: GameValue,
    /// `n_fold_value` is for White, whoever is to move; Black gets its
    /// opposite (`nFoldValueAbsolute`: in minishogi a repetition loses for
    /// the first player).
    pub n_fold_value_absolute: bool,
    /// A side that gave check with every move of the repetition loses it
    /// (`perpetualCheckIllegal`: shogi's perpetual check); both sides so:
    /// a draw.
    pub perpetual_check_illegal: bool,
    /// A side that, not in check, moved a piece back and forth (or passed
    /// between) until the same move would be made a third time loses
    /// (`moveRepetitionIllegal`: modern janggi), as Fairy-Stockfish judges
    /// it: when its n-fold rule looks back.
    pub move_repetition_illegal: bool,
    /// Xiangqi's Asian chasing rule (`chasingRule = axf`), as
    /// Fairy-Stockfish plays it: a side that chased the same unprotected
    /// piece with every move of a repetition loses it, both sides so
    /// draw; and checks beyond ten by one side stretch the n-move rule.
    pub chasing_rule: bool,
    /// Value for the side whose extinction pieces are gone.
    pub extinction_value: GameValue,
    /// The extinct side may still answer (bare king rule with a reply).
    pub extinction_claim: bool,
    /// Letters of the extinction piece types; `*` means all pieces.
    pub extinction_piece_types: String,
    /// A side is extinct with this many or fewer such pieces.
    pub extinction_piece_count: u32,
    /// ... while the opponent has at least this many.
    pub extinction_opponent_piece_count: u32,
    /// Counting rule.
    pub counting_rule: CountingRule,
}

/// Fairy-Stockfish's built-in piece types that this crate supports, with
/// their ini key and Betza movement, in Fairy-Stockfish's internal order
/// (which fixes the order of pieces in hand in FEN).
pub(crate) const BUILTIN_PIECES: &[(u8, &str, &str)] = &[
    (1, "pawn", "fmWfcF"),
    (2, "knight", "N"),
    (3, "bishop", "B"),
    (4, "rook", "R"),
    (5, "queen", "Q"),
    (6, "fers", "F"),
    (7, "alfil", "A"),
    (8, "fersAlfil", "FA"),
    (9, "silver", "FfW"),
    (10, "aiwok", "RNF"),
    (11, "bers", "RF"),
    (12, "archbishop", "BN"),
    (13, "chancellor", "RN"),
    (14, "amazon", "QN"),
    (15, "knibis", "mNcB"),
    (16, "biskni", "mBcN"),
    (17, "kniroo", "mNcR"),
    (18, "rookni", "mRcN"),
    (19, "shogiPawn", "fW"),
    (20, "lance", "fR"),
    (21, "shogiKnight", "fN"),
    (22, "gold", "WfF"),
    (23, "dragonHorse", "BW"),
    (24, "clobber", "cW"),
    (25, "breakthrough", "fmWfF"),
    (26, "immobile", ""),
    (27, "cannon", "mRcpR"),
    (28, "janggiCannon", "pR"),
    (29, "soldier", "fsW"),
    (31, "horse", "nN"),
    (32, "elephant", "nA"),
    (33, "janggiElephant", "nZ"),
    (34, "banner", "RcpRnN"),
    (35, "wazir", "W"),
    (36, "commoner", "K"),
    (37, "centaur", "KN"),
];

/// Index of the first custom piece in Fairy-Stockfish's order.
pub(crate) const CUSTOM_BASE: u8 = 38;
/// The custom pieces a definition may name (`customPiece1` to
/// `customPiece24`: Fairy-Stockfish's slots before its royal one).
pub(crate) const CUSTOM_PIECES: u8 = 24;
/// Index of the king.
pub(crate) const KING_INDEX: u8 = 63;
/// Index of the rook.
pub(crate) const ROOK_INDEX: u8 = 4;
/// Index of the janggi cannon.
pub(crate) const JANGGI_CANNON_INDEX: u8 = 28;
/// Index of the horse.
pub(crate) const HORSE_INDEX: u8 = 31;
/// Index of the janggi elephant.
pub(crate) const JANGGI_ELEPHANT_INDEX: u8 = 33;
/// Index of the wazir (janggi's advisor).
pub(crate) const WAZIR_INDEX: u8 = 35;
/// Index of the xiangqi soldier.
pub(crate) const SOLDIER_INDEX: u8 = 29;
/// Index of the pawn.
pub(crate) const PAWN_INDEX: u8 = 1;

/// The ini key of the piece type with Fairy-Stockfish index `index`.
pub(crate) fn piece_key(index: u8) -> String {
    if index == KING_INDEX {
        "king".to_string()
    } else if index >= CUSTOM_BASE {
        format!("customPiece{}", index - CUSTOM_BASE + 1)
    } else {
        BUILTIN_PIECES.iter().find(|p| p.0 == index).map_or_else(|| format!("piece{index}"), |p| p.1.to_string())
    }
}

/// A piece type of a variant definition, before compilation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PieceSpec {
    pub letter: char,
    pub betza: String,
}

/// How an end that would be drawn is decided instead (`materialCounting`):
/// double passes, bikjang, the n-move rule and drawn repetitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaterialCounting {
    /// A draw stays a draw.
    #[default]
    None,
    /// Janggi's points (chariot 13, cannon 7, horse 5, elephant and advisor
    /// 3, soldier 2; Black gets 1.5 for moving second): more wins.
    Janggi,
    /// More pieces on the board win; as many draw.
    Unweighted,
    /// White wins.
    WhiteDrawOdds,
    /// Black wins (armageddon).
    BlackDrawOdds,
}

/// Where a side puts a wall with each move (`wallingRule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WallingRule {
    /// No walls are placed.
    #[default]
    None,
    /// On a square the moved piece could move to from its destination
    /// (amazons' arrows).
    Arrow,
    /// On any empty square; the previous wall goes (duck chess's duck).
    Duck,
    /// On an empty edge square or one next to a wall (atlantis).
    Edge,
    /// On the square the piece left (snailtrail, joust).
    Past,
    /// On any empty square (isolation).
    Static,
}

/// Where drops may go, or which pieces a move flips (`enclosingDrop`,
/// `flipEnclosedPieces`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EnclosingRule {
    /// No such rule.
    #[default]
    None,
    /// Drops must enclose enemy pieces in a line between the dropped piece
    /// and an own one; those lines flip (reversi, othello).
    Reversi,
    /// Drops go next to an own piece; the enemy pieces next to the
    /// destination flip (ataxx).
    Ataxx,
    /// Flips as ataxx's, after board moves and after drops next to an own
    /// piece (quadwrangle).
    Quadwrangle,
    /// Drops never go orthogonally next to an enemy piece (snort).
    Snort,
    /// Drops slide in from any side of the board up to the pieces there.
    Anyside,
    /// Drops fall to the lowest empty square of a file (connect four).
    Top,
}

/// The settings of one variant, as Fairy-Stockfish would hold them. Regions
/// are bit sets over a 12x10 board (bit = rank * 12 + file).
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub max_file: u8,
    pub max_rank: u8,
    pub pieces: BTreeMap<u8, PieceSpec>,
    pub start_fen: String,
    pub promotion_region: [u128; 2],
    pub promotion_piece_types: [u64; 2],
    pub mandatory_pawn_promotion: bool,
    pub double_step: bool,
    pub double_step_region: [u128; 2],
    /// Where the pawn may step three squares (`tripleStepRegion...`).
    pub triple_step_region: [u128; 2],
    /// Types that promote as pawns (`promotionPawnTypes`).
    pub promotion_pawn_types: [u64; 2],
    /// Types that capture en passant (`enPassantTypes`).
    pub en_passant_types: [u64; 2],
    /// Types whose irreversible moves reset the n-move rule (`nMoveRuleTypes`).
    pub n_move_rule_types: [u64; 2],
    pub en_passant_region: [u128; 2],
    pub castling: bool,
    pub castling_kingside_file: u8,
    pub castling_queenside_file: u8,
    pub castling_rank: u8,
    pub castling_king_file: u8,
    pub castling_king_piece: [u8; 2],
    pub castling_rook_kingside_file: u8,
    pub castling_rook_queenside_file: u8,
    pub castling_rook_pieces: [u64; 2],
    pub gating: bool,
    pub seirawan_gating: bool,
    /// Cambodian chess's special moves (`cambodianMoves`, with `gating`):
    /// the king's knight leap and the met's double step from their gates.
    pub cambodian_moves: bool,
    /// Menagerie's Pioneer gating (`pioneerGating`), Black on White's file (`pioneerSameFile`).
    pub pioneer_gating: bool,
    pub pioneer_same_file: bool,
    /// Menagerie's kidnapping (`kidnapper`, `kidnapOneStep`): the kidnapping
    /// piece type (Fairy-Stockfish index).
    pub kidnapper: Option<u8>,
    pub kidnap_one_step: bool,
    /// Menagerie's takeovers (Camel and Rhino Chess): leap takeovers, free
    /// and next to an enabler (Fairy-Stockfish index, path goes diagonally
    /// first), jump takeovers next to an enabler, the enablers.
    pub leap_takeovers: Vec<(u8, bool)>,
    pub enabled_leap_takeovers: Vec<(u8, bool)>,
    pub enabled_jump_takeovers: u64,
    pub takeover_enablers: u64,
    /// Menagerie's swaps of adjacent friendly pieces, but the pairs listed.
    pub swaps: bool,
    pub swap_except: Vec<(u8, u8)>,
    /// Menagerie's promoting pieces: non-pawn types that promote on arrival
    /// in the promotion region.
    pub promoting_pieces: u64,
    /// Menagerie's extinction of the extinction piece types together.
    pub extinction_together: bool,
    pub chess960: bool,
    pub game_end: GameEnd,
    /// Extinction piece types as a set over piece indices (bit 0 = all pieces).
    pub extinction_set: u64,
    /// Flag wins: each side's flag piece (Fairy-Stockfish index; `None`:
    /// any piece) and region (12-file squares, as Fairy-Stockfish's
    /// bitboards), the pieces needed there, and the rule's variations.
    pub flag_piece: [Option<u8>; 2],
    pub flag_region: [u128; 2],
    pub flag_piece_count: u32,
    pub flag_piece_blocked_win: bool,
    pub flag_move: bool,
    pub flag_piece_safe: bool,
    /// Check counting: the side that has given the start FEN's number of
    /// checks wins.
    pub check_counting: bool,
    /// Connect wins (`connectN`, `connectNxN`, `collinearN`): pieces in a
    /// row, in a square, on one line.
    pub connect_n: u32,
    pub connect_nxn: u32,
    pub collinear_n: u32,
    /// Directions that count: horizontal, vertical, diagonal.
    pub connect_directions: [bool; 3],
    /// Piece types that count (bit 0: all).
    pub connect_piece_types: u64,
    /// Per side, two regions a chain of its pieces connects
    /// (`connectRegion1White`, ...).
    pub connect_region: [[u128; 2]; 2],
    /// The value of a connection for the side that made it.
    pub connect_value: GameValue,
    /// A side with pieces in hand must drop one if it can (`mustDrop`).
    pub must_drop: bool,
    /// With `mustDrop`, the type whose pieces in hand force a drop (of that
    /// type); `None` for any (`mustDropType`, Fairy-Stockfish index).
    pub must_drop_type: Option<u8>,
    /// The game is one board of two (`twoBoards`: bughouse): the hands are
    /// fed from the partner's board, so promoted pieces keep their mark.
    pub two_boards: bool,
    /// Mongolian shatar's mate rule (`shatarMateRule`).
    pub shatar_mate_rule: bool,
    /// Walls placed with each move (`wallingRule`).
    pub walling_rule: WallingRule,
    /// Per side, where it may place walls (`wallingRegionWhite/Black`).
    pub walling_region: [u128; 2],
    /// A side either moves or places a wall, not both (`wallOrMove`).
    pub wall_or_move: bool,
    /// Moves that give check are legal (`checking = false`: racing kings).
    pub checking: bool,
    /// Drops (`pieceDrops`): pieces in hand may be put on empty squares.
    pub piece_drops: bool,
    /// Where drops may go (`enclosingDrop`; `dropOnTop = true` is `top`).
    pub enclosing_drop: EnclosingRule,
    /// While any of these squares is empty, drops go there only
    /// (`enclosingDropStart`: reversi's centre).
    pub enclosing_drop_start: u128,
    /// Which enemy pieces a move flips to the mover's colour
    /// (`flipEnclosedPieces`).
    pub flip_enclosed: EnclosingRule,
    /// Drops take nothing from the hand, which is not written in FENs
    /// (`freeDrops`, Menagerie's name for Fairy-Stockfish's ataxx rule).
    pub free_drops: bool,
    /// A full board ends the game, decided by material counting or drawn
    /// (`adjudicateFullBoard`).
    pub adjudicate_full_board: bool,
    /// Drops must leave room for bishops on both colours
    /// (`dropOppositeColoredBishop`).
    pub drop_opposite_colored_bishop: bool,
    /// A king or rook dropped on its castling square gains the castling
    /// right (`castlingDroppedPiece`).
    pub castling_dropped_piece: bool,
    /// Rooks are dropped on the first rank only (`sittuyinRookDrop`).
    pub sittuyin_rook_drop: bool,
    /// Sittuyin's promotions (`sittuyinPromotion`): a pawn in the
    /// promotion region (any pawn, when it is its side's only one) turns,
    /// as its move, into a promotion type where it stands or on an empty
    /// square that type attacks, if from there it attacks no enemy piece and
    /// the move gives no check; pawns do not promote by moving.
    pub sittuyin_promotion: bool,
    /// Castling rights whose castling wins and whose loss loses
    /// (`castlingWins`; bits K, Q, k, q).
    pub castling_wins: u8,
    /// Castling takes the opponent's right on the same side
    /// (`oppositeCastling`).
    pub opposite_castling: bool,
    /// Captured pieces go to the capturer's hand (`capturesToHand`).
    pub captures_to_hand: bool,
    /// A captured promoted piece goes to hand as itself, not as a pawn (`dropLoop`).
    pub drop_loop: bool,
    /// Drops may give check (`dropChecks`).
    pub drop_checks: bool,
    /// Pawns may be dropped on their first rank (`firstRankPawnDrops`).
    pub first_rank_pawn_drops: bool,
    /// Pawns may be dropped in their promotion region (`promotionZonePawnDrops`).
    pub promotion_zone_pawn_drops: bool,
    /// Each side's drop region (`dropRegionWhite/Black`).
    pub drop_region: [u128; 2],
    /// The piece type that may not be dropped on a file holding
    /// `drop_no_doubled_count` of its own (`dropNoDoubled`, Fairy-Stockfish index).
    pub drop_no_doubled: Option<u8>,
    pub drop_no_doubled_count: u32,
    /// A side that can capture must (`mustCapture`: antichess).
    pub must_capture: bool,
    /// A stalemate is valued by the piece counts (`stalematePieceCount`:
    /// suicide chess).
    pub stalemate_piece_count: bool,
    /// Captures explode the capturing piece and the non-pawn pieces next to
    /// the target (`blastOnCapture`: atomic).
    pub blast_on_capture: bool,
    /// Piece types a blast leaves standing (`blastImmuneTypes`, Fairy-Stockfish indices).
    pub blast_immune_types: u64,
    /// The last extinction pieces are royal (`extinctionPseudoRoyal`).
    pub extinction_pseudo_royal: bool,
    /// With pseudo-royal pieces, a move leaving all of the mover's pieces
    /// of the extinction types attacked at once is illegal too
    /// (`dupleCheck`: spartan chess's two kings).
    pub duple_check: bool,
    /// Piece types that turn into a wall where they capture
    /// (`petrifyOnCaptureTypes`, Fairy-Stockfish indices).
    pub petrify_types: u64,
    /// The pieces a blast removes turn into walls too (`petrifyBlastPieces`).
    pub petrify_blast: bool,
    /// Piece types that cannot capture a piece of their own type
    /// (`mutuallyImmuneTypes`, Fairy-Stockfish indices).
    pub mutually_immune_types: u64,
    /// Shogi-style promotions (`promotedPieceType = p:g s:g`): each type
    /// (Fairy-Stockfish index) and the type it promotes to.
    pub promoted_piece_types: BTreeMap<u8, u8>,
    /// Most pieces of a type (Fairy-Stockfish index) a side may have on the
    /// board for a promotion to it (`promotionLimit = q:1 r:2`); 0 or
    /// absent: no limit.
    pub promotion_limit: BTreeMap<u8, u32>,
    /// A piece that can promote must when it may (`mandatoryPiecePromotion`).
    pub mandatory_piece_promotion: bool,
    /// A promoted piece may demote to its original type instead, under the
    /// same conditions as a promotion (`pieceDemotion`).
    pub piece_demotion: bool,
    /// Pieces promote (and demote) shogi-style only when capturing
    /// (`piecePromotionOnCapture`).
    pub piece_promotion_on_capture: bool,
    /// Pieces in hand may also be dropped as their promoted type
    /// (`dropPromoted`).
    pub drop_promoted: bool,
    /// A move or drop to a square from which the piece could never move
    /// again is illegal (`immobilityIllegal`).
    pub immobility_illegal: bool,
    /// A checkmate given by dropping a shogi pawn loses (`shogiPawnDropMateIllegal`).
    pub shogi_pawn_drop_mate_illegal: bool,
    /// Where a piece type may move to (`mobilityRegionWhiteKing = ...`):
    /// per colour and Fairy-Stockfish index, when not the whole board.
    pub mobility_region: BTreeMap<(u8, u8), u128>,
    /// The kings may not face each other on an open line (`flyingGeneral`).
    pub flying_general: bool,
    /// Kings facing each other twice in a row end the game (`bikjangRule`: janggi).
    pub bikjang: bool,
    /// How an undecided end is decided (`materialCounting`).
    pub material_counting: MaterialCounting,
    /// Per colour, passing is a move (`pass`, `passWhite`, `passBlack`).
    pub pass: [bool; 2],
    /// A king in check may only take its checker (`makpongRule`).
    pub makpong: bool,
    /// Per colour, passing is a move when no other is legal (`passOnStalemate`).
    pub pass_on_stalemate: [bool; 2],
    /// Janggi's palace diagonals (`diagonalLines`).
    pub diagonal_lines: u128,
    /// The relative rank (0-based) from which the soldier also moves
    /// sideways (`soldierPromotionRank`); before it, only forwards.
    pub soldier_promotion_rank: u8,
}

pub(crate) fn rank_bb(r: u8) -> u128 {
    0xFFFu128 << (12 * r as u32)
}

fn file_bb(f: u8) -> u128 {
    (0..MAX_RANKS).fold(0u128, |b, r| b | 1u128 << (r as u32 * 12 + f as u32))
}

pub(crate) fn set_of(types: &[u8]) -> u64 {
    types.iter().fold(0u64, |s, &t| s | 1u64 << t)
}

impl Config {
    /// Fairy-Stockfish's defaults for a fresh section: chess rules, no pieces.
    fn fresh() -> Config {
        Config {
            max_file: 7,
            max_rank: 7,
            pieces: BTreeMap::new(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string(),
            promotion_region: [rank_bb(7), rank_bb(0)],
            promotion_piece_types: [set_of(&[2, 3, 4, 5]); 2],
            mandatory_pawn_promotion: true,
            double_step: true,
            double_step_region: [rank_bb(1), rank_bb(6)],
            triple_step_region: [0; 2],
            promotion_pawn_types: [set_of(&[PAWN_INDEX]); 2],
            en_passant_types: [set_of(&[PAWN_INDEX]); 2],
            n_move_rule_types: [set_of(&[PAWN_INDEX]); 2],
            en_passant_region: [u128::MAX >> 8, u128::MAX >> 8],
            castling: true,
            castling_kingside_file: 6,
            castling_queenside_file: 2,
            castling_rank: 0,
            castling_king_file: 4,
            castling_king_piece: [KING_INDEX; 2],
            castling_rook_kingside_file: MAX_FILES - 1,
            castling_rook_queenside_file: 0,
            castling_rook_pieces: [set_of(&[4]); 2],
            gating: false,
            seirawan_gating: false,
            cambodian_moves: false,
            pioneer_gating: false,
            pioneer_same_file: false,
            kidnapper: None,
            kidnap_one_step: false,
            leap_takeovers: Vec::new(),
            enabled_leap_takeovers: Vec::new(),
            enabled_jump_takeovers: 0,
            takeover_enablers: 0,
            swaps: false,
            swap_except: Vec::new(),
            promoting_pieces: 0,
            extinction_together: false,
            chess960: false,
            game_end: GameEnd {
                checkmate_value: GameValue::Loss,
                stalemate_value: GameValue::Draw,
                n_move_rule: 50,
                n_fold_rule: 3,
                n_fold_value: GameValue::Draw,
                n_fold_value_absolute: false,
                perpetual_check_illegal: false,
                move_repetition_illegal: false,
                chasing_rule: false,
                extinction_value: GameValue::None,
                extinction_claim: false,
                extinction_piece_types: String::new(),
                extinction_piece_count: 0,
                extinction_opponent_piece_count: 0,
                counting_rule: CountingRule::None,
            },
            extinction_set: 0,
            flag_piece: [None; 2],
            flag_region: [0; 2],
            flag_piece_count: 1,
            flag_piece_blocked_win: false,
            flag_move: false,
            flag_piece_safe: false,
            check_counting: false,
            connect_n: 0,
            connect_nxn: 0,
            collinear_n: 0,
            connect_directions: [true; 3],
            connect_piece_types: 1,
            connect_region: [[0; 2]; 2],
            connect_value: GameValue::Win,
            must_drop: false,
            must_drop_type: None,
            two_boards: false,
            shatar_mate_rule: false,
            walling_rule: WallingRule::None,
            walling_region: [u128::MAX; 2],
            wall_or_move: false,
            checking: true,
            piece_drops: false,
            enclosing_drop: EnclosingRule::None,
            enclosing_drop_start: 0,
            flip_enclosed: EnclosingRule::None,
            free_drops: false,
            adjudicate_full_board: false,
            drop_opposite_colored_bishop: false,
            castling_dropped_piece: false,
            sittuyin_rook_drop: false,
            sittuyin_promotion: false,
            castling_wins: 0,
            opposite_castling: false,
            captures_to_hand: false,
            drop_loop: false,
            drop_checks: true,
            first_rank_pawn_drops: false,
            promotion_zone_pawn_drops: false,
            drop_region: [u128::MAX, u128::MAX],
            drop_no_doubled: None,
            drop_no_doubled_count: 1,
            must_capture: false,
            stalemate_piece_count: false,
            blast_on_capture: false,
            blast_immune_types: 0,
            petrify_types: 0,
            petrify_blast: false,
            mutually_immune_types: 0,
            extinction_pseudo_royal: false,
            duple_check: false,
            promoted_piece_types: BTreeMap::new(),
            promotion_limit: BTreeMap::new(),
            mandatory_piece_promotion: false,
            piece_demotion: false,
            piece_promotion_on_capture: false,
            drop_promoted: false,
            immobility_illegal: false,
            shogi_pawn_drop_mate_illegal: false,
            mobility_region: BTreeMap::new(),
            flying_general: false,
            diagonal_lines: 0,
            pass: [false; 2],
            pass_on_stalemate: [false; 2],
            makpong: false,
            bikjang: false,
            material_counting: MaterialCounting::None,
            soldier_promotion_rank: 0,
        }
    }

    fn letter_index(&self, c: char) -> Option<u8> {
        let up = c.to_ascii_uppercase();
        self.pieces.iter().find(|(_, p)| p.letter == up).map(|(&i, _)| i)
    }

    fn add_piece(&mut self, index: u8, letter: char, betza: String) {
        let up = letter.to_ascii_uppercase();
        self.pieces.retain(|_, p| p.letter != up);
        self.pieces.insert(index, PieceSpec { letter: up, betza });
    }
}

/// A section being read: its header, its lines, and the first malformed one.
struct Section {
    name: String,
    parent: Option<String>,
    line: usize,
    entries: BTreeMap<String, Entry>,
    error: Option<DefinitionError>,
}

/// One `key = value` line of a section.
struct Entry {
    line: usize,
    value: String,
}

/// A set of variant definitions, by name, read from Fairy-Stockfish's
/// `variants.ini` format: `[name]` or `[name:parent]` sections of
/// `key = value` lines, `#` or `;` comments.
///
/// Supported keys: `maxRank`, `maxFile`; piece keys with a letter (`pawn`,
/// `knight`, `bishop`, `rook`, `queen`, `king`, `fers`, `alfil`,
/// `fersAlfil`, `silver`, `aiwok`, `bers`, `archbishop`, `chancellor`,
/// `amazon`, `knibis`, `biskni`, `kniroo`, `rookni`, `shogiPawn`, `lance`,
/// `shogiKnight`, `gold`, `dragonHorse`, `clobber`, `breakthrough`,
/// `immobile`, `cannon`, `horse`, `elephant`, `wazir`, `commoner`,
/// `centaur`; `-` removes the piece), `customPiece1`..`customPiece8 =
/// letter:betza`, `king = letter:betza`; `startFen`, `chess960`;
/// `promotionRank`, `promotionRegionWhite/Black`,
/// `promotionPieceTypes(White/Black)`, `mandatoryPawnPromotion`,
/// `promotionLimit`;
/// `doubleStep`, `doubleStepRank(Min)`, `doubleStepRegionWhite/Black`,
/// `enPassantRegion(White/Black)`; `castling`, `castlingKingsideFile`,
/// `castlingQueensideFile`, `castlingRank`, `castlingKingFile`,
/// `castlingKingPiece(White/Black)`, `castlingRookKingsideFile`,
/// `castlingRookQueensideFile`, `castlingRookPiece(s)(White/Black)`;
/// `gating`, `seirawanGating`, `cambodianMoves`; Menagerie's own `pioneerGating` and
/// `pioneerSameFile` (reserve pieces entering by Pioneer gating, after a
/// prelude, as in Alpaca Chess; the reserve is the start FEN's bracket,
/// e.g. `[Aa?]`), `kidnapper` and `kidnapOneStep` (Alseid Chess's
/// kidnapping: the piece, moving along lines to empty squares, takes the
/// second piece behind it along with it), `leapTakeovers`,
/// `enabledLeapTakeovers`, `enabledJumpTakeovers`, `takeoverEnablers`,
/// `swaps`, `swapExcept`, `promotingPieces` and `extinctionTogether`
/// (Camel and Rhino Chess's takeovers, swaps, promoting wazirs and loss
/// rule; docs/variants-ini.md); game end: `checkmateValue`,
/// `stalemateValue`, `nMoveRule`, `nFoldRule`, `nFoldValue`,
/// `nFoldValueAbsolute`, `perpetualCheckIllegal`,
/// `extinctionValue`, `extinctionClaim`, `extinctionPieceTypes`,
/// `extinctionPieceCount`, `extinctionOpponentPieceCount`, `countingRule`,
/// and the older `bareKingValue`/`bareKingMove` (bare king = extinction of
/// all but one piece against two); flag wins (`flagPiece(White/Black)`,
/// `flagRegion(White/Black)`, `whiteFlag`, `blackFlag`, `flagPieceCount`,
/// `flagPieceBlockedWin`, `flagMove`, `flagPieceSafe`), `checkCounting`
/// and `checking`; shogi-style promotion (`promotedPieceType`,
/// `mandatoryPiecePromotion`, `immobilityIllegal`,
/// `shogiPawnDropMateIllegal`). Display and engine keys
/// (`pieceToCharTable`, `variantTemplate`, `pieceValueMg/Eg`, `nnueAlias`)
/// are ignored; rule flags this crate does not implement (`pieceDrops`,
/// `mustCapture`, ...) are accepted only with their default value; any
/// other key is an error naming the file, line and key.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    configs: BTreeMap<String, Config>,
    /// Compiled variants; the built-in ones are compiled on first use.
    defs: BTreeMap<String, OnceLock<Option<Arc<VariantDef>>>>,
    /// Sections being loaded are not compiled now (the embedded file).
    lazy: bool,
    /// Most sections [`Definitions::load`] may still add (`None`: no limit).
    room: Option<usize>,
    /// The limit `room` was set from, for the error message.
    max_added: usize,
    /// Sections skipped by lenient loads: their children are skipped too.
    skipped: BTreeSet<String>,
}

/// The embedded definitions of the built-in variants.
pub const BUILTIN_INI: &str = include_str!("../variants.ini");

/// Menagerie's own games written as data with Menagerie's rule keys
/// (`pioneerGating`, `kidnapper`, `leapTakeovers`, ...), sections named as
/// the compiled games they play exactly like (`alpaca`, `alpaca2`,
/// `alpaca-samefile`, `alseid`, `alseid-weak`, `camel-rhino`); load them on
/// top of [`Definitions::builtin`], whose `chess` they derive from.
pub const MENAGERIE_INI: &str = include_str!("../menagerie.ini");

impl Definitions {
    /// An empty set (not even `chess`).
    pub fn empty() -> Definitions {
        Definitions::default()
    }

    /// The built-in variants, defined by the embedded `variants.ini`.
    pub fn builtin() -> Definitions {
        let mut d = Definitions { lazy: true, ..Definitions::empty() };
        let loaded = d.load(BUILTIN_INI, "variants.ini");
        d.lazy = false;
        if let Err(e) = loaded {
            // The embedded file is tested; this cannot happen in a released build.
            panic!("embedded variants.ini is invalid: {e}");
        }
        d
    }

    /// From now on, lets [`Definitions::load`] add at most `max` more
    /// definitions in all: a file with more is refused
    /// ([`DefinitionError::TooMany`]) at its first section over the limit,
    /// before that section is read, so an oversized file costs no memory.
    pub fn limit_added(&mut self, max: usize) {
        self.room = Some(max);
        self.max_added = max;
    }

    /// Adds the variants of an ini text; `file` names it in error messages.
    /// Returns the names added, in file order. Strict: any section that
    /// cannot be played is an error, and on error nothing is added.
    pub fn load(&mut self, text: &str, file: &str) -> Result<Vec<String>, DefinitionError> {
        let options = LoadOptions { strict: true, ..LoadOptions::default() };
        self.load_with(text, file, options).map(|loaded| loaded.added)
    }

    /// Adds the variants of an ini text; `file` names it in messages.
    ///
    /// Not [strict](LoadOptions::strict), as Fairy-Stockfish reads a file:
    /// a section that cannot be played (an unknown or unsupported key or
    /// value, an unknown parent, a name already taken, a malformed line in
    /// it, settings that do not hold together) is left out and reported in
    /// [`Loaded::skipped`], with its children; every other section is
    /// added. Still errors, and then nothing is added: a malformed section
    /// header, a line before the first section, more sections than
    /// [`Definitions::limit_added`] allows.
    pub fn load_with(&mut self, text: &str, file: &str, options: LoadOptions<'_>) -> Result<Loaded, DefinitionError> {
        let mut staged = self.clone();
        let mut loaded = Loaded::default();
        let mut section: Option<Section> = None;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let syntax = || DefinitionError::Syntax { file: file.into(), line: line_no, text: raw.into() };
            if line.starts_with('[') {
                let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')).ok_or_else(syntax)?;
                if let Some(done) = section.take() {
                    staged.close(file, done, &options, &mut loaded)?;
                }
                if staged.room.is_some_and(|room| loaded.added.len() >= room) {
                    return Err(DefinitionError::TooMany { file: file.into(), line: line_no, max: staged.max_added });
                }
                let (name, parent) = match inner.split_once(':') {
                    Some((n, p)) => (n.trim().to_string(), Some(p.trim().to_string())),
                    None => (inner.trim().to_string(), None),
                };
                if name.is_empty() || parent.as_deref() == Some("") {
                    return Err(syntax());
                }
                section = Some(Section { name, parent, line: line_no, entries: BTreeMap::new(), error: None });
                continue;
            }
            let Some(current) = section.as_mut() else { return Err(syntax()) };
            match line.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                Some((key, value)) if !key.is_empty() => {
                    current.entries.insert(key.to_string(), Entry { line: line_no, value: value.to_string() });
                }
                _ => {
                    current.error.get_or_insert_with(syntax);
                }
            }
        }
        if let Some(done) = section.take() {
            staged.close(file, done, &options, &mut loaded)?;
        }
        if let Some(room) = staged.room.as_mut() {
            *room -= loaded.added.len();
        }
        *self = staged;
        Ok(loaded)
    }

    /// Adds a section read whole, or records it as skipped (an error if strict).
    fn close(
        &mut self,
        file: &str,
        section: Section,
        options: &LoadOptions<'_>,
        loaded: &mut Loaded,
    ) -> Result<(), DefinitionError> {
        let Section { name, parent, line, entries, error } = section;
        let result = match error {
            Some(e) => Err(e),
            None if options.reserved.is_some_and(|reserved| reserved(&name)) => {
                Err(DefinitionError::Reserved { file: file.into(), line, name: name.clone() })
            }
            None => self.finish(file, &name, parent.as_deref(), line, entries),
        };
        match result {
            Ok(()) => loaded.added.push(name),
            Err(e) if options.strict || e.is_fatal() => return Err(e),
            Err(error) => {
                // A name already defined stays what it was; any other
                // skipped name takes its children with it.
                if !matches!(error, DefinitionError::Duplicate { .. }) {
                    self.skipped.insert(name.clone());
                }
                loaded.skipped.push(Skipped { name, error });
            }
        }
        Ok(())
    }

    /// The variant of that name.
    pub fn get(&self, name: &str) -> Option<&Arc<VariantDef>> {
        let cell = self.defs.get(name)?;
        cell.get_or_init(|| {
            let config = self.configs.get(name)?;
            variant::compile(name, config).ok().map(Arc::new)
        })
        .as_ref()
    }

    /// Names of all variants, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.defs.keys().map(String::as_str)
    }

    fn finish(
        &mut self,
        file: &str,
        name: &str,
        parent: Option<&str>,
        at: usize,
        entries: BTreeMap<String, Entry>,
    ) -> Result<(), DefinitionError> {
        if self.configs.contains_key(name) {
            return Err(DefinitionError::Duplicate { file: file.into(), line: at, name: name.into() });
        }
        let base = match parent {
            Some(p) => match self.configs.get(p) {
                Some(c) => c.clone(),
                None if self.skipped.contains(p) => {
                    return Err(DefinitionError::SkippedParent {
                        file: file.into(),
                        line: at,
                        name: name.into(),
                        parent: p.into(),
                    });
                }
                None => {
                    return Err(DefinitionError::UnknownParent {
                        file: file.into(),
                        line: at,
                        name: name.into(),
                        parent: p.into(),
                    });
                }
            },
            None => Config::fresh(),
        };
        let config = apply(base, &entries, file)?;
        let cell = OnceLock::new();
        if !self.lazy {
            let def = variant::compile(name, &config).map_err(|reason| DefinitionError::Invalid {
                file: file.into(),
                line: at,
                name: name.into(),
                reason,
            })?;
            let _ = cell.set(Some(Arc::new(def)));
        }
        self.configs.insert(name.to_string(), config);
        self.defs.insert(name.to_string(), cell);
        Ok(())
    }
}

/// Keys accepted and ignored (display, evaluation or engine hints).
const IGNORED_KEYS: &[&str] =
    &["pieceToCharTable", "variantTemplate", "pieceValueMg", "pieceValueEg", "nnueAlias", "pocketSize"];

/// The mechanism of an unsupported Fairy-Stockfish option, and the value
/// accepted for it (its default), if any: custom pieces beyond the 24
/// slots.
fn unsupported(key: &str) -> Option<(&'static str, Option<&'static str>)> {
    custom_number(key).is_some_and(|n| n > CUSTOM_PIECES).then_some(("more than 24 custom pieces", None))
}

struct Ctx<'a> {
    file: &'a str,
    entries: &'a BTreeMap<String, Entry>,
}

impl Ctx<'_> {
    fn invalid(&self, key: &str, reason: impl Into<String>) -> DefinitionError {
        let (line, value) = self.entries.get(key).map(|e| (e.line, e.value.clone())).unwrap_or((0, String::new()));
        DefinitionError::InvalidValue { file: self.file.into(), line, key: key.into(), value, reason: reason.into() }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.entries.get(key).map(|e| e.value.as_str())
    }

    /// Sets `target` to the value of the choice `key` names, if it is set.
    fn choice<T: Copy>(&self, key: &str, choices: &[(&str, T)], target: &mut T) -> Result<(), DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(()) };
        match choices.iter().find(|(name, _)| *name == v) {
            Some(&(_, value)) => {
                *target = value;
                Ok(())
            }
            None => {
                let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
                let (last, rest) = names.split_last().map_or(("", &[][..]), |(l, r)| (*l, r));
                Err(self.invalid(key, format!("expected {} or {last}", rest.join(", "))))
            }
        }
    }

    fn bool(&self, key: &str, target: &mut bool) -> Result<(), DefinitionError> {
        self.choice(key, &[("true", true), ("false", false)], target)
    }

    fn int(&self, key: &str, target: &mut u32) -> Result<(), DefinitionError> {
        if let Some(v) = self.get(key) {
            *target = v.parse().map_err(|_| self.invalid(key, "expected a non-negative integer"))?;
        }
        Ok(())
    }

    fn rank(&self, key: &str) -> Result<Option<u8>, DefinitionError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => match v.parse::<u8>() {
                Ok(r) if (1..=MAX_RANKS).contains(&r) => Ok(Some(r - 1)),
                _ => Err(self.invalid(key, format!("expected a rank number 1..{MAX_RANKS}"))),
            },
        }
    }

    fn file(&self, key: &str) -> Result<Option<u8>, DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let f = if v.starts_with(|c: char| c.is_ascii_digit()) {
            v.parse::<u8>().ok().and_then(|n| n.checked_sub(1))
        } else {
            let mut cs = v.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_lowercase() => Some(c as u8 - b'a'),
                _ => None,
            }
        };
        match f {
            Some(f) if f < MAX_FILES => Ok(Some(f)),
            _ => Err(self.invalid(key, "expected a file letter a..l or number 1..12")),
        }
    }

    fn value(&self, key: &str, target: &mut GameValue) -> Result<(), DefinitionError> {
        let values =
            [("win", GameValue::Win), ("loss", GameValue::Loss), ("draw", GameValue::Draw), ("none", GameValue::None)];
        self.choice(key, &values, target)
    }

    /// `key` for both colours, then `keyWhite` and `keyBlack` for one.
    fn bool_per_colour(&self, key: &str, target: &mut [bool; 2]) -> Result<(), DefinitionError> {
        self.bool(key, &mut target[0])?;
        self.bool(key, &mut target[1])?;
        self.bool(&format!("{key}White"), &mut target[0])?;
        self.bool(&format!("{key}Black"), &mut target[1])
    }

    fn region(&self, key: &str, target: &mut u128) -> Result<(), DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(()) };
        let mut bb = 0u128;
        for sym in v.split_whitespace() {
            if sym == "-" {
                break;
            }
            let bad = || self.invalid(key, format!("bad region symbol '{sym}'"));
            if let Some(r) = sym.strip_prefix('*') {
                let r: u8 = r.parse().map_err(|_| bad())?;
                if !(1..=MAX_RANKS).contains(&r) {
                    return Err(bad());
                }
                bb |= rank_bb(r - 1);
            } else {
                let mut cs = sym.chars();
                let f = cs.next().filter(|c| c.is_ascii_alphabetic()).ok_or_else(bad)?.to_ascii_lowercase();
                let f = f as u8 - b'a';
                if f >= MAX_FILES {
                    return Err(bad());
                }
                let rest: String = cs.collect();
                if rest == "*" {
                    bb |= file_bb(f);
                } else {
                    let r: u8 = rest.parse().map_err(|_| bad())?;
                    if !(1..=MAX_RANKS).contains(&r) {
                        return Err(bad());
                    }
                    bb |= 1u128 << ((r - 1) as u32 * 12 + f as u32);
                }
            }
        }
        *target = bb;
        Ok(())
    }

    /// A piece set for both colours (`key`), then each colour's
    /// (`keyWhite`, `keyBlack`), each replacing the value before.
    fn color_sets(&self, key: &str, sets: &mut [u64; 2], config: &Config) -> Result<(), DefinitionError> {
        if let Some(s) = self.piece_set(key, config)? {
            *sets = [s, s];
        }
        for (i, color) in ["White", "Black"].iter().enumerate() {
            if let Some(s) = self.piece_set(&format!("{key}{color}"), config)? {
                sets[i] = s;
            }
        }
        Ok(())
    }

    fn piece_set(&self, key: &str, config: &Config) -> Result<Option<u64>, DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let mut set = 0u64;
        for c in v.chars().filter(|c| !c.is_whitespace()) {
            if c == '-' {
                break;
            }
            if c == '*' {
                set |= 1;
                continue;
            }
            let i = config.letter_index(c).ok_or_else(|| self.invalid(key, format!("no piece with letter '{c}'")))?;
            set |= 1u64 << i;
        }
        Ok(Some(set))
    }

    /// A list of `letter:orthogonal` / `letter:diagonal` (the leaper's
    /// takeover path goes orthogonally or diagonally first); `-` is none.
    fn leaps(&self, key: &str, config: &Config) -> Result<Option<Vec<(u8, bool)>>, DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let mut out = Vec::new();
        for item in v.split_whitespace().take_while(|&w| w != "-") {
            let (letter, path) = item.split_once(':').unwrap_or((item, ""));
            let mut cs = letter.chars();
            let (Some(c), None) = (cs.next(), cs.next()) else {
                return Err(
                    self.invalid(key, format!("'{item}': expected a piece letter, ':' and orthogonal or diagonal"))
                );
            };
            let i = config.letter_index(c).ok_or_else(|| self.invalid(key, format!("no piece with letter '{c}'")))?;
            let diagonal = match path {
                "orthogonal" => false,
                "diagonal" => true,
                _ => {
                    return Err(self.invalid(key, format!("'{item}': the path is orthogonal or diagonal (first)")));
                }
            };
            out.push((i, diagonal));
        }
        Ok(Some(out))
    }

    /// A list of two-letter piece pairs (`ww pp`); `-` is none.
    fn pairs(&self, key: &str, config: &Config) -> Result<Option<Vec<(u8, u8)>>, DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let mut out = Vec::new();
        for item in v.split_whitespace().take_while(|&w| w != "-") {
            let letters: Vec<char> = item.chars().collect();
            let [a, b] = letters[..] else {
                return Err(self.invalid(key, format!("'{item}': expected two piece letters, e.g. ww")));
            };
            let index = |c: char| {
                config.letter_index(c).ok_or_else(|| self.invalid(key, format!("no piece with letter '{c}'")))
            };
            out.push((index(a)?, index(b)?));
        }
        Ok(Some(out))
    }

    /// A flag piece: one letter, or `*` (or `-`) for any piece
    /// (`Some(None)`).
    fn flag_piece(&self, key: &str, config: &Config) -> Result<Option<Option<u8>>, DefinitionError> {
        match self.get(key) {
            None => Ok(None),
            Some("*" | "-") => Ok(Some(None)),
            Some(_) => self.piece(key, config).map(|p| p.map(Some)),
        }
    }

    fn piece(&self, key: &str, config: &Config) -> Result<Option<u8>, DefinitionError> {
        let Some(v) = self.get(key) else { return Ok(None) };
        let mut cs = v.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => {
                config.letter_index(c).map(Some).ok_or_else(|| self.invalid(key, format!("no piece with letter '{c}'")))
            }
            _ => Err(self.invalid(key, "expected one piece letter")),
        }
    }
}

fn apply(mut c: Config, entries: &BTreeMap<String, Entry>, file: &str) -> Result<Config, DefinitionError> {
    let ctx = Ctx { file, entries };
    // Every key must be known.
    for (key, e) in entries {
        let known = KNOWN_KEYS.contains(&key.as_str())
            || IGNORED_KEYS.contains(&key.as_str())
            || BUILTIN_PIECES.iter().any(|p| p.1 == key)
            || key == "king"
            || custom_index(key).is_some()
            || mobility_key(key).is_some();
        if let Some((mechanism, default)) = unsupported(key) {
            if default != Some(e.value.as_str()) {
                return Err(DefinitionError::Unsupported {
                    file: file.into(),
                    line: e.line,
                    key: key.clone(),
                    value: e.value.clone(),
                    mechanism,
                });
            }
            continue;
        }
        if !known {
            return Err(DefinitionError::UnknownKey { file: file.into(), line: e.line, key: key.clone() });
        }
    }

    // Board size.
    c.max_rank = ctx.rank("maxRank")?.unwrap_or(c.max_rank);
    c.max_file = ctx.file("maxFile")?.unwrap_or(c.max_file);

    // Pieces, in Fairy-Stockfish's order.
    let mut piece_keys: Vec<(u8, String, Option<&'static str>)> =
        BUILTIN_PIECES.iter().map(|&(i, k, b)| (i, k.to_string(), Some(b))).collect();
    for n in 1..=CUSTOM_PIECES {
        piece_keys.push((CUSTOM_BASE + n - 1, format!("customPiece{n}"), None));
    }
    piece_keys.push((KING_INDEX, "king".to_string(), Some("K")));
    for (index, key, builtin) in piece_keys {
        let Some(v) = ctx.get(&key) else { continue };
        let mut chars = v.chars();
        let Some(letter) = chars.next() else { continue };
        if letter == '-' {
            c.pieces.remove(&index);
            continue;
        }
        if !letter.is_ascii_alphabetic() {
            return Err(ctx.invalid(&key, "expected a piece letter or '-'"));
        }
        let rest: String = chars.collect();
        let betza = if rest.is_empty() {
            match builtin {
                Some(b) => b.to_string(),
                None => return Err(ctx.invalid(&key, "missing Betza notation (expected letter:betza)")),
            }
        } else {
            let Some(b) = rest.strip_prefix(':') else {
                return Err(ctx.invalid(&key, "expected letter or letter:betza"));
            };
            if builtin.is_some() && index != KING_INDEX {
                return Err(ctx.invalid(&key, "only custom pieces and the king take a Betza notation"));
            }
            b.to_string()
        };
        if let Err(source) = betza::parse(&betza) {
            let line = entries.get(&key).map(|e| e.line).unwrap_or(0);
            return Err(DefinitionError::Betza { file: file.into(), line, key, source });
        }
        // As in Fairy-Stockfish, an `e` in a custom piece's notation makes
        // it capture en passant.
        let en_passant = builtin.is_none() && betza::en_passant(&betza);
        c.add_piece(index, letter, betza);
        if en_passant {
            for set in &mut c.en_passant_types {
                *set |= 1 << index;
            }
        }
    }
    // `pawnTypes` sets the next three kinds of pawn types at once.
    if let Some(s) = ctx.piece_set("pawnTypes", &c)? {
        c.promotion_pawn_types = [s, s];
        c.en_passant_types = [s, s];
        c.n_move_rule_types = [s, s];
    }
    let mut sets = c.promotion_pawn_types;
    ctx.color_sets("promotionPawnTypes", &mut sets, &c)?;
    c.promotion_pawn_types = sets;

    // Mobility regions, per colour and piece type (Fairy-Stockfish's
    // default: the whole board).
    for key in entries.keys() {
        if let Some((color, index)) = mobility_key(key) {
            let mut region = c.mobility_region.get(&(color, index)).copied().unwrap_or(u128::MAX);
            ctx.region(key, &mut region)?;
            c.mobility_region.insert((color, index), region);
        }
    }

    // Deprecated forms.
    if let Some(r) = ctx.rank("promotionRank")? {
        c.promotion_region = [zone(0, r, c.max_rank), zone(1, r, c.max_rank)];
    }
    let ds_rank = ctx.rank("doubleStepRank")?;
    let ds_min = ctx.rank("doubleStepRankMin")?;
    if ds_rank.is_some() || ds_min.is_some() {
        let r = ds_rank.unwrap_or(1);
        let min = ds_min.unwrap_or(1);
        for color in 0..2 {
            let mut bb = 0;
            for rel in min..=r {
                let abs = if color == 0 { rel } else { c.max_rank.saturating_sub(rel) };
                bb |= rank_bb(abs);
            }
            c.double_step_region[color] = bb;
        }
    }
    c.castling_rook_pieces = ctx.piece_set("castlingRookPiece", &c)?.map_or(c.castling_rook_pieces, |s| [s, s]);

    ctx.bool("chess960", &mut c.chess960)?;
    if let Some(f) = ctx.get("startFen") {
        c.start_fen = f.to_string();
    }
    ctx.region("promotionRegionWhite", &mut c.promotion_region[0])?;
    ctx.region("promotionRegionBlack", &mut c.promotion_region[1])?;
    c.promotion_piece_types = ctx.piece_set("promotionPieceTypes", &c)?.map_or(c.promotion_piece_types, |s| [s, s]);
    c.promotion_piece_types[0] = ctx.piece_set("promotionPieceTypesWhite", &c)?.unwrap_or(c.promotion_piece_types[0]);
    c.promotion_piece_types[1] = ctx.piece_set("promotionPieceTypesBlack", &c)?.unwrap_or(c.promotion_piece_types[1]);
    ctx.bool("mandatoryPawnPromotion", &mut c.mandatory_pawn_promotion)?;
    if let Some(v) = ctx.get("promotionLimit") {
        // Entries replace the parent's for their types, as Fairy-Stockfish
        // reads them.
        for item in v.split_whitespace() {
            let bad = || ctx.invalid("promotionLimit", format!("'{item}': expected letter:count, e.g. q:1"));
            let (letter, count) = item.split_once(':').ok_or_else(bad)?;
            let mut chars = letter.chars();
            let (Some(ch), None) = (chars.next(), chars.next()) else { return Err(bad()) };
            let count: u32 = count.parse().map_err(|_| bad())?;
            let index = c
                .letter_index(ch)
                .ok_or_else(|| ctx.invalid("promotionLimit", format!("no piece with letter '{ch}'")))?;
            c.promotion_limit.insert(index, count);
        }
    }
    ctx.bool("doubleStep", &mut c.double_step)?;
    ctx.region("doubleStepRegionWhite", &mut c.double_step_region[0])?;
    ctx.region("doubleStepRegionBlack", &mut c.double_step_region[1])?;
    ctx.region("tripleStepRegionWhite", &mut c.triple_step_region[0])?;
    ctx.region("tripleStepRegionBlack", &mut c.triple_step_region[1])?;
    let mut sets = c.en_passant_types;
    ctx.color_sets("enPassantTypes", &mut sets, &c)?;
    c.en_passant_types = sets;
    let mut sets = c.n_move_rule_types;
    ctx.color_sets("nMoveRuleTypes", &mut sets, &c)?;
    c.n_move_rule_types = sets;
    ctx.region("enPassantRegion", &mut c.en_passant_region[0])?;
    ctx.region("enPassantRegion", &mut c.en_passant_region[1])?;
    ctx.region("enPassantRegionWhite", &mut c.en_passant_region[0])?;
    ctx.region("enPassantRegionBlack", &mut c.en_passant_region[1])?;
    ctx.bool("castling", &mut c.castling)?;
    c.castling_kingside_file = ctx.file("castlingKingsideFile")?.unwrap_or(c.castling_kingside_file);
    c.castling_queenside_file = ctx.file("castlingQueensideFile")?.unwrap_or(c.castling_queenside_file);
    c.castling_rank = ctx.rank("castlingRank")?.unwrap_or(c.castling_rank);
    c.castling_king_file = ctx.file("castlingKingFile")?.unwrap_or(c.castling_king_file);
    c.castling_king_piece = ctx.piece("castlingKingPiece", &c)?.map_or(c.castling_king_piece, |p| [p, p]);
    c.castling_king_piece[0] = ctx.piece("castlingKingPieceWhite", &c)?.unwrap_or(c.castling_king_piece[0]);
    c.castling_king_piece[1] = ctx.piece("castlingKingPieceBlack", &c)?.unwrap_or(c.castling_king_piece[1]);
    c.castling_rook_kingside_file = ctx.file("castlingRookKingsideFile")?.unwrap_or(c.castling_rook_kingside_file);
    c.castling_rook_queenside_file = ctx.file("castlingRookQueensideFile")?.unwrap_or(c.castling_rook_queenside_file);
    c.castling_rook_pieces = ctx.piece_set("castlingRookPieces", &c)?.map_or(c.castling_rook_pieces, |s| [s, s]);
    c.castling_rook_pieces[0] = ctx.piece_set("castlingRookPiecesWhite", &c)?.unwrap_or(c.castling_rook_pieces[0]);
    c.castling_rook_pieces[1] = ctx.piece_set("castlingRookPiecesBlack", &c)?.unwrap_or(c.castling_rook_pieces[1]);
    ctx.bool("gating", &mut c.gating)?;
    ctx.bool("seirawanGating", &mut c.seirawan_gating)?;
    ctx.bool("cambodianMoves", &mut c.cambodian_moves)?;
    ctx.bool("pioneerGating", &mut c.pioneer_gating)?;
    ctx.bool("pioneerSameFile", &mut c.pioneer_same_file)?;
    if ctx.get("kidnapper") == Some("-") {
        c.kidnapper = None;
    } else if let Some(p) = ctx.piece("kidnapper", &c)? {
        c.kidnapper = Some(p);
    }
    ctx.bool("kidnapOneStep", &mut c.kidnap_one_step)?;
    c.leap_takeovers = ctx.leaps("leapTakeovers", &c)?.unwrap_or(c.leap_takeovers);
    c.enabled_leap_takeovers = ctx.leaps("enabledLeapTakeovers", &c)?.unwrap_or(c.enabled_leap_takeovers);
    c.enabled_jump_takeovers = ctx.piece_set("enabledJumpTakeovers", &c)?.unwrap_or(c.enabled_jump_takeovers);
    c.takeover_enablers = ctx.piece_set("takeoverEnablers", &c)?.unwrap_or(c.takeover_enablers);
    ctx.bool("swaps", &mut c.swaps)?;
    c.swap_except = ctx.pairs("swapExcept", &c)?.unwrap_or(c.swap_except);
    c.promoting_pieces = ctx.piece_set("promotingPieces", &c)?.unwrap_or(c.promoting_pieces);
    ctx.bool("extinctionTogether", &mut c.extinction_together)?;

    // Flag wins, in Fairy-Stockfish's order (the older `whiteFlag` and
    // `blackFlag` first, so that `flagRegion...` overrides them).
    ctx.region("whiteFlag", &mut c.flag_region[0])?;
    ctx.region("blackFlag", &mut c.flag_region[1])?;
    for (key, sides) in
        [("flagPiece", [true, true]), ("flagPieceWhite", [true, false]), ("flagPieceBlack", [false, true])]
    {
        if let Some(p) = ctx.flag_piece(key, &c)? {
            for (side, set) in sides.into_iter().enumerate() {
                if set {
                    c.flag_piece[side] = p;
                }
            }
        }
    }
    ctx.region("flagRegion", &mut c.flag_region[0])?;
    ctx.region("flagRegion", &mut c.flag_region[1])?;
    ctx.region("flagRegionWhite", &mut c.flag_region[0])?;
    ctx.region("flagRegionBlack", &mut c.flag_region[1])?;
    ctx.int("flagPieceCount", &mut c.flag_piece_count)?;
    ctx.bool("flagPieceBlockedWin", &mut c.flag_piece_blocked_win)?;
    ctx.bool("flagMove", &mut c.flag_move)?;
    ctx.bool("flagPieceSafe", &mut c.flag_piece_safe)?;
    ctx.bool("checkCounting", &mut c.check_counting)?;
    ctx.bool("checking", &mut c.checking)?;
    ctx.int("connectN", &mut c.connect_n)?;
    ctx.int("connectNxN", &mut c.connect_nxn)?;
    ctx.int("collinearN", &mut c.collinear_n)?;
    for (i, key) in ["connectHorizontal", "connectVertical", "connectDiagonal"].iter().enumerate() {
        ctx.bool(key, &mut c.connect_directions[i])?;
    }
    c.connect_piece_types = ctx.piece_set("connectPieceTypes", &c)?.unwrap_or(c.connect_piece_types);
    ctx.region("connectRegion1White", &mut c.connect_region[0][0])?;
    ctx.region("connectRegion2White", &mut c.connect_region[0][1])?;
    ctx.region("connectRegion1Black", &mut c.connect_region[1][0])?;
    ctx.region("connectRegion2Black", &mut c.connect_region[1][1])?;
    ctx.value("connectValue", &mut c.connect_value)?;
    ctx.bool("mustDrop", &mut c.must_drop)?;
    if ctx.get("mustDropType").is_some_and(|v| v == "*" || v == "-") {
        c.must_drop_type = None;
    } else if let Some(p) = ctx.piece("mustDropType", &c)? {
        c.must_drop_type = Some(p);
    }
    ctx.bool("shatarMateRule", &mut c.shatar_mate_rule)?;

    // Walls.
    use WallingRule as W;
    let walls = [
        ("none", W::None),
        ("arrow", W::Arrow),
        ("duck", W::Duck),
        ("edge", W::Edge),
        ("past", W::Past),
        ("static", W::Static),
    ];
    ctx.choice("wallingRule", &walls, &mut c.walling_rule)?;
    ctx.region("wallingRegionWhite", &mut c.walling_region[0])?;
    ctx.region("wallingRegionBlack", &mut c.walling_region[1])?;
    ctx.region("wallingRegion", &mut c.walling_region[0])?;
    ctx.region("wallingRegion", &mut c.walling_region[1])?;
    ctx.bool("wallOrMove", &mut c.wall_or_move)?;

    // Drops, in Fairy-Stockfish's order (the older region names first).
    ctx.region("whiteDropRegion", &mut c.drop_region[0])?;
    ctx.region("blackDropRegion", &mut c.drop_region[1])?;
    ctx.bool("dropChecks", &mut c.drop_checks)?;
    ctx.bool("pieceDrops", &mut c.piece_drops)?;
    ctx.bool("dropLoop", &mut c.drop_loop)?;
    ctx.bool("capturesToHand", &mut c.captures_to_hand)?;
    ctx.bool("twoBoards", &mut c.two_boards)?;
    ctx.bool("firstRankPawnDrops", &mut c.first_rank_pawn_drops)?;
    ctx.bool("promotionZonePawnDrops", &mut c.promotion_zone_pawn_drops)?;
    ctx.region("dropRegionWhite", &mut c.drop_region[0])?;
    ctx.region("dropRegionBlack", &mut c.drop_region[1])?;
    if ctx.get("dropNoDoubled") == Some("-") {
        c.drop_no_doubled = None;
    } else if let Some(p) = ctx.piece("dropNoDoubled", &c)? {
        c.drop_no_doubled = Some(p);
    }
    ctx.int("dropNoDoubledCount", &mut c.drop_no_doubled_count)?;

    // Enclosing drops and flips (reversi, ataxx, connect four).
    use EnclosingRule as E;
    let enclosing_rules = [
        ("none", E::None),
        ("reversi", E::Reversi),
        ("ataxx", E::Ataxx),
        ("quadwrangle", E::Quadwrangle),
        ("snort", E::Snort),
        ("anyside", E::Anyside),
        ("top", E::Top),
    ];
    let enclosing = |key: &str, target: &mut EnclosingRule| ctx.choice(key, &enclosing_rules, target);
    let mut on_top = false;
    ctx.bool("dropOnTop", &mut on_top)?;
    if on_top {
        c.enclosing_drop = EnclosingRule::Top;
    }
    enclosing("enclosingDrop", &mut c.enclosing_drop)?;
    ctx.region("enclosingDropStart", &mut c.enclosing_drop_start)?;
    enclosing("flipEnclosedPieces", &mut c.flip_enclosed)?;
    ctx.bool("freeDrops", &mut c.free_drops)?;
    ctx.bool("adjudicateFullBoard", &mut c.adjudicate_full_board)?;
    ctx.bool("dropOppositeColoredBishop", &mut c.drop_opposite_colored_bishop)?;
    ctx.bool("castlingDroppedPiece", &mut c.castling_dropped_piece)?;
    ctx.bool("sittuyinRookDrop", &mut c.sittuyin_rook_drop)?;
    ctx.bool("sittuyinPromotion", &mut c.sittuyin_promotion)?;
    if let Some(v) = ctx.get("castlingWins") {
        let mut bits = 0u8;
        for ch in v.chars().filter(|c| !c.is_whitespace()).take_while(|&c| c != '-') {
            bits |= match ch {
                'K' => 1,
                'Q' => 2,
                'k' => 4,
                'q' => 8,
                _ => return Err(ctx.invalid("castlingWins", "expected letters of KQkq, or -")),
            };
        }
        c.castling_wins = bits;
    }
    ctx.bool("oppositeCastling", &mut c.opposite_castling)?;

    // Forced captures and atomic blasts.
    ctx.bool("mustCapture", &mut c.must_capture)?;
    ctx.bool("stalematePieceCount", &mut c.stalemate_piece_count)?;
    ctx.bool("blastOnCapture", &mut c.blast_on_capture)?;
    c.blast_immune_types = ctx.piece_set("blastImmuneTypes", &c)?.unwrap_or(c.blast_immune_types);
    ctx.bool("extinctionPseudoRoyal", &mut c.extinction_pseudo_royal)?;
    ctx.bool("dupleCheck", &mut c.duple_check)?;
    c.mutually_immune_types = ctx.piece_set("mutuallyImmuneTypes", &c)?.unwrap_or(c.mutually_immune_types);
    c.petrify_types = ctx.piece_set("petrifyOnCaptureTypes", &c)?.unwrap_or(c.petrify_types);
    ctx.bool("petrifyBlastPieces", &mut c.petrify_blast)?;

    // Shogi-style promotions.
    if let Some(v) = ctx.get("promotedPieceType") {
        // Entries add to (or, with `-`, remove from) the parent's, as
        // Fairy-Stockfish reads them.
        let chars: Vec<char> = v.chars().filter(|c| !c.is_whitespace()).collect();
        for item in chars.chunks(3) {
            let text: String = item.iter().collect();
            let [from, ':', to] = item[..] else {
                return Err(ctx.invalid("promotedPieceType", format!("'{text}': expected letter:letter, e.g. p:g")));
            };
            let index = |ch: char| {
                c.letter_index(ch)
                    .ok_or_else(|| ctx.invalid("promotedPieceType", format!("no piece with letter '{ch}'")))
            };
            let from = index(from)?;
            if to == '-' {
                c.promoted_piece_types.remove(&from);
            } else {
                let to = index(to)?;
                c.promoted_piece_types.insert(from, to);
            }
        }
    }
    ctx.bool("mandatoryPiecePromotion", &mut c.mandatory_piece_promotion)?;
    ctx.bool("pieceDemotion", &mut c.piece_demotion)?;
    ctx.bool("piecePromotionOnCapture", &mut c.piece_promotion_on_capture)?;
    ctx.bool("dropPromoted", &mut c.drop_promoted)?;
    ctx.bool("immobilityIllegal", &mut c.immobility_illegal)?;
    ctx.bool("shogiPawnDropMateIllegal", &mut c.shogi_pawn_drop_mate_illegal)?;

    // Xiangqi.
    ctx.bool("flyingGeneral", &mut c.flying_general)?;
    ctx.region("diagonalLines", &mut c.diagonal_lines)?;
    ctx.bool_per_colour("pass", &mut c.pass)?;
    ctx.bool("makpongRule", &mut c.makpong)?;
    ctx.bool_per_colour("passOnStalemate", &mut c.pass_on_stalemate)?;
    ctx.bool("bikjangRule", &mut c.bikjang)?;
    use MaterialCounting as M;
    let countings = [
        ("janggi", M::Janggi),
        ("unweighted", M::Unweighted),
        ("whitedrawodds", M::WhiteDrawOdds),
        ("blackdrawodds", M::BlackDrawOdds),
        ("none", M::None),
    ];
    ctx.choice("materialCounting", &countings, &mut c.material_counting)?;
    c.soldier_promotion_rank = ctx.rank("soldierPromotionRank")?.unwrap_or(c.soldier_promotion_rank);

    // Game end.
    let g = &mut c.game_end;
    ctx.int("nMoveRule", &mut g.n_move_rule)?;
    ctx.int("nFoldRule", &mut g.n_fold_rule)?;
    ctx.value("nFoldValue", &mut g.n_fold_value)?;
    ctx.bool("nFoldValueAbsolute", &mut g.n_fold_value_absolute)?;
    ctx.bool("perpetualCheckIllegal", &mut g.perpetual_check_illegal)?;
    ctx.bool("moveRepetitionIllegal", &mut g.move_repetition_illegal)?;
    ctx.choice("chasingRule", &[("none", false), ("axf", true)], &mut g.chasing_rule)?;
    ctx.value("stalemateValue", &mut g.stalemate_value)?;
    ctx.value("checkmateValue", &mut g.checkmate_value)?;
    // Legacy bare-king options map onto extinction of all pieces but the king.
    ctx.value("bareKingValue", &mut g.extinction_value)?;
    if ctx.get("bareKingValue").is_some() {
        g.extinction_piece_types = "*".into();
        g.extinction_piece_count = 1;
        g.extinction_opponent_piece_count = 2;
        c.extinction_set = 1;
    }
    ctx.bool("bareKingMove", &mut g.extinction_claim)?;
    ctx.value("extinctionValue", &mut g.extinction_value)?;
    ctx.bool("extinctionClaim", &mut g.extinction_claim)?;
    let g_types = ctx.get("extinctionPieceTypes").map(str::to_string);
    ctx.int("extinctionPieceCount", &mut g.extinction_piece_count)?;
    ctx.int("extinctionOpponentPieceCount", &mut g.extinction_opponent_piece_count)?;
    let countings = [
        ("makruk", CountingRule::Makruk),
        ("asean", CountingRule::Asean),
        ("cambodian", CountingRule::Cambodian),
        ("none", CountingRule::None),
    ];
    ctx.choice("countingRule", &countings, &mut g.counting_rule)?;
    if let Some(types) = g_types {
        let set = ctx.piece_set("extinctionPieceTypes", &c)?.unwrap_or(0);
        c.extinction_set = set;
        c.game_end.extinction_piece_types = types;
    }
    Ok(c)
}

/// Ranks from `r` (relative to `color`) to the far end.
fn zone(color: usize, r: u8, max_rank: u8) -> u128 {
    let mut bb = 0;
    for rank in 0..=max_rank {
        let rel = if color == 0 { rank } else { max_rank - rank };
        if rel >= r {
            bb |= rank_bb(rank);
        }
    }
    bb
}

/// The colour (0 White) and Fairy-Stockfish index of a
/// `mobilityRegion<Colour><Piece>` key, e.g. `mobilityRegionBlackCustomPiece3`.
fn mobility_key(key: &str) -> Option<(u8, u8)> {
    let rest = key.strip_prefix("mobilityRegion")?;
    let (color, piece) =
        if let Some(p) = rest.strip_prefix("White") { (0, p) } else { (1, rest.strip_prefix("Black")?) };
    let mut chars = piece.chars();
    let first = chars.next()?;
    let piece = format!("{}{}", first.to_ascii_lowercase(), chars.as_str());
    let index = if piece == "king" {
        KING_INDEX
    } else if let Some(i) = custom_index(&piece) {
        i
    } else {
        BUILTIN_PIECES.iter().find(|p| p.1 == piece)?.0
    };
    Some((color, index))
}

fn custom_index(key: &str) -> Option<u8> {
    let n = custom_number(key)?;
    (1..=CUSTOM_PIECES).contains(&n).then_some(CUSTOM_BASE + n - 1)
}

/// `n` of a `customPieceN` key.
fn custom_number(key: &str) -> Option<u8> {
    key.strip_prefix("customPiece")?.parse().ok()
}

const KNOWN_KEYS: &[&str] = &[
    "flagPiece",
    "flagPieceWhite",
    "flagPieceBlack",
    "flagRegion",
    "flagRegionWhite",
    "flagRegionBlack",
    "whiteFlag",
    "blackFlag",
    "flagMove",
    "flagPieceCount",
    "flagPieceBlockedWin",
    "flagPieceSafe",
    "checkCounting",
    "connectN",
    "connectNxN",
    "collinearN",
    "connectHorizontal",
    "connectVertical",
    "connectDiagonal",
    "connectPieceTypes",
    "connectRegion1White",
    "connectRegion2White",
    "connectRegion1Black",
    "connectRegion2Black",
    "connectValue",
    "mustDrop",
    "shatarMateRule",
    "mutuallyImmuneTypes",
    "petrifyOnCaptureTypes",
    "petrifyBlastPieces",
    "dropOnTop",
    "enclosingDrop",
    "enclosingDropStart",
    "flipEnclosedPieces",
    "freeDrops",
    "adjudicateFullBoard",
    "dropOppositeColoredBishop",
    "castlingDroppedPiece",
    "sittuyinRookDrop",
    "sittuyinPromotion",
    "castlingWins",
    "oppositeCastling",
    "wallingRule",
    "wallingRegion",
    "wallingRegionWhite",
    "wallingRegionBlack",
    "wallOrMove",
    "checking",
    "pieceDrops",
    "capturesToHand",
    "dropLoop",
    "dropChecks",
    "firstRankPawnDrops",
    "promotionZonePawnDrops",
    "dropRegionWhite",
    "dropRegionBlack",
    "whiteDropRegion",
    "blackDropRegion",
    "dropNoDoubled",
    "dropNoDoubledCount",
    "mustDropType",
    "twoBoards",
    "pieceDemotion",
    "piecePromotionOnCapture",
    "dropPromoted",
    "dupleCheck",
    "maxRank",
    "maxFile",
    "chess960",
    "startFen",
    "promotionRank",
    "promotionRegionWhite",
    "promotionRegionBlack",
    "promotionPieceTypes",
    "promotionPieceTypesWhite",
    "promotionPieceTypesBlack",
    "mandatoryPawnPromotion",
    "promotionLimit",
    "doubleStep",
    "doubleStepRank",
    "doubleStepRankMin",
    "doubleStepRegionWhite",
    "doubleStepRegionBlack",
    "enPassantRegion",
    "enPassantRegionWhite",
    "enPassantRegionBlack",
    "castling",
    "castlingKingsideFile",
    "castlingQueensideFile",
    "castlingRank",
    "castlingKingFile",
    "castlingKingPiece",
    "castlingKingPieceWhite",
    "castlingKingPieceBlack",
    "castlingRookKingsideFile",
    "castlingRookQueensideFile",
    "castlingRookPiece",
    "castlingRookPieces",
    "castlingRookPiecesWhite",
    "castlingRookPiecesBlack",
    "gating",
    "seirawanGating",
    "cambodianMoves",
    "pioneerGating",
    "pioneerSameFile",
    "kidnapper",
    "kidnapOneStep",
    "leapTakeovers",
    "enabledLeapTakeovers",
    "enabledJumpTakeovers",
    "takeoverEnablers",
    "swaps",
    "swapExcept",
    "promotingPieces",
    "extinctionTogether",
    "pawnTypes",
    "promotionPawnTypes",
    "promotionPawnTypesWhite",
    "promotionPawnTypesBlack",
    "enPassantTypes",
    "enPassantTypesWhite",
    "enPassantTypesBlack",
    "tripleStepRegionWhite",
    "tripleStepRegionBlack",
    "nMoveRuleTypes",
    "nMoveRuleTypesWhite",
    "nMoveRuleTypesBlack",
    "nMoveRule",
    "nFoldRule",
    "nFoldValue",
    "nFoldValueAbsolute",
    "perpetualCheckIllegal",
    "moveRepetitionIllegal",
    "chasingRule",
    "stalemateValue",
    "checkmateValue",
    "bareKingValue",
    "bareKingMove",
    "extinctionValue",
    "extinctionClaim",
    "extinctionPieceTypes",
    "extinctionPieceCount",
    "extinctionOpponentPieceCount",
    "countingRule",
    "mustCapture",
    "stalematePieceCount",
    "blastOnCapture",
    "blastImmuneTypes",
    "extinctionPseudoRoyal",
    "promotedPieceType",
    "mandatoryPiecePromotion",
    "immobilityIllegal",
    "shogiPawnDropMateIllegal",
    "flyingGeneral",
    "diagonalLines",
    "pass",
    "passWhite",
    "passBlack",
    "passOnStalemate",
    "makpongRule",
    "passOnStalemateWhite",
    "passOnStalemateBlack",
    "bikjangRule",
    "materialCounting",
    "soldierPromotionRank",
];
