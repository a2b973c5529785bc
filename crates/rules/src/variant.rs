//! A variant definition compiled for move generation: piece types with their
//! attack tables on the variant's board, and the rules as bit sets.

use crate::betza::{self, Reach};
use crate::ini::{Config, GameEnd, KING_INDEX, PAWN_INDEX};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Most piece types one variant may use (sets of types are `u32` bit masks).
pub(crate) const MAX_TYPES: usize = 24;

/// A piece type of a compiled variant.
#[derive(Clone, Debug)]
pub(crate) struct PieceType {
    /// Upper-case FEN letter.
    pub letter: char,
    /// The ini key that defined it (`knight`, `customPiece1`, `king`).
    pub key: String,
    /// Betza notation of its movement.
    pub betza: String,
    /// Fairy-Stockfish's internal index (orders pieces in hand).
    pub fsf: u8,
    /// Moves like a pawn (pushes, double steps, en passant, promotion).
    pub pawn: bool,
    /// Whose capture must be prevented (the king).
    pub royal: bool,
    /// Its attacks cannot be traced back from the target (horse-like lame
    /// leaps, grasshoppers): they are checked from each attacker instead.
    pub asymmetric: bool,
    /// Has lame leaps.
    pub lame: bool,
    /// Moves and captures the same way.
    pub symmetric_modes: bool,
}

/// A lame leap from one square: the target and the squares that block it.
#[derive(Clone, Debug)]
pub(crate) struct Lame {
    pub to: u8,
    pub path: u128,
}

/// A line of squares from one square.
#[derive(Clone, Debug)]
pub(crate) struct Ray {
    /// The squares of the line.
    pub mask: u128,
    /// Square numbers increase along the line.
    pub ascending: bool,
    /// `None` for a slider; for a hopper whether it is a grasshopper.
    pub hop: Option<bool>,
    /// The distance in square numbers between neighbouring squares of the line.
    pub step: u8,
    /// Index in [`DIRS`] of a rook or bishop line, [`NO_DIR`] otherwise.
    pub dir: u8,
}

/// The eight rook and bishop directions (file, rank steps): the first four
/// go up the square numbers, the last four are their opposites in order.
pub(crate) const DIRS: [(i32, i32); 8] = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)];
/// [`Ray::dir`] of a line that is not a rook or bishop line.
pub(crate) const NO_DIR: u8 = 0xFF;

/// The opposite of a direction of [`DIRS`].
#[inline]
pub(crate) fn opposite(dir: usize) -> usize {
    dir ^ 4
}

/// One modality (quiet moves or captures) of a piece from one square, in
/// Fairy-Stockfish's form: plain leaps, plus the targets of the piece's
/// rider kinds (whole rook, bishop, nightrider, cannon, grasshopper and lame
/// leaper families) restricted to the squares its own atoms can reach on an
/// empty board.
#[derive(Clone, Debug, Default)]
pub(crate) struct Movement {
    pub leaps: u128,
    pub pseudo: u128,
    /// Range of [`VariantDef::rays`].
    pub rays: (u32, u32),
    /// Range of [`VariantDef::lame`].
    pub lame: (u32, u32),
    /// Directions of [`DIRS`] in which it slides without limit (every
    /// square of the line is in `pseudo`).
    pub slides: u8,
    /// Directions of [`DIRS`] in which it hops as a grasshopper (every
    /// square of the line is in `pseudo`).
    pub hops: u8,
    /// The movement is `leaps` plus the `slides` and `hops` and nothing else.
    pub simple: bool,
}

/// A [`Movement`] being built.
#[derive(Default)]
struct MovementBuild {
    leaps: u128,
    pseudo: u128,
    rays: Vec<Ray>,
    lame: Vec<Lame>,
}

/// Movement of one piece type of one colour from one square.
#[derive(Clone, Debug, Default)]
pub(crate) struct SquareMoves {
    pub quiet: Movement,
    pub capture: Movement,
}

/// The movement tables of a set of piece types on a board: what a piece
/// of each type and colour reaches from each square, with the rays and
/// lame leaps those movements point into. They depend only on the board
/// size and the pieces' Betza strings, so definitions that share those
/// (every `[name:chess]` with other rules) share one copy.
#[derive(Debug, Default)]
pub(crate) struct MoveTables {
    /// Per colour, type and square (see [`VariantDef::table`]).
    pub moves: Vec<SquareMoves>,
    /// Initial moves (Betza `i`), indexed as `moves`; empty when no type
    /// has any.
    pub initial: Vec<Movement>,
    pub rays: Vec<Ray>,
    pub lame: Vec<Lame>,
}

/// What identifies a [`MoveTables`]: files, ranks and the Betza strings of
/// the types in order.
type TablesKey = (u8, u8, Vec<String>);

/// The tables in use, by what they were built from: a definition whose
/// board and pieces match one already compiled gets the same tables.
/// Entries are weak: tables no definition uses any more are freed.
fn tables_cache() -> &'static Mutex<HashMap<TablesKey, Weak<MoveTables>>> {
    static CACHE: OnceLock<Mutex<HashMap<TablesKey, Weak<MoveTables>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The board's lines and neighbourhoods, shared by every definition on a
/// board of that size (at most 12 x 10 sizes, so they are kept).
#[derive(Debug)]
struct Geometry {
    dir_rays: Arc<[[u128; 8]]>,
    dir_mask: Arc<[u8]>,
    neighbours: Arc<[u128]>,
}

fn geometry(files: u8, ranks: u8) -> Arc<Geometry> {
    type Cache = Mutex<HashMap<(u8, u8), Arc<Geometry>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    cache.entry((files, ranks)).or_insert_with(|| Arc::new(build_geometry(files, ranks))).clone()
}

fn build_geometry(files: u8, ranks: u8) -> Geometry {
    let nsq = files as usize * ranks as usize;
    let dir_rays: Vec<[u128; 8]> = (0..nsq)
        .map(|sq| {
            let (f0, r0) = ((sq % files as usize) as i32, (sq / files as usize) as i32);
            DIRS.map(|(dx, dy)| {
                let (mut x, mut y, mut mask) = (f0 + dx, r0 + dy, 0u128);
                while x >= 0 && y >= 0 && x < files as i32 && y < ranks as i32 {
                    mask |= 1u128 << (y * files as i32 + x);
                    x += dx;
                    y += dy;
                }
                mask
            })
        })
        .collect();
    let mut dir_mask = vec![0; nsq * nsq];
    for from in 0..nsq {
        for (dir, &ray) in dir_rays[from].iter().enumerate() {
            let mut b = ray;
            while b != 0 {
                dir_mask[from * nsq + b.trailing_zeros() as usize] = 1 << dir;
                b &= b - 1;
            }
        }
    }
    let neighbours: Vec<u128> =
        dir_rays.iter().map(|rays| rays.iter().enumerate().fold(0, |b, (dir, &ray)| b | first(ray, dir < 4))).collect();
    Geometry { dir_rays: dir_rays.into(), dir_mask: dir_mask.into(), neighbours: neighbours.into() }
}

/// The movement tables for `atoms` (parsed from `betzas`) on `def`'s
/// board: the ones already in use if there are, else new ones.
fn move_tables(def: &VariantDef, betzas: Vec<String>, atoms: &[Vec<betza::MoveAtom>]) -> Arc<MoveTables> {
    let key = (def.files, def.ranks, betzas);
    let mut cache = tables_cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(tables) = cache.get(&key).and_then(Weak::upgrade) {
        return tables;
    }
    let nsq = def.nsq();
    let mut tables = MoveTables { moves: Vec::with_capacity(2 * atoms.len() * nsq), ..MoveTables::default() };
    let any_initial = atoms.iter().flatten().any(|a| a.initial);
    for color in 0..2u8 {
        for parsed in atoms {
            let (initial, plain): (Vec<_>, Vec<_>) = parsed.iter().partition(|a| a.initial);
            let kinds = [rider_kinds(&plain, false), rider_kinds(&plain, true), rider_kinds(&initial, false)];
            for sq in 0..nsq as u8 {
                let quiet = movement(def, &plain, color, sq, false, kinds[0]);
                let capture = movement(def, &plain, color, sq, true, kinds[1]);
                let quiet = flatten(&mut tables, quiet);
                let capture = flatten(&mut tables, capture);
                tables.moves.push(SquareMoves { quiet, capture });
                if any_initial {
                    let m = movement(def, &initial, color, sq, false, kinds[2]);
                    let m = flatten(&mut tables, m);
                    tables.initial.push(m);
                }
            }
        }
    }
    tables.initial.shrink_to_fit();
    tables.moves.shrink_to_fit();
    tables.rays.shrink_to_fit();
    tables.lame.shrink_to_fit();
    let tables = Arc::new(tables);
    cache.retain(|_, t| t.strong_count() > 0);
    cache.insert(key, Arc::downgrade(&tables));
    tables
}

/// A piece type of a variant, as [`VariantDef::pieces`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceInfo {
    /// Upper-case FEN letter (White's; Black's is the lower-case letter).
    pub letter: char,
    /// The `variants.ini` key that defines the piece type: a built-in name
    /// such as `knight` or `fers`, `customPiece1`..`customPiece8`, or `king`.
    pub name: String,
    /// Its movement in Betza notation (White's point of view).
    pub betza: String,
    /// Whether it is the royal piece (the king) that must not be captured.
    pub royal: bool,
}

/// Where a variant castles, as [`VariantDef::castling_squares`] gives it
/// (files and ranks from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastlingSquares {
    /// White's castling rank; Black's is the same rank seen from its side.
    pub rank: u8,
    /// The files the king goes to: kingside, then queenside.
    pub king_to: [u8; 2],
    /// The files the castling rooks start from: kingside, then queenside.
    pub rook_from: [u8; 2],
}

/// A definition's rules as plain values ([`VariantDef::facts`]); with
/// [`VariantDef::pieces`], [`VariantDef::promotion_letters`],
/// [`VariantDef::castling_squares`] and [`VariantDef::game_end`] they say
/// the whole game. Ranks count from the owner's side, from 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFacts {
    /// The one whole rank where pawns promote (the same for both sides), if
    /// the promotion region is one rank.
    pub promotion_rank: Option<u8>,
    /// Both sides promote to the same piece types.
    pub same_promotions: bool,
    /// A pawn reaching the promotion region must promote.
    pub mandatory_promotion: bool,
    /// The one whole rank from which pawns double-step (the same for both
    /// sides), if double steps start from one rank.
    pub double_step_rank: Option<u8>,
    /// En passant captures are allowed wherever a double step lands.
    pub en_passant_anywhere: bool,
    /// The variant castles.
    pub castling: bool,
    /// The castling king's file.
    pub castling_king_file: u8,
    /// White's castling rank.
    pub castling_rank: u8,
    /// Pieces in hand take part (S-chess gating).
    pub pieces_in_hand: bool,
    /// Pioneer gating: the reserve piece's letter, pieces a side, Black on
    /// White's files.
    pub pioneer: Option<(char, u8, bool)>,
    /// Kidnapping: the kidnapper's letter, only one-square moves kidnap.
    pub kidnap: Option<(char, bool)>,
    /// Takeovers.
    pub takeovers: Option<TakeoverFacts>,
    /// Swaps, with the pairs of letters that may not swap.
    pub swap_except: Option<Vec<(char, char)>>,
    /// Letters of the non-pawn pieces that promote on arrival.
    pub promoting: Vec<char>,
    /// Letters of the extinction piece types (`None`: all pieces or no
    /// extinction rule; see [`VariantDef::game_end`]).
    pub extinction_letters: Option<Vec<char>>,
    /// The extinction types are counted together.
    pub extinction_together: bool,
    /// Rules beyond those above, by name (`flag wins`, `check counting`,
    /// `no checks`): a game with any of them is not the one the facts
    /// above describe.
    pub other_rules: Vec<&'static str>,
}

/// Takeovers as letters of piece types ([`RuleFacts::takeovers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakeoverFacts {
    /// Types that take over on any leap with a path.
    pub leap: Vec<char>,
    /// Types that do so next to a friendly enabler.
    pub enabled_leap: Vec<char>,
    /// Leap-takeover types whose path goes diagonally first.
    pub diagonal_first: Vec<char>,
    /// Types that jump the first piece on a line next to an enabler.
    pub enabled_jump: Vec<char>,
    /// The enablers.
    pub enablers: Vec<char>,
}

