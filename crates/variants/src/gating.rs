//! Pioneer gating (RULES.md §2; docs/rules/alpaca.md): the reserve pieces of
//! `alpaca`, `alpaca2`, `alpaca-samefile`, `alseid` and `alseid-weak`
//! ([`Variant::GATING`]).
//!
//! The rules, as implemented here:
//!
//! - **Prelude** (RULES.md §2.2), before White's first move on the board:
//!   White accepts or declines the reserve pieces; only after a decline,
//!   Black accepts (overruling) or declines too (no reserve: orthodox play
//!   from the start, White to move). If accepted, White places (chooses its
//!   gate file or files), then Black places; after Black's accept White
//!   still places first. Prelude actions are moves ([`MoveKind::Accept`],
//!   [`MoveKind::Decline`], [`MoveKind::Place`]) that leave the clocks
//!   alone and are legal only if the mover's king is not attacked
//!   afterwards: since they move nothing, a side in check during the prelude
//!   has no legal move and is checkmated.
//! - **Placement**: a file may be a gate when its home-rank square holds one
//!   of the placing side's own pieces (not an Alseid); [`Gating::count`]
//!   distinct files per side; never the king's e-file together with a rook's
//!   a- or h-file, since one castling move would then open two gates at once
//!   (RULES.md §2.3, [`Gating::allows_files`]); in `alpaca-samefile` Black
//!   must take White's file.
//! - **Entry**: a gate is live while the piece on its home square has never
//!   left. When that piece leaves in any way but being captured (a move, a
//!   capture it makes, castling — king and rook both — or being kidnapped),
//!   the reserve piece enters the vacated square in the same move,
//!   compulsorily ([`Position::vacated`]).
//! - **Forfeit**: if that piece is captured on its home square, the reserve
//!   piece behind it is lost ([`Position::captured_on`]).
//! - **Legality** is judged after the entry: the entering piece takes the
//!   leaving one's place on any line, so a piece on a live gate square is
//!   never pinned and a king leaving a live gate square does not uncover
//!   the squares behind it (both handled in the generic generator, which
//!   asks [`Position::live_gate_squares`]).
//! - **FEN** (RULES.md §2.4): the reserve bracket after the board — `[Aa?]`
//!   pending, `[Aa]` accepted, `[A@ga@f]` waiting on gates, `[]` none left —
//!   read and validated into [`Gates`] against the board and the prelude
//!   order ([`Reserve`], [`ReserveEntry`]).
//! - **Game end**: while any reserve piece is in hand or on a live gate
//!   there is no draw by insufficient material ([`Gates::reserve_count`],
//!   used by the outcome rules).
//!
//! The gating Zobrist part is [`Gates::hash`] (its keys live with the
//! others in the Zobrist table).

use crate::movegen::Sink;
use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::setup::{PositionError, Setup};
use crate::variant::Variant;
use crate::zobrist::KEYS;
use menagerie_geometry::{Bits, File, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind};

/// Pioneer gating parameters (RULES.md §2).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Gating {
    /// The reserve piece kind.
    pub piece: PieceKind,
    /// Reserve pieces per side.
    pub count: u8,
    /// Black must choose the same file as White (`alpaca-samefile`).
    pub same_file: bool,
}

impl Gating {
    /// Gate files (bit `f` for file `f` of an 8-file board) that may be live
    /// together: never the king's e-file with a rook's a- or h-file, since a
    /// castling move would then open two gates at once (RULES.md §2.3).
    pub const fn allows_files(mask: u8) -> bool {
        const KING_FILE: u8 = 1 << 4;
        const ROOK_FILES: u8 = 1 | 1 << 7;
        mask & KING_FILE == 0 || mask & ROOK_FILES == 0
    }
}

/// Pioneer-gating state of both sides (RULES.md §2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Gates {
    /// Per colour: bit mask of files whose gate is live.
    pub live: [u8; 2],
    /// Per colour: reserve pieces still in hand (not yet placed).
    pub unplaced: [u8; 2],
    /// The prelude decision is pending.
    pub pending: bool,
}

impl Gates {
    /// True while the prelude (decision or placement) is not finished.
    #[inline(always)]
    pub fn in_prelude(&self) -> bool {
        self.pending || self.unplaced[0] + self.unplaced[1] > 0
    }
    /// Total reserve pieces still to come for `c` (in hand or gated).
    pub fn reserve_count(&self, c: Color) -> u32 {
        self.unplaced[c.idx()] as u32 + self.live[c.idx()].count_ones()
    }
    /// The Zobrist key of the gating state.
    pub(crate) fn hash(&self) -> u64 {
        let mut h = 0;
        for c in 0..2 {
            for f in 0..8 {
                if self.live[c] & (1 << f) != 0 {
                    h ^= KEYS.gate[c][f];
                }
            }
            h ^= KEYS.unplaced[c][self.unplaced[c].min(3) as usize];
        }
        if self.pending {
            h ^= KEYS.pending;
        }
        h
    }
}

