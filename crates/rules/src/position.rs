//! Positions of a data-defined variant: FEN, legal moves, copy-make, perft.

use std::fmt;
use std::sync::Arc;

use thiserror::Error;

use crate::ini::{CountingRule, EnclosingRule, GameValue};
use crate::variant::{Flag, MAX_TYPES, Pioneer, VariantDef, opposite};

/// Fairy-Stockfish's indices of the pieces its counting rules look at.
const PAWN_FSF: u8 = 1;
const KNIGHT_FSF: u8 = 2;
const ROOK_FSF: u8 = 4;
/// Fairy-Stockfish's fers (the met), whose double step `cambodianMoves` adds.
const FERS_FSF: u8 = 6;
const KHON_FSF: u8 = 9;

const EMPTY: u8 = 0xFF;
const NONE: u8 = 0xFF;

/// Why a FEN was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FenError {
    /// The board field does not describe the variant's board.
    #[error("bad board in FEN: {0}")]
    Board(String),
    /// A letter that is not a piece of the variant.
    #[error("unknown piece letter '{0}' in FEN")]
    Piece(char),
    /// The side to move is not `w` or `b`.
    #[error("bad side to move '{0}' in FEN")]
    Side(String),
    /// The castling field has an invalid character.
    #[error("bad castling field '{0}' in FEN")]
    Castling(String),
    /// The en passant field is not `-` or squares.
    #[error("bad en passant field '{0}' in FEN")]
    EnPassant(String),
    /// A move counter is not a number.
    #[error("bad move counter '{0}' in FEN")]
    Counter(String),
    /// Pieces in hand (`[...]` after the board) in a variant that has no
    /// pieces in hand.
    #[error("pieces in hand '{0}' in FEN, but this variant has no pieces in hand")]
    Hand(String),
    /// The reserve bracket of a Pioneer-gating variant (`[Aa?]`, `[A@ga@f]`)
    /// is malformed or does not fit the board and the prelude's order.
    #[error("bad reserve in FEN: {0}")]
    Reserve(String),
}

/// Why a move text was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not the notation of any legal move in the position.
    #[error("'{0}' is not a legal move in this position")]
    Illegal(String),
    /// The text fits more than one legal move.
    #[error("'{0}' is ambiguous in this position")]
    Ambiguous(String),
    /// The text is not written like a move at all.
    #[error("'{0}' is not a move in coordinate form (e2e4, e7e8q, g1f3h) or SAN (Nf3, exd6, e8=Q, O-O, Nf3/H)")]
    Syntax(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Normal,
    Promotion,
    EnPassant,
    Castling,
    /// Pioneer prelude: accept the reserve pieces.
    Accept,
    /// Pioneer prelude: decline them.
    Decline,
    /// Pioneer prelude: choose the gate files ([`Move::place_mask`]).
    Place,
    /// A piece put from the hand on an empty square (`pieceDrops`): the
    /// type in `gate`, the square in `from` and `to`.
    Drop,
    /// A kidnapper's move that takes its victim along ([`State::victim`]).
    Kidnap,
    /// A leap converting the enemy pieces on its path (`takeover`).
    Takeover,
    /// A jump over an enemy piece, converting it (`takeover`).
    Jump,
    /// Two adjacent friendly pieces exchanging squares (`takeover`).
    Swap,
    /// A shogi-style promotion (`promotedPieceType`): the piece moves and
    /// becomes the type in `promo`, marked as promoted (`+` in a FEN).
    PiecePromotion,
    /// A promoted piece's demotion (`pieceDemotion`): the piece moves and
    /// becomes the type it was promoted from (in `promo`), unmarked.
    PieceDemotion,
    /// A pass (`pass`: janggi), written as the king's move to its own
    /// square (`e2e2`; without a king, another piece's).
    Pass,
}

/// Where a move of some kind takes an enemy piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Takes {
    /// On its target square, if an enemy piece stands there.
    Target,
    /// The pawn passed by en passant.
    EnPassant,
    /// Nothing: castling, the prelude's actions and drops take nothing;
    /// kidnaps, jumps and swaps move or convert their pieces themselves.
    Nothing,
}

impl Kind {
    /// Where a move of this kind takes an enemy piece.
    pub(crate) fn takes(self) -> Takes {
        match self {
            Kind::Normal | Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion | Kind::Takeover => {
                Takes::Target
            }
            Kind::EnPassant => Takes::EnPassant,
            Kind::Castling
            | Kind::Accept
            | Kind::Decline
            | Kind::Place
            | Kind::Drop
            | Kind::Kidnap
            | Kind::Jump
            | Kind::Swap
            | Kind::Pass => Takes::Nothing,
        }
    }
}

/// Why a game has ended, as [`Position::outcome`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move.
    Stalemate,
    /// A side has lost its extinction pieces (e.g. the bare king of
    /// shatranj and courier).
    Extinction,
    /// The same position for the n-th time (`nFoldRule`, valued by
    /// `nFoldValue` for the side to move); see [`Game::claimable`].
    Repetition,
    /// `nMoveRule` moves by each side without a capture or pawn move.
    MoveRule,
    /// A counting rule's limit was passed (Makruk's, Cambodian chess's and
    /// ASEAN chess's board's and pieces' honour).
    Counting,
    /// A side's flag pieces reached its flag region (`flagPiece`,
    /// `flagRegion...`: king of the hill, racing kings); valued for the
    /// side to move ([`Outcome::white_ended`]).
    Flag,
    /// A side has given the checks of a check-counting variant
    /// (`checkCounting`: three-check); the side to move, checked that
    /// often, has lost.
    Checks,
    /// Both sides passed, one after the other (`pass`: janggi): a draw,
    /// or decided by material counting.
    Passes,
    /// The kings faced each other twice in a row (`bikjangRule`: janggi):
    /// a draw, or decided by material counting.
    Bikjang,
    /// A side castled with a winning right, or lost its winning rights
    /// (`castlingWins`).
    Castling,
    /// The board is full (`adjudicateFullBoard`: reversi, ataxx): a draw,
    /// or decided by material counting.
    FullBoard,
    /// The side that just moved connected its pieces (`connectN`,
    /// `connectNxN`, `collinearN`, `connectRegion...`: tic-tac-toe),
    /// valued by `connectValue` for that side.
    Connect,
}

impl EndReason {
    /// The reason's identifier: `checkmate`, `stalemate`, `extinction`,
    /// `repetition`, `n_move_rule`, `counting`, `flag`, `checks`, `passes`,
    /// `bikjang`, `connect`, `full_board` or `castling`.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Extinction => "extinction",
            EndReason::Repetition => "repetition",
            EndReason::MoveRule => "n_move_rule",
            EndReason::Counting => "counting",
            EndReason::Flag => "flag",
            EndReason::Checks => "checks",
            EndReason::Passes => "passes",
            EndReason::Bikjang => "bikjang",
            EndReason::Connect => "connect",
            EndReason::FullBoard => "full_board",
            EndReason::Castling => "castling",
        }
    }
}

/// The result of an ended game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// White wins.
    WhiteWins,
    /// Black wins.
    BlackWins,
    /// Draw.
    Draw,
}

/// How the game has ended in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The rule that ended it.
    pub reason: EndReason,
    /// The result the variant gives that ending.
    pub result: GameResult,
    /// The side the rule's value applies to (the checkmated, stalemated or
    /// extinct side): `true` for White.
    pub white_ended: bool,
}

impl Outcome {
    /// The outcome of `reason` valued `value` for the side it applies to
    /// (`None` when the value is [`GameValue::None`]).
    fn valued(reason: EndReason, value: GameValue, white_ended: bool) -> Option<Outcome> {
        let result = match value {
            GameValue::Win if white_ended => GameResult::WhiteWins,
            GameValue::Win => GameResult::BlackWins,
            GameValue::Loss if white_ended => GameResult::BlackWins,
            GameValue::Loss => GameResult::WhiteWins,
            GameValue::Draw => GameResult::Draw,
            GameValue::None => return None,
        };
        Some(Outcome { reason, result, white_ended })
    }
}

/// A move of a [`Position`]; castling is stored as the king moving to its
/// rook's square. Use [`Position::move_text`] for its notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    kind: Kind,
    promo: u8,
    gate: u8,
    gate_sq: u8,
    /// The square walled by the move (`wallingRule`), or `NONE`.
    wall: u8,
}

impl Move {
    fn new(from: u8, to: u8, kind: Kind) -> Move {
        Move { from, to, kind, promo: NONE, gate: NONE, gate_sq: NONE, wall: NONE }
    }

    /// A Pioneer placement of reserve pieces of type `piece` on the files of
    /// `mask` (bit 0 = the a-file), kept in `from` (low 7 bits) and `to`.
    fn place(piece: u8, mask: u16) -> Move {
        Move {
            from: (mask & 0x7F) as u8,
            to: (mask >> 7) as u8,
            kind: Kind::Place,
            promo: NONE,
            gate: piece,
            gate_sq: NONE,
            wall: NONE,
        }
    }

    /// A drop of a piece of type `t` from the hand on `sq`.
    #[inline(always)]
    fn drop(t: u8, sq: u8) -> Move {
        Move { from: sq, to: sq, kind: Kind::Drop, promo: NONE, gate: t, gate_sq: NONE, wall: NONE }
    }

    /// The files of a placement.
    fn place_mask(self) -> u16 {
        u16::from(self.from) | u16::from(self.to) << 7
    }

    /// Whether the move is a Pioneer prelude action (`accept`, `decline`,
    /// a placement such as `A@g`): it moves no piece, and its squares
    /// ([`Move::from_square`], [`Move::to_square`]) mean nothing.
    pub fn is_prelude(self) -> bool {
        matches!(self.kind, Kind::Accept | Kind::Decline | Kind::Place)
    }
}

/// The plain state of a position, without its variant. It has no
/// `PartialEq`: play leaves fields behind that no rule reads (see
/// [`State::same_position`]), so compare through that.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    board: [u8; 120],
    by_color: [u128; 2],
    by_type: [u128; MAX_TYPES],
    side: u8,
    rights: u8,
    castle_rook: [u8; 4],
    castle_king: [u8; 2],
    /// Squares that must be empty for each castling right.
    castle_path: [u128; 4],
    ep: u128,
    /// Wall squares (`*` in a FEN): occupied by no piece, entered by none,
    /// and blocking lines like a piece.
    walls: u128,
    hand: [[u8; MAX_TYPES]; 2],
    gates: [u128; 2],
    rule50: u32,
    fullmove: u32,
    /// Counting rules: the limit in plies (0 = not counting) and the plies counted.
    counting_limit: u32,
    counting_ply: u32,
    /// Pioneer gating: the prelude's decision is pending (`?`). The
    /// reserve pieces not yet placed are in `hand`, the live gates' home
    /// squares in `gates`.
    pending: bool,
    /// The FEN had a reserve bracket (a Pioneer-gating FEN without one is
    /// written back without one).
    bracket: bool,
    /// Check counting: the checks each side has still to give to win.
    checks: [u8; 2],
    /// Drops with demotion: the squares of promoted pieces (`~` in a FEN),
    /// which go to hand as pawns when captured; with shogi-style
    /// promotions, also the pieces promoted from a type in `origin`.
    promoted: u128,
    /// Shogi-style promotions: per promoted square, its type before the
    /// promotion plus one, bit-sliced (bit k of the value in plane k; 0:
    /// none, a `~` piece).
    origin: [u128; 5],
    /// The move to here dropped a shogi pawn (`shogiPawnDropMateIllegal`).
    pawn_drop: bool,
    /// The passes just made in a row (`pass`; two end the game).
    passes: u8,
    /// The position before the last move was bikjang (`bikjangRule`).
    bikjang_before: bool,
    /// The castling right (bit, K Q k q) the last move castled by, or 0.
    castled: u8,
    /// Shatar's mate rule: per side, whether the series of checks it is
    /// under (each of its positions in check since the last one that was
    /// not) holds a check by a knight, rook or bers.
    shak: [bool; 2],
}

/// Most pieces of one side in a [`ReachCache`] (the others are generated as usual).
const CACHED: usize = 40;

/// The capture reach of one piece and the squares whose occupancy it depends on.
#[derive(Clone, Copy)]
struct Cached {
    from: u8,
    t: u8,
    bit: u128,
    reach: u128,
    dep: u128,
}

/// The capture reach of the pieces (but pawns, and pieces whose quiet moves
/// differ) of the side not to move, shared by the positions after each move.
struct ReachCache {
    entries: [Cached; CACHED],
    len: usize,
    /// The squares of the pieces in `entries`.
    squares: u128,
}

/// Whether the lowest (`ascending`) or highest square of `x` is in `set`.
#[inline(always)]
fn first_in(x: u128, set: u128, ascending: bool) -> bool {
    if ascending { x & x.wrapping_neg() & set != 0 } else { (x & set).leading_zeros() == x.leading_zeros() }
}

#[inline]
fn bits(mut b: u128) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let s = b.trailing_zeros() as u8;
            b &= b - 1;
            Some(s)
        }
    })
}

#[inline]
fn bb(s: u8) -> u128 {
    1u128 << s
}

impl State {
    fn empty() -> State {
        State {
            board: [EMPTY; 120],
            by_color: [0; 2],
            by_type: [0; MAX_TYPES],
            side: 0,
            rights: 0,
            castle_rook: [NONE; 4],
            castle_king: [NONE; 2],
            castle_path: [0; 4],
            ep: 0,
            walls: 0,
            hand: [[0; MAX_TYPES]; 2],
            gates: [0; 2],
            rule50: 0,
            fullmove: 1,
            counting_limit: 0,
            counting_ply: 0,
            pending: false,
            bracket: false,
            checks: [0; 2],
            promoted: 0,
            origin: [0; 5],
            pawn_drop: false,
            passes: 0,
            bikjang_before: false,
            castled: 0,
            shak: [false; 2],
        }
    }

    /// The type a promoted piece on `sq` had before its shogi-style promotion.
    fn origin_of(&self, sq: u8) -> Option<u8> {
        let v = (0..5).fold(0u8, |v, k| v | (((self.origin[k] >> sq) & 1) as u8) << k);
        v.checked_sub(1)
    }

    /// Sets (or with `None` clears) the origin of the piece on `sq`.
    fn set_origin(origin: &mut [u128; 5], sq: u8, t: Option<u8>) {
        let v = t.map_or(0, |t| t + 1);
        for (k, plane) in origin.iter_mut().enumerate() {
            if v >> k & 1 != 0 {
                *plane |= bb(sq);
            } else {
                *plane &= !bb(sq);
            }
        }
    }

    #[inline(always)]
    fn occ(&self) -> u128 {
        self.by_color[0] | self.by_color[1] | self.walls
    }

    #[inline(always)]
    fn put(&mut self, sq: u8, t: u8, c: u8) {
        self.board[sq as usize] = t << 1 | c;
        self.by_color[c as usize] |= bb(sq);
        self.by_type[t as usize] |= bb(sq);
    }

    #[inline(always)]
    fn remove(&mut self, sq: u8) {
        let p = self.board[sq as usize];
        if p != EMPTY {
            self.by_color[(p & 1) as usize] &= !bb(sq);
            self.by_type[(p >> 1) as usize] &= !bb(sq);
            self.board[sq as usize] = EMPTY;
        }
    }

    fn hand_count(&self, c: u8) -> u32 {
        self.hand[c as usize].iter().map(|&n| n as u32).sum()
    }

    /// The rook square and the squares to cross of castling right `cr`,
    /// if the right is held (play keeps them after the right is lost, a
    /// FEN does not).
    fn castling_right(&self, cr: usize) -> Option<(u8, u128)> {
        (self.rights >> cr & 1 != 0).then(|| (self.castle_rook[cr], self.castle_path[cr]))
    }

    /// The castling king's square of side `c`, if `c` holds a castling right.
    fn castling_king(&self, c: u8) -> Option<u8> {
        (self.rights >> (2 * c) & 3 != 0).then(|| self.castle_king[c as usize])
    }

    /// The gating squares of side `c` that can still be used: none without
    /// gating, nor in S-chess once `c` has nothing left in hand (a FEN
    /// leaves them out then, and play clears them).
    fn usable_gates(&self, d: &VariantDef, c: u8) -> u128 {
        if d.pioneer.is_some() {
            return self.gates[c as usize];
        }
        if d.gating && self.gates_live(d, c) { self.gates[c as usize] } else { 0 }
    }