/// Fairy-Stockfish's flag wins ("capture the flag"): a side wins when
/// its flag pieces stand in its flag region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Flag {
    /// Each side's flag piece types (bit per type; `None`: any piece).
    pub piece: [Option<u32>; 2],
    /// The flag piece is Fairy-Stockfish's king type.
    pub king: [bool; 2],
    /// Each side's flag region.
    pub region: [u128; 2],
    /// The region lies wholly on the board (else it is never full, as in
    /// Fairy-Stockfish, for `flagPieceBlockedWin`).
    pub on_board: [bool; 2],
    /// Flag pieces needed in the region (`flagPieceCount`).
    pub count: u32,
    /// A full region with one flag piece in it wins (`flagPieceBlockedWin`).
    pub blocked_win: bool,
    /// The opponent gets one more move to reach its own region (`flagMove`).
    pub flag_move: bool,
    /// Only unattacked flag pieces count (`flagPieceSafe`).
    pub safe: bool,
}

/// Fairy-Stockfish's connect wins: the side that has just moved wins (or
/// gets `value`) with `n` of its pieces in a row, an `nxn` square of them,
/// `collinear` of them on one line, or a chain of them from its first
/// region to its second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Connect {
    /// Pieces in a row (`connectN`; 0: no such rule).
    pub n: u32,
    /// Side of a square of pieces (`connectNxN`; 0: none).
    pub nxn: u32,
    /// Pieces on one line, gaps allowed (`collinearN`; 0: none).
    pub collinear: u32,
    /// Rows and lines count horizontally, vertically, diagonally.
    pub directions: [bool; 3],
    /// The types that count (bit per type; `None`: all).
    pub pieces: Option<u32>,
    /// Per side, the two regions a chain connects (0: none).
    pub region: [[u128; 2]; 2],
    /// The connection's value for the side that made it (`connectValue`).
    pub value: crate::ini::GameValue,
}

/// Walls placed with each move (`wallingRule`): the move's text ends with
/// `,` and the piece's destination and the wall's square (`e2e4,e4d5`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Walling {
    /// Where the wall may go.
    pub rule: crate::ini::WallingRule,
    /// Per side, the squares it may wall (`wallingRegion...`).
    pub region: [u128; 2],
    /// A side either moves or walls (`wallOrMove`): the wall comes with a
    /// pass, and moves place none.
    pub or_move: bool,
}

/// Fairy-Stockfish's drops (`pieceDrops`): a side may put a piece from
/// its hand on an empty square of its drop region instead of moving.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Drops {
    /// Captured pieces go to the capturer's hand (`capturesToHand`).
    pub to_hand: bool,
    /// Promoted pieces are marked (`~` in a FEN) and go to hand as pawns
    /// when captured (`capturesToHand` without `dropLoop`, or to the
    /// partner's hand under `twoBoards`).
    pub demote: bool,
    /// Drops may give check (`dropChecks`).
    pub checks: bool,
    /// Each side's drop squares, for every piece type.
    pub region: [u128; 2],
    /// Each side's drop squares for its pawns (without the promotion
    /// region and the first rank unless allowed).
    pub pawn_region: [u128; 2],
    /// `dropNoDoubled`: the type and the count of own pieces of that type
    /// on a file that bars it.
    pub no_doubled: Option<(u8, u32)>,
    /// No drop can expose the own king (no hoppers, every type simple): a
    /// drop out of check needs no legality test.
    pub quick: bool,
    /// Where drops may go beyond the region (`enclosingDrop`).
    pub enclosing: crate::ini::EnclosingRule,
    /// While any of these squares is empty, drops go there only
    /// (`enclosingDropStart`).
    pub start: u128,
    /// Drops take nothing from the hand, every type droppable
    /// (`freeDrops`: ataxx's clones).
    pub free: bool,
    /// The bishop type, when drops must leave room for bishops on both
    /// colours (`dropOppositeColoredBishop`).
    pub opposite_bishops: Option<u8>,
    /// A king or rook dropped on its castling square gains the castling
    /// right (`castlingDroppedPiece`).
    pub castling_dropped: bool,
    /// Pieces in hand may be dropped promoted (`dropPromoted`).
    pub promoted: bool,
    /// `sittuyinRookDrop`: the rook's type and each side's squares for it
    /// (its drop region's first rank).
    pub rook: Option<(u8, [u128; 2])>,
}

/// Menagerie's Pioneer gating (`pioneerGating`): each side's reserve
/// pieces enter on the home square of a file chosen in a prelude, as part of
/// the move that first takes the piece standing there away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pioneer {
    /// The reserve piece type.
    pub piece: u8,
    /// Reserve pieces per side (gate files each side chooses).
    pub count: u8,
    /// Black must choose White's files.
    pub same_file: bool,
    /// Files that may not be gates together: the castling king's file with
    /// a castling rook's file (one castling would open two gates). Chess960
    /// forms take them from each position instead.
    pub king_file: Option<u8>,
    /// The castling rooks' files (bit per file).
    pub rook_files: u16,
}

impl Pioneer {
    /// Whether the files of `mask` may be gates together.
    pub(crate) fn allows_files(&self, mask: u16) -> bool {
        match self.king_file {
            Some(k) if mask >> k & 1 != 0 => mask & self.rook_files == 0,
            _ => true,
        }
    }
}

/// Menagerie's kidnapping (`kidnapper`): a piece of this type leaving its
/// square O in a direction takes the second piece behind it (looking back
/// from O; either colour, kings included) onto O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kidnap {
    /// The kidnapping piece type.
    pub piece: u8,
    /// Only one-square moves kidnap (`kidnapOneStep`).
    pub one_step: bool,
}

/// Menagerie's takeovers (`leapTakeovers`, ...; Camel and Rhino Chess): a
/// piece jumping over enemy pieces converts them (they change owner and stay
/// where they are; never a royal piece). Sets of piece types, a bit per type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Takeovers {
    /// Types that may take over on any leap with a path (the squares passed
    /// before the destination).
    pub leap: u32,
    /// Types that may do so only next to a friendly enabler.
    pub enabled_leap: u32,
    /// Types whose leap path goes diagonally first (else orthogonally).
    pub diagonal_first: u32,
    /// Types that jump the first piece on a line they move along, next to a
    /// friendly enabler.
    pub enabled_jump: u32,
    /// The enablers.
    pub enablers: u32,
}

/// Restrictions on where pieces move, and the xiangqi rules that come with
/// them: mobility regions (`mobilityRegion...`), the soldier's sideways
/// steps only from `soldierPromotionRank` on, and the flying general.
#[derive(Clone, Debug)]
pub(crate) struct Xiangqi {
    /// Per colour and type, the squares its moves may end on.
    pub mobility: [[u128; MAX_TYPES]; 2],
    /// The soldier's type and, per colour, where it also steps sideways.
    pub soldier: Option<(u8, [u128; 2])>,
    /// The kings may not face each other on an open rank or file.
    pub flying_general: bool,
    /// Bikjang (`bikjangRule`): kings facing each other must part, or the
    /// side to move passes; facing twice in a row ends the game.
    pub bikjang: bool,
    /// The janggi cannon's type: it neither jumps over nor takes another.
    pub janggi_cannon: Option<u8>,
    /// Janggi's palace diagonals (`diagonalLines`): squares from which
    /// some types also move along them.
    pub diagonal_lines: u128,
    /// Per type, how it moves along the palace diagonals.
    pub diagonal: [Diagonal; MAX_TYPES],
    /// Per type, the squares from which its restrictions depend on the
    /// position (the janggi cannon's everywhere, sliding and hopping along
    /// the palace diagonals on them).
    pub dynamic: [u128; MAX_TYPES],
    /// Per colour, type and square (in the move tables' order), the
    /// restrictions that do not depend on the position, as the masks
    /// `(and, or)` of `reach & and | or`.
    pub fixed: Vec<(u128, u128)>,
    /// The restricted types whose captures are leaps and whose
    /// restrictions do not depend on the position.
    pub static_leapers: u32,
    /// Per colour, type of `static_leapers` and square (in the move
    /// tables' order), the squares from which such a piece attacks it.
    pub attackers: Vec<u128>,
}

/// How a piece type moves along janggi's palace diagonals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Diagonal {
    /// Not at all.
    None,
    /// One step (the wazir and a wazir-moving king).
    Step,
    /// One step forwards (the soldier).
    Forward,
    /// Sliding (the rook).
    Slide,
    /// Hopping as the janggi cannon.
    Cannon,
}

/// The bishop directions, as bits of [`DIRS`].
const DIAGONAL: u8 = 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7;