/// One reserve piece in a Pioneer-gating variant.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ReserveEntry {
    /// The reserve piece (its colour is its owner).
    pub piece: Piece,
    /// The gate file once placed; `None` while still in hand.
    pub file: Option<File>,
}

/// The reserve bracket of a gating variant (RULES.md §2.4).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Reserve {
    /// The prelude decision is pending (`?`).
    pub pending: bool,
    /// Remaining reserve pieces, White's first.
    pub entries: Vec<ReserveEntry>,
}

impl<V: Variant> Position<V> {
    /// The gating state of the variant's start position: the decision
    /// pending, every reserve piece in hand.
    pub(crate) fn start_gates() -> Gates {
        match V::GATING {
            Some(g) => Gates { live: [0; 2], unplaced: [g.count; 2], pending: true },
            None => Gates::default(),
        }
    }

    /// Squares whose gate is live for `c`.
    #[inline(always)]
    pub(crate) fn live_gate_squares(&self, c: Color) -> BitsOf<V> {
        if V::GATING.is_none() {
            return BitsOf::<V>::ZERO;
        }
        let mask = self.gates.live[c.idx()] as u128;
        let rank = BitsOf::<V>::from_u128(mask) << (Self::home_rank(c) as u32 * V::Shape::FILES as u32);
        rank & V::Shape::ALL
    }

    // ----- FEN ---------------------------------------------------------------

    /// Reads and validates `setup`'s reserve bracket against the board `p`
    /// (pieces, side and castling already set) and the prelude order.
    pub(crate) fn gates_from_setup(setup: &Setup, p: &Self) -> Result<Gates, PositionError> {
        let name = V::ID.name();
        let Some(reserve) = &setup.reserve else { return Ok(Gates::default()) };
        let Some(g) = V::GATING else {
            return Err(PositionError::NoReserve(name));
        };
        let mut gates = Gates::default();
        let mut files: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        // Per colour, every entry (in hand or gated), counted wide so no
        // number of entries can wrap around to a valid count.
        let mut count = [0usize; 2];
        for e in &reserve.entries {
            if e.piece.kind != g.piece {
                return Err(PositionError::ReservePiece {
                    piece: e.piece.char(),
                    expected: g.piece.letter(),
                    variant: name,
                });
            }
            let c = e.piece.color.idx();
            count[c] += 1;
            if count[c] > g.count as usize {
                return Err(PositionError::ReserveCount {
                    color: e.piece.color,
                    count: reserve.entries.iter().filter(|x| x.piece.color == e.piece.color).count(),
                    max: g.count,
                    variant: name,
                });
            }
            match e.file {
                None => gates.unplaced[c] += 1,
                Some(File(f)) => {
                    if f >= 8.min(V::Shape::FILES) {
                        return Err(PositionError::GateFiles("gate file off the board"));
                    }
                    if files[c].contains(&f) {
                        return Err(PositionError::GateFiles("two reserve pieces of one side on one file"));
                    }
                    files[c].push(f);
                    gates.live[c] |= 1 << f;
                }
            }
        }
        for c in Color::ALL {
            if gates.unplaced[c.idx()] > 0 && gates.live[c.idx()] != 0 {
                return Err(PositionError::PreludeOrder("a side cannot have pieces both in hand and on gates"));
            }
            for f in files[c.idx()].iter().copied() {
                let sq = Square(Self::home_rank(c) * V::Shape::FILES + f);
                match p.piece_at(sq) {
                    Some(pc) if pc.color == c && pc.kind == PieceKind::Alseid => {
                        return Err(PositionError::AlseidOnGate(V::Shape::square_name(sq)));
                    }
                    Some(pc) if pc.color == c => {}
                    _ => {
                        return Err(PositionError::GateHome {
                            color: c,
                            file: File(f).letter(),
                            square: V::Shape::square_name(sq),
                        });
                    }
                }
            }
            if !Gating::allows_files(gates.live[c.idx()]) {
                return Err(PositionError::GateFiles("the king file together with a rook file"));
            }
        }
        let [wu, bu] = gates.unplaced;
        if reserve.pending {
            if wu != g.count || bu != g.count {
                return Err(PositionError::PendingState);
            }
            gates.pending = true;
        } else if wu > 0 || bu > 0 {
            // Placement phase: White places first, then Black.
            let ok = match setup.side {
                Color::White => wu == g.count && bu == g.count,
                Color::Black => wu == 0 && bu == g.count,
            };
            if !ok {
                return Err(PositionError::PreludeOrder(
                    "reserve pieces in hand: White places first (both in hand, White to move), then Black (Black to move)",
                ));
            }
        }
        if g.same_file
            && bu == 0
            && gates.live[0] != 0
            && gates.live[1] != 0
            && wu == 0
            && gates.live[0] != gates.live[1]
        {
            return Err(PositionError::GateFiles("Black's gate file must equal White's"));
        }
        Ok(gates)
    }