    /// Whether side `c`'s gates stay in force: in S-chess only while it
    /// has pieces in hand, unless captures may refill the hand (S-house).
    fn gates_live(&self, d: &VariantDef, c: u8) -> bool {
        !d.seirawan_gating || self.hand_count(c) > 0 || d.drops.as_ref().is_some_and(|dr| dr.to_hand)
    }

    /// Whether the side to move may gate a piece of type `t` from its hand
    /// on `sq` (S-chess): it has one, and with drops the type may be
    /// dropped there (not a pawn on the first rank).
    #[inline(always)]
    fn may_gate(&self, d: &VariantDef, t: usize, sq: u8) -> bool {
        let us = self.side as usize;
        self.hand[us][t] > 0
            && d.drops.as_ref().is_none_or(|dr| {
                let region = if Some(t as u8) == d.pawn { dr.pawn_region[us] } else { dr.region[us] };
                region >> sq & 1 != 0
            })
    }

    /// Whether the Pioneer prelude (the decision, or a side's placement)
    /// is under way: only prelude actions are moves then.
    #[inline(always)]
    fn in_prelude(&self, d: &VariantDef) -> bool {
        match d.pioneer {
            Some(p) => self.pending || self.hand[0][p.piece as usize] | self.hand[1][p.piece as usize] != 0,
            None => false,
        }
    }

    /// The squares of the side to move's live Pioneer gates among `squares`.
    #[inline(always)]
    fn live_gates(&self, d: &VariantDef, squares: u128) -> u128 {
        if d.pioneer.is_some() { self.gates[self.side as usize] & squares } else { 0 }
    }

    /// The Pioneer prelude's actions: accept or decline while the decision
    /// is pending, else the placements of the side to move. None in check
    /// (they move nothing, so the king would stay attacked).
    #[cold]
    #[inline(never)]
    fn prelude_moves(&self, d: &VariantDef, out: &mut Vec<Move>) {
        let Some(p) = d.pioneer else { return };
        if self.in_check(d) {
            return;
        }
        if self.pending {
            out.push(Move::new(0, 0, Kind::Accept));
            out.push(Move::new(0, 0, Kind::Decline));
            return;
        }
        let us = self.side as usize;
        if self.hand[us][p.piece as usize] == 0 {
            return;
        }
        let home = rank_mask(d, home_rank(d, self.side));
        let kidnappers = d.kidnap.map_or(0, |k| self.by_type[k.piece as usize]);
        let usable = files_of(d, self.by_color[us] & home & !kidnappers);
        let white = files_of(d, self.gates[0]);
        for mask in 1u16..(1 << d.files) {
            if mask.count_ones() != u32::from(p.count)
                || mask & !usable != 0
                || !self.gate_files_allowed(d, &p, us as u8, mask)
            {
                continue;
            }
            if p.same_file && us == 1 && mask != white {
                continue;
            }
            out.push(Move::place(p.piece, mask));
        }
    }

    /// Whether side `c` may hold gates on the files of `mask` together: not
    /// the castling king's file with a castling rook's file (one castling
    /// would open two gates). Chess960 forms take the files from the
    /// position's castling rights, the others from the definition.
    fn gate_files_allowed(&self, d: &VariantDef, p: &Pioneer, c: u8, mask: u16) -> bool {
        if !d.chess960 {
            return p.allows_files(mask);
        }
        let Some(king) = self.castling_king(c) else { return true };
        if mask >> (king % d.files) & 1 == 0 {
            return true;
        }
        (0..2).all(|i| {
            let cr = 2 * c as usize + i;
            self.rights >> cr & 1 == 0 || mask >> (self.castle_rook[cr] % d.files) & 1 == 0
        })
    }

    /// Plays a Pioneer prelude action into `n` (a copy of `self`): the
    /// clocks stay, after an acceptance White places first, and after
    /// Black's decline (White having declined) the reserve is gone.
    #[cold]
    #[inline(never)]
    fn play_prelude(&self, d: &VariantDef, m: Move, n: &mut State) {
        let Some(p) = d.pioneer else { return };
        let us = self.side;
        n.side = us ^ 1;
        match m.kind {
            Kind::Accept => {
                n.pending = false;
                n.side = 0;
            }
            Kind::Decline if us == 1 => {
                n.pending = false;
                for c in 0..2 {
                    n.hand[c][p.piece as usize] = 0;
                    n.gates[c] = 0;
                }
            }
            Kind::Decline => {}
            _ => {
                n.hand[us as usize][p.piece as usize] = 0;
                let rank = home_rank(d, us);
                let mask = m.place_mask();
                n.gates[us as usize] =
                    (0..d.files).filter(|f| mask >> f & 1 != 0).fold(0, |b, f| b | bb(d.sq(f, rank)));
            }
        }
    }

    /// Whether `self` and `other` are the same position of `d` for the
    /// rules and for repetition: the pieces, the side to move, the castling
    /// rights (with their king, rook and path), the en passant squares, the
    /// pieces in hand and the usable gating squares. Not the move counters,
    /// nor what play leaves behind that no rule reads (the squares of
    /// castling rights already lost, the gates of an empty hand).
    pub(crate) fn same_position(&self, other: &State, d: &VariantDef) -> bool {
        self.same_but_gates(other) && (0..2).all(|c| self.usable_gates(d, c) == other.usable_gates(d, c))
    }

    /// Whether `self` repeats `other` for the n-fold rule: the same
    /// position ([`State::same_position`]) but for the gating squares of
    /// Fairy-Stockfish's `gating` (S-chess's, Cambodian chess's), which its
    /// position key, and so its repetition rule, leaves out: a knight or
    /// king back on its square repeats the position from before it left.
    /// Pioneer gating's gates still count.
    pub(crate) fn repeats(&self, other: &State, d: &VariantDef) -> bool {
        self.same_but_gates(other) && (d.pioneer.is_none() || self.gates == other.gates)
    }

    /// [`State::same_position`] without the gating squares.
    fn same_but_gates(&self, other: &State) -> bool {
        self.board == other.board
            && self.side == other.side
            && self.rights == other.rights
            && (0..4).all(|cr| self.castling_right(cr) == other.castling_right(cr))
            && (0..2).all(|c| self.castling_king(c) == other.castling_king(c))
            && self.ep == other.ep
            && self.walls == other.walls
            && self.hand == other.hand
            && self.pending == other.pending
            && self.checks == other.checks
            && self.promoted == other.promoted
            && self.origin == other.origin
    }

    /// Whether the move counters of `self` and `other` agree as far as the
    /// rules of `d` read them: the full-move number, the counting rule's
    /// limit and plies, and the halfmove clock, except while a counting
    /// rule counts in a variant without an n-move rule (the FEN then
    /// carries the counted plies instead, and nothing reads the clock).
    fn same_counters(&self, other: &State, d: &VariantDef) -> bool {
        let clock_read = |s: &State| s.counting_limit == 0 || d.game_end.n_move_rule > 0;
        let clock = |s: &State| clock_read(s).then_some(s.rule50);
        self.fullmove == other.fullmove
            && self.counting_limit == other.counting_limit
            && self.counting_ply == other.counting_ply
            && clock(self) == clock(other)
    }

    #[inline(always)]
    fn king_sq(&self, d: &VariantDef, c: u8) -> Option<u8> {
        let k = d.king?;
        let b = self.by_type[k as usize] & self.by_color[c as usize];
        (b != 0).then(|| b.trailing_zeros() as u8)
    }

    /// The pieces giving check to the side to move's king (none without a king).
    fn checkers(&self, d: &VariantDef) -> u128 {
        let Some(k) = self.king_sq(d, self.side) else { return 0 };
        let them = self.side ^ 1;
        let occ = self.occ();
        bits(self.by_color[them as usize])
            .filter(|&sq| d.reach(self.board[sq as usize] >> 1, them, sq, occ, true, &self.by_type) >> k & 1 != 0)
            .fold(0, |b, sq| b | bb(sq))
    }

    /// Whether one of the pieces on `squares` is of a type of `types` (bit per type).
    fn of_types(&self, squares: u128, types: u32) -> bool {
        bits(squares).any(|sq| types >> (self.board[sq as usize] >> 1) & 1 != 0)
    }

    /// Is `sq` attacked by a piece of colour `by` (not on `exclude`) given `occ`?
    #[inline(always)]
    fn attacked(&self, d: &VariantDef, sq: u8, occ: u128, by: u8, exclude: u128) -> bool {
        self.attacked_by_lines(d, sq, occ, by, exclude, 0xFF) || self.attacked_by_leaps(d, sq, by, exclude)
    }

    /// Is `sq` attacked by a plain leap of a simple piece type (one whose
    /// captures are leaps and slides only)?
    #[inline(always)]
    fn attacked_by_leaps(&self, d: &VariantDef, sq: u8, by: u8, exclude: u128) -> bool {
        let enemies = self.by_color[by as usize] & !exclude;
        let mut types = d.leap_attackers[by as usize];
        while types != 0 {
            let t = types.trailing_zeros() as usize;
            types &= types - 1;
            let ps = self.by_type[t] & enemies;
            if ps != 0 && d.table(t as u8, by ^ 1, sq).capture.leaps & ps != 0 {
                return true;
            }
        }
        false
    }

    /// Is `sq` attacked by a slide of a simple piece type or by any move of
    /// the other types? Together with [`State::attacked_by_leaps`] this is
    /// every attack; alone it is every attack that a change of occupancy
    /// can create. Slides and hops are looked for in the directions `dirs`
    /// (bits of [`crate::variant::DIRS`]) only.
    #[inline(always)]
    fn attacked_by_lines(&self, d: &VariantDef, sq: u8, occ: u128, by: u8, exclude: u128, dirs: u8) -> bool {
        let enemies = self.by_color[by as usize] & !exclude;
        let rays = &d.dir_rays[sq as usize];
        let sliders = &d.slide_attackers[by as usize];
        let hoppers = &d.hop_attackers[by as usize];
        let mut todo = dirs;
        while todo != 0 {
            let dir = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let (slide, hop) = (sliders[dir], hoppers[dir]);
            if slide | hop == 0 {
                continue;
            }
            let ray = rays[dir];
            let x = ray & occ;
            if x == 0 {
                continue;
            }
            let p = if dir < 4 { x.trailing_zeros() } else { 127 - x.leading_zeros() };
            if slide != 0 && first_in(x, enemies, dir < 4) {
                let t = self.board[p as usize] >> 1;
                if slide >> t & 1 != 0 && d.table(t, by, p as u8).capture.slides >> opposite(dir) & 1 != 0 {
                    return true;
                }
            }
            // A grasshopper attacks over a hurdle right next to the target.
            if hop != 0 {
                let next = if dir < 4 { ray & ray.wrapping_neg() } else { 1u128 << (127 - ray.leading_zeros()) };
                if x & next == 0 {
                    continue;
                }
                let y = x & !next;
                if y == 0 {
                    continue;
                }
                let p = if dir < 4 { y.trailing_zeros() } else { 127 - y.leading_zeros() };
                if first_in(y, enemies, dir < 4) {
                    let t = self.board[p as usize] >> 1;
                    if hop >> t & 1 != 0 && d.table(t, by, p as u8).capture.hops >> opposite(dir) & 1 != 0 {
                        return true;
                    }
                }
            }
        }
        let n = d.types.len();
        let mut types = !d.simple_attackers[by as usize] & ((1u32 << n) - 1);
        while types != 0 {
            let t = types.trailing_zeros() as usize;
            types &= types - 1;
            let ps = self.by_type[t] & enemies;
            if ps != 0 && d.attacks_to(t as u8, by, sq, occ, ps, &self.by_type) {
                return true;
            }
        }
        false
    }

    fn in_check(&self, d: &VariantDef) -> bool {
        let king = self.king_sq(d, self.side).is_some_and(|k| self.attacked(d, k, self.occ(), self.side ^ 1, 0));
        king || (d.pseudo_royal.is_some() && self.pseudo_royal_checked(d))
    }

    /// Fairy-Stockfish's immediate game end by extinction: the colour that
    /// is extinct, if one is.
    fn extinct(&self, d: &VariantDef) -> Option<u8> {
        let (set, count, opp, claim) = d.extinction?;
        let us = self.side;
        // The pieces of colour `c` of the types `types` (bit per type; all with `None`).
        let count_of = |c: u8, types: Option<u32>| -> u32 {
            match types {
                None => self.by_color[c as usize].count_ones() + self.hand_count(c),
                Some(m) => bits(u128::from(m))
                    .map(|t| {
                        (self.by_type[t as usize] & self.by_color[c as usize]).count_ones()
                            + u32::from(self.hand[c as usize][t as usize])
                    })
                    .sum(),
            }
        };
        let extinct = |c: u8, types: Option<u32>| {
            count_of(c, types) <= count && count_of(c ^ 1, types) >= opp + u32::from(claim && c == us)
        };
        if d.extinction_together {
            // Camel and Rhino Chess: the side to move first.
            return [us, us ^ 1].into_iter().find(|&c| extinct(c, set));
        }
        for c in [us ^ 1, us] {
            let gone = match set {
                None => extinct(c, None),
                Some(m) => bits(u128::from(m)).any(|t| extinct(c, Some(1 << t))),
            };
            if gone {
                return Some(c);
            }
        }
        None
    }

    /// Whether the game has ended at once (extinction, a flag, checks).
    #[inline(always)]
    fn game_over(&self, d: &VariantDef) -> bool {
        d.immediate_end && self.ended_at_once(d).is_some()
    }

    /// Fairy-Stockfish's immediate game ends, in its order: extinction,
    /// flags, check counting; with the rule's value for the side it
    /// applies to (`true`: White).
    pub(crate) fn ended_at_once(&self, d: &VariantDef) -> Option<(EndReason, GameValue, bool)> {
        // Pseudo-royal pieces are mated, not made extinct (unless captures blast).
        if d.extinction.is_some() && (d.pseudo_royal.is_none() || d.blast.is_some()) {
            if let Some(c) = self.extinct(d) {
                return Some((EndReason::Extinction, d.game_end.extinction_value, c == 0));
            }
        }
        let us = self.side;
        let white = us == 0;
        if let Some(f) = &d.flag {
            if let Some(value) = self.flag_end(d, f) {
                return Some((EndReason::Flag, value, white));
            }
        }
        if d.castling_wins != 0 {
            // `castlingWins`: castling by a winning right wins; losing all
            // of one's winning rights loses (the opponent's looked at first).
            if self.castled & d.castling_wins != 0 {
                return Some((EndReason::Castling, GameValue::Loss, white));
            }
            for c in [us ^ 1, us] {
                let mine = d.castling_wins & (3 << (2 * c));
                if mine != 0 && mine & self.rights == 0 {
                    let value = if c == us { GameValue::Loss } else { GameValue::Win };
                    return Some((EndReason::Castling, value, white));
                }
            }
        }
        if d.check_counting && self.checks[(us ^ 1) as usize] == 0 {
            return Some((EndReason::Checks, GameValue::Loss, white));
        }
        if let Some(c) = &d.connect {
            if self.connected(d, c) {
                return Some((EndReason::Connect, c.value, !white));
            }
        }
        if self.passes >= 2 {
            return Some((EndReason::Passes, self.undecided(d), white));
        }
        if self.bikjang_before && self.is_bikjang(d) {
            return Some((EndReason::Bikjang, self.undecided(d), white));
        }
        if d.full_board && d.board & !self.occ() == 0 {
            return Some((EndReason::FullBoard, self.undecided(d), white));
        }
        None
    }