/// The rules of a chess variant, ready for [`crate::Position`].
#[derive(Debug)]
pub struct VariantDef {
    /// Variant name (ini section name).
    pub name: String,
    /// Number of files.
    pub files: u8,
    /// Number of ranks.
    pub ranks: u8,
    /// FEN of the start position.
    pub start_fen: String,
    /// Castling rights in FEN use rook files (Chess960 style) and castling
    /// moves are written king-takes-rook.
    pub chess960: bool,
    /// Game-end rules.
    pub game_end: GameEnd,
    pub(crate) types: Vec<PieceType>,
    /// Types whose moves [`Xiangqi`] restricts (a bit per type).
    pub(crate) restricted: u32,
    pub(crate) king: Option<u8>,
    pub(crate) pawn: Option<u8>,
    pub(crate) first_file: u128,
    pub(crate) last_file: u128,
    /// Movement tables, shared with definitions of the same board and pieces.
    pub(crate) tables: Arc<MoveTables>,
    pub(crate) board: u128,
    pub(crate) promotion_zone: [u128; 2],
    pub(crate) promotion_types: [Vec<u8>; 2],
    pub(crate) mandatory_pawn_promotion: bool,
    /// `promotionLimit`: per type, the most pieces of it a side may have on
    /// the board for a promotion to it (0: no limit); `None` when no type
    /// has a limit.
    pub(crate) promotion_limit: Option<Box<[u32; MAX_TYPES]>>,
    pub(crate) double_step_region: [u128; 2],
    /// Where the pawn may also step three squares (`tripleStepRegion...`).
    pub(crate) triple_step_region: [u128; 2],
    /// Types with initial moves (Betza `i`), made from `double_step_region`.
    pub(crate) initial_types: u32,
    /// Per side, the types besides the pawn that promote as pawns
    /// (`promotionPawnTypes`).
    pub(crate) promotion_pawns: [u32; 2],
    /// Per side, the types besides the pawn that capture en passant
    /// (`enPassantTypes`, Betza `e`).
    pub(crate) en_passant_types: [u32; 2],
    /// Per side, the types whose irreversible moves restart the n-move
    /// count (`nMoveRuleTypes`).
    pub(crate) n_move_types: [u32; 2],
    /// The types `State::pawnlike_moves` moves: those with initial moves,
    /// en passant captures or pawn promotions that are not the pawn.
    pub(crate) pawnlike: u32,
    pub(crate) en_passant_region: [u128; 2],
    pub(crate) castling: bool,
    pub(crate) castling_kingside_file: u8,
    pub(crate) castling_queenside_file: u8,
    pub(crate) castling_rank: [u8; 2],
    pub(crate) castling_king_file: u8,
    pub(crate) castling_king_piece: [Option<u8>; 2],
    pub(crate) castling_rook_kingside_file: u8,
    pub(crate) castling_rook_queenside_file: u8,
    pub(crate) castling_rook_pieces: [u32; 2],
    pub(crate) gating: bool,
    pub(crate) seirawan_gating: bool,
    /// Cambodian chess's special moves from the gates (`cambodianMoves`;
    /// `position/cambodian.rs`).
    pub(crate) cambodian: bool,
    pub(crate) pioneer: Option<Pioneer>,
    pub(crate) kidnap: Option<Kidnap>,
    pub(crate) takeovers: Option<Takeovers>,
    /// Swaps of adjacent friendly pieces (`swaps`): per type, the types it
    /// may not swap with.
    pub(crate) swaps: Option<[u32; MAX_TYPES]>,
    /// Non-pawn types that promote when they arrive in the promotion region
    /// from outside it (`promotingPieces`).
    pub(crate) promoting: u32,
    /// Extinction counts the extinction types together (`extinctionTogether`).
    pub(crate) extinction_together: bool,
    /// Per square, its (up to eight) neighbours.
    pub(crate) neighbours: Arc<[u128]>,
    /// Types whose ordinary moves need [`crate::Position`]'s special
    /// handling: the kidnapper and the promoting pieces.
    pub(crate) special_types: u32,
    /// Every move gets the full legality test and is listed in perft
    /// (kidnaps, takeovers, swaps, promoting pieces).
    pub(crate) full_listing: bool,
    /// Has one of Menagerie's own rules (Pioneer gating, kidnapping,
    /// takeovers, swaps, promoting pieces): the generator's general paths
    /// test this one flag.
    pub(crate) extended: bool,
    /// Extinction: (piece types, or all pieces when `None`; count; opponent count; claim).
    pub(crate) extinction: Option<(Option<u32>, u32, u32, bool)>,
    /// Flag wins (`flagPiece`, `flagRegion...`), if a side has a flag region.
    pub(crate) flag: Option<Flag>,
    /// Check counting (`checkCounting`): a side that has given its checks wins.
    pub(crate) check_counting: bool,
    /// Connect wins (`connectN`, `connectNxN`, `collinearN`,
    /// `connectRegion...`), if the variant has one.
    pub(crate) connect: Option<Connect>,
    /// A side with pieces in hand must drop one if it can (`mustDrop`).
    pub(crate) must_drop: bool,
    /// With `must_drop`, the only type whose pieces in hand force a drop,
    /// and then the only type droppable while one is in hand
    /// (`mustDropType`); `None` for any type.
    pub(crate) must_drop_type: Option<u8>,
    /// Shatar's mate rule (`shatarMateRule`): the knight types (bit per
    /// type), whose mate alone loses for the mating side, and the types
    /// whose checks (shak) make a series of checks end in a mate; other
    /// mates draw.
    pub(crate) shatar: Option<(u32, u32)>,
    /// The start position has walls (`*`).
    pub(crate) walls: bool,
    /// Walls placed by the moves (`wallingRule`), if the variant has them.
    pub(crate) walling: Option<Walling>,
    /// Which enemy pieces a move flips (`flipEnclosedPieces`).
    pub(crate) flip: crate::ini::EnclosingRule,
    /// Types (bit per type) that turn into a wall where they capture
    /// (`petrifyOnCaptureTypes`).
    pub(crate) petrify: u32,
    /// A blast's pieces turn into walls too (`petrifyBlastPieces`).
    pub(crate) petrify_blast: bool,
    /// Types (bit per type) that cannot capture their own type
    /// (`mutuallyImmuneTypes`).
    pub(crate) immune: u32,
    /// A full board ends the game (`adjudicateFullBoard`).
    pub(crate) full_board: bool,
    /// Castling rights (bit per right: K, Q, k, q) whose castling wins and
    /// whose loss loses (`castlingWins`).
    pub(crate) castling_wins: u8,
    /// Castling takes the opponent's right on the same side
    /// (`oppositeCastling`).
    pub(crate) opposite_castling: bool,
    /// Drops and pieces in hand (`pieceDrops`), if the variant has them.
    pub(crate) drops: Option<Drops>,
    /// Moves may give check (`checking`; false in racing kings).
    pub(crate) checking: bool,
    /// A board move changes only its two squares and every piece attacks
    /// by its own movement alone (no blasts, petrification, flips, walls,
    /// gating, mobility regions, xiangqi rules, immune or pseudo-royal
    /// pieces, nor Menagerie's own rules): whether a plain move gives
    /// check is then told without playing it.
    pub(crate) plain_moves: bool,
    /// As `plain_moves`, but with pseudo-royal pieces and blasts that spare
    /// no type allowed (and no duple check): whether a plain move or
    /// capture leaves a royal piece attacked is then told without playing it.
    pub(crate) royal_plain: bool,
    /// `checking = false` is the one rule beyond [`VariantDef::plain_moves`]
    /// (no drops, passes, forced captures or other listed rules): legal
    /// moves are counted a piece at a time.
    pub(crate) checkless_count: bool,
    /// A side that has a legal capture must capture (`mustCapture`: antichess).
    pub(crate) must_capture: bool,
    /// A stalemate is valued by the piece counts (`stalematePieceCount`):
    /// the side with fewer pieces gets the stalemate value, equal counts draw.
    pub(crate) stalemate_piece_count: bool,
    /// Atomic blasts (`blastOnCapture`): the types a blast spares (bit per
    /// type, `blastImmuneTypes`), if captures blast.
    pub(crate) blast: Option<u32>,
    /// `extinctionPseudoRoyal`: the extinction types (bit per type) whose
    /// pieces are royal while a side has at most one more of the type than
    /// the extinction count (atomic's king).
    pub(crate) pseudo_royal: Option<u32>,
    /// `dupleCheck`: with pseudo-royal pieces, a side whose pieces of the
    /// extinction types are all attacked at once is in check too.
    pub(crate) duple_check: bool,
    /// A position may end the game at once, without legal moves:
    /// extinction, a flag reached, the checks given.
    pub(crate) immediate_end: bool,
    /// Shogi-style promotions (`promotedPieceType`): per type, the type it
    /// promotes to, moving into, out of or inside the promotion region.
    pub(crate) promoted_type: [Option<u8>; MAX_TYPES],
    /// A piece that may promote must (`mandatoryPiecePromotion`).
    pub(crate) mandatory_piece_promotion: bool,
    /// A promoted piece may demote (`pieceDemotion`).
    pub(crate) piece_demotion: bool,
    /// Shogi-style promotions and demotions only by captures
    /// (`piecePromotionOnCapture`).
    pub(crate) promotion_on_capture: bool,
    /// `immobilityIllegal`: per colour and type, the squares a plain move
    /// or a drop may not end on (the piece could never move from there).
    pub(crate) immobile: [[u128; MAX_TYPES]; 2],
    /// `shogiPawnDropMateIllegal`: the shogi pawn's type, whose drop may
    /// not give checkmate (the mated side wins instead).
    pub(crate) pawn_drop_mate: Option<u8>,
    /// Shogi-style promotions or immobility: perft lists and tests every move.
    pub(crate) shogi: bool,
    /// Per square, the line in each direction of [`DIRS`] (empty off the board).
    pub(crate) dir_rays: Arc<[[u128; 8]]>,
    /// Per pair of squares (`from * nsq + to`), the bit of the direction of
    /// [`DIRS`] leading from `from` to `to` (0 if they share no line).
    pub(crate) dir_mask: Arc<[u8]>,
    /// Per colour, the types whose captures are simple ([`Movement::simple`]) on every square.
    pub(crate) simple_attackers: [u32; 2],
    /// Per colour, the simple types with leaps among their captures.
    pub(crate) leap_attackers: [u32; 2],
    /// Per colour and direction of [`DIRS`] seen from a target: the simple
    /// types that may slide onto the target from that direction.
    pub(crate) slide_attackers: [[u32; 8]; 2],
    /// The same for grasshopper hops.
    pub(crate) hop_attackers: [[u32; 8]; 2],
    /// Per colour, it may pass (`pass`, `passWhite`, `passBlack`).
    pub(crate) pass: [bool; 2],
    /// A king in check may only take its checker (`makpongRule`).
    pub(crate) makpong: bool,
    /// Per colour, it may pass when nothing else is legal (`passOnStalemate`).
    pub(crate) pass_on_stalemate: [bool; 2],
    /// How an end that would be drawn is decided (`materialCounting`).
    pub(crate) material_counting: crate::ini::MaterialCounting,
    /// Mobility regions, the soldier and the flying general, if any.
    pub(crate) xiangqi: Option<Box<Xiangqi>>,
    /// Sittuyin's promotions (`sittuyinPromotion`): each side's promotion
    /// region, where its pawns promote in place or onto a square the new
    /// piece attacks ([`VariantDef::promotion_zone`] is then empty: no pawn
    /// promotes by moving).
    pub(crate) sittuyin: Option<[u128; 2]>,
}