    /// The reserve bracket to write in a FEN (`None`: no bracket, for a
    /// variant without gating or a bracketless FEN with nothing left).
    pub(crate) fn reserve_for_setup(&self) -> Option<Reserve> {
        let elide = self.bracket_elided && self.gates == Gates::default();
        V::GATING.filter(|_| !elide).map(|g| {
            let mut entries = Vec::new();
            for c in Color::ALL {
                let piece = Piece::new(c, g.piece);
                for f in 0..8 {
                    if self.gates.live[c.idx()] & (1 << f) != 0 {
                        entries.push(ReserveEntry { piece, file: Some(File(f)) });
                    }
                }
                for _ in 0..self.gates.unplaced[c.idx()] {
                    entries.push(ReserveEntry { piece, file: None });
                }
            }
            Reserve { pending: self.gates.pending, entries }
        })
    }

    // ----- generation --------------------------------------------------------

    /// Prelude actions (accept, decline, placement). They move no piece, so
    /// the mover's king is attacked after one exactly when it is attacked
    /// now: a side in check during the prelude has no legal move
    /// (RULES.md §2.2), which makes it checkmated.
    pub(crate) fn generate_prelude<K: Sink<BitsOf<V>>>(&self, sink: &mut K) {
        let Some(g) = V::GATING else { return };
        if self.is_check() {
            return;
        }
        if self.gates.pending {
            sink.push(Move::ACCEPT);
            sink.push(Move::DECLINE);
            return;
        }
        let us = self.side;
        if self.gates.unplaced[us.idx()] == 0 {
            return;
        }
        let files = 8.min(V::Shape::FILES);
        let white_mask = self.gates.live[Color::White.idx()];
        // A gate needs its owner's (non-Alseid) piece on the home square.
        let home = Self::home_rank(us) * V::Shape::FILES;
        let mut usable = 0u8;
        for f in 0..files {
            if let Some(p) = self.piece_at(Square(home + f))
                && p.color == us
                && p.kind != PieceKind::Alseid
            {
                usable |= 1 << f;
            }
        }
        for mask in 1u16..(1 << files) {
            let mask = mask as u8;
            if mask.count_ones() != g.count as u32 || mask & !usable != 0 {
                continue;
            }
            if !Gating::allows_files(mask) {
                continue;
            }
            if g.same_file && us == Color::Black && mask != white_mask {
                continue;
            }
            sink.push(Move::place(mask));
        }
    }

    // ----- make --------------------------------------------------------------

    #[inline(always)]
    fn is_live_home(&self, sq: Square, owner: Color) -> bool {
        V::GATING.is_some()
            && V::Shape::rank_of(sq).0 == Self::home_rank(owner)
            && self.gates.live[owner.idx()] & (1 << V::Shape::file_of(sq).0) != 0
    }

    #[inline(always)]
    fn clear_gate(&mut self, sq: Square, owner: Color) {
        let f = V::Shape::file_of(sq).0;
        self.gates.live[owner.idx()] &= !(1 << f);
        self.hash ^= KEYS.gate[owner.idx()][f as usize];
    }

    /// `owner`'s piece has left `sq` by moving: fire the gate if it was live.
    #[inline(always)]
    pub(crate) fn vacated(&mut self, sq: Square, owner: Color) {
        if let Some(g) = V::GATING
            && self.is_live_home(sq, owner)
        {
            self.clear_gate(sq, owner);
            self.put(sq, Piece::new(owner, g.piece));
        }
    }

    /// `owner`'s piece on `sq` was captured: forfeit the gate if it was live.
    #[inline(always)]
    pub(crate) fn captured_on(&mut self, sq: Square, owner: Color) {
        if self.is_live_home(sq, owner) {
            self.clear_gate(sq, owner);
        }
    }

    /// Plays prelude action `m` (accept, decline or placement).
    pub(crate) fn make_prelude(&mut self, m: Move) {
        let us = self.side;
        let old = self.gates.hash();
        let mut next = us.flip();
        match m.kind {
            MoveKind::Accept => {
                self.gates.pending = false;
                // White places first in every case.
                next = Color::White;
            }
            MoveKind::Decline => {
                if us == Color::Black {
                    self.gates = Gates::default();
                }
            }
            _ => {
                self.gates.unplaced[us.idx()] = 0;
                self.gates.live[us.idx()] = m.place_mask();
            }
        }
        self.hash ^= old ^ self.gates.hash();
        if next != us {
            self.side = next;
            self.hash ^= KEYS.side;
        }
    }
}