    /// Whether the side that has just moved has connected its pieces, by
    /// Fairy-Stockfish's rules: rows along the directions east, north,
    /// north-east and south-east that count; squares; lines with gaps;
    /// chains grown from the first region along those same directions only.
    fn connected(&self, d: &VariantDef, c: &crate::variant::Connect) -> bool {
        let mover = (self.side ^ 1) as usize;
        let mut pieces = self.by_color[mover];
        if let Some(types) = c.pieces {
            pieces &= bits(u128::from(types)).fold(0, |b, t| b | self.by_type[t as usize]);
        }
        if pieces == 0 {
            return false;
        }
        let f = d.files as u32;
        let not_last = !d.last_file;
        let east = |b: u128| (b & not_last) << 1;
        let north = |b: u128| (b << f) & d.board;
        let north_east = |b: u128| ((b & not_last) << (f + 1)) & d.board;
        let south_east = |b: u128| (b & not_last) >> (f - 1);
        let south = |b: u128| b >> f;
        // The directions that count, with their index in DIRS (E, N, NE, SE).
        let mut dirs: Vec<(&dyn Fn(u128) -> u128, usize)> = Vec::with_capacity(4);
        if c.directions[0] {
            dirs.push((&east, 1));
        }
        if c.directions[1] {
            dirs.push((&north, 0));
        }
        if c.directions[2] {
            dirs.push((&north_east, 2));
            dirs.push((&south_east, 7));
        }
        if c.n > 0 {
            for (shift, _) in &dirs {
                let mut b = pieces;
                for _ in 1..c.n {
                    b &= shift(b);
                }
                if b != 0 {
                    return true;
                }
            }
        }
        let [first, second] = c.region[mover];
        if first & pieces != 0 && second & pieces != 0 {
            let mut current = first & pieces;
            loop {
                let mut grown = 0;
                for (shift, _) in &dirs {
                    grown |= shift(current | grown) & pieces;
                }
                if grown & second != 0 {
                    return true;
                }
                if grown & !current == 0 {
                    break;
                }
                current |= grown;
            }
        }
        if c.nxn > 0 {
            let mut b = pieces;
            for _ in 1..c.nxn {
                b &= south(b) & east(b) & south_east(b);
            }
            if b != 0 {
                return true;
            }
        }
        if c.collinear > 0 {
            for &(_, dir) in &dirs {
                for sq in bits(pieces) {
                    let line = d.dir_rays[sq as usize][dir] | d.dir_rays[sq as usize][opposite(dir)];
                    if 1 + (line & pieces).count_ones() >= c.collinear {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The value for the side to move of an end that would be drawn,
    /// under the variant's material counting.
    pub(crate) fn undecided(&self, d: &VariantDef) -> GameValue {
        use crate::ini::MaterialCounting as M;
        let white = match d.material_counting {
            M::None => return GameValue::Draw,
            M::WhiteDrawOdds => 1,
            M::BlackDrawOdds => -1,
            M::Unweighted => self.by_color[0].count_ones() as i32 - self.by_color[1].count_ones() as i32,
            M::Janggi => {
                let mut points = -1;
                for (t, ty) in d.types.iter().enumerate() {
                    let weight = match ty.fsf {
                        crate::ini::ROOK_INDEX => 13,
                        crate::ini::JANGGI_CANNON_INDEX => 7,
                        crate::ini::HORSE_INDEX => 5,
                        crate::ini::JANGGI_ELEPHANT_INDEX | crate::ini::WAZIR_INDEX => 3,
                        crate::ini::SOLDIER_INDEX => 2,
                        _ => 0,
                    };
                    let count = |c: usize| (self.by_type[t] & self.by_color[c]).count_ones() as i32;
                    points += weight * (count(0) - count(1));
                }
                if points > 0 { 1 } else { -1 }
            }
        };
        let ours = if self.side == 0 { white } else { -white };
        match ours.signum() {
            1 => GameValue::Win,
            -1 => GameValue::Loss,
            _ => GameValue::Draw,
        }
    }

    /// Whether the kings face each other on an open rank or file, under
    /// the bikjang rule.
    fn is_bikjang(&self, d: &VariantDef) -> bool {
        if !d.xiangqi.as_ref().is_some_and(|x| x.bikjang) {
            return false;
        }
        let (Some(k), Some(e)) = (self.king_sq(d, 0), self.king_sq(d, 1)) else { return false };
        // On one rank or file, nothing between.
        d.dir_bit(k, e) & ORTHOGONAL != 0 && d.between(k, e) & self.occ() == bb(e)
    }

    /// Whether side `c`'s flag is reached, as Fairy-Stockfish's
    /// `flag_reached`.
    fn flag_reached(&self, d: &VariantDef, f: &Flag, c: u8) -> bool {
        let own = self.by_color[c as usize];
        let pieces = match f.piece[c as usize] {
            None => own,
            Some(types) => bits(u128::from(types)).fold(0, |b, t| b | self.by_type[t as usize]) & own,
        };
        let region = f.region[c as usize];
        let there = region & pieces;
        if there == 0 {
            return false;
        }
        let n = there.count_ones();
        let reached = n >= f.count || (f.blocked_win && f.on_board[c as usize] && region & !self.occ() == 0);
        // With flagPieceSafe, at exactly the count every flag piece there
        // must be unattacked (with flagMove, only for the side not to move).
        if reached && f.safe && (!f.flag_move || c != self.side) && n == f.count {
            let occ = self.occ();
            if bits(there).any(|sq| self.attacked(d, sq, occ, c ^ 1, 0)) {
                return false;
            }
        }
        reached
    }

    /// The flag rule's value for the side to move, if it ends the game
    /// (Fairy-Stockfish's `is_immediate_game_end`, "capture the flag").
    fn flag_end(&self, d: &VariantDef, f: &Flag) -> Option<GameValue> {
        let us = self.side;
        let them = us ^ 1;
        // Reached a move ago, and the opponent's extra move did not
        // reach theirs (racing kings: White's king first and Black's
        // after it is a draw).
        if (f.flag_move || f.safe) && self.flag_reached(d, f, us) {
            let draw = ((f.flag_move && us == 0 && f.king[them as usize]) || (f.safe && !f.flag_move))
                && self.flag_reached(d, f, them);
            return Some(if draw { GameValue::Draw } else { GameValue::Win });
        }
        if (!f.flag_move || f.safe || f.king[us as usize]) && self.flag_reached(d, f, them) {
            // Black's king may still draw by reaching its region at once.
            if f.flag_move && f.king[us as usize] && us == 1 && !self.in_check(d) {
                let kings = d.types.iter().position(|t| t.royal).map_or(0, |k| self.by_type[k] & self.by_color[1]);
                if kings != 0 {
                    let mut moves = Vec::new();
                    self.legal_moves_unended(d, &mut moves);
                    let region = f.region[1];
                    if moves.iter().any(|m| kings >> m.from & 1 != 0 && region >> m.to & 1 != 0) {
                        return None;
                    }
                }
            }
            return Some(GameValue::Loss);
        }
        None
    }

    fn castle_squares(&self, d: &VariantDef, cr: usize) -> (u8, u8, u8, u8) {
        let c = (cr / 2) as u8;
        let kfrom = self.castle_king[c as usize];
        let rfrom = self.castle_rook[cr];
        let kingside = kfrom < rfrom;
        let rank = d.castling_rank[c as usize];
        let kto = d.sq(if kingside { d.castling_kingside_file } else { d.castling_queenside_file }, rank);
        let rto = if kingside { kto - 1 } else { kto + 1 };
        (kfrom, rfrom, kto, rto)
    }

    fn compute_castle_path(&self, d: &VariantDef, cr: usize) -> u128 {
        let (kfrom, rfrom, kto, rto) = self.castle_squares(d, cr);
        (between(rfrom, rto) | between(kfrom, kto)) & !(bb(kfrom) | bb(rfrom))
    }

    #[inline(always)]
    fn push(&self, d: &VariantDef, out: &mut Vec<Move>, m: Move) {
        out.push(m);
        if d.seirawan_gating {
            let us = self.side as usize;
            let gate_from = self.gates[us] >> m.from & 1 != 0;
            let gate_to = m.kind == Kind::Castling && self.gates[us] >> m.to & 1 != 0;
            for (gsq, ok) in [(m.from, gate_from), (m.to, gate_to)] {
                if ok {
                    for t in 0..d.types.len() {
                        if self.may_gate(d, t, gsq) {
                            out.push(Move { gate: t as u8, gate_sq: gsq, ..m });
                        }
                    }
                }
            }
        }
    }

    /// Whether the side to move may promote a piece to type `pt`: fewer of
    /// its pieces of that type stand on the board than `promotionLimit`
    /// allows (always, without a limit).
    #[inline(always)]
    pub(crate) fn may_promote_to(&self, d: &VariantDef, pt: u8) -> bool {
        let Some(limit) = &d.promotion_limit else { return true };
        let n = limit[pt as usize];
        n == 0 || (self.by_type[pt as usize] & self.by_color[self.side as usize]).count_ones() < n
    }

    /// The number of promotion choices of the side to move's pawns.
    #[inline(always)]
    fn promotion_choices(&self, d: &VariantDef) -> u64 {
        let types = &d.promotion_types[self.side as usize];
        match d.promotion_limit {
            None => types.len() as u64,
            Some(_) => types.iter().filter(|&&pt| self.may_promote_to(d, pt)).count() as u64,
        }
    }

    #[inline(always)]
    fn push_promotions(&self, d: &VariantDef, out: &mut Vec<Move>, from: u8, to: u8) {
        for &pt in &d.promotion_types[self.side as usize] {
            if self.may_promote_to(d, pt) {
                self.push(d, out, Move { promo: pt, ..Move::new(from, to, Kind::Promotion) });
            }
        }
    }

    /// The moves of a pawn from `from` to each square of `targets` (which
    /// lies `back` squares ahead of it; negative for Black).
    #[inline(always)]
    fn pawn_targets(&self, d: &VariantDef, out: &mut Vec<Move>, targets: u128, back: i32) {
        let zone = d.promotion_zone[self.side as usize];
        if targets & zone != 0 {
            self.pawn_promotions(d, out, targets & zone, back);
        }
        for to in bits(targets & !zone) {
            self.pawn_target(d, out, (to as i32 - back) as u8, to, false);
        }
    }

    /// [`State::pawn_targets`] in the promotion zone.
    #[cold]
    #[inline(never)]
    fn pawn_promotions(&self, d: &VariantDef, out: &mut Vec<Move>, targets: u128, back: i32) {
        for to in bits(targets) {
            self.pawn_target(d, out, (to as i32 - back) as u8, to, true);
        }
    }

    /// The moves of a pawn from `from` to `to`, in the promotion zone or not.
    #[inline(always)]
    fn pawn_target(&self, d: &VariantDef, out: &mut Vec<Move>, from: u8, to: u8, promotes: bool) {
        if promotes {
            self.push_promotions(d, out, from, to);
            if let Some(pt) = d.pawn.and_then(|p| d.promoted_type[p as usize]) {
                // Also promotes shogi-style (wolf chess's pawn to elephant),
                // under `piecePromotionOnCapture` only when capturing.
                if !d.promotion_on_capture || self.board[to as usize] != EMPTY {
                    self.push(d, out, Move { promo: pt, ..Move::new(from, to, Kind::PiecePromotion) });
                }
            }
            if d.mandatory_pawn_promotion {
                return;
            }
        }
        if d.shogi && d.immobile[self.side as usize][d.pawn.unwrap_or(0) as usize] >> to & 1 != 0 {
            return;
        }
        self.push(d, out, Move::new(from, to, Kind::Normal));
    }

    /// Pawn pushes, double steps, captures and en passant captures, all pawns at once.
    #[inline(always)]
    fn pawn_moves(&self, d: &VariantDef, out: &mut Vec<Move>, pawns: u128) {
        let us = self.side;
        let occ = self.occ();
        let empty = !occ & d.board;
        let enemy = self.by_color[(us ^ 1) as usize];
        let f = d.files as u32;
        // Shift towards the opponent by `n` squares (negative n: backwards).
        let fwd = |b: u128, n: i32| -> u128 {
            let n = if us == 0 { n } else { -n };
            if n >= 0 { b << n as u32 } else { b >> (-n) as u32 }
        };
        let single = fwd(pawns, f as i32) & empty;
        let double = fwd(fwd(pawns & d.double_step_region[us as usize], f as i32) & empty, f as i32) & empty;
        self.pawn_targets(d, out, single, fwd_delta(us, f as i32));
        self.pawn_targets(d, out, double, 2 * fwd_delta(us, f as i32));
        let triple_from = pawns & d.triple_step_region[us as usize];
        if triple_from != 0 {
            let triple = fwd(fwd(fwd(triple_from, f as i32) & empty, f as i32) & empty, f as i32) & empty;
            self.pawn_targets(d, out, triple, 3 * fwd_delta(us, f as i32));
        }
        // Captures towards the h-file side (+1 file) and the a-file side (-1 file).
        let right = if us == 0 { f as i32 + 1 } else { f as i32 - 1 };
        let left = if us == 0 { f as i32 - 1 } else { f as i32 + 1 };
        for (mask, delta) in [(!d.last_file, right), (!d.first_file, left)] {
            let targets = fwd(pawns & mask, delta) & d.board;
            let signed = if us == 0 { delta } else { -delta };
            self.pawn_targets(d, out, targets & enemy, signed);
            for to in bits(targets & self.ep & !occ) {
                self.push(d, out, Move::new((to as i32 - signed) as u8, to, Kind::EnPassant));
            }
        }
    }

    /// Counts the pawn moves that need no legality test (none starts or ends
    /// on a `sens` square) and lists the others in `buf`. No pawn may stand
    /// on a gate.
    #[inline(always)]
    fn count_pawn_moves(&self, d: &VariantDef, buf: &mut Vec<Move>, pawns: u128, sens: u128) -> u64 {
        let us = self.side;
        let occ = self.occ();
        let empty = !occ & d.board;
        let enemy = self.by_color[(us ^ 1) as usize];
        let f = d.files as i32;
        // Shift towards the opponent by `n` > 0 squares.
        let shift = |b: u128, n: i32| -> u128 { if us == 0 { b << n as u32 } else { b >> n as u32 } };
        let zone = d.promotion_zone[us as usize];
        let promotions = self.promotion_choices(d);
        let single = shift(pawns, f) & empty;
        let double = shift(shift(pawns & d.double_step_region[us as usize], f) & empty, f) & empty;
        let triple = shift(shift(shift(pawns & d.triple_step_region[us as usize], f) & empty, f) & empty, f) & empty;
        let right = shift(pawns & !d.last_file, if us == 0 { f + 1 } else { f - 1 }) & d.board & enemy;
        let left = shift(pawns & !d.first_file, if us == 0 { f - 1 } else { f + 1 }) & d.board & enemy;
        let mut count = 0u64;
        let right_delta = if us == 0 { f + 1 } else { f - 1 };
        let left_delta = if us == 0 { f - 1 } else { f + 1 };
        for (targets, delta) in
            [(single, f), (double, 2 * f), (triple, 3 * f), (right, right_delta), (left, left_delta)]
        {
            // Targets whose pawn starts or lands on a sensitive square.
            let slow = if sens == 0 { 0 } else { targets & (sens | shift(sens & pawns, delta)) };
            let quick = targets & !slow;
            let promo = quick & zone;
            let plain = if d.mandatory_pawn_promotion { quick & !zone } else { quick };
            count += plain.count_ones() as u64 + promo.count_ones() as u64 * promotions;
            let signed = if us == 0 { delta } else { -delta };
            for to in bits(slow) {
                self.pawn_target(d, buf, (to as i32 - signed) as u8, to, zone >> to & 1 != 0);
            }
        }
        // En passant captures always get the full test.
        if self.ep == 0 {
            return count;
        }
        let right_ep = shift(pawns & !d.last_file, right_delta) & d.board & self.ep & !occ;
        let left_ep = shift(pawns & !d.first_file, left_delta) & d.board & self.ep & !occ;
        for (targets, delta) in [(right_ep, right_delta), (left_ep, left_delta)] {
            let signed = if us == 0 { delta } else { -delta };
            for to in bits(targets) {
                buf.push(Move::new((to as i32 - signed) as u8, to, Kind::EnPassant));
            }
        }
        count
    }

    /// Pseudo-legal moves, as Fairy-Stockfish generates them (without its
    /// evasion pruning, which [`State::legal`] makes redundant).
    #[inline(always)]
    fn pseudo(&self, d: &VariantDef, out: &mut Vec<Move>, in_check: bool) {
        let us = self.side;
        let occ = self.occ();
        let pawns = d.pawn.map_or(0, |p| self.by_type[p as usize] & self.by_color[us as usize]);
        if pawns != 0 {
            self.pawn_moves(d, out, pawns);
            if let Some(zone) = &d.sittuyin {
                self.sittuyin_promotions(d, zone, pawns, out);
            }
        }
        for from in bits(self.by_color[us as usize] & !pawns) {
            let t = self.board[from as usize] >> 1;
            let targets = self.targets(d, t, from, occ);
            if d.special_types >> t & 1 != 0 {
                if d.pawnlike >> t & 1 != 0 {
                    self.pawnlike_moves(d, t, from, targets, out);
                } else {
                    self.special_piece_moves(d, t, from, targets, out);
                }
                continue;
            }
            for to in bits(targets) {
                self.push(d, out, Move::new(from, to, Kind::Normal));
            }
        }
        if !in_check {
            self.castling_moves(d, out);
        }
        if d.cambodian {
            self.cambodian_moves(d, out, in_check);
        }
        if d.extended {
            self.takeovers_and_swaps(d, out);
        }
        if d.drops.is_some() {
            self.drop_moves(d, out);
        }
        if let Some(m) = self.pass_move(d) {
            out.push(m);
        }
    }

    /// The moves of a piece of a pawn type other than the pawn (see
    /// [`VariantDef::pawnlike`]), as Fairy-Stockfish generates them: its
    /// ordinary `targets` and initial moves, each a pawn-style promotion too
    /// (or only) where it enters the promotion region, and a shogi-style
    /// promotion where the type has one, and en passant captures onto the
    /// squares it attacks but does not move to.
    #[cold]
    #[inline(never)]
    fn pawnlike_moves(&self, d: &VariantDef, t: u8, from: u8, targets: u128, out: &mut Vec<Move>) {
        let us = self.side;
        let occ = self.occ();
        let initial = d.initial_reach(t, us, from, occ, &self.by_type);
        let zone = if d.promotion_pawns[us as usize] >> t & 1 != 0 { d.promotion_zone[us as usize] } else { 0 };
        let shogi = d.promoted_type[t as usize].is_some() || d.piece_demotion;
        for to in bits(targets | (initial & !occ)) {
            let mut plain = true;
            if zone >> to & 1 != 0 {
                self.push_promotions(d, out, from, to);
                plain = !d.mandatory_pawn_promotion;
            }
            if shogi {
                self.shogi_moves(d, t, from, to, plain, out);
            } else if plain {
                self.push(d, out, Move::new(from, to, Kind::Normal));
            }
        }
        if d.en_passant_types[us as usize] >> t & 1 != 0 && self.ep != 0 {
            let quiets = d.reach(t, us, from, occ, false, &self.by_type) | initial;
            let attacks = d.reach(t, us, from, occ, true, &self.by_type);
            for to in bits(attacks & !quiets & self.ep & !occ) {
                self.push(d, out, Move::new(from, to, Kind::EnPassant));
            }
        }
    }

    /// The square of the piece an en passant capture onto `to` takes, as
    /// Fairy-Stockfish finds it: the frontmost occupied en passant square
    /// (a piece that made an initial move marks its own square), else the
    /// opponent's piece nearest behind `to` on its file.
    fn capture_square(&self, d: &VariantDef, to: u8) -> u8 {
        let custom = self.ep & self.occ();
        if custom != 0 {
            return if self.side == 0 { custom.trailing_zeros() as u8 } else { 127 - custom.leading_zeros() as u8 };
        }
        let file = d.first_file << (to % d.files);
        let below = file & (bb(to) - 1);
        let behind =
            self.by_color[(self.side ^ 1) as usize] & if self.side == 0 { below } else { file & !below & !bb(to) };
        match (behind, self.side) {
            (0, _) => behind_square(d, self.side, to),
            (b, 0) => 127 - b.leading_zeros() as u8,
            (b, _) => b.trailing_zeros() as u8,
        }
    }

    /// The side to move's pass (`pass`): its king's move to its own square,
    /// without a king another piece's; None where it may not pass.
    #[inline(always)]
    fn pass_move(&self, d: &VariantDef) -> Option<Move> {
        if !d.pass[self.side as usize] && !d.pass_on_stalemate[self.side as usize] {
            return None;
        }
        let own = self.by_color[self.side as usize];
        let sq = self.king_sq(d, self.side).or((own != 0).then(|| own.trailing_zeros() as u8))?;
        Some(Move::new(sq, sq, Kind::Pass))
    }

    /// The squares where the side to move may drop a piece of type `t`:
    /// the empty squares of its drop region (for pawns, without the
    /// promotion region and the first rank unless allowed; for rooks under
    /// `sittuyinRookDrop`, its first rank only; `dropNoDoubled`
    /// bars the files holding enough of its type).
    #[inline(always)]
    fn drop_targets(&self, d: &VariantDef, t: u8) -> u128 {
        let Some(dr) = &d.drops else { return 0 };
        let us = self.side as usize;
        let region = match dr.rook {
            // `sittuyinRookDrop`: rooks on the first rank only.
            Some((rook, first)) if rook == t => first[us],
            _ if Some(t) == d.pawn => dr.pawn_region[us],
            _ => dr.region[us],
        };
        let mut b = region & d.board & !self.occ() & !d.immobile[us][t as usize];
        if let Some(x) = &d.xiangqi {
            // A piece is dropped only where it may move to.
            b &= x.mobility[us][t as usize];
        }
        if let Some((nt, count)) = dr.no_doubled {
            if nt == t {
                let own = self.by_type[t as usize] & self.by_color[us];
                for f in 0..d.files {
                    let file = d.first_file << f;
                    if (own & file).count_ones() >= count {
                        b &= !file;
                    }
                }
            }
        }
        self.enclosing_targets(d, dr, b)
    }

    /// The drops of the side to move (pseudo-legal), by type in hand.
    #[inline(never)]
    fn drop_moves(&self, d: &VariantDef, out: &mut Vec<Move>) {
        let us = self.side as usize;
        let free = d.drops.is_some_and(|dr| dr.free);
        let promoted = d.drops.is_some_and(|dr| dr.promoted);
        for t in 0..d.types.len() as u8 {
            if free || self.hand[us][t as usize] > 0 {
                let targets = self.drop_targets(d, t);
                for to in bits(targets) {
                    out.push(Move::drop(t, to));
                }
                // `dropPromoted`: also promoted, on the same squares.
                if let Some(pt) = d.promoted_type[t as usize].filter(|_| promoted) {
                    for to in bits(targets) {
                        out.push(Move { promo: pt, ..Move::drop(t, to) });
                    }
                }
            }
        }
    }

    /// For [`State::count_legal`] out of check: the number of drops that
    /// need no legality test, the others pushed on `buf`.
    #[inline(never)]
    fn count_drops(&self, d: &VariantDef, buf: &mut Vec<Move>) -> u64 {
        let Some(dr) = &d.drops else { return 0 };
        if !(dr.quick && dr.checks) {
            self.drop_moves(d, buf);
            return 0;
        }
        let us = self.side as usize;
        let mut n = 0;
        for t in 0..d.types.len() as u8 {
            if dr.free || self.hand[us][t as usize] > 0 {
                let forms = 1 + u64::from(dr.promoted && d.promoted_type[t as usize].is_some());
                n += forms * u64::from(self.drop_targets(d, t).count_ones());
            }
        }
        n
    }

    /// Whether `m` leaves the mover's king unattacked, judged after the
    /// whole move: for kidnaps (the victim may be a king, a checker or a
    /// piece shielding the king), takeovers and swaps.
    #[cold]
    #[inline(never)]
    fn legal_after(&self, d: &VariantDef, m: Move) -> bool {
        let mut n = *self;
        self.play_into(d, m, &mut n);
        n.king_sq(d, self.side).is_none_or(|k| {
            !n.attacked(d, k, n.occ(), self.side ^ 1, 0) && !self.kings_face(d, k, n.occ(), self.side ^ 1, bb(m.to))
        })
    }

    /// The victim of a kidnapper moving `from` → `to`: looking back from
    /// `from`, the piece behind the first one met (the screen). None for a
    /// longer move under `kidnapOneStep`.
    fn victim(&self, d: &VariantDef, from: u8, to: u8) -> Option<u8> {
        let k = d.kidnap?;
        let dir = d.dir_bit(from, to);
        if dir == 0 {
            return None;
        }
        if k.one_step {
            let (df, dr) = ((to % d.files).abs_diff(from % d.files), (to / d.files).abs_diff(from / d.files));
            if df > 1 || dr > 1 {
                return None;
            }
        }
        let back = opposite(dir.trailing_zeros() as usize);
        let mut on_ray = d.dir_rays[from as usize][back] & self.occ();
        let nearest = |b: u128| if back < 4 { b.trailing_zeros() as u8 } else { 127 - b.leading_zeros() as u8 };
        if on_ray == 0 {
            return None;
        }
        on_ray &= !bb(nearest(on_ray));
        (on_ray != 0).then(|| nearest(on_ray))
    }

    /// Target squares of a non-pawn piece of the side to move.
    #[inline(always)]
    fn targets(&self, d: &VariantDef, t: u8, from: u8, occ: u128) -> u128 {
        let us = self.side;
        if d.types[t as usize].symmetric_modes {
            d.reach(t, us, from, occ, true, &self.by_type) & !self.by_color[us as usize] & !self.walls
        } else {
            (d.reach(t, us, from, occ, true, &self.by_type) & self.by_color[(us ^ 1) as usize])
                | (d.reach(t, us, from, occ, false, &self.by_type) & !occ)
        }
    }

    #[inline(always)]
    fn castling_moves(&self, d: &VariantDef, out: &mut Vec<Move>) {
        let us = self.side;
        if self.rights >> (2 * us) & 3 == 0 {
            return;
        }
        let occ = self.occ();
        for cr in [2 * us as usize, 2 * us as usize + 1] {
            if self.rights >> cr & 1 != 0 && self.castle_path[cr] & occ == 0 {
                let m = Move::new(self.castle_king[us as usize], self.castle_rook[cr], Kind::Castling);
                self.push(d, out, m);
            }
        }
    }

    /// The capture reach of the pieces of the side not to move, for
    /// [`State::count_legal`] in the positions after each move.
    #[inline(always)]
    fn reach_cache(&self, d: &VariantDef) -> ReachCache {
        let them = self.side ^ 1;
        let occ = self.occ();
        let pawns = d.pawn.map_or(0, |p| self.by_type[p as usize]);
        let mut c =
            ReachCache { entries: [Cached { from: 0, t: 0, bit: 0, reach: 0, dep: 0 }; CACHED], len: 0, squares: 0 };
        for from in bits(self.by_color[them as usize] & !pawns) {
            let t = self.board[from as usize] >> 1;
            if !d.types[t as usize].symmetric_modes || c.len == CACHED {
                continue;
            }
            let m = &d.table(t, them, from).capture;
            let (reach, dep) = if m.simple && d.restricted >> t & 1 == 0 {
                let lines = m.slides | m.hops;
                (d.simple_reach(m, from, occ), if lines == 0 { 0 } else { d.slides(from, lines, occ) })
            } else {
                (d.reach(t, them, from, occ, true, &self.by_type), u128::MAX)
            };
            c.entries[c.len] = Cached { from, t, bit: bb(from), reach, dep };
            c.len += 1;
            c.squares |= bb(from);
        }
        c
    }

    /// The moves of one non-pawn piece with targets `b` for
    /// [`State::count_legal`]: the number of those that need no listing,
    /// the others (king moves) pushed on `buf`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn piece_count(
        &self,
        d: &VariantDef,
        buf: &mut Vec<Move>,
        from: u8,
        b: u128,
        k: u8,
        sens: u128,
        gated: u64,
    ) -> u64 {
        if from == k {
            for to in bits(b) {
                self.push(d, buf, Move::new(from, to, Kind::Normal));
            }
            return 0;
        }
        let bit = bb(from);
        let quick = if bit & sens != 0 { 0 } else { b & !sens };
        let mut n = quick.count_ones() as u64;
        for to in bits(b & !quick) {
            n += u64::from(self.legal_in(d, Move::new(from, to, Kind::Normal), false));
        }
        if d.gating && self.gates[self.side as usize] & bit != 0 {
            n * if d.drops.is_some() { self.gate_choices(d, from) } else { gated }
        } else {
            n
        }
    }

    /// The ways a move from the gate square `sq` can be made: plain, or
    /// gating each type the side to move may gate there.
    fn gate_choices(&self, d: &VariantDef, sq: u8) -> u64 {
        1 + (0..d.types.len()).filter(|&t| self.may_gate(d, t, sq)).count() as u64
    }

    /// The number of legal moves, without listing those that need no
    /// legality test. `cache`: the parent's [`State::reach_cache`], the
    /// squares whose occupancy the move to here changed and the square of
    /// the piece it captured (if any, else [`NONE`]).
    #[inline(always)]
    fn count_legal(&self, d: &VariantDef, buf: &mut Vec<Move>, cache: Option<(&ReachCache, u128, u8)>) -> u64 {
        if self.game_over(d) {
            return 0;
        }
        if d.checkless_count
            && let Some(n) = self.count_checkless(d, buf)
        {
            return n;
        }
        if (d.extended && (self.in_prelude(d) || d.full_listing))
            || d.shogi
            || d.pass_on_stalemate[self.side as usize]
            || self.is_bikjang(d)
        {
            // Kidnaps move a third piece, takeovers convert, promoting
            // pieces multiply moves: every move is listed and tested.
            self.legal_moves(d, buf);
            return buf.len() as u64;
        }
        let us = self.side;
        let occ = self.occ();
        let Some(k) = self.king_sq(d, us) else {
            self.legal_moves(d, buf);
            return buf.len() as u64;
        };
        let Some(sens) = self.sensitive(d, k) else {
            self.legal_moves(d, buf);
            return buf.len() as u64;
        };
        buf.clear();
        let pawns = d.pawn.map_or(0, |p| self.by_type[p as usize] & self.by_color[us as usize]);
        let mut count = 0u64;
        if pawns != 0 {
            if pawns & self.gates[us as usize] == 0 {
                count += self.count_pawn_moves(d, buf, pawns, sens);
            } else {
                self.pawn_moves(d, buf, pawns);
            }
        }
        self.castling_moves(d, buf);
        if d.cambodian {
            // Out of check here: the special moves are tested with the rest of `buf`.
            self.cambodian_moves(d, buf, false);
        }
        if let Some(m) = self.pass_move(d) {
            buf.push(m);
        }
        if d.drops.is_some() {
            count += self.count_drops(d, buf);
        }
        // Each move from a gate square comes once plain and once per piece in hand.
        let gated =
            if d.seirawan_gating { 1 + self.hand[us as usize].iter().filter(|&&n| n > 0).count() as u64 } else { 1 };
        let own = self.by_color[us as usize];
        let rest = match cache {
            Some((c, changed, captured)) => {
                let special = sens | if d.gating { self.gates[us as usize] } else { 0 };
                for e in &c.entries[..c.len] {
                    if e.from == captured {
                        continue;
                    }
                    let b = if e.dep & changed != 0 {
                        self.targets(d, e.t, e.from, occ)
                    } else {
                        e.reach & !own & !self.walls
                    };
                    if e.bit & special == 0 && e.from != k {
                        // Neither pinned nor on a gate: only moves onto sensitive squares need a test.
                        count += (b & !sens).count_ones() as u64;
                        for to in bits(b & sens) {
                            count += u64::from(self.legal_in(d, Move::new(e.from, to, Kind::Normal), false));
                        }
                    } else {
                        count += self.piece_count(d, buf, e.from, b, k, sens, gated);
                    }
                }
                own & !pawns & !c.squares
            }
            None => own & !pawns,
        };
        for from in bits(rest) {
            let t = self.board[from as usize] >> 1;
            let b = self.targets(d, t, from, occ);
            count += self.piece_count(d, buf, from, b, k, sens, gated);
        }
        for &m in buf.iter() {
            let quick = matches!(m.kind, Kind::Normal | Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion)
                && m.from != k
                && (bb(m.from) | bb(m.to)) & sens == 0;
            count += u64::from(quick || self.legal_in(d, m, false));
        }
        count
    }

    /// Fairy-Stockfish's legality test for a pseudo-legal move; `checked`
    /// false promises that the side to move is not in check, so that a move
    /// of another piece than the king can only expose it along lines.
    #[inline(always)]
    fn legal_in(&self, d: &VariantDef, m: Move, checked: bool) -> bool {
        let us = self.side;
        let them = us ^ 1;
        let occ = self.occ();
        match m.kind {
            Kind::Castling => {
                let cr = 2 * us as usize + usize::from(m.to < m.from);
                let (kfrom, rfrom, kto, rto) = self.castle_squares(d, cr);
                if m.gate != NONE && (m.gate_sq == kto || m.gate_sq == rto) {
                    return false;
                }
                let t = self.board[kfrom as usize] >> 1;
                if !d.types[t as usize].royal {
                    return true;
                }
                let mut s = kto;
                while s != kfrom {
                    if self.attacked(d, s, occ, them, 0) {
                        return false;
                    }
                    s = if kto < kfrom { s + 1 } else { s - 1 };
                }
                // A reserve piece entering on the rook's square stands there.
                !self.attacked(d, kto, occ ^ bb(rfrom) ^ self.live_gates(d, bb(rfrom)), them, 0)
            }
            Kind::EnPassant => {
                let Some(k) = self.king_sq(d, us) else { return true };
                let cap = self.capture_square(d, m.to);
                let occ2 = (occ ^ bb(m.from) ^ bb(cap)) | bb(m.to);
                !self.attacked(d, k, occ2, them, bb(cap)) && !self.kings_face(d, k, occ2, them, 0)
            }
            Kind::Accept | Kind::Decline | Kind::Place => !self.in_check(d),
            Kind::Pass => self.is_bikjang(d) || self.king_sq(d, us).is_none_or(|k| !self.attacked(d, k, occ, them, 0)),
            Kind::Drop => {
                let Some(dr) = &d.drops else { return false };
                if self.changes_cannons(d, m) {
                    return self.legal_after(d, m) && (dr.checks || !self.play(d, m).in_check(d));
                }
                // Out of check a drop can only expose the king by making a hurdle.
                let safe = match self.king_sq(d, us) {
                    Some(k) if checked || !dr.quick => !self.attacked(d, k, occ | bb(m.to), them, 0),
                    _ => true,
                };
                let parted = self.king_sq(d, us).is_none_or(|k| !self.kings_face(d, k, occ | bb(m.to), them, 0));
                safe && parted && (dr.checks || !self.play(d, m).in_check(d))
            }
            Kind::Kidnap | Kind::Takeover | Kind::Jump | Kind::Swap => self.legal_after(d, m),
            _ if self.changes_cannons(d, m) => self.legal_after(d, m),
            _ => {
                // A reserve piece entering on a live gate takes the mover's place.
                let occ2 = (occ ^ bb(m.from)) | bb(m.to) | self.live_gates(d, bb(m.from));
                let t = self.board[m.from as usize] >> 1;
                if d.types[t as usize].royal {
                    if d.makpong && self.in_check(d) && !self.takes_only_checker(d, m) {
                        return false;
                    }
                    return !self.attacked(d, m.to, occ2, them, 0) && !self.kings_face(d, m.to, occ2, them, bb(m.to));
                }
                match self.king_sq(d, us) {
                    None => true,
                    Some(k) if checked => {
                        !self.attacked(d, k, occ2, them, bb(m.to)) && !self.kings_face(d, k, occ2, them, bb(m.to))
                    }
                    // Only lines through the squares the move changes can open.
                    Some(k) => {
                        let dirs = d.dir_bit(k, m.from) | d.dir_bit(k, m.to);
                        !self.attacked_by_lines(d, k, occ2, them, bb(m.to), dirs)
                            && !self.kings_face(d, k, occ2, them, bb(m.to))
                    }
                }
            }
        }
    }

    /// Squares whose change of occupancy could expose our king to an enemy
    /// rider, hopper or lame leaper (a superset; moves touching them get a
    /// full legality test).
    /// `None` if the king is in check.
    #[inline(always)]
    pub(super) fn sensitive(&self, d: &VariantDef, k: u8) -> Option<u128> {
        self.sensitive_of(d, k, self.side)
    }

    /// [`State::sensitive`] for the king of side `us` on `k`, whichever
    /// side is to move.
    #[inline(always)]
    pub(super) fn sensitive_of(&self, d: &VariantDef, k: u8, us: u8) -> Option<u128> {
        let them = us ^ 1;
        let occ = self.occ();
        if self.attacked(d, k, occ, them, 0) {
            return None;
        }
        let mut sens = 0u128;
        let enemies = self.by_color[them as usize];
        let rays = &d.dir_rays[k as usize];
        // Simple types: per direction, up to the farthest enemy that may slide or hop this way.
        for (dir, &ray) in rays.iter().enumerate() {
            let mut cand = d.slide_attackers[them as usize][dir] | d.hop_attackers[them as usize][dir];
            if cand == 0 || ray & enemies == 0 {
                continue;
            }
            let mut on_ray = 0u128;
            while cand != 0 {
                on_ray |= self.by_type[cand.trailing_zeros() as usize];
                cand &= cand - 1;
            }
            on_ray &= ray & enemies;
            if on_ray != 0 {
                sens |= if dir < 4 {
                    ray & ((1u128 << (127 - on_ray.leading_zeros())) - 1)
                } else {
                    ray & !(((on_ray & on_ray.wrapping_neg()) << 1).wrapping_sub(1))
                };
            }
        }
        for (t, ty) in d.types.iter().enumerate() {
            if d.simple_attackers[them as usize] >> t & 1 != 0 {
                continue;
            }
            let m = &d.table(t as u8, us, k).capture;
            // Only pieces within the empty-board reach can ever attack the king.
            let enemies = self.by_type[t] & self.by_color[them as usize] & m.pseudo;
            if enemies == 0 {
                continue;
            }
            for r in d.rays_of(m) {
                let on_ray = r.mask & enemies;
                if on_ray != 0 {
                    // Squares between the king and the farthest such enemy.
                    sens |= if r.ascending {
                        r.mask & ((1u128 << (127 - on_ray.leading_zeros())) - 1)
                    } else {
                        r.mask & !(((on_ray & on_ray.wrapping_neg()) << 1).wrapping_sub(1))
                    };
                }
            }
            if ty.lame {
                for p in bits(enemies) {
                    for l in d.lame_of(&d.table(t as u8, them, p).capture) {
                        if l.to == k {
                            sens |= l.path;
                        }
                    }
                }
            }
        }
        if let Some(x) = &d.xiangqi {
            if x.bikjang && self.is_bikjang(d) {
                // Every move must part the kings.
                return Some(u128::MAX);
            }
            if x.diagonal_lines >> k & 1 != 0 {
                // Palace diagonals are lines the tables do not hold.
                sens |= x.diagonal_lines;
            }
        }
        if d.xiangqi.as_ref().is_some_and(|x| x.flying_general) {
            // The last piece between the kings may not leave.
            if let Some(e) = self.king_sq(d, them) {
                let dir = d.dir_bit(k, e);
                if dir & ORTHOGONAL != 0 {
                    let dir = dir.trailing_zeros() as usize;
                    sens |= d.dir_rays[k as usize][dir] & !d.dir_rays[e as usize][dir] & !bb(e);
                }
            }
        }
        Some(sens)
    }

    /// Whether the board move `m` moves or takes a janggi cannon: the
    /// cannons' rule then changes with it, and the move is tested played.
    #[inline(always)]
    fn changes_cannons(&self, d: &VariantDef, m: Move) -> bool {
        let Some(c) = d.xiangqi.as_ref().and_then(|x| x.janggi_cannon) else { return false };
        if m.kind == Kind::Drop {
            return m.gate == c;
        }
        self.board[m.from as usize] >> 1 == c
            || (self.board[m.to as usize] != EMPTY && self.board[m.to as usize] >> 1 == c)
    }

    /// Makpong: whether the king's move `m` takes the only piece checking it.
    #[cold]
    fn takes_only_checker(&self, d: &VariantDef, m: Move) -> bool {
        let them = self.side ^ 1;
        let occ = self.occ();
        let others = self.by_color[them as usize] & !bb(m.to);
        self.board[m.to as usize] != EMPTY
            && self.attacked(d, m.from, occ, them, others)
            && !self.attacked(d, m.from, occ, them, bb(m.to))
    }

    /// The flying general, and bikjang: whether, where the rule binds the
    /// side to move, our king on `k` would face the enemy king (not on
    /// `exclude`) along an open rank or file, given `occ`.
    #[inline(always)]
    fn kings_face(&self, d: &VariantDef, k: u8, occ: u128, them: u8, exclude: u128) -> bool {
        let Some(x) = &d.xiangqi else { return false };
        if !(x.flying_general || x.bikjang) {
            return false;
        }
        let Some(king) = d.king else { return false };
        let theirs = self.by_type[king as usize] & self.by_color[them as usize] & !exclude;
        if theirs == 0 || (theirs.count_ones() == 1 && d.dir_bit(k, theirs.trailing_zeros() as u8) & ORTHOGONAL == 0) {
            // No king on a rank or file with `k`.
            return false;
        }
        (x.flying_general || self.is_bikjang(d)) && d.slides(k, ORTHOGONAL, occ) & theirs != 0
    }

    #[inline(always)]
    pub(crate) fn legal_moves(&self, d: &VariantDef, out: &mut Vec<Move>) {
        out.clear();
        if self.game_over(d) {
            return;
        }
        self.legal_moves_unended(d, out);
    }

    /// The legal moves whether or not the game has ended at once.
    #[inline(always)]
    fn legal_moves_unended(&self, d: &VariantDef, out: &mut Vec<Move>) {
        self.legal_moves_but_stalemate_pass(d, out);
        if d.pass_on_stalemate[self.side as usize] && out.iter().any(|m| m.kind != Kind::Pass) {
            // `passOnStalemate`: the pass only when nothing else is legal.
            out.retain(|m| m.kind != Kind::Pass);
        }
    }

    /// [`State::legal_moves_unended`], with a `passOnStalemate` pass
    /// among other moves.
    #[inline(always)]
    fn legal_moves_but_stalemate_pass(&self, d: &VariantDef, out: &mut Vec<Move>) {
        out.clear();
        if d.extended && self.in_prelude(d) {
            self.prelude_moves(d, out);
            return;
        }
        let king = self.king_sq(d, self.side);
        let sens = match king {
            Some(k) => self.sensitive(d, k),
            None => Some(0),
        };
        self.pseudo(d, out, sens.is_none());
        if king.is_none() && d.king.is_some() && d.drops.is_some() {
            // A king dropped (placement chess) may not land attacked.
            let occ = self.occ();
            out.retain(|m| {
                m.kind != Kind::Drop || Some(m.gate) != d.king || !self.attacked(d, m.to, occ, self.side ^ 1, 0)
            });
        }
        if let Some(k) = king {
            let checked = sens.is_none();
            let sens = sens.unwrap_or(u128::MAX);
            out.retain(|&m| {
                let quick =
                    matches!(m.kind, Kind::Normal | Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion)
                        && m.from != k
                        && (bb(m.from) | bb(m.to)) & sens == 0;
                quick || self.legal_in(d, m, checked)
            });
        }
        if let Some(w) = &d.walling {
            self.add_walls(d, w, out);
        }
        if d.extended {
            self.extended_filter(d, out);
        }
    }

    #[inline(always)]
    pub(crate) fn play(&self, d: &VariantDef, m: Move) -> State {
        let mut n = *self;
        self.play_into(d, m, &mut n);
        n
    }

    /// [`State::play`] into `n`, which is overwritten (one copy of the
    /// state where `play` may make two).
    #[inline(always)]
    fn play_into(&self, d: &VariantDef, m: Move, n: &mut State) {
        *n = *self;
        n.passes = 0;
        n.castled = 0;
        n.bikjang_before = self.is_bikjang(d);
        if matches!(m.kind, Kind::Accept | Kind::Decline | Kind::Place | Kind::Drop) {
            if m.kind == Kind::Drop {
                self.play_drop(d, m, n);
            } else {
                self.play_prelude(d, m, n);
            }
            return;
        }
        let us = self.side;
        let them = us ^ 1;
        let piece = self.board[m.from as usize];
        let t = piece >> 1;
        n.rule50 = n.rule50.saturating_add(1);
        n.ep = 0;
        if n.counting_limit != 0 {
            n.counting_ply = n.counting_ply.saturating_add(1);
        }
        let kidnapped = if m.kind == Kind::Kidnap { self.victim(d, m.from, m.to) } else { None };
        let converted = if matches!(m.kind, Kind::Takeover | Kind::Jump) { self.converted(d, m) } else { 0 };
        let captured = match m.kind.takes() {
            Takes::Nothing => EMPTY,
            Takes::EnPassant => self.board[self.capture_square(d, m.to) as usize],
            // A promotion in place (sittuyin) takes nothing.
            Takes::Target if m.from == m.to => EMPTY,
            Takes::Target => self.board[m.to as usize],
        };
        match m.kind {
            Kind::Castling => {
                let cr = 2 * us as usize + usize::from(m.to < m.from);
                let (kfrom, rfrom, kto, rto) = self.castle_squares(d, cr);
                let rook = self.board[rfrom as usize] >> 1;
                n.castled = 1 << cr;
                if d.opposite_castling {
                    // `oppositeCastling`: the opponent may no longer castle to that side.
                    n.rights &= !(1 << (2 * them as usize + cr % 2));
                }
                n.remove(kfrom);
                n.remove(rfrom);
                n.put(kto, t, us);
                n.put(rto, rook, us);
            }
            Kind::EnPassant => {
                n.remove(self.capture_square(d, m.to));
                n.remove(m.from);
                n.put(m.to, t, us);
                n.rule50 = 0;
            }
            Kind::Normal | Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion => {
                if captured != EMPTY {
                    n.remove(m.to);
                    n.rule50 = 0;
                }
                n.remove(m.from);
                n.put(m.to, if m.kind == Kind::Normal { t } else { m.promo }, us);
                // A promotion is irreversible, unless the piece may demote.
                if m.kind == Kind::PiecePromotion && !d.piece_demotion {
                    n.rule50 = 0;
                }
            }
            Kind::Kidnap => {
                n.remove(m.from);
                n.put(m.to, t, us);
                if let Some(v) = kidnapped {
                    let vp = self.board[v as usize];
                    n.remove(v);
                    n.put(m.from, vp >> 1, vp & 1);
                    if d.types[(vp >> 1) as usize].pawn {
                        n.rule50 = 0;
                    }
                }
            }
            Kind::Takeover | Kind::Jump => self.play_takeover(m, n, converted),
            Kind::Swap => self.play_swap(d, m, n),
            Kind::Accept | Kind::Decline | Kind::Place | Kind::Drop => {}
            // A walling pass (`wallOrMove`) does not count.
            Kind::Pass if m.wall == NONE => n.passes = self.passes.saturating_add(1),
            Kind::Pass => {}
        }
        // The piece on the destination before a blast (a promotion's new type).
        let landed = n.board[m.to as usize] >> 1;
        let blasted = match d.blast {
            Some(immune) if captured != EMPTY => State::blast(d, immune, m.to, n),
            _ => 0,
        };
        if captured != EMPTY && (d.petrify != 0 || d.petrify_blast) {
            State::petrify(d, m, t, landed, blasted, n);
        }
        if d.drops.is_some() || d.shogi {
            self.hand_and_promotions(d, m, n, captured);
            if blasted != 0 {
                self.blast_to_hands(d, m, n, blasted, landed);
            }
        }
        n.pawn_drop = false;
        if d.pioneer.is_some() && m.kind != Kind::Pass {
            self.pioneer_entries(d, m, n, kidnapped);
        }
        if n.rights != 0 && m.kind != Kind::Pass {
            let kid = kidnapped.unwrap_or(NONE);
            for cr in 0..4 {
                if n.rights >> cr & 1 != 0 {
                    let k = self.castle_king[cr / 2];
                    let r = self.castle_rook[cr];
                    let gone = m.from == k || m.from == r || m.to == k || m.to == r || kid == k || kid == r;
                    if gone || (converted | blasted) & (bb(k) | bb(r)) != 0 {
                        n.rights &= !(1 << cr);
                    }
                }
            }
        }
        // The n-move count restarts on the irreversible moves of the
        // `nMoveRuleTypes` (any move of the pawn, a pass of the piece
        // passing) and on promotions.
        if d.n_move_types[us as usize] >> t & 1 != 0
            && (d.types[t as usize].pawn || d.table(t, us, m.to).quiet.pseudo >> m.from & 1 == 0)
        {
            n.rule50 = 0;
        }
        if m.kind == Kind::Promotion {
            n.rule50 = 0;
        }
        if d.types[t as usize].pawn && m.kind == Kind::Normal {
            let diff = (m.to as i32 - m.from as i32).abs();
            let f = d.files as i32;
            if diff == 2 * f || diff == 3 * f {
                // A square passed may be taken en passant where an enemy
                // pawn attacks it, or anywhere when the opponent has other
                // en passant types.
                let pawns = n.by_type[t as usize] & n.by_color[them as usize];
                let mut ep = m.to;
                for _ in 0..diff / f - 1 {
                    ep = behind_square(d, us, ep);
                    if d.en_passant_region[them as usize] >> ep & 1 != 0
                        && ep != m.wall
                        && (d.en_passant_types[them as usize] != 0
                            || d.reach(t, us, ep, 0, true, &self.by_type) & pawns != 0)
                    {
                        n.ep |= bb(ep);
                    }
                }
            }
        } else if d.initial_types >> t & 1 != 0
            && matches!(m.kind, Kind::Normal | Kind::EnPassant | Kind::Castling)
            && d.initial_only(t, us, m.from) >> m.to & 1 != 0
        {
            // An initial move marks the squares it passed and its own.
            n.ep = d.between(m.from, m.to) & d.en_passant_region[them as usize];
        }
        if m.gate != NONE {
            n.put(m.gate_sq, m.gate, us);
            let h = &mut n.hand[us as usize][m.gate as usize];
            *h = h.saturating_sub(1);
            n.gates[us as usize] &= !bb(m.gate_sq);
        }
        if d.gating && m.kind != Kind::Pass {
            n.gates[us as usize] &= !bb(m.from);
            if m.kind == Kind::Castling {
                n.gates[us as usize] &= !bb(m.to);
            }
            n.gates[them as usize] &= !bb(m.to);
            if !n.gates_live(d, us) {
                n.gates[us as usize] = 0;
            }
            if d.cambodian {
                n.cambodian_rook_aim(d, t, m.to, them);
            }
        }
        if d.flip != EnclosingRule::None {
            State::flip_enclosed(d, m, n);
        }
        if m.wall != NONE {
            if d.walling.is_some_and(|w| w.rule == crate::ini::WallingRule::Duck) {
                n.walls &= !self.walls;
            }
            n.walls |= bb(m.wall);
        }
        n.side = them;
        if us == 1 {
            n.fullmove = n.fullmove.saturating_add(1);
        }
        if d.game_end.counting_rule != CountingRule::None {
            n.update_counting(d, captured, m.kind == Kind::Promotion);
        }
        if d.check_counting && n.in_check(d) {
            n.checks[us as usize] = n.checks[us as usize].saturating_sub(1);
        }
        if let Some((_, shak)) = d.shatar {
            let checkers = n.checkers(d);
            let c = them as usize;
            n.shak[c] = checkers != 0 && (n.of_types(checkers, shak) || self.shak[c]);
        }
    }

    /// Plays a drop into `n` (a copy of `self`): the piece leaves the hand
    /// for its square; the halfmove clock restarts, as in Fairy-Stockfish.
    #[inline(never)]
    fn play_drop(&self, d: &VariantDef, m: Move, n: &mut State) {
        let us = self.side;
        if m.promo == NONE {
            n.put(m.to, m.gate, us);
        } else {
            // Dropped promoted (`dropPromoted`): marked, with its origin.
            n.put(m.to, m.promo, us);
            n.promoted |= bb(m.to);
            State::set_origin(&mut n.origin, m.to, Some(m.gate));
        }
        let h = &mut n.hand[us as usize][m.gate as usize];
        *h = h.saturating_sub(1);
        n.rule50 = 0;
        if d.flip != EnclosingRule::None {
            State::flip_enclosed(d, m, n);
        }
        if d.drops.is_some_and(|dr| dr.castling_dropped) {
            State::castling_by_drop(d, m, m.gate, n);
        }
        n.pawn_drop = m.promo == NONE && d.pawn_drop_mate == Some(m.gate);
        n.ep = 0;
        if n.counting_limit != 0 {
            n.counting_ply = n.counting_ply.saturating_add(1);
        }
        n.side = us ^ 1;
        if us == 1 {
            n.fullmove = n.fullmove.saturating_add(1);
        }
        if d.game_end.counting_rule != CountingRule::None {
            n.update_counting(d, EMPTY, false);
        }
        if d.check_counting && n.in_check(d) {
            n.checks[us as usize] = n.checks[us as usize].saturating_sub(1);
        }
    }

    /// Drops' and promotions' part of playing the board move `m` into `n`:
    /// a captured piece goes to the capturer's hand (`capturesToHand`; a
    /// promoted one as the type it was promoted from, a `~` one as a pawn,
    /// unless `dropLoop`), and promoted pieces keep their mark as they move.
    #[inline(never)]
    fn hand_and_promotions(&self, d: &VariantDef, m: Move, n: &mut State, captured: u8) {
        let us = self.side as usize;
        let capsq = if m.kind == Kind::EnPassant { self.capture_square(d, m.to) } else { m.to };
        let demote = d.drops.is_some_and(|dr| dr.demote);
        if captured != EMPTY && d.drops.is_some_and(|dr| dr.to_hand) {
            let demoted = demote && self.promoted >> capsq & 1 != 0;
            let t = if demoted { self.origin_of(capsq).or(d.pawn).unwrap_or(captured >> 1) } else { captured >> 1 };
            let h = &mut n.hand[us][t as usize];
            *h = h.saturating_add(1);
        }
        if self.promoted == 0 && !matches!(m.kind, Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion) {
            return;
        }
        let (mut p, mut o) = (self.promoted, self.origin);
        // Moves the mark (and origin) of the piece on `from` to `to`.
        let carry = |p: &mut u128, o: &mut [u128; 5], from: u8, to: u8| {
            let (marked, origin) = (*p >> from & 1 != 0, self.origin_of(from));
            *p &= !bb(from);
            State::set_origin(o, from, None);
            if marked {
                *p |= bb(to);
                State::set_origin(o, to, origin);
            }
        };
        if captured != EMPTY {
            p &= !bb(capsq);
            State::set_origin(&mut o, capsq, None);
        }
        match m.kind {
            Kind::Castling => {
                let (kfrom, rfrom, kto, rto) = self.castle_squares(d, 2 * us + usize::from(m.to < m.from));
                let (mut pk, mut ok) = (0u128, [0u128; 5]);
                carry(&mut pk, &mut ok, kfrom, kto);
                carry(&mut pk, &mut ok, rfrom, rto);
                p = (p & !(bb(kfrom) | bb(rfrom))) | pk;
                State::set_origin(&mut o, kfrom, None);
                State::set_origin(&mut o, rfrom, None);
                for (plane, moved) in o.iter_mut().zip(ok) {
                    *plane |= moved;
                }
            }
            Kind::Promotion => {
                p &= !bb(m.from);
                State::set_origin(&mut o, m.from, None);
                if demote {
                    p |= bb(m.to);
                }
            }
            Kind::PiecePromotion => {
                p = (p & !bb(m.from)) | bb(m.to);
                State::set_origin(&mut o, m.from, None);
                State::set_origin(&mut o, m.to, Some(self.board[m.from as usize] >> 1));
            }
            Kind::PieceDemotion => {
                p &= !bb(m.from);
                State::set_origin(&mut o, m.from, None);
            }
            _ => carry(&mut p, &mut o, m.from, m.to),
        }
        n.promoted = p;
        n.origin = o;
    }

    /// Pioneer gating's part of playing `m` into `n`: a live gate's piece
    /// that left its home square (or was kidnapped from it) lets the
    /// reserve piece in; one captured there forfeits it.
    #[inline(never)]
    fn pioneer_entries(&self, d: &VariantDef, m: Move, n: &mut State, kidnapped: Option<u8>) {
        let Some(p) = d.pioneer else { return };
        let us = self.side;
        let them = us ^ 1;
        let left = match m.kind {
            // A castling piece that ends on its own square has not left it
            // (Chess960); one whose square the other takes lets no piece in.
            Kind::Castling => {
                let (kfrom, rfrom, kto, rto) = self.castle_squares(d, 2 * us as usize + usize::from(m.to < m.from));
                (if kfrom != kto { bb(kfrom) } else { 0 }) | (if rfrom != rto { bb(rfrom) } else { 0 })
            }
            _ => bb(m.from),
        };
        for sq in bits(self.gates[us as usize] & left & !n.occ()) {
            n.put(sq, p.piece, us);
        }
        n.gates[us as usize] &= !left;
        n.gates[them as usize] &= !bb(m.to);
        // A kidnapped home piece fires its owner's gate.
        if let Some(v) = kidnapped {
            let owner = (self.board[v as usize] & 1) as usize;
            if n.gates[owner] & bb(v) != 0 {
                n.gates[owner] &= !bb(v);
                n.put(v, p.piece, owner as u8);
            }
        }
    }

    fn count_fsf(&self, d: &VariantDef, fsf: u8, c: Option<u8>) -> u32 {
        let colors = match c {
            Some(c) => self.by_color[c as usize],
            None => self.occ(),
        };
        d.types
            .iter()
            .enumerate()
            .filter(|(_, t)| t.fsf == fsf)
            .map(|(i, _)| (self.by_type[i] & colors).count_ones())
            .sum()
    }

    /// Fairy-Stockfish's counting limit (in full moves) for `side` counting.
    fn count_limit(&self, d: &VariantDef, side: u8) -> u32 {
        let other = side ^ 1;
        let all = |c: u8| self.by_color[c as usize].count_ones();
        let pawns = self.count_fsf(d, PAWN_FSF, None);
        let rooks = self.count_fsf(d, ROOK_FSF, Some(other));
        let khons = self.count_fsf(d, KHON_FSF, Some(other));
        let knights = self.count_fsf(d, KNIGHT_FSF, Some(other));
        // The limit set by the other side's strongest pieces (Makruk's
        // values).
        let pieces_honour = if rooks > 1 {
            8
        } else if rooks == 1 {
            16
        } else if khons > 1 {
            22
        } else if knights > 1 {
            32
        } else if khons == 1 {
            44
        } else {
            64
        };
        match d.game_end.counting_rule {
            CountingRule::Makruk => {
                if pawns > 0 || all(other) == 1 {
                    0
                } else if all(side) > 1 {
                    64
                } else {
                    pieces_honour
                }
            }
            CountingRule::Asean => {
                if pawns > 0 || all(side) > 1 {
                    0
                } else if rooks > 0 {
                    16
                } else if khons > 0 {
                    44
                } else if knights > 0 {
                    64
                } else {
                    0
                }
            }
            CountingRule::Cambodian => {
                if all(side) > 3 || all(other) == 1 {
                    0
                } else if all(side) > 1 {
                    // The board's honour, with or without pawns.
                    63
                } else if pawns > 0 {
                    0
                } else {
                    // One ply less than Makruk's.
                    pieces_honour - 1
                }
            }
            CountingRule::None => 0,
        }
    }

    fn update_counting(&mut self, d: &VariantDef, captured: u8, promotion: bool) {
        let stm = self.side;
        let all = |s: &State, c: u8| s.by_color[c as usize].count_ones();
        let asean = d.game_end.counting_rule == CountingRule::Asean;
        let captured_pawn = captured != EMPTY && d.types[(captured >> 1) as usize].pawn;
        if !asean && captured_pawn && all(self, stm ^ 1) == 1 && self.count_fsf(d, PAWN_FSF, None) == 0 {
            let limit = self.count_limit(d, stm ^ 1);
            if limit != 0 {
                self.counting_limit = 2 * limit;
                self.counting_ply = 2 * self.occ().count_ones() - 1;
            }
        }
        if self.counting_limit == 0 || ((captured != EMPTY || promotion) && all(self, stm) == 1) {
            let limit = self.count_limit(d, stm);
            if limit != 0 {
                self.counting_limit = 2 * limit;
                self.counting_ply = if asean || all(self, stm) > 1 { 0 } else { 2 * self.occ().count_ones() };
            }
        }
    }

    fn perft(&self, d: &VariantDef, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut bufs: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(256)).collect();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("lzcnt")
        {
            // SAFETY: the CPU has the features `perft_x86` is compiled for.
            return unsafe { self.perft_x86(d, depth, &mut bufs) };
        }
        self.perft_with(d, depth, &mut bufs)
    }

    fn perft_with(&self, d: &VariantDef, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
        self.perft_node(d, depth, bufs, |s, d, depth, bufs| s.perft_with(d, depth, bufs))
    }

    /// [`State::perft_with`] compiled with the population count and bit
    /// scan instructions that the default x86-64 target lacks (Rust's
    /// software `count_ones` on `u128` took a quarter of the time). The hot
    /// functions are `#[inline(always)]` so that they get them too.
    ///
    /// # Safety
    ///
    /// The CPU must have `popcnt`, `bmi1` and `lzcnt`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,lzcnt")]
    unsafe fn perft_x86(&self, d: &VariantDef, depth: u32, bufs: &mut [Vec<Move>]) -> u64 {
        // SAFETY: called only from itself and from `perft` after the feature test.
        self.perft_node(d, depth, bufs, |s, d, depth, bufs| unsafe { s.perft_x86(d, depth, bufs) })
    }

    /// One node of perft; `child` counts the nodes below a child.
    #[inline(always)]
    fn perft_node(
        &self,
        d: &VariantDef,
        depth: u32,
        bufs: &mut [Vec<Move>],
        child: impl Fn(&State, &VariantDef, u32, &mut [Vec<Move>]) -> u64,
    ) -> u64 {
        let Some((moves, rest)) = bufs.split_first_mut() else { return 1 };
        if depth <= 1 {
            return self.count_legal(d, moves, None);
        }
        self.legal_moves(d, moves);
        let mut n = 0;
        if depth == 2 {
            if let Some(buf) = rest.first_mut() {
                let cache = self.reach_cache(d);
                let occ = self.occ();
                let mut c = *self;
                for &m in moves.iter() {
                    self.play_into(d, m, &mut c);
                    let captured = if matches!(m.kind, Kind::Normal | Kind::Promotion)
                        && m.from != m.to
                        && self.board[m.to as usize] != EMPTY
                    {
                        m.to
                    } else {
                        NONE
                    };
                    n += c.count_legal(d, buf, Some((&cache, occ ^ c.occ(), captured)));
                }
                return n;
            }
        }
        let mut c = *self;
        for &m in moves.iter() {
            self.play_into(d, m, &mut c);
            n += child(&c, d, depth - 1, rest);
        }
        n
    }

    fn set_castling_right(&mut self, d: &VariantDef, c: u8, rfrom: u8) {
        let kfrom = self.castle_king[c as usize];
        let cr = 2 * c as usize + usize::from(kfrom > rfrom);
        self.rights |= 1 << cr;
        self.castle_rook[cr] = rfrom;
        self.castle_path[cr] = self.compute_castle_path(d, cr);
    }

    /// Parses a FEN the way Fairy-Stockfish reads it.
    pub(crate) fn parse(d: &VariantDef, fen: &str) -> Result<State, FenError> {
        let mut s = State::empty();
        let mut fields = fen.split_whitespace();
        let board = fields.next().ok_or_else(|| FenError::Board(fen.to_string()))?;
        let (board, hand) = match board.find('[') {
            Some(i) => (&board[..i], Some(&board[i..])),
            None => (board, None),
        };
        let mut rows: Vec<&str> = board.split('/').collect();
        // The pocket after one more `/` (`.../RNBQKBNR/Qn`), as
        // Fairy-Stockfish also reads it.
        let mut pocket = None;
        if hand.is_none() && d.pioneer.is_none() && rows.len() == d.ranks as usize + 1 {
            pocket = rows.pop();
        }
        if rows.len() != d.ranks as usize {
            return Err(FenError::Board(format!("{} ranks, expected {}", rows.len(), d.ranks)));
        }
        for (i, row) in rows.iter().enumerate() {
            let rank = d.ranks - 1 - i as u8;
            let mut file = 0u32;
            let chars: Vec<char> = row.chars().collect();
            let mut j = 0;
            let mut last = None;
            let mut plus = false;
            while j < chars.len() {
                let ch = chars[j];
                if let Some(n) = ch.to_digit(10) {
                    let mut n = n;
                    if let Some(n2) = chars.get(j + 1).and_then(|c| c.to_digit(10)) {
                        n = n * 10 + n2;
                        j += 1;
                    }
                    file += n;
                } else if ch == '*' {
                    if file >= d.files as u32 {
                        return Err(FenError::Board(format!("rank {} too long", rank + 1)));
                    }
                    s.walls |= bb(d.sq(file as u8, rank));
                    file += 1;
                } else if ch == '~' {
                    // Promoted-piece marker: meaningful only where promoted
                    // pieces go to hand as pawns.
                    if let Some(sq) = last.filter(|_| d.drops.is_some_and(|dr| dr.demote)) {
                        s.promoted |= bb(sq);
                    }
                } else if ch == '+' && !plus {
                    // A shogi-style promoted piece: `+` and the letter of
                    // the type it was promoted from.
                    plus = true;
                } else {
                    let mut t = piece_type(d, ch).ok_or(FenError::Piece(ch))?;
                    if file >= d.files as u32 {
                        return Err(FenError::Board(format!("rank {} too long", rank + 1)));
                    }
                    let sq = d.sq(file as u8, rank);
                    if std::mem::take(&mut plus) {
                        let promoted = d.promoted_type[t as usize].ok_or_else(|| {
                            FenError::Board(format!("+{ch}: the piece does not promote in this variant"))
                        })?;
                        s.promoted |= bb(sq);
                        State::set_origin(&mut s.origin, sq, Some(t));
                        t = promoted;
                    }
                    s.put(sq, t, u8::from(ch.is_ascii_lowercase()));
                    last = Some(sq);
                    file += 1;
                }
                j += 1;
            }
            if plus {
                return Err(FenError::Board(format!("rank {}: '+' without a piece", rank + 1)));
            }
            if file != d.files as u32 {
                return Err(FenError::Board(format!("rank {} has {} files, expected {}", rank + 1, file, d.files)));
            }
        }
        let reserve = if d.pioneer.is_some() { hand } else { None };
        let inner = match hand.filter(|_| d.pioneer.is_none()) {
            Some(hand) => {
                let inner = hand.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
                Some(inner.ok_or_else(|| FenError::Board(hand.to_string()))?)
            }
            None => pocket,
        };
        if let Some(inner) = inner {
            let hand = inner;
            // An empty pocket (`[]`, `[-]`) says nothing; pieces in it
            // could not be played, so they are refused.
            if !d.uses_hand() && inner.chars().any(|c| c != '-') {
                return Err(FenError::Hand(hand.to_string()));
            }
            for ch in inner.chars().filter(|&c| c != '-') {
                let t = piece_type(d, ch).ok_or(FenError::Piece(ch))?;
                let n = &mut s.hand[usize::from(ch.is_ascii_lowercase())][t as usize];
                *n = n.checked_add(1).ok_or_else(|| FenError::Board("too many pieces in hand".into()))?;
            }
        }
        s.side = match fields.next() {
            None | Some("w") => 0,
            Some("b") => 1,
            Some(x) => return Err(FenError::Side(x.to_string())),
        };
        // Without castling and en-passant fields (`w 0 1`), the clocks
        // follow the side to move, as Fairy-Stockfish reads them.
        let mut fields = fields.peekable();
        let no_flags = fields.peek().is_some_and(|f| f.starts_with(|c: char| c.is_ascii_digit()));
        let castling = if no_flags { "-" } else { fields.next().unwrap_or("-") };
        s.parse_castling(d, castling)?;
        let ep = if no_flags { "-" } else { fields.next().unwrap_or("-") };
        // A digit where the en-passant square belongs (`w - 0 1`): as
        // Fairy-Stockfish reads it, that one character is taken for the
        // missing en-passant field and the rest are the clocks (`w - 0 1`
        // reads halfmove clock 1, move 1).
        let mut after_ep = None;
        if d.game_end.counting_rule != CountingRule::None && ep.chars().all(|c| c.is_ascii_digit()) {
            s.counting_limit = ep.parse().map_err(|_| FenError::EnPassant(ep.to_string()))?;
        } else if ep.starts_with(|c: char| c.is_ascii_digit()) {
            after_ep = Some(&ep[1..]).filter(|rest| !rest.is_empty());
        } else if ep != "-" {
            s.parse_ep(d, ep)?;
        }
        let mut fields = after_ep.into_iter().chain(fields).peekable();
        if d.check_counting {
            // The checks each side has still to give (`3+3`); without
            // them, as Fairy-Stockfish reads it, the next check wins.
            s.checks = [1, 1];
            let counter = fields.peek().and_then(|f| {
                let (w, b) = f.split_once('+')?;
                Some((w.parse::<u8>().ok()?, b.parse::<u8>().ok()?))
            });
            if let Some((w, b)) = counter {
                s.checks = [w, b];
                fields.next();
            }
        }
        if let Some(h) = fields.next() {
            s.rule50 = h.parse().map_err(|_| FenError::Counter(h.to_string()))?;
        }
        if let Some(f) = fields.next() {
            s.fullmove = f.parse::<u32>().map_err(|_| FenError::Counter(f.to_string()))?.max(1);
        }
        if s.counting_limit != 0 && s.rule50 != 0 {
            s.counting_ply = s.rule50;
            s.rule50 = 0;
        }
        // Lichess's form, the checks given after the clocks (`+1+0`) of
        // three checks.
        if let Some(given) = fields.next().filter(|_| d.check_counting).and_then(|f| f.strip_prefix('+')) {
            let (w, b) = given.split_once('+').ok_or_else(|| FenError::Counter(given.to_string()))?;
            let given = |n: &str| n.parse::<u8>().map_err(|_| FenError::Counter(n.to_string()));
            s.checks = [3u8.saturating_sub(given(w)?), 3u8.saturating_sub(given(b)?)];
        }
        if let Some(reserve) = reserve {
            s.parse_reserve(d, reserve)?;
        }
        if let Some((_, shak)) = d.shatar {
            let checkers = s.checkers(d);
            s.shak[s.side as usize] = s.of_types(checkers, shak);
        }
        Ok(s)
    }

    /// Reads a Pioneer-gating reserve bracket (`[Aa?]`, `[Aa]`,
    /// `[A@ga@f]`, `[A@bA@gaa]`, `[]`) after the board and side are set:
    /// White's entries first, then Black's, each the reserve piece's letter
    /// with its gate file once placed, `?` while the decision is pending.
    fn parse_reserve(&mut self, d: &VariantDef, text: &str) -> Result<(), FenError> {
        let Some(p) = d.pioneer else { return Ok(()) };
        let err = |why: &str| FenError::Reserve(format!("{text}: {why}"));
        let inner = text.strip_prefix('[').and_then(|h| h.strip_suffix(']')).ok_or_else(|| err("unclosed bracket"))?;
        let (inner, pending) = match inner.strip_suffix('?') {
            Some(rest) => (rest, true),
            None => (inner, false),
        };
        let letter = d.types[p.piece as usize].letter;
        let chars: Vec<char> = inner.chars().collect();
        let mut count = [0usize; 2];
        let mut i = 0;
        while i < chars.len() {
            let ch = chars[i];
            if ch.to_ascii_uppercase() != letter {
                return Err(err(&format!("the reserve piece is '{letter}'")));
            }
            let c = usize::from(ch.is_ascii_lowercase());
            if c == 0 && (count[1] > 0) {
                return Err(err("White's entries come first"));
            }
            count[c] += 1;
            if count[c] > p.count as usize {
                return Err(err(&format!("at most {} reserve pieces a side", p.count)));
            }
            i += 1;
            if chars.get(i) == Some(&'@') {
                let f = chars.get(i + 1).copied().filter(|f| f.is_ascii_lowercase()).map(|f| f as u8 - b'a');
                let f = f.filter(|&f| f < d.files).ok_or_else(|| err("a gate file off the board"))?;
                let sq = d.sq(f, home_rank(d, c as u8));
                if self.gates[c] >> sq & 1 != 0 {
                    return Err(err("two reserve pieces of one side on one file"));
                }
                let home = self.board[sq as usize];
                if home == EMPTY || usize::from(home & 1) != c {
                    return Err(err(&format!(
                        "the gate's home square {} holds no piece of its side",
                        square_name(d, sq)
                    )));
                }
                if d.kidnap.is_some_and(|k| k.piece == home >> 1) {
                    return Err(err(&format!("a kidnapper stands on the gate's home square {}", square_name(d, sq))));
                }
                self.gates[c] |= bb(sq);
                i += 2;
            } else {
                self.hand[c][p.piece as usize] += 1;
            }
        }
        self.bracket = true;
        let unplaced = |c: usize| usize::from(self.hand[c][p.piece as usize]);
        for c in 0..2 {
            if unplaced(c) > 0 && self.gates[c] != 0 {
                return Err(err("a side cannot have pieces both in hand and on gates"));
            }
            if !self.gate_files_allowed(d, &p, c as u8, files_of(d, self.gates[c])) {
                return Err(err("the king's file together with a rook's file"));
            }
        }
        let full = p.count as usize;
        if pending {
            if unplaced(0) != full || unplaced(1) != full {
                return Err(err("a pending decision needs every reserve piece in hand"));
            }
            self.pending = true;
        } else if unplaced(0) > 0 || unplaced(1) > 0 {
            let ok = if self.side == 0 {
                unplaced(0) == full && unplaced(1) == full
            } else {
                unplaced(0) == 0 && unplaced(1) == full
            };
            if !ok {
                return Err(err(
                    "reserve pieces in hand: White places first (both in hand, White to move), then Black (Black to move)",
                ));
            }
        }
        if p.same_file
            && unplaced(0) == 0
            && unplaced(1) == 0
            && self.gates[0] != 0
            && self.gates[1] != 0
            && files_of(d, self.gates[0]) != files_of(d, self.gates[1])
        {
            return Err(err("Black's gate file must equal White's"));
        }
        Ok(())
    }

    fn is_castling_rook(&self, d: &VariantDef, c: u8, sq: u8) -> bool {
        let p = self.board[sq as usize];
        p != EMPTY && p & 1 == c && d.castling_rook_pieces[c as usize] >> (p >> 1) & 1 != 0
    }

    fn parse_castling(&mut self, d: &VariantDef, field: &str) -> Result<(), FenError> {
        for token in field.chars() {
            if token == '-' {
                continue;
            }
            if !token.is_ascii_alphabetic() {
                return Err(FenError::Castling(field.to_string()));
            }
            let c = u8::from(token.is_ascii_lowercase());
            let up = token.to_ascii_uppercase();
            let rank = d.castling_rank[c as usize];
            let rsq = if d.castling && up == 'K' {
                let mut f = d.castling_rook_kingside_file;
                while !(f < d.files && self.is_castling_rook(d, c, d.sq(f, rank))) && f > 0 {
                    f -= 1;
                }
                d.sq(f, rank)
            } else if d.castling && up == 'Q' {
                let mut f = d.castling_rook_queenside_file.min(d.files - 1);
                while !self.is_castling_rook(d, c, d.sq(f, rank)) && f < d.files - 1 {
                    f += 1;
                }
                d.sq(f, rank)
            } else if (up as u8) >= b'A' && (up as u8) < b'A' + d.files {
                d.sq(up as u8 - b'A', rank)
            } else if !d.castling && (up == 'K' || up == 'Q') {
                // `KQkq` of a variant without castling: ignored, as Fairy-Stockfish does.
                continue;
            } else {
                return Err(FenError::Castling(field.to_string()));
            };
            let king_piece = d.castling_king_piece[c as usize];
            if d.castling && self.castle_king[c as usize] == NONE {
                let kings = match king_piece {
                    Some(k) => self.by_type[k as usize] & self.by_color[c as usize] & rank_mask(d, rank),
                    None => 0,
                };
                let p = self.board[rsq as usize];
                let ksq = if d.chess960 && p != EMPTY && p & 1 == c && Some(p >> 1) == king_piece {
                    rsq
                } else if kings != 0 && (kings.count_ones() == 1 || d.chess960) {
                    kings.trailing_zeros() as u8
                } else {
                    d.sq(d.castling_king_file, rank)
                };
                self.castle_king[c as usize] = if kings >> ksq & 1 != 0 { ksq } else { NONE };
            }
            if d.gating {
                if self.by_color[c as usize] >> rsq & 1 != 0 {
                    self.gates[c as usize] |= bb(rsq);
                }
                if (up == 'K' || up == 'Q') && self.castle_king[c as usize] != NONE {
                    self.gates[c as usize] |= bb(self.castle_king[c as usize]);
                } else if self.gates_live(d, c) {
                    continue;
                }
            }
            if d.castling && self.castle_king[c as usize] != NONE && self.is_castling_rook(d, c, rsq) {
                self.set_castling_right(d, c, rsq);
            }
        }
        if d.gating && d.castling {
            for c in 0..2u8 {
                let kings = d.castling_king_piece[c as usize].map_or(0, |k| self.by_type[k as usize]);
                let no_rights = self.rights >> (2 * c) & 3 == 0;
                if self.gates[c as usize] & kings != 0 && no_rights && self.gates_live(d, c) {
                    for sq in bits(self.gates[c as usize] & self.by_color[c as usize]) {
                        if self.is_castling_rook(d, c, sq) && self.castle_king[c as usize] != NONE {
                            self.set_castling_right(d, c, sq);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn parse_ep(&mut self, d: &VariantDef, field: &str) -> Result<(), FenError> {
        let err = || FenError::EnPassant(field.to_string());
        let chars: Vec<char> = field.chars().collect();
        let mut i = 0;
        let us = self.side;
        let pawn = d.types.iter().position(|t| t.pawn);
        while i < chars.len() {
            let f = chars[i];
            if !f.is_ascii_lowercase() || (f as u8 - b'a') >= d.files {
                return Err(err());
            }
            i += 1;
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let r: u8 = chars[start..i].iter().collect::<String>().parse().map_err(|_| err())?;
            if r == 0 || r > d.ranks {
                return Err(err());
            }
            let sq = d.sq(f as u8 - b'a', r - 1);
            if d.pawnlike != 0 {
                // Pawn types (custom pieces): Fairy-Stockfish takes any
                // square of the region (several mark one initial move).
                if d.en_passant_region[us as usize] >> sq & 1 != 0 {
                    self.ep |= bb(sq);
                }
                continue;
            }
            let Some(p) = pawn else { continue };
            let p = p as u8;
            let ours = self.by_type[p as usize] & self.by_color[us as usize];
            let theirs = self.by_type[p as usize] & self.by_color[(us ^ 1) as usize];
            let push_them = |s: u8, n: i32| -> Option<u8> {
                let dir = if us == 0 { -n } else { n };
                let v = s as i32 + dir * d.files as i32;
                (v >= 0 && (v as usize) < d.nsq()).then_some(v as u8)
            };
            let behind = push_them(sq, 1).map_or(0, bb) | push_them(sq, 2).map_or(0, bb);
            let ahead = push_them(sq, -1).map_or(0, bb);
            if d.en_passant_region[us as usize] >> sq & 1 != 0
                && d.reach(p, us ^ 1, sq, 0, true, &self.by_type) & ours != 0
                && theirs & behind != 0
                && (self.by_color[0] | self.by_color[1]) & (bb(sq) | ahead) == 0
            {
                self.ep |= bb(sq);
            }
        }
        Ok(())
    }

    fn fen(&self, d: &VariantDef) -> String {
        let mut s = String::new();
        for rank in (0..d.ranks).rev() {
            let mut empty = 0;
            for file in 0..d.files {
                let p = self.board[d.sq(file, rank) as usize];
                let wall = self.walls >> d.sq(file, rank) & 1 != 0;
                if p == EMPTY && !wall {
                    empty += 1;
                    continue;
                }
                if empty > 0 {
                    s += &empty.to_string();
                    empty = 0;
                }
                if wall {
                    s.push('*');
                    continue;
                }
                let sq = d.sq(file, rank);
                match self.origin_of(sq) {
                    Some(o) => {
                        s.push('+');
                        s.push(piece_char(d, o << 1 | (p & 1)));
                    }
                    None => {
                        s.push(piece_char(d, p));
                        if self.promoted >> sq & 1 != 0 {
                            s.push('~');
                        }
                    }
                }
            }
            if empty > 0 {
                s += &empty.to_string();
            }
            if rank > 0 {
                s.push('/');
            }
        }
        if let Some(p) =
            d.pioneer.filter(|_| self.bracket || self.gates != [0; 2] || self.pending || self.in_prelude(d))
        {
            s.push('[');
            let letter = d.types[p.piece as usize].letter;
            for c in 0..2u8 {
                let l = if c == 0 { letter } else { letter.to_ascii_lowercase() };
                for sq in bits(self.gates[c as usize]) {
                    s.push(l);
                    s.push('@');
                    s.push(file_char(sq % d.files));
                }
                for _ in 0..self.hand[c as usize][p.piece as usize] {
                    s.push(l);
                }
            }
            if self.pending {
                s.push('?');
            }
            s.push(']');
        }
        if d.uses_hand() {
            s.push('[');
            let mut order: Vec<usize> = (0..d.types.len()).collect();
            order.sort_by_key(|&t| std::cmp::Reverse(d.types[t].fsf));
            for c in 0..2u8 {
                for &t in &order {
                    for _ in 0..self.hand[c as usize][t] {
                        s.push(piece_char(d, (t as u8) << 1 | c));
                    }
                }
            }
            s.push(']');
        }
        s += if self.side == 0 { " w " } else { " b " };
        let mut castling = String::new();
        for c in 0..2u8 {
            let letter = |f: u8| if c == 0 { (b'A' + f) as char } else { (b'a' + f) as char };
            let rights = self.rights >> (2 * c) & 3;
            if d.chess960 && rights != 0 {
                if let Some(k) = d.castling_king_piece[c as usize] {
                    let kings = self.by_type[k as usize]
                        & self.by_color[c as usize]
                        & rank_mask(d, d.castling_rank[c as usize]);
                    if kings.count_ones() > 1 {
                        castling.push(letter(self.castle_king[c as usize] % d.files));
                    }
                }
            }
            for (i, side) in ['K', 'Q'].iter().enumerate() {
                if rights >> i & 1 != 0 {
                    let f = self.castle_rook[2 * c as usize + i] % d.files;
                    castling.push(if d.chess960 {
                        letter(f)
                    } else if c == 0 {
                        *side
                    } else {
                        side.to_ascii_lowercase()
                    });
                }
            }
            if d.gating && self.gates[c as usize] != 0 && self.gates_live(d, c) {
                for f in 0..d.files {
                    let on_file = (0..d.ranks).any(|r| self.gates[c as usize] >> d.sq(f, r) & 1 != 0);
                    let king_file = !d.chess960 && rights != 0 && f == self.castle_king[c as usize] % d.files;
                    let rook_file =
                        (0..2).any(|i| rights >> i & 1 != 0 && f == self.castle_rook[2 * c as usize + i] % d.files);
                    if on_file && !king_file && !rook_file {
                        castling.push(letter(f));
                    }
                }
            }
        }
        if castling.is_empty() {
            castling.push('-');
        }
        s += &castling;
        s.push(' ');
        if self.counting_limit != 0 {
            s += &self.counting_limit.to_string();
        } else if self.ep == 0 {
            s.push('-');
        } else {
            for e in bits(self.ep) {
                s += &square_name(d, e);
            }
        }
        if d.check_counting {
            s += &format!(" {}+{}", self.checks[0], self.checks[1]);
        }
        let clock = if self.counting_limit != 0 { self.counting_ply } else { self.rule50 };
        s += &format!(" {clock} {}", self.fullmove);
        s
    }
}

fn rank_mask(d: &VariantDef, rank: u8) -> u128 {
    ((1u128 << d.files) - 1) << (rank as u32 * d.files as u32)
}

fn file_char(f: u8) -> char {
    (b'a' + f) as char
}

/// The home rank of colour `c` (where its Pioneer gates are).
fn home_rank(d: &VariantDef, c: u8) -> u8 {
    if c == 0 { 0 } else { d.ranks - 1 }
}

/// The files (bit per file) of the squares of `b`.
fn files_of(d: &VariantDef, b: u128) -> u16 {
    bits(b).fold(0u16, |m, sq| m | 1 << (sq % d.files))
}

/// The square offset of one step forward for `us`.
fn fwd_delta(us: u8, files: i32) -> i32 {
    if us == 0 { files } else { -files }
}

/// The rook directions, as bits of [`crate::variant::DIRS`].
const ORTHOGONAL: u8 = 1 << 0 | 1 << 1 | 1 << 4 | 1 << 5;

/// Squares from `a` (excluded) to `b` (included) along a rank.
fn between(a: u8, b: u8) -> u128 {
    if a == b {
        return bb(b);
    }
    let (lo, hi) = if a < b { (a + 1, b) } else { (b, a - 1) };
    let mut m = 0u128;
    for s in lo..=hi {
        m |= bb(s);
    }
    m | bb(b)
}

/// The square of the pawn captured en passant on `to` by `us`.
/// The square behind `to`, seen from the side `us`.
fn behind_square(d: &VariantDef, us: u8, to: u8) -> u8 {
    if us == 0 { to - d.files } else { to + d.files }
}

fn piece_type(d: &VariantDef, ch: char) -> Option<u8> {
    let up = ch.to_ascii_uppercase();
    d.types.iter().position(|t| t.letter == up).map(|t| t as u8)
}

fn piece_char(d: &VariantDef, p: u8) -> char {
    let l = d.types[(p >> 1) as usize].letter;
    if p & 1 == 0 { l } else { l.to_ascii_lowercase() }
}

fn square_name(d: &VariantDef, s: u8) -> String {
    format!("{}{}", (b'a' + s % d.files) as char, s / d.files + 1)
}

/// A position of a variant. Cloning is cheap apart from the shared variant.
///
/// Positions compare equal when they are the same position with the same
/// FEN counters, however they were reached (see the `PartialEq` impl for
/// the one piece of rule state a FEN cannot carry: the halfmove clock
/// while a counting rule counts, in a variant that also has an n-move
/// rule).
#[derive(Clone)]
pub struct Position {
    def: Arc<VariantDef>,
    state: State,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.def.name, self.fen())
    }
}

/// Equal positions have the same variant (the same loaded definition),
/// are the same position for the rules (pieces, side to move, castling
/// rights, en passant squares, pieces in hand, the gating squares still
/// usable; not what play leaves behind that no rule reads, such as the
/// rook squares of castling rights already lost) and have the same move
/// counters as far as a FEN carries them (full-move number, halfmove
/// clock, the counting rule's limit and plies). A position reached by play equals the one read back from its
/// own FEN, and equal positions have equal [`Position::key`]s.
///
/// One difference is real rule state that a FEN cannot express: while a
/// counting rule counts, the FEN (as Fairy-Stockfish writes it) carries
/// the counted plies in place of the halfmove clock. In a variant that
/// also has an n-move rule that clock still matters, so there a position
/// reached by play can differ from the one read back from its FEN (whose
/// clock restarts at 0). Where no n-move rule reads it (Makruk), the clock
/// is not compared while counting.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        Arc::ptr_eq(&self.def, &other.def)
            && self.state.same_position(&other.state, &self.def)
            && self.state.same_counters(&other.state, &self.def)
    }
}

impl Eq for Position {}

impl Position {
    /// The variant's start position.
    pub fn start(def: &Arc<VariantDef>) -> Position {
        // The start FEN was checked when the definition was loaded.
        let state = State::parse(def, &def.start_fen).unwrap_or_else(|_| State::empty());
        Position { def: Arc::clone(def), state }
    }

    /// Parses a FEN (with `[pockets]` after the board for gating and drop
    /// variants, or the pocket after one more `/`; `Q~` for a promoted
    /// piece; castling as `KQkq`, rook files or Shredder letters). Pieces
    /// in a pocket of a variant without pieces in hand are
    /// [`FenError::Hand`].
    pub fn from_fen(def: &Arc<VariantDef>, fen: &str) -> Result<Position, FenError> {
        Ok(Position { def: Arc::clone(def), state: State::parse(def, fen)? })
    }

    /// The variant.
    pub fn variant(&self) -> &Arc<VariantDef> {
        &self.def
    }

    /// The FEN, written as Fairy-Stockfish writes it.
    pub fn fen(&self) -> String {
        self.state.fen(&self.def)
    }

    /// Whether White is to move.
    pub fn white_to_move(&self) -> bool {
        self.state.side == 0
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.state.in_check(&self.def)
    }

    /// How the game has ended in this position, if it has: at once by
    /// extinction, a flag reached or the checks given (checked first, in
    /// that order, as Fairy-Stockfish does: such a position has no legal
    /// moves), else by checkmate or stalemate, valued by the variant's
    /// `extinctionValue`, the flag rule, `checkmateValue` and
    /// `stalemateValue`. Only the position itself is looked at: repetitions,
    /// the n-move rule and counting rules are not. `None` also when the
    /// variant gives the ending no value.
    pub fn outcome(&self) -> Option<Outcome> {
        let d = &*self.def;
        let rules = &d.game_end;
        if let Some((reason, value, white)) = self.state.ended_at_once(d) {
            return Outcome::valued(reason, value, white);
        }
        if self.perft(1) != 0 {
            return None;
        }
        let white = self.white_to_move();
        if self.in_check() {
            if self.state.pawn_drop {
                // `shogiPawnDropMateIllegal`: mate by a pawn drop loses.
                return Outcome::valued(EndReason::Checkmate, GameValue::Win, white);
            }
            if let Some((knights, _)) = d.shatar {
                // Shatar: a mate by knights alone loses for the mating side;
                // a mate ending a series of checks without a check by a
                // knight, rook or bers draws.
                let checkers = self.state.checkers(d);
                if !self.state.of_types(checkers, !knights) {
                    return Outcome::valued(EndReason::Checkmate, GameValue::Win, white);
                }
                if !self.state.shak[self.state.side as usize] {
                    return Outcome::valued(EndReason::Checkmate, GameValue::Draw, white);
                }
            }
            Outcome::valued(EndReason::Checkmate, rules.checkmate_value, white)
        } else if d.stalemate_piece_count {
            // Fewer pieces than the opponent: the stalemate value; more:
            // its opposite; as many: a draw.
            let s = &self.state;
            let own = s.by_color[s.side as usize].count_ones();
            let theirs = s.by_color[(s.side ^ 1) as usize].count_ones();
            let value = match own.cmp(&theirs) {
                std::cmp::Ordering::Equal => GameValue::Draw,
                std::cmp::Ordering::Less => rules.stalemate_value,
                std::cmp::Ordering::Greater => match rules.stalemate_value {
                    GameValue::Win => GameValue::Loss,
                    GameValue::Loss => GameValue::Win,
                    v => v,
                },
            };
            Outcome::valued(EndReason::Stalemate, value, white)
        } else {
            Outcome::valued(EndReason::Stalemate, rules.stalemate_value, white)
        }
    }

    /// Whether the move takes an enemy piece (en passant included; castling
    /// and a gated piece's placement take nothing). `m` should be one of this
    /// position's legal moves.
    pub fn is_capture(&self, m: Move) -> bool {
        match m.kind.takes() {
            Takes::Nothing => false,
            Takes::EnPassant => true,
            Takes::Target => {
                self.state.board.get(m.to as usize).is_some_and(|&p| p != EMPTY && p & 1 != self.state.side)
            }
        }
    }

    /// The legal moves (none if the game has ended by extinction).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut v = Vec::new();
        self.state.legal_moves(&self.def, &mut v);
        v
    }

    /// The position after a move, which must be one of this position's legal moves
    /// (from [`Position::legal_moves`] or [`Position::parse_move`]).
    pub fn play(&self, m: Move) -> Position {
        Position { def: Arc::clone(&self.def), state: self.state.play(&self.def, m) }
    }

    /// The legal move written `text` (as [`Position::move_text`] writes it;
    /// a swap from either square; a `wallOrMove` move that walls nothing
    /// also without its `,e4a1`).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.legal_moves()
            .into_iter()
            .find(|&m| {
                let written = self.move_text(m);
                written == text
                    || (m.kind == Kind::Swap && self.move_text(Move { from: m.to, to: m.from, ..m }) == text)
                    // A move of `wallOrMove` that walls nothing, without Fairy-Stockfish's `,e4a1`.
                    || (m.wall == NONE && written.split_once(',').is_some_and(|(plain, _)| plain == text))
            })
            .ok_or_else(|| MoveError::Illegal(text.to_string()))
    }

    /// A move in Fairy-Stockfish's UCI notation: `e2e4`, `e7e8q`, castling as
    /// the king's move (`e1g1`, king-takes-rook in Chess960 variants), gating
    /// with the gated piece's letter (`g1f3h`, `h1e1h` when gating on the rook's square);
    /// Pioneer prelude actions as `accept`, `decline` and `A@g` / `A@bg`
    /// (the reserve piece's letter and the gate files); a takeover leap with
    /// `t` after the squares (`h2g4t`), a swap from its lower square
    /// (`e1f2`).
    pub fn move_text(&self, m: Move) -> String {
        let d = &*self.def;
        match m.kind {
            Kind::Accept => return "accept".into(),
            Kind::Decline => return "decline".into(),
            Kind::Place => {
                let mask = m.place_mask();
                let mut s = String::new();
                s.push(d.types.get(m.gate as usize).map_or('?', |t| t.letter));
                s.push('@');
                s.extend((0..d.files).filter(|f| mask >> f & 1 != 0).map(file_char));
                return s;
            }
            Kind::Drop => {
                let letter = d.types.get(m.gate as usize).map_or('?', |t| t.letter);
                // A piece dropped promoted (`dropPromoted`): `+P@a2`.
                let plus = if m.promo != NONE { "+" } else { "" };
                return format!("{plus}{letter}@{}", square_name(d, m.to));
            }
            _ => {}
        }
        let (mut from, mut to) = (m.from, m.to);
        if m.gate != NONE && m.gate_sq == m.to {
            std::mem::swap(&mut from, &mut to);
        } else if m.kind == Kind::Castling && !d.chess960 {
            let us = self.state.side;
            let cr = 2 * us as usize + usize::from(m.to < m.from);
            let (_, _, kto, _) = self.state.castle_squares(d, cr);
            let t = self.state.board[m.from as usize] >> 1;
            let occ = self.state.occ();
            let normal = (d.reach(t, us, m.from, occ, true, &self.state.by_type)
                & self.state.by_color[(us ^ 1) as usize])
                | (d.reach(t, us, m.from, occ, false, &self.state.by_type) & !occ);
            if normal >> kto & 1 == 0 {
                to = kto;
            }
        }
        let mut s = square_name(d, from) + &square_name(d, to);
        // Fairy-Stockfish writes every move of a walling variant with its
        // wall square: a1 for the moves of `wallOrMove` that wall nothing.
        let wall = match (m.wall, &d.walling) {
            (NONE, Some(_)) => format!(",{}{}", square_name(d, to), square_name(d, 0)),
            (NONE, None) => String::new(),
            (w, _) => format!(",{}{}", square_name(d, to), square_name(d, w)),
        };
        if m.kind == Kind::Takeover {
            s.push('t');
        }
        if m.kind == Kind::PiecePromotion {
            s.push('+');
        } else if m.kind == Kind::PieceDemotion {
            s.push('-');
        } else if m.promo != NONE {
            s.push(d.types[m.promo as usize].letter.to_ascii_lowercase());
        } else if m.gate != NONE {
            s.push(d.types[m.gate as usize].letter.to_ascii_lowercase());
            if m.gate_sq != from {
                s += &square_name(d, m.gate_sq);
            }
        }
        s + &wall
    }

    /// Number of leaf nodes of the legal move tree of that depth.
    pub fn perft(&self, depth: u32) -> u64 {
        self.state.perft(&self.def, depth)
    }

    /// Perft of depth `depth - 1` after each legal move, by move text.
    pub fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        self.legal_moves()
            .into_iter()
            .map(|m| (self.move_text(m), self.state.play(&self.def, m).perft(&self.def, depth.saturating_sub(1))))
            .collect()
    }
}

pub(crate) mod access;
mod cambodian;
mod chasing;
mod enclosing;
mod game;
mod lichess;
mod placement;
mod san;
mod sittuyin;
mod takeover;
mod walls;
pub use game::Game;
