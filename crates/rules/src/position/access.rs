//! Read access for engines: the pieces of a position, the parts of a move,
//! a Zobrist key, packing moves into 32 bits, the null move, and the reach
//! of a piece type on any occupancy (to value pieces from their movement).

use super::{EMPTY, Kind, Move, NONE, Position, State, Takes, bb};
use crate::variant::{MAX_TYPES, VariantDef};

/// A piece of a [`Position`]: its type (an index into
/// [`VariantDef::pieces`]) and colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Index of the piece type in [`VariantDef::pieces`].
    pub kind: u8,
    /// Whether the piece is White's.
    pub white: bool,
}

impl Move {
    /// The square the move starts from (squares are numbered rank by rank
    /// from a1, `files` squares a rank).
    pub fn from_square(self) -> u8 {
        self.from
    }

    /// The square the move goes to (a castling move goes to its rook's square).
    pub fn to_square(self) -> u8 {
        self.to
    }

    /// The piece type a promotion promotes to (also a jump takeover's or a
    /// swap's promotion).
    pub fn promotion(self) -> Option<u8> {
        (matches!(self.kind, Kind::Promotion | Kind::Jump | Kind::Swap | Kind::PiecePromotion | Kind::PieceDemotion)
            && self.promo != NONE)
            .then_some(self.promo)
    }

    /// Whether the move is a promoted piece's demotion (`pieceDemotion`,
    /// written `-`): the piece becomes [`Move::promotion`], the type it
    /// was promoted from.
    pub fn is_piece_demotion(self) -> bool {
        self.kind == Kind::PieceDemotion
    }

    /// The type a drop puts on the board promoted (`dropPromoted`,
    /// written `+P@a2`), if it does.
    pub fn dropped_promoted(self) -> Option<u8> {
        (self.kind == Kind::Drop && self.promo != NONE).then_some(self.promo)
    }

    /// Whether the move is a shogi-style promotion (`promotedPieceType`,
    /// written `+`): the piece becomes [`Move::promotion`], marked promoted.
    pub fn is_piece_promotion(self) -> bool {
        self.kind == Kind::PiecePromotion
    }

    /// Whether the move is a takeover (a leap or jump converting enemy pieces).
    pub fn is_takeover(self) -> bool {
        matches!(self.kind, Kind::Takeover | Kind::Jump)
    }

    /// Whether the move is a swap of two adjacent friendly pieces.
    pub fn is_swap(self) -> bool {
        self.kind == Kind::Swap
    }

    /// Whether the move is a pass (`pass`: janggi), written as a move of
    /// the king to its own square.
    pub fn is_pass(self) -> bool {
        self.kind == Kind::Pass
    }

    /// Whether the move is castling.
    pub fn is_castling(self) -> bool {
        self.kind == Kind::Castling
    }

    /// Whether the move is an en passant capture.
    pub fn is_en_passant(self) -> bool {
        self.kind == Kind::EnPassant
    }

    /// The piece type gated in (S-chess), if any.
    pub fn gated(self) -> Option<u8> {
        (self.gate != NONE && !self.is_prelude() && self.kind != Kind::Drop).then_some(self.gate)
    }

    /// The square the move walls (`wallingRule`: duck chess's duck,
    /// amazons' arrow), if it places a wall.
    pub fn wall(self) -> Option<u8> {
        (self.wall != NONE).then_some(self.wall)
    }

    /// The piece type dropped from the hand (`pieceDrops`), if the move is
    /// a drop; its square is [`Move::to_square`] (and
    /// [`Move::from_square`]), where no piece stands before the move.
    pub fn dropped(self) -> Option<u8> {
        (self.kind == Kind::Drop).then_some(self.gate)
    }

