//! The generic position: bitboards by colour and kind, a mailbox, the
//! game state and the Zobrist key, for any [`Variant`].

use crate::castling::Castling;
use crate::gating::Gates;
use crate::setup::{PositionError, Setup};
use crate::variant::Variant;
use crate::zobrist::KEYS;
use core::marker::PhantomData;
use menagerie_geometry::{Bits, Shape, Square};
use menagerie_pieces::{Color, KIND_COUNT, Piece, PieceKind, PieceShape};

/// The bitboard type of a variant.
pub type BitsOf<V> = <<V as Variant>::Shape as Shape>::Bits;

/// A position of variant `V`. Invalid positions cannot be constructed: use
/// [`Position::from_setup`] or [`Position::start`].
#[derive(Clone, Copy)]
pub struct Position<V: Variant> {
    pub(crate) board: <V::Shape as Shape>::Mailbox,
    pub(crate) by_kind: [BitsOf<V>; KIND_COUNT],
    pub(crate) by_color: [BitsOf<V>; 2],
    pub(crate) side: Color,
    pub(crate) castling: Castling,
    /// The castling rook's file of each right, indexed as
    /// [`Castling::RIGHTS`] (orthodox variants: always h, a, h, a).
    pub(crate) castle_rooks: [u8; 4],
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) gates: Gates,
    pub(crate) hash: u64,
    /// The FEN had no reserve bracket (an orthodox FEN given to a gating
    /// variant); formatting then leaves it out again while no reserve
    /// remains. Cosmetic: not part of equality or the hash.
    pub(crate) bracket_elided: bool,
    pub(crate) variant: PhantomData<V>,
}

impl<V: Variant> PartialEq for Position<V> {
    fn eq(&self, o: &Self) -> bool {
        self.board == o.board
            && self.side == o.side
            && self.castling == o.castling
            && (0..4).all(|i| self.castling_rook(i) == o.castling_rook(i))
            && self.ep == o.ep
            && self.halfmove == o.halfmove
            && self.fullmove == o.fullmove
            && self.gates == o.gates
            && self.hash == o.hash
            && self.by_kind == o.by_kind
            && self.by_color == o.by_color
    }
}

impl<V: Variant> Eq for Position<V> {}

impl<V: Variant> core::fmt::Debug for Position<V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = V::Shape::RANKS;
        writeln!(f, "Position<{}> {{", V::ID.name())?;
        for r in (0..s).rev() {
            write!(f, "  ")?;
            for file in 0..V::Shape::FILES {
                let sq = Square(r * V::Shape::FILES + file);
                write!(f, "{}", self.piece_at(sq).map_or('.', |p| p.char()))?;
            }
            writeln!(f)?;
        }
        writeln!(
            f,
            "  side {:?} castling {} ep {:?} clocks {}/{} gates {:?} hash {:016x}\n}}",
            self.side,
            self.castling.fen(),
            self.ep.map(V::Shape::square_name),
            self.halfmove,
            self.fullmove,
            self.gates,
            self.hash
        )
    }
}

impl<V: Variant> Position<V> {
    fn empty() -> Self {
        Position {
            board: V::Shape::EMPTY_MAILBOX,
            by_kind: [BitsOf::<V>::ZERO; KIND_COUNT],
            by_color: [BitsOf::<V>::ZERO; 2],
            side: Color::White,
            castling: Castling::NONE,
            castle_rooks: [V::Shape::FILES - 1, 0, V::Shape::FILES - 1, 0],
            ep: None,
            halfmove: 0,
            fullmove: 1,
            gates: Gates::default(),
            hash: 0,
            bracket_elided: false,
            variant: PhantomData,
        }
    }

    /// The variant's start position.
    pub fn start() -> Self {
        let mut p = Self::empty();
        for (sq, pc) in V::start_pieces() {
            p.put(sq, pc);
        }
        if V::CASTLING {
            p.castling = Castling::ALL;
        }
        p.gates = Self::start_gates();
        p.hash = p.compute_hash();
        p
    }