impl VariantDef {
    /// The variant's piece types, in Fairy-Stockfish's internal order (the
    /// pawn first when there is one, custom pieces after the built-in ones,
    /// the king last).
    pub fn pieces(&self) -> impl Iterator<Item = PieceInfo> + '_ {
        self.types.iter().map(|t| PieceInfo {
            letter: t.letter,
            name: t.key.clone(),
            betza: t.betza.clone(),
            royal: t.royal,
        })
    }

    /// Where the variant castles (not for Chess960, whose rooks start
    /// anywhere); None if it has no castling.
    pub fn castling_squares(&self) -> Option<CastlingSquares> {
        (self.castling && !self.chess960).then(|| CastlingSquares {
            rank: self.castling_rank[0],
            king_to: [self.castling_kingside_file, self.castling_queenside_file],
            rook_from: [self.castling_rook_kingside_file.min(self.files - 1), self.castling_rook_queenside_file],
        })
    }

    /// Whether pieces in hand take part in the game (S-chess gating,
    /// drops): only such a variant's FEN may hold a `[pocket]`. As in
    /// Fairy-Stockfish, `gating` alone (Cambodian chess's gates) has none.
    pub fn uses_hand(&self) -> bool {
        self.seirawan_gating || self.drops.is_some_and(|d| !d.free)
    }

    /// Whether pieces in hand may be dropped (`pieceDrops`: crazyhouse).
    pub fn has_drops(&self) -> bool {
        self.drops.is_some()
    }

    /// Whether reserve pieces enter by Pioneer gating (`pioneerGating`,
    /// with its prelude: FEN bracket `[Aa?]`, moves `accept`, `decline`,
    /// `A@g`).
    pub fn pioneer_gating(&self) -> bool {
        self.pioneer.is_some()
    }

    /// The reserve piece type of Pioneer gating (an index into
    /// [`VariantDef::pieces`]), if the variant has it.
    pub fn pioneer_piece(&self) -> Option<u8> {
        self.pioneer.map(|p| p.piece)
    }

    /// The upper-case letters of the piece types a pawn of that side may
    /// promote to, in the order of [`VariantDef::pieces`] (empty if the
    /// variant has no promotion).
    pub fn promotion_letters(&self, white: bool) -> Vec<char> {
        self.promotion_types[usize::from(!white)].iter().map(|&t| self.types[t as usize].letter).collect()
    }

    /// The rules of the definition as plain values (letters, ranks, flags):
    /// what another implementation of the same game checks itself against.
    /// Menagerie's compiled games are built from their definitions through
    /// this (`crates/variants/build.rs`).
    pub fn facts(&self) -> RuleFacts {
        let letter = |t: u8| self.types[t as usize].letter;
        let letters = |set: u32| (0..self.types.len() as u8).filter(|&t| set >> t & 1 != 0).map(letter).collect();
        let full_rank = |region: u128, white: bool| {
            (0..self.ranks).find_map(|r| {
                let rank = (0..self.files).fold(0u128, |b, f| b | 1u128 << self.sq(f, r));
                let own = if white { r } else { self.ranks - 1 - r };
                (region == rank).then_some(own)
            })
        };
        let mirrored_rank = |region: [u128; 2]| match (full_rank(region[0], true), full_rank(region[1], false)) {
            (Some(w), Some(b)) if w == b => Some(w),
            _ => None,
        };
        RuleFacts {
            promotion_rank: mirrored_rank(self.promotion_zone),
            same_promotions: self.promotion_types[0] == self.promotion_types[1],
            mandatory_promotion: self.mandatory_pawn_promotion,
            double_step_rank: mirrored_rank(self.double_step_region),
            en_passant_anywhere: self.en_passant_region.iter().all(|&r| r & self.board == self.board),
            castling: self.castling,
            castling_king_file: self.castling_king_file,
            castling_rank: self.castling_rank[0],
            pieces_in_hand: self.gating,
            pioneer: self.pioneer.map(|p| (letter(p.piece), p.count, p.same_file)),
            kidnap: self.kidnap.map(|k| (letter(k.piece), k.one_step)),
            takeovers: self.takeovers.map(|t| TakeoverFacts {
                leap: letters(t.leap),
                enabled_leap: letters(t.enabled_leap),
                diagonal_first: letters(t.diagonal_first),
                enabled_jump: letters(t.enabled_jump),
                enablers: letters(t.enablers),
            }),
            swap_except: self.swaps.map(|except| {
                let mut pairs = Vec::new();
                for (a, &set) in except.iter().enumerate().take(self.types.len()) {
                    for b in a..self.types.len() {
                        if set >> b & 1 != 0 {
                            pairs.push((letter(a as u8), letter(b as u8)));
                        }
                    }
                }
                pairs
            }),
            promoting: letters(self.promoting),
            extinction_letters: self.extinction.and_then(|(set, ..)| set).map(letters),
            extinction_together: self.extinction_together,
            other_rules: [
                (self.flag.is_some(), "flag wins"),
                (self.check_counting, "check counting"),
                (self.cambodian, "cambodian moves"),
                (self.connect.is_some(), "connect wins"),
                (self.must_drop, "forced drops"),
                (self.walls || self.walling.is_some(), "walls"),
                (
                    self.drops.is_some_and(|d| d.enclosing != crate::ini::EnclosingRule::None || d.start != 0),
                    "enclosing drops",
                ),
                (self.drops.is_some_and(|d| d.free), "free drops"),
                (self.drops.is_some_and(|d| d.opposite_bishops.is_some()), "bishops on both colours"),
                (self.drops.is_some_and(|d| d.castling_dropped), "castling rights by drops"),
                (self.flip != crate::ini::EnclosingRule::None, "flips"),
                (self.full_board, "full-board adjudication"),
                (self.castling_wins != 0, "castling wins"),
                (self.shatar.is_some(), "shatar's mate rule"),
                (self.opposite_castling, "opposite castling"),
                (self.petrify != 0, "petrification"),
                (self.immune != 0, "mutual immunity"),
                (!self.checking, "no checks"),
                (self.drops.is_some(), "drops"),
                (self.must_capture, "forced captures"),
                (self.stalemate_piece_count, "stalemate piece count"),
                (self.blast.is_some(), "atomic blasts"),
                (self.pseudo_royal.is_some(), "pseudo-royal pieces"),
                (self.promotion_limit.is_some(), "promotion limits"),
                (self.sittuyin.is_some(), "sittuyin promotions"),
                (self.drops.is_some_and(|d| d.rook.is_some()), "rook drops on the first rank"),
                (self.restricted != 0, "mobility regions and xiangqi pieces"),
                (self.xiangqi.as_ref().is_some_and(|x| x.flying_general), "the flying general"),
                (self.xiangqi.as_ref().is_some_and(|x| x.bikjang), "bikjang"),
                (self.pass != [false; 2] || self.pass_on_stalemate != [false; 2], "passing"),
                (self.material_counting != crate::ini::MaterialCounting::None, "material counting"),
                (self.makpong, "makpong"),
                (self.pawnlike != 0, "pawn types"),
                (self.triple_step_region != [0; 2], "triple steps"),
                (self.n_move_types != [self.pawn.map_or(0, |p| 1u32 << p); 2], "n-move rule types"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect(),
        }
    }

    pub(crate) fn nsq(&self) -> usize {
        self.files as usize * self.ranks as usize
    }

    pub(crate) fn sq(&self, file: u8, rank: u8) -> u8 {
        rank * self.files + file
    }

    /// The bit of the direction of [`DIRS`] from `from` to `to` (0 if none).
    #[inline(always)]
    pub(crate) fn dir_bit(&self, from: u8, to: u8) -> u8 {
        self.dir_mask[from as usize * self.nsq() + to as usize]
    }

    #[inline(always)]
    pub(crate) fn table(&self, t: u8, color: u8, sq: u8) -> &SquareMoves {
        &self.tables.moves[(color as usize * self.types.len() + t as usize) * self.nsq() + sq as usize]
    }

    #[inline(always)]
    pub(crate) fn rays_of(&self, m: &Movement) -> &[Ray] {
        &self.tables.rays[m.rays.0 as usize..m.rays.1 as usize]
    }

    #[inline(always)]
    pub(crate) fn lame_of(&self, m: &Movement) -> &[Lame] {
        &self.tables.lame[m.lame.0 as usize..m.lame.1 as usize]
    }

    /// Squares attacked (`capture`) or reachable by quiet moves (`!capture`) by a
    /// piece of type `t` and colour `color` on `sq` given the occupancy
    /// (`by_type`: the pieces of each type, for the janggi cannon's rules).
    #[inline(always)]
    pub(crate) fn reach(
        &self,
        t: u8,
        color: u8,
        sq: u8,
        occ: u128,
        capture: bool,
        by_type: &[u128; MAX_TYPES],
    ) -> u128 {
        let r = self.free_reach(t, color, sq, occ, capture);
        if self.restricted >> t & 1 != 0 { self.restrict(t, color, sq, occ, capture, by_type, r) } else { r }
    }

    /// `reach` under the rules of [`Xiangqi`], in Fairy-Stockfish's order:
    /// the janggi cannon's, an unpromoted soldier's file, the palace
    /// diagonals, then the mobility region.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn restrict(
        &self,
        t: u8,
        color: u8,
        sq: u8,
        occ: u128,
        capture: bool,
        by_type: &[u128; MAX_TYPES],
        reach: u128,
    ) -> u128 {
        let Some(x) = &self.xiangqi else { return reach };
        let (and, or) = if x.dynamic[t as usize] >> sq & 1 != 0 {
            self.dynamic_masks((t, color, sq), occ, capture, by_type)
        } else {
            x.fixed[(color as usize * self.types.len() + t as usize) * self.nsq() + sq as usize]
        };
        reach & and | or
    }

    /// The masks of [`Xiangqi::fixed`] for a piece of type `t` and colour
    /// `color` on `sq`, where they depend on the position.
    #[cold]
    #[inline(never)]
    fn dynamic_masks(
        &self,
        (t, color, sq): (u8, u8, u8),
        occ: u128,
        capture: bool,
        by_type: &[u128; MAX_TYPES],
    ) -> (u128, u128) {
        let Some(x) = &self.xiangqi else { return (u128::MAX, 0) };
        let region = x.mobility[color as usize][t as usize];
        let cannons = x.janggi_cannon.map_or(0, |c| by_type[c as usize]);
        let mut and = self.soldier_file(x, t, color, sq) & region;
        if x.janggi_cannon == Some(t) {
            // It neither lands on nor jumps over a janggi cannon.
            and &= !cannons & self.free_reach(t, color, sq, occ & !cannons, capture);
        }
        (and, self.palace_diagonal(x, t, color, sq, occ, cannons) & region)
    }

    /// Where an unpromoted soldier on `sq` may go: its file only before
    /// the zone where it also steps sideways (everywhere for other types).
    fn soldier_file(&self, x: &Xiangqi, t: u8, color: u8, sq: u8) -> u128 {
        match x.soldier {
            Some((soldier, zone)) if soldier == t && zone[color as usize] >> sq & 1 == 0 => {
                self.first_file << (sq % self.files)
            }
            _ => u128::MAX,
        }
    }

    /// The squares a piece of type `t` on `sq` reaches along the palace
    /// diagonals (`cannons`: where the janggi cannons stand).
    fn palace_diagonal(&self, x: &Xiangqi, t: u8, color: u8, sq: u8, occ: u128, cannons: u128) -> u128 {
        if x.diagonal_lines >> sq & 1 == 0 {
            return 0;
        }
        x.diagonal_lines
            & match x.diagonal[t as usize] {
                Diagonal::None => 0,
                Diagonal::Step => self.slides(sq, DIAGONAL, u128::MAX),
                Diagonal::Forward => self.slides(sq, if color == 0 { 0x0C } else { 0xC0 }, u128::MAX),
                Diagonal::Slide => self.slides(sq, DIAGONAL, occ),
                Diagonal::Cannon => {
                    !cannons & self.cannon_hops(sq, DIAGONAL, occ) & self.cannon_hops(sq, DIAGONAL, occ & !cannons)
                }
            }
    }

    /// Squares reached from `sq` by cannon hops in the directions `dirs`
    /// (bits of [`DIRS`]): beyond the first piece, up to the next one.
    fn cannon_hops(&self, sq: u8, dirs: u8, occ: u128) -> u128 {
        let mut a = 0;
        for dir in 0..8 {
            if dirs >> dir & 1 == 0 {
                continue;
            }
            let ray = self.dir_rays[sq as usize][dir];
            let ascending = dir < 4;
            if ray & occ == 0 {
                continue;
            }
            let beyond = ray & !upto_first(ray, occ, ascending);
            a |= upto_first(beyond, occ, ascending);
        }
        a
    }

    /// [`VariantDef::reach`] without the [`Xiangqi`] restrictions.
    #[inline(always)]
    pub(crate) fn free_reach(&self, t: u8, color: u8, sq: u8, occ: u128, capture: bool) -> u128 {
        let sm = self.table(t, color, sq);
        self.movement_reach(if capture { &sm.capture } else { &sm.quiet }, sq, occ)
    }

    /// Where a piece of type `t` may go by its initial moves (Betza `i`)
    /// from `sq` if it stands in its initial region (else nowhere): quiet
    /// moves, restricted as its others.
    pub(crate) fn initial_reach(&self, t: u8, color: u8, sq: u8, occ: u128, by_type: &[u128; MAX_TYPES]) -> u128 {
        if self.initial_types >> t & 1 == 0 || self.double_step_region[color as usize] >> sq & 1 == 0 {
            return 0;
        }
        let i = (color as usize * self.types.len() + t as usize) * self.nsq() + sq as usize;
        let r = self.movement_reach(&self.tables.initial[i], sq, occ);
        if self.restricted >> t & 1 != 0 { self.restrict(t, color, sq, occ, false, by_type, r) } else { r }
    }

    /// The squares a piece of type `t` reaches from `from` on an empty board
    /// by an initial move only (not by its other quiet moves).
    pub(crate) fn initial_only(&self, t: u8, color: u8, from: u8) -> u128 {
        let i = (color as usize * self.types.len() + t as usize) * self.nsq() + from as usize;
        self.tables.initial.get(i).map_or(0, |m| m.pseudo & !self.table(t, color, from).quiet.pseudo)
    }

    /// The squares strictly between `from` and `to` on a rook or bishop
    /// line (none if they share no line), and `to`.
    #[inline]
    pub(crate) fn between(&self, from: u8, to: u8) -> u128 {
        let dir = self.dir_bit(from, to);
        let to_bit = 1u128 << to;
        if dir == 0 {
            return to_bit;
        }
        let d = dir.trailing_zeros() as usize;
        (self.dir_rays[from as usize][d] & !self.dir_rays[to as usize][d]) | to_bit
    }

    /// The squares a movement reaches from `sq` on the occupancy `occ`.
    #[inline(always)]
    fn movement_reach(&self, m: &Movement, sq: u8, occ: u128) -> u128 {
        if m.simple {
            return self.simple_reach(m, sq, occ);
        }
        let mut riders = 0u128;
        for r in self.rays_of(m) {
            riders |= match r.hop {
                None => upto_first(r.mask, occ, r.ascending),
                Some(true) => {
                    // The square right behind the first piece of the line.
                    let x = r.mask & occ;
                    if x == 0 {
                        continue;
                    }
                    if r.ascending {
                        ((x & x.wrapping_neg()) << r.step) & r.mask
                    } else {
                        ((1u128 << (127 - x.leading_zeros())) >> r.step) & r.mask
                    }
                }
                Some(false) => {
                    if r.mask & occ == 0 {
                        continue;
                    }
                    let beyond = r.mask & !upto_first(r.mask, occ, r.ascending);
                    upto_first(beyond, occ, r.ascending)
                }
            };
        }
        for l in self.lame_of(m) {
            if l.path & occ == 0 {
                riders |= 1u128 << l.to;
            }
        }
        m.leaps | (riders & m.pseudo)
    }

    /// [`VariantDef::reach`] of a simple movement.
    #[inline(always)]
    pub(crate) fn simple_reach(&self, m: &Movement, sq: u8, occ: u128) -> u128 {
        let mut a = m.leaps;
        if m.slides != 0 {
            a |= self.slides(sq, m.slides, occ);
        }
        if m.hops != 0 {
            a |= self.hops(sq, m.hops, occ);
        }
        a
    }

    /// Squares reached from `sq` by grasshopper hops in the directions
    /// `dirs` (bits of [`DIRS`]): the square right behind the first piece.
    #[inline(always)]
    pub(crate) fn hops(&self, sq: u8, dirs: u8, occ: u128) -> u128 {
        self.along_rays(
            sq,
            dirs,
            occ,
            |ray, b| {
                let beyond = ray & !(b ^ (b - 1));
                beyond & beyond.wrapping_neg()
            },
            |ray, top| {
                let beyond = ray & ((1u128 << top) - 1);
                (1u128 << 127).checked_shr(beyond.leading_zeros()).unwrap_or(0)
            },
        )
    }

    /// Squares reached from `sq` by sliding in the directions `dirs` (bits
    /// of [`DIRS`]) given the occupancy, blockers included.
    #[inline(always)]
    pub(crate) fn slides(&self, sq: u8, dirs: u8, occ: u128) -> u128 {
        self.along_rays(sq, dirs, occ, |ray, b| ray & (b ^ (b - 1)), |ray, top| ray & (u128::MAX << top))
    }

    /// The union over the rays from `sq` in the directions `dirs` of what
    /// `ascending(ray, first blocker bit)` and `descending(ray, first
    /// blocker square)` make of each.
    #[inline(always)]
    fn along_rays(
        &self,
        sq: u8,
        dirs: u8,
        occ: u128,
        ascending: impl Fn(u128, u128) -> u128,
        descending: impl Fn(u128, u32) -> u128,
    ) -> u128 {
        let rays = &self.dir_rays[sq as usize];
        let mut a = 0u128;
        let mut up = dirs & 0xF;
        while up != 0 {
            let ray = rays[up.trailing_zeros() as usize];
            up &= up - 1;
            // Bit 127 is never a square: it stands for "no blocker".
            let x = (ray & occ) | 1u128 << 127;
            a |= ascending(ray, x & x.wrapping_neg());
        }
        let mut down = dirs >> 4;
        while down != 0 {
            let ray = rays[4 + down.trailing_zeros() as usize];
            down &= down - 1;
            // Square 0 ends every descending line: a stand-in blocker is harmless.
            a |= descending(ray, 127 - ((ray & occ) | 1).leading_zeros());
        }
        a
    }

    /// Whether a piece of type `t` and colour `by` on one of the squares
    /// `pieces` attacks `sq` given the occupancy.
    #[inline(always)]
    pub(crate) fn attacks_to(
        &self,
        t: u8,
        by: u8,
        sq: u8,
        occ: u128,
        pieces: u128,
        by_type: &[u128; MAX_TYPES],
    ) -> bool {
        if self.types[t as usize].asymmetric {
            if let Some(x) = &self.xiangqi
                && x.static_leapers >> t & 1 != 0
            {
                return x.attackers[(by as usize * self.types.len() + t as usize) * self.nsq() + sq as usize] & pieces
                    != 0;
            }
            let mut ps = pieces & self.table(t, by ^ 1, sq).capture.pseudo;
            if let Some(x) = &self.xiangqi {
                // Palace diagonals reach beyond the tables.
                if x.diagonal_lines >> sq & 1 != 0 {
                    ps |= pieces & x.diagonal_lines;
                }
            }
            while ps != 0 {
                let p = ps.trailing_zeros() as u8;
                ps &= ps - 1;
                if self.reach(t, by, p, occ, true, by_type) >> sq & 1 != 0 {
                    return true;
                }
            }
            false
        } else {
            // Traced back from the target with the opposite colour's movement;
            // pieces off the empty-board reach cannot attack at all.
            let m = &self.table(t, by ^ 1, sq).capture;
            if m.pseudo & pieces == 0 {
                return false;
            }
            if m.leaps & pieces != 0 {
                return true;
            }
            self.reverse_reach(m, sq, occ) & pieces != 0
        }
    }

    /// Squares from which a piece whose reversed capture movement is `m`
    /// attacks the square `m` belongs to. Slides, cannon hops and symmetric
    /// lame leaps trace back as they are; a grasshopper attacks from the
    /// first piece behind a hurdle next to the target.
    #[inline(always)]
    fn reverse_reach(&self, m: &Movement, sq: u8, occ: u128) -> u128 {
        if m.simple && m.hops == 0 {
            return self.simple_reach(m, sq, occ);
        }
        let mut riders = 0u128;
        for r in self.rays_of(m) {
            riders |= match r.hop {
                None => upto_first(r.mask, occ, r.ascending),
                Some(false) => {
                    if r.mask & occ == 0 {
                        continue;
                    }
                    let beyond = r.mask & !upto_first(r.mask, occ, r.ascending);
                    upto_first(beyond, occ, r.ascending)
                }
                Some(true) => {
                    let next = first(r.mask, r.ascending);
                    if next & occ == 0 {
                        continue;
                    }
                    first(r.mask & !next & occ, r.ascending)
                }
            };
        }
        for l in self.lame_of(m) {
            if l.path & occ == 0 {
                riders |= 1u128 << l.to;
            }
        }
        m.leaps | (riders & m.pseudo)
    }

    /// Converts a 12-wide region to this board's layout.
    fn region(&self, r: u128) -> u128 {
        let mut b = 0;
        for rank in 0..self.ranks {
            for file in 0..self.files {
                if r >> (rank as u32 * 12 + file as u32) & 1 != 0 {
                    b |= 1u128 << self.sq(file, rank);
                }
            }
        }
        b
    }
}