    /// The move in 30 bits, for hash tables; [`Move::unpack`] restores it.
    pub fn pack(self) -> u32 {
        if self.wall != NONE {
            // Walling moves have no gate: bit 29, and the wall square where
            // the gate and its square go.
            let kind = match self.kind {
                Kind::Normal | Kind::Pass => 0,
                Kind::Promotion | Kind::PiecePromotion => 1,
                Kind::EnPassant | Kind::PieceDemotion => 2,
                _ => 3,
            };
            let special = u32::from(matches!(self.kind, Kind::Pass | Kind::PiecePromotion | Kind::PieceDemotion));
            let promo = if self.promo == NONE { 0 } else { u32::from(self.promo & 31) + 1 };
            return u32::from(self.from & 127)
                | u32::from(self.to & 127) << 7
                | kind << 14
                | promo << 16
                | u32::from(self.wall & 127) << 21
                | special << 28
                | 1 << 29;
        }
        let kind = match self.kind {
            Kind::Normal | Kind::Accept | Kind::Takeover => 0,
            Kind::Promotion | Kind::Decline | Kind::Jump => 1,
            Kind::EnPassant | Kind::Place | Kind::Swap | Kind::Pass | Kind::PieceDemotion => 2,
            Kind::Castling | Kind::Kidnap | Kind::Drop => 3,
            Kind::PiecePromotion => 1,
        };
        // Takeovers, swaps and drops are told apart by bit 28.
        let special = u32::from(matches!(
            self.kind,
            Kind::Takeover
                | Kind::Jump
                | Kind::Swap
                | Kind::Drop
                | Kind::PiecePromotion
                | Kind::PieceDemotion
                | Kind::Pass
        ));
        let small = |v: u8| if v == NONE { 0 } else { u32::from(v & 31) + 1 };
        // Prelude actions, kidnaps, piece promotions and demotions and
        // passes are told apart by a gate-square code of 3.
        let gate_sq = if self.is_prelude()
            || matches!(self.kind, Kind::Kidnap | Kind::PiecePromotion | Kind::PieceDemotion | Kind::Pass)
        {
            3
        } else if self.gate_sq == NONE {
            0
        } else if self.gate_sq == self.from {
            1
        } else {
            2
        };
        u32::from(self.from & 127)
            | u32::from(self.to & 127) << 7
            | kind << 14
            | small(self.promo) << 16
            | small(self.gate) << 21
            | gate_sq << 26
            | special << 28
    }

    /// The move packed by [`Move::pack`] (`None` for values no move packs
    /// to). The move is only legal where it was packed.
    pub fn unpack(v: u32) -> Option<Move> {
        let from = (v & 127) as u8;
        let to = (v >> 7 & 127) as u8;
        if from as usize >= 120 || to as usize >= 120 || v >> 30 != 0 {
            return None;
        }
        let small = |x: u32| -> Option<u8> {
            match x & 31 {
                0 => Some(NONE),
                n if n as usize <= MAX_TYPES => Some(n as u8 - 1),
                _ => None,
            }
        };
        if v >> 29 & 1 != 0 {
            let kind = match (v >> 14 & 3, v >> 28 & 1) {
                (0, 0) => Kind::Normal,
                (1, 0) => Kind::Promotion,
                (2, 0) => Kind::EnPassant,
                (3, 0) => Kind::Castling,
                (0, _) => Kind::Pass,
                (1, _) => Kind::PiecePromotion,
                (2, _) => Kind::PieceDemotion,
                _ => return None,
            };
            let wall = (v >> 21 & 127) as u8;
            if wall as usize >= 120 {
                return None;
            }
            let promo = small(v >> 16)?;
            return Some(Move { from, to, kind, promo, gate: NONE, gate_sq: NONE, wall });
        }
        let kind = match (v >> 14 & 3, v >> 28 & 1) {
            (0, 0) => Kind::Normal,
            (1, 0) => Kind::Promotion,
            (2, 0) => Kind::EnPassant,
            (_, 0) => Kind::Castling,
            (0, _) => Kind::Takeover,
            (1, _) => Kind::Jump,
            (2, _) => Kind::Swap,
            _ => Kind::Drop,
        };
        let promo = small(v >> 16)?;
        let gate = small(v >> 21)?;
        let gate_sq = match v >> 26 & 3 {
            0 => NONE,
            1 => from,
            2 => to,
            _ => {
                let kind = match kind {
                    Kind::Normal => Kind::Accept,
                    Kind::Promotion => Kind::Decline,
                    Kind::EnPassant => Kind::Place,
                    Kind::Castling => Kind::Kidnap,
                    Kind::Jump => Kind::PiecePromotion,
                    Kind::Swap if from == to => Kind::Pass,
                    Kind::Swap => Kind::PieceDemotion,
                    _ => return None,
                };
                return Some(Move { from, to, kind, promo, gate, gate_sq: NONE, wall: NONE });
            }
        };
        if kind == Kind::Drop && (gate == NONE || from != to || gate_sq != NONE) {
            return None;
        }
        Some(Move { from, to, kind, promo, gate, gate_sq, wall: NONE })
    }
}