    // ----- accessors -------------------------------------------------------

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.board[sq.idx()])
    }
    /// Squares holding pieces of `kind` (both colours).
    #[inline(always)]
    pub fn kind(&self, kind: PieceKind) -> BitsOf<V> {
        self.by_kind[kind.idx()]
    }
    /// Squares holding `color`'s pieces.
    #[inline(always)]
    pub fn color(&self, color: Color) -> BitsOf<V> {
        self.by_color[color.idx()]
    }
    /// The side to move, its opponent, their pieces and the occupied squares.
    #[inline(always)]
    pub(crate) fn sides(&self) -> (Color, Color, BitsOf<V>, BitsOf<V>, BitsOf<V>) {
        let us = self.side;
        let (own, enemy) = (self.by_color[us.idx()], self.by_color[us.flip().idx()]);
        (us, us.flip(), own, enemy, own | enemy)
    }
    /// Squares holding `piece`.
    #[inline(always)]
    pub fn pieces(&self, piece: Piece) -> BitsOf<V> {
        self.by_kind[piece.kind.idx()] & self.by_color[piece.color.idx()]
    }
    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> BitsOf<V> {
        self.by_color[0] | self.by_color[1]
    }
    /// Side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    /// Castling rights.
    #[inline(always)]
    pub fn castling(&self) -> Castling {
        self.castling
    }
    /// En passant target square (set after every double step).
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }
    /// Halfmove clock.
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }
    /// Fullmove number.
    #[inline(always)]
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }
    /// Pioneer-gating state.
    #[inline(always)]
    pub fn gates(&self) -> Gates {
        self.gates
    }
    /// Zobrist key (incrementally maintained).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// The square of `color`'s king.
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        Square(self.pieces(Piece::new(color, PieceKind::King)).lsb() as u8)
    }

    // ----- attacks ---------------------------------------------------------

    /// `by`'s pieces that attack `sq` with occupancy `occ` (RULES.md §0:
    /// ordinary capturing moves only; Alseids and move-only parts never attack).
    #[inline]
    pub fn attackers_to(&self, sq: Square, occ: BitsOf<V>, by: Color) -> BitsOf<V> {
        Self::attackers_in(&self.by_kind, &self.by_color, sq, occ, by)
    }

    /// [`Position::attackers_to`] over explicit piece sets (for testing a
    /// move's effect without playing it).
    #[inline]
    pub(crate) fn attackers_in(
        by_kind: &[BitsOf<V>; KIND_COUNT],
        by_color: &[BitsOf<V>; 2],
        sq: Square,
        occ: BitsOf<V>,
        by: Color,
    ) -> BitsOf<V> {
        let t = V::Shape::pieces();
        let k = |kind: PieceKind| by_kind[kind.idx()];
        let w = |kind: PieceKind| Piece::new(Color::White, kind);
        let mut a = t.leap_attacks(Piece::new(by.flip(), PieceKind::Pawn), sq) & k(PieceKind::Pawn);
        let mut knights = k(PieceKind::Knight);
        if V::has(PieceKind::Zebra) {
            knights |= k(PieceKind::Zebra);
        }
        a |= t.leap_attacks(w(PieceKind::Knight), sq) & knights;
        a |= t.leap_attacks(w(PieceKind::King), sq) & k(PieceKind::King);
        let theirs = by_color[by.idx()];
        let rq = (k(PieceKind::Rook) | k(PieceKind::Queen)) & theirs;
        let bq = (k(PieceKind::Bishop) | k(PieceKind::Queen)) & theirs;
        a |= V::Shape::slider_attackers(sq, occ, rq, bq);
        if V::has(PieceKind::Alpaca) || V::has(PieceKind::Wazir) {
            a |= t.leap_attacks(w(PieceKind::Wazir), sq) & (k(PieceKind::Alpaca) | k(PieceKind::Wazir));
        }
        if V::has(PieceKind::Camel) {
            a |= t.leap_attacks(w(PieceKind::Camel), sq) & k(PieceKind::Camel);
        }
        if V::has(PieceKind::Rhino) {
            a |= t.leap_attacks(w(PieceKind::Rhino), sq) & k(PieceKind::Rhino);
        }
        a & by_color[by.idx()]
    }

    /// Every square `by` attacks with occupancy `occ`: the squares where
    /// [`Position::attackers_to`] would find one of `by`'s pieces.
    #[inline]
    pub fn attacked_squares(&self, by: Color, occ: BitsOf<V>) -> BitsOf<V> {
        type S<V> = <V as Variant>::Shape;
        let t = S::<V>::pieces();
        let theirs = self.by_color[by.idx()];
        let k = |kind: PieceKind| self.by_kind[kind.idx()] & theirs;
        let w = |kind: PieceKind| Piece::new(Color::White, kind);
        let pawns = k(PieceKind::Pawn);
        let ahead = match by {
            Color::White => S::<V>::north(pawns),
            Color::Black => S::<V>::south(pawns),
        };
        let mut a = S::<V>::east(ahead) | S::<V>::west(ahead);
        let mut leap = |kind: PieceKind, pcs: BitsOf<V>| {
            for s in pcs.iter() {
                a |= t.leap_attacks(w(kind), s);
            }
        };
        let mut knights = k(PieceKind::Knight);
        if V::has(PieceKind::Zebra) {
            knights |= k(PieceKind::Zebra);
        }
        leap(PieceKind::Knight, knights);
        leap(PieceKind::King, k(PieceKind::King));
        if V::has(PieceKind::Alpaca) || V::has(PieceKind::Wazir) {
            leap(PieceKind::Wazir, k(PieceKind::Alpaca) | k(PieceKind::Wazir));
        }
        if V::has(PieceKind::Camel) {
            leap(PieceKind::Camel, k(PieceKind::Camel));
        }
        if V::has(PieceKind::Rhino) {
            leap(PieceKind::Rhino, k(PieceKind::Rhino));
        }
        let queens = k(PieceKind::Queen);
        for s in (k(PieceKind::Rook) | queens).iter() {
            a |= S::<V>::rook_attacks(s, occ);
        }
        for s in (k(PieceKind::Bishop) | queens).iter() {
            a |= S::<V>::bishop_attacks(s, occ);
        }
        a
    }

    /// True if `by` attacks `sq` in the current position.
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers_to(sq, self.occupied(), by).any()
    }

    /// Enemy pieces giving check to the side to move.
    #[inline]
    pub fn checkers(&self) -> BitsOf<V> {
        self.attackers_to(self.king(self.side), self.occupied(), self.side.flip())
    }

    /// True if the side to move is in check.
    #[inline]
    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    // ----- mutation helpers ------------------------------------------------

    #[inline(always)]
    pub(crate) fn put(&mut self, sq: Square, p: Piece) {
        let b = BitsOf::<V>::bit(sq);
        self.board[sq.idx()] = p.code();
        self.by_kind[p.kind.idx()] |= b;
        self.by_color[p.color.idx()] |= b;
        self.hash ^= KEYS.piece[p.color.idx()][p.kind.idx()][sq.idx()];
    }

    /// Removes and returns the piece on `sq` (which must be occupied).
    #[inline(always)]
    pub(crate) fn take(&mut self, sq: Square) -> Piece {
        let code = self.board[sq.idx()];
        let p = Piece::from_code(code).unwrap_or(Piece::new(Color::White, PieceKind::Pawn));
        let b = BitsOf::<V>::bit(sq);
        self.board[sq.idx()] = 0;
        self.by_kind[p.kind.idx()] ^= b;
        self.by_color[p.color.idx()] ^= b;
        self.hash ^= KEYS.piece[p.color.idx()][p.kind.idx()][sq.idx()];
        p
    }

    /// The home rank of `c`'s pieces (rank 1 or the last rank).
    #[inline(always)]
    pub(crate) fn home_rank(c: Color) -> u8 {
        match c {
            Color::White => 0,
            Color::Black => V::Shape::RANKS - 1,
        }
    }

    /// True if an en passant capture onto `ep` is pseudo-possible for the side to move.
    #[inline]
    pub(crate) fn ep_capturable(&self, ep: Square) -> bool {
        let t = V::Shape::pieces();
        (t.leap_attacks(Piece::new(self.side.flip(), PieceKind::Pawn), ep)
            & self.pieces(Piece::new(self.side, PieceKind::Pawn)))
        .any()
    }

    /// The Zobrist key computed from scratch.
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for s in 0..V::Shape::SQUARES {
            if let Some(p) = self.piece_at(Square(s)) {
                h ^= KEYS.piece[p.color.idx()][p.kind.idx()][s as usize];
            }
        }
        if self.side == Color::Black {
            h ^= KEYS.side;
        }
        h ^= self.castling_key(self.castling.0);
        if let Some(ep) = self.ep
            && self.ep_capturable(ep)
        {
            h ^= KEYS.ep[V::Shape::file_of(ep).0 as usize];
        }
        h ^ self.gates.hash()
    }

    // ----- construction from a setup -------------------------------------

    /// Validates `setup` against the variant's rules and builds the position.
    pub fn from_setup(setup: &Setup) -> Result<Self, PositionError> {
        type S<V> = <V as Variant>::Shape;
        let name = V::ID.name();
        if setup.files != S::<V>::FILES || setup.ranks != S::<V>::RANKS {
            return Err(PositionError::BoardSize {
                variant: name,
                files: S::<V>::FILES,
                ranks: S::<V>::RANKS,
                got_files: setup.files,
                got_ranks: setup.ranks,
            });
        }
        let mut p = Self::empty();
        for &(sq, pc) in &setup.pieces {
            let sqname = || S::<V>::square_name(sq);
            if sq.0 >= S::<V>::SQUARES {
                return Err(PositionError::DoubleOccupancy(format!("square #{}", sq.0)));
            }
            if !V::has(pc.kind) {
                return Err(PositionError::PieceNotInVariant { piece: pc.char(), square: sqname(), variant: name });
            }
            if p.board[sq.idx()] != 0 {
                return Err(PositionError::DoubleOccupancy(sqname()));
            }
            if pc.kind == PieceKind::Pawn && !V::PAWNS_ANYWHERE {
                let r = S::<V>::rank_of(sq).0;
                if r == 0 || r == S::<V>::RANKS - 1 {
                    return Err(PositionError::PawnOnBackRank(sqname()));
                }
            }
            p.put(sq, pc);
        }
        for c in Color::ALL {
            let n = p.pieces(Piece::new(c, PieceKind::King)).popcnt();
            if n != 1 {
                return Err(PositionError::KingCount { color: c, count: n });
            }
        }
        p.side = setup.side;
        p.halfmove = setup.halfmove;
        p.fullmove = setup.fullmove.max(1);

        // Castling.
        p.castling_from_setup(setup)?;

        // Reserve and gates.
        p.gates = Self::gates_from_setup(setup, &p)?;
        p.bracket_elided = setup.reserve.is_none();

        // En passant.
        if let Some(ep) = setup.ep {
            let bad = |reason| PositionError::EnPassant { square: S::<V>::square_name(ep), reason };
            if ep.0 >= S::<V>::SQUARES {
                return Err(bad("off the board"));
            }
            if !V::has(PieceKind::Pawn) {
                return Err(bad("this variant has no pawns"));
            }
            if p.gates.in_prelude() {
                // The prelude comes before White's first move.
                return Err(bad("no double step can come before the prelude ends"));
            }
            let them = setup.side.flip();
            let f = S::<V>::FILES as i32;
            let (ep_rank, step) = match setup.side {
                Color::White => (S::<V>::RANKS - 2 - V::DOUBLE_STEP_RANK, -f),
                Color::Black => (V::DOUBLE_STEP_RANK + 1, f),
            };
            if S::<V>::rank_of(ep).0 != ep_rank {
                return Err(bad("not on the rank a double step passes"));
            }
            let pawn_sq = Square((ep.0 as i32 + step) as u8);
            let origin = Square((ep.0 as i32 - step) as u8);
            if p.piece_at(pawn_sq) != Some(Piece::new(them, PieceKind::Pawn)) {
                return Err(bad("no pawn that just made a double step stands in front of it"));
            }
            if p.piece_at(ep).is_some() || p.piece_at(origin).is_some() {
                return Err(bad("the squares the double step crossed are not empty"));
            }
            p.ep = Some(ep);
        }

        // The side not to move must not be in check.
        let them = p.side.flip();
        if p.is_attacked(p.king(them), p.side) {
            return Err(PositionError::OppositeCheck(p.side));
        }
        p.hash = p.compute_hash();
        Ok(p)
    }

    /// The position as plain data (the inverse of [`Position::from_setup`]).
    pub fn to_setup(&self) -> Setup {
        let mut pieces = Vec::new();
        for s in 0..V::Shape::SQUARES {
            if let Some(p) = self.piece_at(Square(s)) {
                pieces.push((Square(s), p));
            }
        }
        let castling_files = self.castling_files_for_setup();
        Setup {
            files: V::Shape::FILES,
            ranks: V::Shape::RANKS,
            pieces,
            side: self.side,
            castling: self.castling,
            castling_files,
            ep: self.ep,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            reserve: self.reserve_for_setup(),
        }
    }
}