/// The squares of `ray` up to and including its first occupied square.
#[inline(always)]
fn upto_first(ray: u128, occ: u128, ascending: bool) -> u128 {
    let blockers = ray & occ;
    if blockers == 0 {
        return ray;
    }
    if ascending {
        let b = blockers & blockers.wrapping_neg();
        ray & (b | (b - 1))
    } else {
        let top = 127 - blockers.leading_zeros();
        ray & !((1u128 << top) - 1)
    }
}

/// The first square of `ray` (empty if none).
#[inline(always)]
fn first(ray: u128, ascending: bool) -> u128 {
    if ray == 0 {
        0
    } else if ascending {
        ray & ray.wrapping_neg()
    } else {
        1u128 << (127 - ray.leading_zeros())
    }
}

fn types_of(set: u64, index_of: &[(u8, u8)]) -> Vec<u8> {
    index_of.iter().filter(|(fsf, _)| set >> fsf & 1 != 0).map(|&(_, t)| t).collect()
}

/// Compiles ini settings into a variant definition.
pub(crate) fn compile(name: &str, c: &Config) -> Result<VariantDef, String> {
    let files = c.max_file + 1;
    let ranks = c.max_rank + 1;
    if c.pieces.len() > MAX_TYPES {
        return Err(format!("more than {MAX_TYPES} piece types"));
    }
    let mut types = Vec::new();
    let mut atoms = Vec::new();
    let mut index_of = Vec::new();
    for (&fsf, spec) in &c.pieces {
        let parsed = betza::parse(&spec.betza).map_err(|e| e.to_string())?;
        let kinds = rider_kinds(&parsed, true);
        // Grasshoppers are traced back by `reverse_reach`; horse-like lame
        // leaps are checked from each attacker.
        let asymmetric = kinds & (HORSE | JANGGI_ELEPHANT) != 0;
        let lame = kinds & LAME != 0;
        let symmetric_modes = parsed.iter().all(|a| a.quiet && a.capture);
        index_of.push((fsf, types.len() as u8));
        types.push(PieceType {
            letter: spec.letter,
            key: crate::ini::piece_key(fsf),
            betza: spec.betza.clone(),
            fsf,
            pawn: fsf == PAWN_INDEX,
            royal: fsf == KING_INDEX,
            asymmetric,
            lame,
            symmetric_modes,
        });
        atoms.push(parsed);
    }
    let king = types.iter().position(|t| t.royal).map(|i| i as u8);
    let mut def = VariantDef {
        name: name.to_string(),
        files,
        ranks,
        start_fen: c.start_fen.clone(),
        chess960: c.chess960,
        game_end: c.game_end.clone(),
        types,
        restricted: 0,
        king,
        pawn: None,
        first_file: 0,
        last_file: 0,
        tables: Arc::default(),
        board: 0,
        promotion_zone: [0; 2],
        promotion_types: [
            types_of(c.promotion_piece_types[0], &index_of),
            types_of(c.promotion_piece_types[1], &index_of),
        ],
        mandatory_pawn_promotion: c.mandatory_pawn_promotion,
        promotion_limit: None,
        double_step_region: [0; 2],
        triple_step_region: [0; 2],
        initial_types: 0,
        promotion_pawns: [0; 2],
        en_passant_types: [0; 2],
        n_move_types: [0; 2],
        pawnlike: 0,
        en_passant_region: [0; 2],
        castling: c.castling,
        castling_kingside_file: c.castling_kingside_file,
        castling_queenside_file: c.castling_queenside_file,
        castling_rank: [c.castling_rank, c.max_rank.saturating_sub(c.castling_rank)],
        castling_king_file: c.castling_king_file,
        castling_king_piece: [
            index_of.iter().find(|p| p.0 == c.castling_king_piece[0]).map(|p| p.1),
            index_of.iter().find(|p| p.0 == c.castling_king_piece[1]).map(|p| p.1),
        ],
        castling_rook_kingside_file: c.castling_rook_kingside_file,
        castling_rook_queenside_file: c.castling_rook_queenside_file,
        castling_rook_pieces: [
            types_of(c.castling_rook_pieces[0], &index_of).iter().fold(0, |m, &t| m | 1 << t),
            types_of(c.castling_rook_pieces[1], &index_of).iter().fold(0, |m, &t| m | 1 << t),
        ],
        gating: c.gating,
        seirawan_gating: c.seirawan_gating,
        cambodian: c.cambodian_moves,
        pioneer: None,
        kidnap: None,
        takeovers: None,
        swaps: None,
        promoting: 0,
        extinction_together: false,
        neighbours: Arc::new([]),
        special_types: 0,
        full_listing: false,
        extended: false,
        extinction: None,
        flag: None,
        check_counting: c.check_counting,
        connect: None,
        must_drop: c.must_drop,
        must_drop_type: None,
        shatar: None,
        walls: c.start_fen.split_whitespace().next().is_some_and(|board| board.contains('*')),
        walling: None,
        flip: c.flip_enclosed,
        petrify: 0,
        petrify_blast: c.petrify_blast,
        immune: 0,
        full_board: c.adjudicate_full_board,
        castling_wins: c.castling_wins,
        opposite_castling: c.opposite_castling,
        drops: None,
        checking: c.checking,
        plain_moves: false,
        royal_plain: false,
        checkless_count: false,
        must_capture: c.must_capture,
        stalemate_piece_count: c.stalemate_piece_count,
        blast: None,
        pseudo_royal: None,
        duple_check: false,
        immediate_end: false,
        promoted_type: [None; MAX_TYPES],
        mandatory_piece_promotion: c.mandatory_piece_promotion,
        piece_demotion: c.piece_demotion,
        promotion_on_capture: c.piece_promotion_on_capture,
        immobile: [[0; MAX_TYPES]; 2],
        pawn_drop_mate: None,
        shogi: false,
        dir_rays: Arc::new([]),
        dir_mask: Arc::new([]),
        simple_attackers: [0; 2],
        leap_attackers: [0; 2],
        slide_attackers: [[0; 8]; 2],
        hop_attackers: [[0; 8]; 2],
        xiangqi: None,
        sittuyin: None,
        pass: c.pass,
        pass_on_stalemate: c.pass_on_stalemate,
        makpong: c.makpong,
        material_counting: c.material_counting,
    };
    if files > 12 || ranks > 10 {
        return Err("board larger than 12x10".into());
    }
    // Castling left on (Fairy-Stockfish's default) on a board its squares
    // do not fit, e.g. the g-file king's destination on a 6x6 board:
    // Fairy-Stockfish accepts the section, and its start positions give no
    // castling rights. Such a variant cannot castle, and castling rights in
    // its FENs are ignored, as with `castling = false`.
    if c.castling
        && (c.castling_rank > c.max_rank
            || c.castling_kingside_file == 0
            || c.castling_kingside_file > c.max_file
            || c.castling_queenside_file >= c.max_file)
    {
        def.castling = false;
    }
    def.board = (0..ranks).fold(0u128, |b, r| b | ((1u128 << files) - 1) << (r as u32 * files as u32));
    def.pawn = def.types.iter().position(|t| t.pawn).map(|i| i as u8);
    for r in 0..ranks {
        def.first_file |= 1u128 << def.sq(0, r);
        def.last_file |= 1u128 << def.sq(files - 1, r);
    }
    def.promotion_zone = [def.region(c.promotion_region[0]), def.region(c.promotion_region[1])];
    if c.double_step {
        def.double_step_region = [def.region(c.double_step_region[0]), def.region(c.double_step_region[1])];
    }
    def.en_passant_region = [def.region(c.en_passant_region[0]), def.region(c.en_passant_region[1])];
    def.triple_step_region = [def.region(c.triple_step_region[0]), def.region(c.triple_step_region[1])];
    if c.game_end.extinction_value != crate::ini::GameValue::None {
        let set = if c.extinction_set & 1 != 0 {
            None
        } else {
            Some(types_of(c.extinction_set, &index_of).iter().fold(0u32, |m, &t| m | 1 << t))
        };
        def.extinction = Some((
            set,
            c.game_end.extinction_piece_count,
            c.game_end.extinction_opponent_piece_count,
            c.game_end.extinction_claim,
        ));
    }

    // Movement tables and board lines, shared where they can be.
    let nsq = def.nsq();
    let betzas = def.types.iter().map(|t| t.betza.clone()).collect();
    def.tables = move_tables(&def, betzas, &atoms);
    let geometry = geometry(files, ranks);
    def.dir_rays = geometry.dir_rays.clone();
    def.dir_mask = geometry.dir_mask.clone();
    def.neighbours = geometry.neighbours.clone();
    xiangqi_rules(&mut def, c, &index_of);
    for color in 0..2u8 {
        for t in 0..def.types.len() as u8 {
            if def.restricted >> t & 1 != 0 {
                // Traced from each attacker, restrictions included.
                continue;
            }
            let squares = || (0..nsq as u8).map(|sq| &def.table(t, color, sq).capture);
            if !squares().all(|m| m.simple) {
                continue;
            }
            let dirs = squares().fold(0u8, |a, m| a | m.slides);
            let hop_dirs = squares().fold(0u8, |a, m| a | m.hops);
            // Attacks are traced back with the other colour's leaps.
            let leaps = (0..nsq as u8).any(|sq| def.table(t, color ^ 1, sq).capture.leaps != 0);
            def.simple_attackers[color as usize] |= 1 << t;
            if leaps {
                def.leap_attackers[color as usize] |= 1 << t;
            }
            for dir in 0..8 {
                if dirs >> opposite(dir) & 1 != 0 {
                    def.slide_attackers[color as usize][dir] |= 1 << t;
                }
                if hop_dirs >> opposite(dir) & 1 != 0 {
                    def.hop_attackers[color as usize][dir] |= 1 << t;
                }
            }
        }
    }
    if let Some(fsf) = c.kidnapper {
        let Some(&(_, piece)) = index_of.iter().find(|p| p.0 == fsf) else {
            return Err("the kidnapper is not a piece of the variant".into());
        };
        let lines = atoms[piece as usize].iter().all(|a| {
            a.quiet
                && !a.capture
                && a.dx.abs() <= 1
                && a.dy.abs() <= 1
                && matches!(a.reach, Reach::Leap | Reach::Ride { .. })
        });
        if !lines || def.types[piece as usize].royal || def.types[piece as usize].pawn {
            return Err("the kidnapper must move only along lines to empty squares (Betza m with W, F, R, B, Q, K), and be neither king nor pawn".into());
        }
        def.kidnap = Some(Kidnap { piece, one_step: c.kidnap_one_step });
    } else if c.kidnap_one_step {
        return Err("kidnapOneStep needs a kidnapper".into());
    }
    if c.pioneer_gating {
        def.pioneer = Some(pioneer(&def, c)?);
    } else if c.pioneer_same_file {
        return Err("pioneerSameFile needs pioneerGating".into());
    }
    camel_rhino_rules(&mut def, c, &index_of)?;
    def.special_types = def.promoting | def.kidnap.map_or(0, |k| 1 << k.piece);
    def.full_listing = def.kidnap.is_some() || def.takeovers.is_some() || def.swaps.is_some() || def.promoting != 0;
    def.extended = def.pioneer.is_some() || def.full_listing;
    shogi_rules(&mut def, c, &index_of)?;
    if c.flag_region != [0, 0] {
        let piece =
            |side: usize| c.flag_piece[side].map(|fsf| index_of.iter().find(|p| p.0 == fsf).map_or(0, |p| 1u32 << p.1));
        let board12 = (0..=c.max_rank).fold(0u128, |b, r| b | ((1u128 << files) - 1) << (12 * r as u32));
        def.flag = Some(Flag {
            piece: [piece(0), piece(1)],
            king: [c.flag_piece[0] == Some(KING_INDEX), c.flag_piece[1] == Some(KING_INDEX)],
            region: [def.region(c.flag_region[0]), def.region(c.flag_region[1])],
            on_board: [c.flag_region[0] & !board12 == 0, c.flag_region[1] & !board12 == 0],
            count: c.flag_piece_count,
            blocked_win: c.flag_piece_blocked_win,
            flag_move: c.flag_move,
            safe: c.flag_piece_safe,
        });
    }
    if c.check_counting && !c.checking {
        return Err("checkCounting = true needs checking = true".into());
    }
    lichess_rules(&mut def, c, &index_of)?;
    if c.connect_n > 0 || c.connect_nxn > 0 || c.collinear_n > 0 || c.connect_region[0][0] | c.connect_region[1][0] != 0
    {
        let types = types_of(c.connect_piece_types, &index_of).iter().fold(0u32, |m, &t| m | 1 << t);
        def.connect = Some(Connect {
            n: c.connect_n,
            nxn: c.connect_nxn,
            collinear: c.collinear_n,
            directions: c.connect_directions,
            pieces: (c.connect_piece_types & 1 == 0).then_some(types),
            region: c.connect_region.map(|r| r.map(|b| def.region(b))),
            value: c.connect_value,
        });
    }
    if c.must_drop {
        if !c.piece_drops {
            return Err("mustDrop needs pieceDrops = true".into());
        }
        if let Some(fsf) = c.must_drop_type {
            // A type the variant lacks is never in hand: no drop is forced.
            def.must_drop_type = index_of.iter().find(|p| p.0 == fsf).map(|p| p.1);
            def.must_drop = def.must_drop_type.is_some();
        }
        def.full_listing = true;
        def.extended = true;
    }
    if c.walling_rule != crate::ini::WallingRule::None {
        if c.piece_drops || c.gating || c.seirawan_gating || menagerie_rules(&def) {
            return Err("wallingRule together with drops, gating or Menagerie's own rules".into());
        }
        def.walling = Some(Walling {
            rule: c.walling_rule,
            region: c.walling_region.map(|r| def.region(r)),
            or_move: c.wall_or_move,
        });
        def.walls = true;
        def.full_listing = true;
        def.extended = true;
    }
    let enclosing = c.enclosing_drop != crate::ini::EnclosingRule::None || c.enclosing_drop_start != 0;
    if enclosing && !c.piece_drops {
        return Err("enclosingDrop and enclosingDropStart need pieceDrops = true".into());
    }
    if c.castling_wins != 0 || c.opposite_castling {
        if menagerie_rules(&def) {
            return Err("castlingWins and oppositeCastling together with Menagerie's own rules".into());
        }
        def.full_listing = true;
        def.extended = true;
    }
    if enclosing || c.free_drops || def.flip != crate::ini::EnclosingRule::None || def.full_board {
        if menagerie_rules(&def) || def.walling.is_some() {
            return Err(
                "enclosing drops, flips and full-board adjudication together with walls or Menagerie's own rules"
                    .into(),
            );
        }
        def.full_listing = true;
        def.extended = true;
    }
    def.immediate_end = def.extinction.is_some()
        || def.flag.is_some()
        || def.connect.is_some()
        || def.check_counting
        || c.pass != [false; 2]
        || c.pass_on_stalemate != [false; 2]
        || c.bikjang
        || c.adjudicate_full_board
        || c.castling_wins != 0;
    drops(&mut def, c, &index_of)?;
    pawn_types(&mut def, c, &index_of, &atoms)?;
    if c.sittuyin_promotion {
        if menagerie_rules(&def) || def.promotion_pawns != [0; 2] || def.shogi {
            return Err(
                "sittuyinPromotion together with Menagerie's own rules, promotionPawnTypes or shogi-style promotions"
                    .into(),
            );
        }
        // Pawns promote only as a move of their own, listed and tested one by one.
        def.sittuyin = Some(def.promotion_zone);
        def.promotion_zone = [0; 2];
        def.full_listing = true;
        def.extended = true;
    }
    let all_types = (1u32 << def.types.len()) - 1;
    // A board move changes its squares (and a blast's) only, and attacks are
    // leaps and slides.
    let board_move = !menagerie_rules(&def)
        && def.petrify == 0
        && def.flip == crate::ini::EnclosingRule::None
        && def.walling.is_none()
        && !def.gating
        && !def.seirawan_gating
        && def.restricted == 0
        && def.xiangqi.is_none()
        && def.immune == 0
        && def.simple_attackers.iter().all(|&s| s & all_types == all_types);
    def.plain_moves = board_move && def.blast.is_none() && def.pseudo_royal.is_none();
    def.royal_plain = board_move && def.blast.is_none_or(|spared| spared == 0) && !def.duple_check;
    if !c.checking {
        // A move that gives check is illegal: counted a piece at a time
        // where that is the only rule beyond plain moves, else every move
        // is listed and tested.
        def.checkless_count = def.plain_moves
            && !def.extended
            && def.drops.is_none()
            && !def.shogi
            && !def.cambodian
            && !def.must_capture
            && def.pass == [false; 2]
            && def.pass_on_stalemate == [false; 2];
        def.full_listing = true;
        def.extended = true;
    }
    crate::position::State::parse(&def, &c.start_fen).map_err(|e| format!("invalid startFen: {e}"))?;
    Ok(def)
}