/// Zobrist numbers: a fixed pseudo-random sequence (SplitMix64).
const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// One number for each piece code (`type << 1 | colour`) on each square.
static PIECE_KEYS: [[u64; 120]; 32] = {
    let mut t = [[0u64; 120]; 32];
    let mut p = 0;
    while p < 32 {
        let mut s = 0;
        while s < 120 {
            t[p][s] = splitmix((p * 120 + s) as u64 ^ 0x5A17_C0DE);
            s += 1;
        }
        p += 1;
    }
    t
};

const SIDE_KEY: u64 = splitmix(0xB1AC_0001);

/// A key for the value `v` of the field numbered `field`.
fn field_key(field: u64, v: u64) -> u64 {
    splitmix(splitmix(field.wrapping_mul(0x1000_0000_01B3) ^ 0xF1E1_D000) ^ v)
}

fn bitboard_key(field: u64, b: u128) -> u64 {
    if b == 0 { 0 } else { field_key(field, b as u64) ^ field_key(field + 1, (b >> 64) as u64) }
}

impl State {
    /// The key of the piece on square `s` (0 if it is empty).
    #[inline]
    fn square_key(&self, s: usize) -> u64 {
        match self.board.get(s) {
            Some(&p) if p != EMPTY && s < 120 => PIECE_KEYS[p as usize & 31][s],
            _ => 0,
        }
    }

    /// The Zobrist key of the fields that make a position (`bare_gates`:
    /// see [`State::rest_key`]).
    fn key(&self, bare_gates: bool) -> u64 {
        let mut k = 0;
        let mut occ = self.by_color[0] | self.by_color[1];
        while occ != 0 {
            let s = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            k ^= self.square_key(s);
        }
        k ^ self.rest_key(bare_gates)
    }

    /// The key of `self` from the key `other_key` of another state: only
    /// the squares whose pieces differ are looked at.
    fn key_from(&self, other: &State, other_key: u64, bare_gates: bool) -> u64 {
        let mut changed = (self.by_color[0] ^ other.by_color[0]) | (self.by_color[1] ^ other.by_color[1]);
        for (a, b) in self.by_type.iter().zip(&other.by_type) {
            changed |= a ^ b;
        }
        let mut k = other_key ^ other.rest_key(bare_gates) ^ self.rest_key(bare_gates);
        while changed != 0 {
            let s = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            k ^= self.square_key(s) ^ other.square_key(s);
        }
        k
    }

    /// The part of the key that is not the pieces on the board
    /// (`bare_gates`: the variant's gates live without pieces in hand, as
    /// Pioneer gating's and Cambodian chess's do).
    fn rest_key(&self, bare_gates: bool) -> u64 {
        let mut k = if self.side == 1 { SIDE_KEY } else { 0 };
        k ^= bitboard_key(2, self.ep);
        if self.rights != 0 {
            k ^= field_key(4, u64::from(self.rights));
        }
        for (c, hand) in self.hand.iter().enumerate() {
            let mut any = false;
            for (t, &n) in hand.iter().enumerate() {
                if n != 0 {
                    any = true;
                    k ^= field_key(64 + (c * MAX_TYPES + t) as u64, u64::from(n));
                }
            }
            // Gating squares matter only while there is a piece to gate
            // (a FEN leaves them out otherwise).
            if any || bare_gates {
                k ^= bitboard_key(5 + 2 * c as u64, self.gates[c]);
            }
        }
        if self.pending {
            k ^= field_key(9, 1);
        }
        if self.checks != [0, 0] {
            k ^= field_key(11, u64::from(self.checks[0]) | u64::from(self.checks[1]) << 8);
        }
        k ^= bitboard_key(12, self.promoted);
        k ^= bitboard_key(60, self.walls);
        for (i, &plane) in self.origin.iter().enumerate() {
            if plane != 0 {
                k ^= bitboard_key(20 + 2 * i as u64, plane);
            }
        }
        k
    }
}

