//! The move type: four bytes that can carry every move of every variant.

use core::mem::MaybeUninit;
use menagerie_geometry::Square;
use menagerie_pieces::PieceKind;

/// What kind of move a [`Move`] is. Everything else a move does (which
/// pieces it captures or converts, which gate fires) follows from the
/// position it is played in.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(u8)]
pub enum MoveKind {
    /// A step, leap or ride, capturing by replacement if the target holds an enemy.
    Normal,
    /// A pawn's two-square advance.
    DoublePush,
    /// An en passant capture (`to` is the passed square).
    EnPassant,
    /// Castling, written king-from/king-to.
    Castle,
    /// An Alseid move that kidnaps: the victim lands on `from`. (Alseid moves
    /// without a victim are [`MoveKind::Normal`].)
    Kidnap,
    /// Two adjacent friendly pieces exchange squares.
    Swap,
    /// A Knight/Zebra/Camel/Rhino leap that converts the enemy pieces it jumps.
    Takeover,
    /// A jump takeover by a Queen, Rook, Bishop, Wazir, Pawn or King.
    Jump,
    /// Prelude: accept the reserve pieces.
    Accept,
    /// Prelude: decline the reserve pieces.
    Decline,
    /// Prelude: choose gate files; `to` holds the file bit mask.
    Place,
}

/// A move of any variant.
///
/// `from`/`to` are squares, except for prelude moves ([`MoveKind::Accept`],
/// [`MoveKind::Decline`], [`MoveKind::Place`]) where `to` of a placement is
/// the bit mask of the chosen gate files. `promotion` is the kind a pawn or
/// wazir becomes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    /// Origin square.
    pub from: Square,
    /// Destination square (or file mask of a placement).
    pub to: Square,
    /// The kind of move.
    pub kind: MoveKind,
    /// Promotion choice, if any.
    pub promotion: Option<PieceKind>,
}

impl Move {
    /// A normal move or capture.
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move { from, to, kind: MoveKind::Normal, promotion: None }
    }
    /// A move of the given kind without promotion.
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind) -> Move {
        Move { from, to, kind, promotion: None }
    }
    /// The same move with a promotion choice.
    #[inline(always)]
    pub const fn with_promotion(self, kind: PieceKind) -> Move {
        Move { promotion: Some(kind), ..self }
    }
    /// Prelude: accept.
    pub const ACCEPT: Move = Move::new(Square(0), Square(0), MoveKind::Accept);
    /// Prelude: decline.
    pub const DECLINE: Move = Move::new(Square(0), Square(0), MoveKind::Decline);
    /// Prelude: place reserve pieces on the files of `mask` (bit 0 = file a).
    pub const fn place(mask: u8) -> Move {
        Move::new(Square(0), Square(mask), MoveKind::Place)
    }
    /// True for the prelude actions.
    pub const fn is_prelude(self) -> bool {
        matches!(self.kind, MoveKind::Accept | MoveKind::Decline | MoveKind::Place)
    }
    /// The file mask of a placement move.
    pub const fn place_mask(self) -> u8 {
        self.to.0
    }

    /// Packs the move into 32 bits (for transposition tables).
    #[inline(always)]
    pub const fn to_u32(self) -> u32 {
        let promo = match self.promotion {
            Some(k) => k as u32 + 1,
            None => 0,
        };
        self.from.0 as u32 | (self.to.0 as u32) << 8 | (self.kind as u32) << 16 | promo << 24
    }

    /// Unpacks [`Move::to_u32`]; `None` for values no move packs to.
    #[inline]
    pub fn from_u32(v: u32) -> Option<Move> {
        const KINDS: [MoveKind; 11] = [
            MoveKind::Normal,
            MoveKind::DoublePush,
            MoveKind::EnPassant,
            MoveKind::Castle,
            MoveKind::Kidnap,
            MoveKind::Swap,
            MoveKind::Takeover,
            MoveKind::Jump,
            MoveKind::Accept,
            MoveKind::Decline,
            MoveKind::Place,
        ];
        let kind = *KINDS.get(((v >> 16) & 0xFF) as usize)?;
        let promotion = match v >> 24 {
            0 => None,
            p => Some(PieceKind::from_idx(p as usize - 1)?),
        };
        Some(Move { from: Square(v as u8), to: Square((v >> 8) as u8), kind, promotion })
    }
}

/// Capacity of a [`MoveList`]; enough for any legal position of any variant.
pub const MAX_MOVES: usize = 1024;

/// A fixed-capacity list of moves on the stack (no initialisation cost).
pub struct MoveList {
    len: usize,
    moves: [MaybeUninit<Move>; MAX_MOVES],
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for MoveList {
    fn clone(&self) -> Self {
        let mut l = MoveList::new();
        for &m in self.as_slice() {
            l.push(m);
        }
        l
    }
}

impl MoveList {
    /// An empty list.
    #[inline(always)]
    pub fn new() -> MoveList {
        MoveList { len: 0, moves: [const { MaybeUninit::uninit() }; MAX_MOVES] }
    }
    /// Appends a move (silently ignored if the list is full, which no legal
    /// position reaches).
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        if self.len < MAX_MOVES {
            self.moves[self.len] = MaybeUninit::new(m);
            self.len += 1;
        }
    }
    /// Number of moves.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    /// True if empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves as a slice.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`.
        unsafe { core::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }
    /// The moves as a mutable slice (for ordering).
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { core::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }
    /// Keeps only the moves for which `f` is true.
    pub fn retain(&mut self, mut f: impl FnMut(Move) -> bool) {
        let mut j = 0;
        for i in 0..self.len {
            let m = self.as_slice()[i];
            if f(m) {
                self.moves[j] = MaybeUninit::new(m);
                j += 1;
            }
        }
        self.len = j;
    }
    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl core::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl core::fmt::Debug for MoveList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