/// Mobility regions, the soldier and the flying general ([`Xiangqi`]).
fn xiangqi_rules(def: &mut VariantDef, c: &Config, index_of: &[(u8, u8)]) {
    let type_of = |fsf: u8| index_of.iter().find(|p| p.0 == fsf).map(|p| p.1);
    let mut mobility = [[def.board; MAX_TYPES]; 2];
    for (&(color, fsf), &region) in &c.mobility_region {
        if let Some(t) = type_of(fsf) {
            let r = def.region(region) & def.board;
            if r != def.board {
                mobility[color as usize][t as usize] = r;
                def.restricted |= 1 << t;
            }
        }
    }
    let soldier = type_of(crate::ini::SOLDIER_INDEX).filter(|_| c.soldier_promotion_rank > 0).map(|t| {
        def.restricted |= 1 << t;
        let r = c.soldier_promotion_rank;
        let zone = |color: u8| {
            (0..def.ranks)
                .filter(|&rank| if color == 0 { rank >= r } else { def.ranks - 1 - rank >= r })
                .fold(0u128, |b, rank| b | ((1u128 << def.files) - 1) << (rank as u32 * def.files as u32))
        };
        (t, [zone(0), zone(1)])
    });
    let janggi_cannon = type_of(crate::ini::JANGGI_CANNON_INDEX);
    if let Some(t) = janggi_cannon {
        def.restricted |= 1 << t;
    }
    let mut diagonal = [Diagonal::None; MAX_TYPES];
    let diagonal_lines = def.region(c.diagonal_lines) & def.board;
    if diagonal_lines != 0 {
        for (t, ty) in def.types.iter().enumerate() {
            diagonal[t] = match ty.fsf {
                crate::ini::WAZIR_INDEX => Diagonal::Step,
                KING_INDEX if ty.betza == "W" => Diagonal::Step,
                crate::ini::SOLDIER_INDEX => Diagonal::Forward,
                crate::ini::ROOK_INDEX => Diagonal::Slide,
                crate::ini::JANGGI_CANNON_INDEX => Diagonal::Cannon,
                _ => continue,
            };
            def.restricted |= 1 << t;
        }
    }
    if def.restricted == 0 && !c.flying_general && !c.bikjang {
        return;
    }
    for t in 0..def.types.len() {
        if def.restricted >> t & 1 != 0 {
            def.types[t].asymmetric = true;
        }
    }
    let mut dynamic = [0u128; MAX_TYPES];
    for (t, d) in dynamic.iter_mut().enumerate().take(def.types.len()) {
        *d = match diagonal[t] {
            _ if janggi_cannon == Some(t as u8) => u128::MAX,
            Diagonal::Slide | Diagonal::Cannon => diagonal_lines,
            _ => 0,
        };
    }
    let mut x = Xiangqi {
        mobility,
        soldier,
        flying_general: c.flying_general,
        bikjang: c.bikjang,
        janggi_cannon,
        diagonal_lines,
        diagonal,
        dynamic,
        fixed: Vec::new(),
        static_leapers: 0,
        attackers: Vec::new(),
    };
    let n = def.nsq() as u8;
    x.fixed = (0..2u8)
        .flat_map(|color| (0..def.types.len() as u8).map(move |t| (color, t)))
        .flat_map(|(color, t)| (0..n).map(move |sq| (color, t, sq)))
        .map(|(color, t, sq)| {
            let region = x.mobility[color as usize][t as usize];
            let or = def.palace_diagonal(&x, t, color, sq, 0, 0);
            (def.soldier_file(&x, t, color, sq) & region, or & region)
        })
        .collect();
    let types = def.types.len() as u8;
    let index = |color: u8, t: u8, sq: u8| (color as usize * types as usize + t as usize) * n as usize + sq as usize;
    for t in 0..types {
        let leaper = (0..2).all(|c| {
            (0..n).all(|sq| {
                let m = &def.table(t, c, sq).capture;
                m.simple && m.slides == 0 && m.hops == 0
            })
        });
        if def.restricted >> t & 1 != 0 && x.dynamic[t as usize] == 0 && leaper {
            x.static_leapers |= 1 << t;
        }
    }
    x.attackers = vec![0; 2 * types as usize * n as usize];
    for color in 0..2 {
        for t in (0..types).filter(|t| x.static_leapers >> t & 1 != 0) {
            for p in 0..n {
                let (and, or) = x.fixed[index(color, t, p)];
                let reach = def.table(t, color, p).capture.leaps & and | or;
                for sq in (0..n).filter(|sq| reach >> sq & 1 != 0) {
                    x.attackers[index(color, t, sq)] |= 1u128 << p;
                }
            }
        }
    }
    def.xiangqi = Some(Box::new(x));
}