impl Position {
    /// The piece on square `sq`, if any.
    pub fn piece_on(&self, sq: u8) -> Option<Piece> {
        match self.state.board.get(sq as usize) {
            Some(&p) if p != EMPTY => Some(Piece { kind: p >> 1, white: p & 1 == 0 }),
            _ => None,
        }
    }

    /// Whether `sq` is a wall square (`*` in the FEN): no piece stands
    /// there or enters it, and it blocks lines.
    pub fn is_wall(&self, sq: u8) -> bool {
        sq < 128 && self.state.walls >> sq & 1 != 0
    }

    /// The type of the piece `m` takes (the pawn for en passant), if any.
    /// `m` should be one of this position's legal moves.
    pub fn captured_kind(&self, m: Move) -> Option<u8> {
        match m.kind.takes() {
            Takes::Nothing => None,
            Takes::EnPassant => self.def.pawn,
            Takes::Target => self.piece_on(m.to).filter(|p| p.white != self.white_to_move()).map(|p| p.kind),
        }
    }

    /// Number of squares of the board (`files * ranks`).
    pub fn squares(&self) -> usize {
        self.def.nsq()
    }

    /// The legal moves, into a reusable buffer (cleared first).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        self.state.legal_moves(&self.def, out);
    }

    /// Plies since the last capture or pawn move. While a counting rule
    /// counts, a FEN carries the counted plies in its place, so a position
    /// read from such a FEN has this clock at 0 (and compares equal to the
    /// position reached by play unless the variant also has an n-move
    /// rule: see [`Position`]'s `PartialEq`).
    pub fn halfmove_clock(&self) -> u32 {
        self.state.rule50
    }

    /// A Zobrist key of the position: equal for equal positions (pieces,
    /// side to move, castling rights, en passant square, pieces in hand and
    /// gating squares), different otherwise but for rare collisions.
    pub fn key(&self) -> u64 {
        self.state.key(self.bare_gates())
    }

    /// Whether the gates count without pieces in hand: Pioneer gating's,
    /// those of `gating` without S-chess's rules (Cambodian chess), and
    /// S-chess's where captures refill the hands (S-house).
    fn bare_gates(&self) -> bool {
        let refilled = self.def.drops.is_some_and(|d| d.to_hand);
        self.def.pioneer.is_some() || (self.def.gating && (!self.def.seirawan_gating || refilled))
    }

    /// The key of this position given the key `other_key` of `other` (a
    /// position of the same variant, typically the one before a move):
    /// equal to [`Position::key`], faster when few pieces differ.
    pub fn key_from(&self, other: &Position, other_key: u64) -> u64 {
        self.state.key_from(&other.state, other_key, self.bare_gates())
    }

    /// The squares occupied by White's (`white`) or Black's pieces.
    pub fn pieces_of(&self, white: bool) -> u128 {
        self.state.by_color[usize::from(!white)]
    }

    /// The squares occupied by pieces of type `kind` (both colours).
    pub fn pieces_of_kind(&self, kind: u8) -> u128 {
        self.state.by_type.get(kind as usize).copied().unwrap_or(0)
    }

    /// How many pieces of type `kind` a side holds in hand (S-chess; with
    /// Pioneer gating, the reserve pieces not placed yet).
    pub fn in_hand(&self, white: bool, kind: u8) -> u8 {
        self.state.hand[usize::from(!white)].get(kind as usize).copied().unwrap_or(0)
    }

    /// With Pioneer gating, the home squares of a side's live gates: each
    /// holds back one reserve piece ([`VariantDef::pioneer_piece`]) that
    /// enters when the piece there first leaves. Empty otherwise.
    pub fn pioneer_gates(&self, white: bool) -> u128 {
        if self.def.pioneer.is_some() { self.state.gates[usize::from(!white)] } else { 0 }
    }

    /// Whether the Pioneer prelude's decision (accept or decline) is pending.
    pub fn reserve_pending(&self) -> bool {
        self.state.pending
    }

    /// The squares of the enemy pieces takeover `m` converts (empty for
    /// other moves). `m` should be one of this position's legal moves.
    pub fn converted(&self, m: Move) -> u128 {
        if m.is_takeover() { self.state.converted(&self.def, m) } else { 0 }
    }

    /// Whether the game has ended at once by a rule of the position:
    /// extinction (e.g. a bare king in shatranj), a flag reached (king of
    /// the hill, racing kings) or the checks given (three-check). Such a
    /// position has no legal moves; [`Position::outcome`] says which rule
    /// and the result.
    pub fn is_extinct(&self) -> bool {
        self.state.ended_at_once(&self.def).is_some()
    }

    /// The squares the piece on `sq` attacks (could capture on) with the
    /// current occupancy; empty if `sq` is empty.
    pub fn attacks_from(&self, sq: u8) -> u128 {
        let Some(p) = self.piece_on(sq) else { return 0 };
        let occ = self.state.occ();
        self.def.reach(p.kind, u8::from(!p.white), sq, occ, true, &self.state.by_type) & self.def.board
    }

    /// The empty squares the piece on `sq` could move to without capturing,
    /// with the current occupancy.
    pub fn quiet_reach_from(&self, sq: u8) -> u128 {
        let Some(p) = self.piece_on(sq) else { return 0 };
        let occ = self.state.occ();
        self.def.reach(p.kind, u8::from(!p.white), sq, occ, false, &self.state.by_type) & self.def.board & !occ
    }

    /// A piece of type `kind` and colour `white` on one of the squares
    /// `among` that attacks `sq` given the occupancy `occ`, if any.
    pub fn attacker_of_kind(&self, sq: u8, kind: u8, white: bool, occ: u128, among: u128) -> Option<u8> {
        if kind as usize >= self.def.types.len() || sq as usize >= self.def.nsq() {
            return None;
        }
        let by = u8::from(!white);
        if among == 0 || !self.def.attacks_to(kind, by, sq, occ, among, &self.state.by_type) {
            return None;
        }
        let mut b = among;
        while b != 0 {
            let s = b.trailing_zeros() as u8;
            b &= b - 1;
            if self.def.attacks_to(kind, by, sq, occ, bb(s), &self.state.by_type) {
                return Some(s);
            }
        }
        None
    }

    /// The position with the side to move passing (not a legal move; for
    /// null-move pruning). En passant rights lapse.
    pub fn null_move(&self) -> Position {
        let mut state = self.state;
        state.side ^= 1;
        state.ep = 0;
        state.rule50 = state.rule50.saturating_add(1);
        state.passes = 0;
        state.bikjang_before = false;
        Position { def: self.def.clone(), state }
    }
}