/// Shogi-style promotions (`promotedPieceType`, `mandatoryPiecePromotion`),
/// `promotionLimit`, `immobilityIllegal` and `shogiPawnDropMateIllegal`.
fn shogi_rules(def: &mut VariantDef, c: &Config, index_of: &[(u8, u8)]) -> Result<(), String> {
    let local = |fsf: u8| index_of.iter().find(|p| p.0 == fsf).map(|p| p.1);
    let mut limit = [0u32; MAX_TYPES];
    for (&fsf, &count) in &c.promotion_limit {
        if let Some(t) = local(fsf) {
            limit[t as usize] = count;
        }
    }
    def.promotion_limit = limit.iter().any(|&n| n != 0).then(|| Box::new(limit));
    for (&from, &to) in &c.promoted_piece_types {
        // Entries for pieces the variant does not have are left out, as
        // Fairy-Stockfish never meets them.
        if let (Some(f), Some(t)) = (local(from), local(to)) {
            if def.promoting >> f & 1 != 0 {
                return Err("promotedPieceType for a promoting piece (promotingPieces)".into());
            }
            def.promoted_type[f as usize] = Some(t);
        }
    }
    if c.immobility_illegal {
        for color in 0..2u8 {
            for t in 0..def.types.len() as u8 {
                for sq in 0..def.nsq() as u8 {
                    let m = &def.table(t, color, sq).quiet;
                    if (m.leaps | m.pseudo) & def.board == 0 {
                        def.immobile[color as usize][t as usize] |= 1u128 << sq;
                    }
                }
            }
        }
    }
    if c.shogi_pawn_drop_mate_illegal {
        def.pawn_drop_mate = local(19);
    }
    let mut special = 0u32;
    for t in 0..def.types.len() {
        if def.promoted_type[t].is_some() || def.immobile[0][t] | def.immobile[1][t] != 0 {
            special |= 1 << t;
        }
        if let Some(pt) = def.promoted_type[t].filter(|_| c.piece_demotion) {
            // Promoted pieces of this type may demote.
            special |= 1 << pt;
        }
    }
    def.special_types |= special;
    def.shogi = special != 0;
    Ok(())
}

/// Forced captures, atomic blasts and pseudo-royal extinction pieces
/// (antichess, atomic), checked against the rules they are not combined
/// with here. Each lists and tests every move.
fn lichess_rules(def: &mut VariantDef, c: &Config, index_of: &[(u8, u8)]) -> Result<(), String> {
    let set = |s: u64| types_of(s, index_of).iter().fold(0u32, |m, &t| m | 1 << t);
    if c.blast_on_capture {
        def.blast = Some(set(c.blast_immune_types));
    } else if c.blast_immune_types != 0 {
        return Err("blastImmuneTypes needs blastOnCapture = true".into());
    }
    if c.extinction_pseudo_royal {
        match def.extinction {
            Some((Some(types), _, 0, false)) => def.pseudo_royal = Some(types),
            _ => {
                return Err("extinctionPseudoRoyal needs extinctionValue and extinctionPieceTypes (not *), without extinctionOpponentPieceCount or extinctionClaim".into());
            }
        }
        if c.blast_immune_types != 0 {
            return Err("extinctionPseudoRoyal with blastImmuneTypes".into());
        }
        def.duple_check = c.duple_check;
    } else if c.duple_check {
        return Err("dupleCheck needs extinctionPseudoRoyal = true".into());
    }
    def.petrify = set(c.petrify_types);
    def.immune = set(c.mutually_immune_types);
    if c.shatar_mate_rule {
        // Fairy-Stockfish's knight, rook and bers.
        def.shatar = Some((set(1 << 2), set(1 << 2 | 1 << 4 | 1 << 11)));
    }
    if def.petrify != 0 || def.immune != 0 || def.petrify_blast {
        if c.piece_drops {
            return Err("petrifyOnCaptureTypes and mutuallyImmuneTypes with drops".into());
        }
        def.walls = true;
    }
    if def.must_capture || def.blast.is_some() || def.pseudo_royal.is_some() || def.petrify != 0 || def.immune != 0 {
        if menagerie_rules(def) || c.gating || c.seirawan_gating {
            return Err("mustCapture, blastOnCapture and extinctionPseudoRoyal cannot be combined with gating or Menagerie's own rules".into());
        }
        def.full_listing = true;
        def.extended = true;
    }
    Ok(())
}

/// Whether the definition has one of Menagerie's own rules (Pioneer
/// gating, kidnapping, takeovers, swaps, promoting pieces).
fn menagerie_rules(def: &VariantDef) -> bool {
    def.pioneer.is_some()
        || def.kidnap.is_some()
        || def.takeovers.is_some()
        || def.swaps.is_some()
        || def.promoting != 0
}

/// Drops (`pieceDrops` and the keys that shape them), checked against the
/// rules they are not combined with here.
fn drops(def: &mut VariantDef, c: &Config, index_of: &[(u8, u8)]) -> Result<(), String> {
    if !c.piece_drops {
        if c.captures_to_hand || c.two_boards {
            return Err("capturesToHand = true and twoBoards = true need pieceDrops = true".into());
        }
        return Ok(());
    }
    if menagerie_rules(def) {
        return Err(
            "pieceDrops together with Menagerie's own rules (Pioneer gating, kidnapping, takeovers, swaps, promoting pieces)"
                .into(),
        );
    }
    if def.gating && !def.seirawan_gating {
        return Err("pieceDrops together with gating other than seirawanGating".into());
    }
    let region = [def.region(c.drop_region[0]), def.region(c.drop_region[1])];
    let mut pawn_region = region;
    for (side, r) in pawn_region.iter_mut().enumerate() {
        if !c.promotion_zone_pawn_drops {
            *r &= !def.promotion_zone[side];
        }
        if !c.first_rank_pawn_drops {
            let first = if side == 0 { 0 } else { def.ranks - 1 };
            *r &= !(0..def.files).fold(0u128, |b, f| b | 1u128 << def.sq(f, first));
        }
    }
    let no_doubled = match c.drop_no_doubled {
        None => None,
        Some(fsf) => index_of.iter().find(|p| p.0 == fsf).map(|p| (p.1, c.drop_no_doubled_count)),
    };
    let all = (1u32 << def.types.len()) - 1;
    let quick = def.simple_attackers == [all, all] && def.hop_attackers.iter().flatten().all(|&h| h == 0);
    def.drops = Some(Drops {
        to_hand: c.captures_to_hand,
        demote: (c.captures_to_hand && !c.drop_loop) || c.two_boards,
        checks: c.drop_checks,
        region,
        pawn_region,
        no_doubled,
        quick,
        enclosing: c.enclosing_drop,
        start: def.region(c.enclosing_drop_start),
        free: c.free_drops,
        opposite_bishops: if c.drop_opposite_colored_bishop {
            def.types.iter().position(|t| t.fsf == 3).map(|t| t as u8)
        } else {
            None
        },
        castling_dropped: c.castling_dropped_piece,
        promoted: c.drop_promoted,
        rook: if c.sittuyin_rook_drop {
            def.types.iter().position(|t| t.fsf == 4).map(|t| {
                let first = |rank: u8| (0..def.files).fold(0u128, |b, f| b | 1u128 << def.sq(f, rank));
                (t as u8, [region[0] & first(0), region[1] & first(def.ranks - 1)])
            })
        } else {
            None
        },
    });
    if c.drop_opposite_colored_bishop || c.castling_dropped_piece {
        def.full_listing = true;
        def.extended = true;
    }
    Ok(())
}

/// Takeovers, swaps, promoting pieces and extinction of a set of types
/// together (Camel and Rhino Chess's rules as options), checked.
fn camel_rhino_rules(def: &mut VariantDef, c: &Config, index_of: &[(u8, u8)]) -> Result<(), String> {
    let ty = |fsf: u8| index_of.iter().find(|p| p.0 == fsf).map(|p| p.1);
    let set = |s: u64| types_of(s, index_of).iter().fold(0u32, |m, &t| m | 1 << t);
    let mut t = Takeovers::default();
    for (list, enabled) in [(&c.leap_takeovers, false), (&c.enabled_leap_takeovers, true)] {
        for &(fsf, diagonal) in list {
            let Some(p) = ty(fsf) else { return Err("a takeover leaper is not a piece of the variant".into()) };
            if def.types[p as usize].pawn || c.promoting_pieces >> fsf & 1 != 0 {
                return Err(format!(
                    "{}: leap takeovers never promote, so the leaper may be neither the pawn nor a promoting piece",
                    def.types[p as usize].letter
                ));
            }
            if enabled {
                t.enabled_leap |= 1 << p
            } else {
                t.leap |= 1 << p
            }
            if diagonal {
                t.diagonal_first |= 1 << p;
            }
        }
    }
    t.enabled_jump = set(c.enabled_jump_takeovers);
    t.enablers = set(c.takeover_enablers);
    let nsq = def.nsq() as u8;
    for p in 0..def.types.len() as u8 {
        let simple = (0..2).all(|color| (0..nsq).all(|sq| def.table(p, color, sq).capture.simple));
        if t.enabled_jump >> p & 1 != 0 && !simple {
            return Err(format!(
                "{}: jump takeovers need a piece whose captures are steps and slides (W, F, K, R, B, Q, fF, ...)",
                def.types[p as usize].letter
            ));
        }
    }
    if (t.enabled_leap | t.enabled_jump) != 0 && t.enablers == 0 {
        return Err("enabledLeapTakeovers and enabledJumpTakeovers need takeoverEnablers".into());
    }
    let takeovers = t.leap | t.enabled_leap | t.enabled_jump != 0;
    if takeovers {
        def.takeovers = Some(t);
    }
    if c.swaps {
        let mut except = [0u32; MAX_TYPES];
        for &(a, b) in &c.swap_except {
            let (Some(a), Some(b)) = (ty(a), ty(b)) else {
                return Err("swapExcept names a piece not in the variant".into());
            };
            except[a as usize] |= 1 << b;
            except[b as usize] |= 1 << a;
        }
        def.swaps = Some(except);
    } else if !c.swap_except.is_empty() {
        return Err("swapExcept needs swaps".into());
    }
    def.promoting = set(c.promoting_pieces);
    if def.types.iter().enumerate().any(|(i, p)| def.promoting >> i & 1 != 0 && (p.pawn || p.royal)) {
        return Err("promotingPieces may name neither the pawn nor the king".into());
    }
    if def.promoting != 0 && (def.promotion_types[0].is_empty() || def.promotion_types[1].is_empty()) {
        return Err("promotingPieces needs promotionPieceTypes".into());
    }
    if takeovers || c.swaps || def.promoting != 0 {
        if c.gating || c.seirawan_gating || c.pioneer_gating || c.kidnapper.is_some() {
            return Err(
                "takeovers, swaps and promotingPieces cannot be combined with gating, pioneerGating or a kidnapper"
                    .into(),
            );
        }
        if c.game_end.counting_rule != crate::ini::CountingRule::None {
            return Err("takeovers, swaps and promotingPieces cannot be combined with a countingRule".into());
        }
    }
    if c.extinction_together {
        if !matches!(def.extinction, Some((Some(_), ..))) {
            return Err("extinctionTogether needs extinctionValue and extinctionPieceTypes (not *)".into());
        }
        def.extinction_together = true;
    }
    Ok(())
}