impl VariantDef {
    /// Number of piece types.
    pub fn piece_count(&self) -> usize {
        self.types.len()
    }

    /// Whether piece type `kind` moves like a pawn (pushes, promotes).
    pub fn is_pawn(&self, kind: u8) -> bool {
        self.types.get(kind as usize).is_some_and(|t| t.pawn)
    }

    /// Whether piece type `kind` is royal (the king).
    pub fn is_royal(&self, kind: u8) -> bool {
        self.types.get(kind as usize).is_some_and(|t| t.royal)
    }

    /// The squares of the board.
    pub fn board_squares(&self) -> u128 {
        self.board
    }

    /// The squares where a side's pawns promote (`white`: White's).
    pub fn promotion_squares(&self, white: bool) -> u128 {
        self.promotion_zone[usize::from(!white)]
    }

    /// The squares a piece of type `kind` and colour `white` on `sq` reaches
    /// given the occupancy `occ`: by captures (`capture`) or by quiet moves.
    /// Empty for out-of-range arguments.
    pub fn reach_from(&self, kind: u8, white: bool, sq: u8, occ: u128, capture: bool) -> u128 {
        if kind as usize >= self.types.len() || sq as usize >= self.nsq() {
            return 0;
        }
        self.reach(kind, u8::from(!white), sq, occ, capture, &[0; MAX_TYPES]) & self.board
    }
}