/// The Pioneer gating rule of a definition: the reserve piece type and
/// count from the start FEN's bracket (`[Aa?]`, `[AAaa?]`).
fn pioneer(def: &VariantDef, c: &Config) -> Result<Pioneer, String> {
    if c.gating || c.seirawan_gating {
        return Err("pioneerGating cannot be combined with gating or seirawanGating".into());
    }
    let board = c.start_fen.split_whitespace().next().unwrap_or("");
    let bracket = board.find('[').map(|i| &board[i..]).unwrap_or("");
    let letters: Vec<char> = bracket.chars().filter(|ch| ch.is_ascii_alphabetic()).collect();
    let Some(&first) = letters.first() else {
        return Err("pioneerGating needs the reserve pieces in the startFen's bracket, e.g. [Aa?]".into());
    };
    if bracket.contains('@') || !bracket.contains('?') {
        return Err("the startFen's reserve must be undecided, e.g. [Aa?]".into());
    }
    let letter = first.to_ascii_uppercase();
    if letters.iter().any(|ch| ch.to_ascii_uppercase() != letter) {
        return Err("pioneerGating takes one reserve piece type".into());
    }
    let Some(piece) = def.types.iter().position(|t| t.letter == letter) else {
        return Err(format!("no piece with letter '{letter}' for the reserve"));
    };
    let ty = &def.types[piece];
    if ty.royal || ty.pawn {
        return Err("the reserve piece may be neither the king nor the pawn".into());
    }
    let white = letters.iter().filter(|ch| ch.is_ascii_uppercase()).count();
    let black = letters.len() - white;
    if white != black || white > def.files as usize {
        return Err("the startFen's reserve must give both sides as many pieces, at most one a file".into());
    }
    let rook_files = if c.castling {
        1u16 << c.castling_rook_kingside_file.min(def.files - 1) | 1 << c.castling_rook_queenside_file
    } else {
        0
    };
    Ok(Pioneer {
        piece: piece as u8,
        count: white as u8,
        same_file: c.pioneer_same_file,
        king_file: c.castling.then_some(c.castling_king_file),
        rook_files,
    })
}

// Fairy-Stockfish's rider kinds.
const BISHOP: u32 = 1 << 0;
const ROOK_H: u32 = 1 << 1;
const ROOK_V: u32 = 1 << 2;
const CANNON_H: u32 = 1 << 3;
const CANNON_V: u32 = 1 << 4;
const LAME_DABBABA: u32 = 1 << 5;
const HORSE: u32 = 1 << 6;
const ELEPHANT: u32 = 1 << 7;
const JANGGI_ELEPHANT: u32 = 1 << 8;
const CANNON_DIAG: u32 = 1 << 9;
const NIGHTRIDER: u32 = 1 << 10;
const GRASSHOPPER_H: u32 = 1 << 11;
const GRASSHOPPER_V: u32 = 1 << 12;
const GRASSHOPPER_D: u32 = 1 << 13;
const LAME: u32 = LAME_DABBABA | HORSE | ELEPHANT | JANGGI_ELEPHANT;

/// The rider kinds of one modality of a piece, as Fairy-Stockfish detects them.
fn rider_kinds(atoms: &[betza::MoveAtom], capture: bool) -> u32 {
    let mut k = 0;
    for a in atoms.iter().filter(|a| if capture { a.capture } else { a.quiet }) {
        let (x, y) = (a.dx.abs(), a.dy.abs());
        let shape = (x.min(y), x.max(y));
        match a.reach {
            Reach::Leap => {}
            Reach::Lame => {
                k |= match shape {
                    (0, 2) => LAME_DABBABA,
                    (1, 2) => HORSE,
                    (2, 2) => ELEPHANT,
                    (2, 3) => JANGGI_ELEPHANT,
                    _ => 0,
                }
            }
            Reach::Ride { .. } => {
                k |= match (x, y) {
                    (1, 1) => BISHOP,
                    (1, 0) => ROOK_H,
                    (0, 1) => ROOK_V,
                    (1, 2) | (2, 1) => NIGHTRIDER,
                    _ => 0,
                }
            }
            Reach::Hop { limit } => {
                let g = limit == 1;
                k |= match (x, y) {
                    (1, 0) => {
                        if g {
                            GRASSHOPPER_H
                        } else {
                            CANNON_H
                        }
                    }
                    (0, 1) => {
                        if g {
                            GRASSHOPPER_V
                        } else {
                            CANNON_V
                        }
                    }
                    (1, 1) => {
                        if g {
                            GRASSHOPPER_D
                        } else {
                            CANNON_DIAG
                        }
                    }
                    _ => 0,
                }
            }
        }
    }
    k
}

/// Fairy-Stockfish's pawn types: initial moves (Betza `i`), and the types
/// that promote as pawns, capture en passant or restart the n-move count.
/// The pawn itself keeps its own generator: of these sets only the n-move
/// rule applies to it.
fn pawn_types(
    def: &mut VariantDef,
    c: &Config,
    index_of: &[(u8, u8)],
    atoms: &[Vec<betza::MoveAtom>],
) -> Result<(), String> {
    let mask = |set: u64| types_of(set, index_of).iter().fold(0u32, |m, &t| m | 1 << t);
    let pawn = def.pawn.map_or(0, |p| 1u32 << p);
    for side in 0..2 {
        def.promotion_pawns[side] = mask(c.promotion_pawn_types[side]) & !pawn;
        def.en_passant_types[side] = mask(c.en_passant_types[side]) & !pawn;
        def.n_move_types[side] = mask(c.n_move_rule_types[side]);
    }
    def.initial_types = atoms
        .iter()
        .enumerate()
        .filter(|(t, a)| Some(*t as u8) != def.pawn && a.iter().any(|a| a.initial))
        .fold(0, |m, (t, _)| m | 1 << t);
    def.pawnlike = def.initial_types
        | def.promotion_pawns[0]
        | def.promotion_pawns[1]
        | def.en_passant_types[0]
        | def.en_passant_types[1];
    if def.pawnlike != 0 {
        let immobile = (0..def.types.len())
            .filter(|&t| def.immobile[0][t] | def.immobile[1][t] != 0)
            .fold(0u32, |m, t| m | 1 << t);
        if def.pawnlike & (immobile | def.promoting) != 0 || c.gating || c.seirawan_gating {
            return Err("pawn types (initial moves, en passant or pawn promotion of other pieces) that are immobile somewhere, or with gating or Menagerie's own rules".into());
        }
        def.special_types |= def.pawnlike;
        def.full_listing = true;
        def.extended = true;
    }
    Ok(())
}

/// Stores the rays and lame leaps of a movement in the tables' shared lists.
fn flatten(def: &mut MoveTables, m: MovementBuild) -> Movement {
    let mut slides = 0u8;
    let mut hops = 0u8;
    let mut simple = m.lame.is_empty();
    for r in &m.rays {
        if r.mask & m.pseudo == 0 {
            // Adds nothing: riders are restricted to `pseudo`.
            continue;
        }
        if r.dir != NO_DIR && r.mask & !m.pseudo == 0 {
            match r.hop {
                None => slides |= 1 << r.dir,
                Some(true) => hops |= 1 << r.dir,
                Some(false) => simple = false,
            }
        } else {
            simple = false;
        }
    }
    let rays = (def.rays.len() as u32, (def.rays.len() + m.rays.len()) as u32);
    def.rays.extend(m.rays);
    let lame = (def.lame.len() as u32, (def.lame.len() + m.lame.len()) as u32);
    def.lame.extend(m.lame);
    Movement { leaps: m.leaps, pseudo: m.pseudo, rays, lame, slides, hops, simple }
}

/// One modality of a piece on one square, in Fairy-Stockfish's form.
fn movement(
    def: &VariantDef,
    atoms: &[betza::MoveAtom],
    color: u8,
    sq: u8,
    capture: bool,
    kinds: u32,
) -> MovementBuild {
    let files = def.files as i32;
    let ranks = def.ranks as i32;
    let (f0, r0) = ((sq % def.files) as i32, (sq / def.files) as i32);
    let on = |x: i32, y: i32| x >= 0 && y >= 0 && x < files && y < ranks;
    let bit = |x: i32, y: i32| 1u128 << (y * files + x);
    let sign = if color == 0 { 1 } else { -1 };
    let mut m = MovementBuild::default();
    // Squares of a line from `sq` in direction (dx, dy), at most `max` of them.
    let line = |dx: i32, dy: i32, max: usize| {
        let mut mask = 0u128;
        let (mut x, mut y, mut n) = (f0 + dx, r0 + dy, 0);
        while on(x, y) && n < max {
            mask |= bit(x, y);
            x += dx;
            y += dy;
            n += 1;
        }
        mask
    };
    for a in atoms.iter().filter(|a| if capture { a.capture } else { a.quiet }) {
        let (dx, dy) = (a.dx as i32 * sign, a.dy as i32 * sign);
        match a.reach {
            Reach::Leap | Reach::Lame => {
                if on(f0 + dx, r0 + dy) {
                    m.pseudo |= bit(f0 + dx, r0 + dy);
                    if a.reach == Reach::Leap {
                        m.leaps |= bit(f0 + dx, r0 + dy);
                    }
                }
            }
            Reach::Ride { limit } => {
                m.pseudo |= line(dx, dy, if limit == 0 { usize::MAX } else { limit as usize });
            }
            Reach::Hop { limit } => {
                m.pseudo |= line(dx, dy, if limit <= 1 { usize::MAX } else { limit as usize });
            }
        }
    }
    let mut rays = |dirs: &[(i32, i32)], hop: Option<bool>| {
        for &(dx, dy) in dirs {
            let mask = line(dx, dy, usize::MAX);
            if mask != 0 {
                let delta = dy * files + dx;
                let dir = DIRS.iter().position(|&d| d == (dx, dy)).map_or(NO_DIR, |i| i as u8);
                m.rays.push(Ray { mask, ascending: delta > 0, hop, step: delta.unsigned_abs() as u8, dir });
            }
        }
    };
    const H: &[(i32, i32)] = &[(1, 0), (-1, 0)];
    const V: &[(i32, i32)] = &[(0, 1), (0, -1)];
    const D: &[(i32, i32)] = &[(1, 1), (-1, 1), (1, -1), (-1, -1)];
    const N: &[(i32, i32)] = &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
    for (kind, dirs, hop) in [
        (BISHOP, D, None),
        (ROOK_H, H, None),
        (ROOK_V, V, None),
        (NIGHTRIDER, N, None),
        (CANNON_H, H, Some(false)),
        (CANNON_V, V, Some(false)),
        (CANNON_DIAG, D, Some(false)),
        (GRASSHOPPER_H, H, Some(true)),
        (GRASSHOPPER_V, V, Some(true)),
        (GRASSHOPPER_D, D, Some(true)),
    ] {
        if kinds & kind != 0 {
            rays(dirs, hop);
        }
    }
    const LAME_DIRS: &[(u32, &[(i8, i8)])] = &[
        (LAME_DABBABA, &[(2, 0), (-2, 0), (0, 2), (0, -2)]),
        (HORSE, &[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]),
        (ELEPHANT, &[(2, 2), (-2, 2), (2, -2), (-2, -2)]),
        (JANGGI_ELEPHANT, &[(2, 3), (3, 2), (3, -2), (2, -3), (-2, -3), (-3, -2), (-3, 2), (-2, 3)]),
    ];
    for &(kind, dirs) in LAME_DIRS {
        if kinds & kind == 0 {
            continue;
        }
        for &(dx, dy) in dirs {
            let (x, y) = (f0 + dx as i32, r0 + dy as i32);
            if !on(x, y) {
                continue;
            }
            let atom = betza::MoveAtom { dx, dy, reach: Reach::Lame, quiet: true, capture: true, initial: false };
            let path = atom.lame_path().iter().fold(0u128, |p, &(px, py)| p | bit(f0 + px as i32, r0 + py as i32));
            m.lame.push(Lame { to: (y * files + x) as u8, path });
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use crate::ini::{DefinitionError, Definitions};
    use std::sync::Arc;

    #[test]
    fn definitions_with_the_same_board_and_pieces_share_their_tables() {
        let mut d = Definitions::builtin();
        d.load("[a:chess]\n[b:chess]\nmandatoryPawnPromotion = true\n[c:chess]\ncustomPiece1 = n:NN\n", "t.ini")
            .unwrap();
        let (a, b, c) = (d.get("a").unwrap(), d.get("b").unwrap(), d.get("c").unwrap());
        assert!(Arc::ptr_eq(&a.tables, &b.tables));
        assert!(Arc::ptr_eq(&a.dir_mask, &c.dir_mask));
        assert!(!Arc::ptr_eq(&a.tables, &c.tables), "a nightrider moves otherwise");
    }

    #[test]
    fn the_limit_on_added_definitions_is_a_clear_error() {
        let mut d = Definitions::builtin();
        d.limit_added(2);
        d.load("[a:chess]\n", "one.ini").unwrap();
        let e = d.load("[b:chess]\n\n[c:chess]\n", "two.ini").unwrap_err();
        assert!(matches!(e, DefinitionError::TooMany { line: 3, max: 2, .. }), "{e:?}");
        assert_eq!(e.to_string(), "two.ini:3: too many variant definitions: at most 2 may be loaded");
        assert!(d.get("b").is_none(), "nothing of a refused file is added");
        d.load("[b:chess]\n", "three.ini").unwrap();
    }
}
