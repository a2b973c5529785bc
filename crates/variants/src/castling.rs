//! Castling, orthodox and Chess960: the rights, their FEN reading and
//! writing, their Zobrist part, move generation and playing the move
//! (docs/rules/chess.md, docs/rules/chess960.md).
//!
//! The rules, as implemented here (only variants with [`Variant::CASTLING`],
//! all on 8x8):
//!
//! - Each side may castle once towards each of its two rooks while neither
//!   the king nor that rook has moved. A right is lost when the king moves
//!   (both of its side's rights), or when anything moves from or onto that
//!   right's rook square (capturing the rook there removes its owner's
//!   right). A kidnap moving a king or rook off its square counts as it
//!   moving.
//! - Orthodox castling: king on e1/e8, rooks on a/h. `O-O` takes king and
//!   rook from e1/h1 to g1/f1, `O-O-O` from e1/a1 to c1/d1; the squares
//!   between them must be empty, the king must not be in check, and the
//!   square it crosses and the one it lands on must not be attacked. The
//!   move is written king-from/king-to (`e1g1`).
//! - Chess960 castling ([`Variant::CHESS960`]): king and castling rooks may
//!   start on any files of the home rank (each right remembers its rook's
//!   file, [`Position::castling_rook`]); king and rook end on g/f (king side)
//!   or c/d (queen side); every square either of them crosses or lands on
//!   must be empty but for the two of them, and no square the king stands
//!   on, crosses or lands on may be attacked with both of them lifted off
//!   the board. The move is written king-takes-rook (`to` is the rook's
//!   square). FEN castling fields are X-FEN or Shredder-FEN
//!   ([`crate::Setup::castling_files`]); they are written as X-FEN.
//! - In the gating variants both the king's and the rook's squares are
//!   vacated by castling, so their live gates fire ([`crate::gating`]).

use crate::movegen::Sink;
use crate::moves::{Move, MoveKind};
use crate::position::{BitsOf, Position};
use crate::setup::{PositionError, Setup};
use crate::variant::Variant;
use crate::zobrist::KEYS;
use menagerie_geometry::{Bits, File, Shape, Square};
use menagerie_pieces::{Color, Piece, PieceKind};

/// Castling rights as flags.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Castling(pub u8);

impl Castling {
    /// White king side (`K`).
    pub const WK: u8 = 1;
    /// White queen side (`Q`).
    pub const WQ: u8 = 2;
    /// Black king side (`k`).
    pub const BK: u8 = 4;
    /// Black queen side (`q`).
    pub const BQ: u8 = 8;
    /// No rights.
    pub const NONE: Castling = Castling(0);
    /// All four rights.
    pub const ALL: Castling = Castling(15);

    /// True if the right `flag` is held.
    #[inline(always)]
    pub const fn has(self, flag: u8) -> bool {
        self.0 & flag != 0
    }
    /// The four rights in FEN order (`K`, `Q`, `k`, `q`): flag, colour,
    /// king side; the index is the right's index in
    /// [`Setup::castling_files`].
    pub const RIGHTS: [(u8, Color, bool); 4] = [
        (Self::WK, Color::White, true),
        (Self::WQ, Color::White, false),
        (Self::BK, Color::Black, true),
        (Self::BQ, Color::Black, false),
    ];

    /// The FEN field (`KQkq`, `-`).
    pub fn fen(self) -> String {
        let s: String = [(Self::WK, 'K'), (Self::WQ, 'Q'), (Self::BK, 'k'), (Self::BQ, 'q')]
            .iter()
            .filter(|(f, _)| self.has(*f))
            .map(|&(_, c)| c)
            .collect();
        if s.is_empty() { "-".to_string() } else { s }
    }
}

impl<V: Variant> Position<V> {
    /// The square of the castling rook of right `i` (indexed as
    /// [`Castling::RIGHTS`]: `K`, `Q`, `k`, `q`) while the right is held.
    #[inline]
    pub fn castling_rook(&self, i: usize) -> Option<Square> {
        let (flag, color, _) = *Castling::RIGHTS.get(i)?;
        self.castling.has(flag).then(|| Square(Self::home_rank(color) * V::Shape::FILES + self.castle_rooks[i]))
    }

    /// The Zobrist key of castling rights `rights` in this position (in
    /// Chess960 it includes the castling rooks' files).
    #[inline(always)]
    pub(crate) fn castling_key(&self, rights: u8) -> u64 {
        let mut h = KEYS.castling[rights as usize];
        if V::CHESS960 {
            for i in 0..4 {
                if rights & (1 << i) != 0 {
                    h ^= KEYS.castle_rook[i][self.castle_rooks[i] as usize];
                }
            }
        }
        h
    }

    // ----- FEN ---------------------------------------------------------------

    /// Validates `setup`'s castling rights against the pieces already placed
    /// and sets them (with the castling rooks' files).
    pub(crate) fn castling_from_setup(&mut self, setup: &Setup) -> Result<(), PositionError> {
        type S<V> = <V as Variant>::Shape;
        let name = V::ID.name();
        if setup.castling != Castling::NONE && !V::CASTLING {
            return Err(PositionError::NoCastling(name));
        }
        for (i, &(flag, c, king_side)) in Castling::RIGHTS.iter().enumerate() {
            if !setup.castling.has(flag) {
                continue;
            }
            let letter = |f: u8| {
                let l = File(f).letter();
                if c == Color::White { l.to_ascii_uppercase() } else { l }
            };
            let ch = match (setup.castling_files[i], c, king_side) {
                (Some(f), _, _) => letter(f),
                (None, Color::White, true) => 'K',
                (None, Color::White, false) => 'Q',
                (None, Color::Black, true) => 'k',
                (None, Color::Black, false) => 'q',
            };
            let r = Self::home_rank(c);
            let rook = Some(Piece::new(c, PieceKind::Rook));
            let is_rook = |f: u8| self.piece_at(Square(r * S::<V>::FILES + f)) == rook;
            if V::CHESS960 {
                let ksq = self.king(c);
                if S::<V>::rank_of(ksq).0 != r {
                    return Err(PositionError::CastlingRight(ch));
                }
                let kf = S::<V>::file_of(ksq).0;
                let rook_file = match setup.castling_files[i] {
                    Some(f) => Some(f),
                    None if king_side => (kf + 1..S::<V>::FILES).rev().find(|&f| is_rook(f)),
                    None => (0..kf).find(|&f| is_rook(f)),
                };
                match rook_file {
                    Some(f) if f < S::<V>::FILES && is_rook(f) && (f > kf) == king_side && f != kf => {
                        self.castle_rooks[i] = f;
                    }
                    _ => return Err(PositionError::CastlingRight(ch)),
                }
            } else {
                let rook_file = if king_side { S::<V>::FILES - 1 } else { 0 };
                let king_sq = Square(r * S::<V>::FILES + 4);
                if self.piece_at(king_sq) != Some(Piece::new(c, PieceKind::King))
                    || !is_rook(rook_file)
                    || setup.castling_files[i].is_some_and(|f| f != rook_file)
                {
                    return Err(PositionError::CastlingRight(ch));
                }
            }
        }
        self.castling = setup.castling;
        Ok(())
    }

    /// The castling rooks' files to write in a FEN ([`Setup::castling_files`]):
    /// in Chess960 (X-FEN) a file letter only where `K`/`Q` would name
    /// another rook; none in the orthodox variants.
    pub(crate) fn castling_files_for_setup(&self) -> [Option<u8>; 4] {
        let mut castling_files = [None; 4];
        if V::CHESS960 {
            // X-FEN: a file letter only where `K`/`Q` would name another rook.
            for (i, &(_, c, king_side)) in Castling::RIGHTS.iter().enumerate() {
                let Some(rsq) = self.castling_rook(i) else { continue };
                let ksq = self.king(c);
                let step: i32 = if king_side { 1 } else { -1 };
                let mut sq = rsq.0 as i32 + step;
                let rank_start = (Self::home_rank(c) * V::Shape::FILES) as i32;
                let rook = Some(Piece::new(c, PieceKind::Rook));
                let mut outermost = true;
                while sq >= rank_start && sq < rank_start + V::Shape::FILES as i32 {
                    if self.piece_at(Square(sq as u8)) == rook {
                        outermost = false;
                    }
                    sq += step;
                }
                if !outermost || V::Shape::rank_of(ksq).0 != Self::home_rank(c) {
                    castling_files[i] = Some(self.castle_rooks[i]);
                }
            }
        }
        castling_files
    }

    // ----- generation --------------------------------------------------------

    /// Castling moves of the side to move, which is not in check.
    pub(crate) fn generate_castling<K: Sink<BitsOf<V>>>(&self, sink: &mut K, occ: BitsOf<V>) {
        type S<V> = <V as Variant>::Shape;
        if V::CHESS960 {
            self.generate_castling_960(sink, occ);
            return;
        }
        let us = self.side;
        let them = us.flip();
        let r = Self::home_rank(us);
        let sq = |f: u8| Square(r * S::<V>::FILES + f);
        let (kflag, qflag) = match us {
            Color::White => (Castling::WK, Castling::WQ),
            Color::Black => (Castling::BK, Castling::BQ),
        };
        let empty = |fs: &[u8]| fs.iter().all(|&f| !occ.has(sq(f)));
        let safe = |fs: &[u8]| fs.iter().all(|&f| !self.is_attacked(sq(f), them));
        if self.castling.has(kflag) && empty(&[5, 6]) && safe(&[5, 6]) {
            sink.push(Move::new(sq(4), sq(6), MoveKind::Castle));
        }
        if self.castling.has(qflag) && empty(&[1, 2, 3]) && safe(&[2, 3]) {
            sink.push(Move::new(sq(4), sq(2), MoveKind::Castle));
        }
    }

    /// Chess960 castling (the side to move is not in check). King and rook
    /// end on g/f (king side) or c/d (queen side); every square either
    /// crosses or lands on must be empty but for the two of them, and no
    /// square the king stands on, crosses or lands on may be attacked with
    /// both of them lifted off the board (so a castling rook that shielded
    /// its king along the home rank cannot castle into the attack).
    fn generate_castling_960<K: Sink<BitsOf<V>>>(&self, sink: &mut K, occ: BitsOf<V>) {
        type S<V> = <V as Variant>::Shape;
        let us = self.side;
        let them = us.flip();
        let base = Self::home_rank(us) * S::<V>::FILES;
        let ksq = self.king(us);
        let first = if us == Color::White { 0 } else { 2 };
        let span = |a: u8, b: u8| {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let mut m = BitsOf::<V>::ZERO;
            for f in lo..=hi {
                m |= BitsOf::<V>::bit(Square(base + f));
            }
            m
        };
        for i in first..first + 2 {
            let Some(rsq) = self.castling_rook(i) else { continue };
            let king_side = i % 2 == 0;
            let (kf, rf) = (ksq.0 - base, rsq.0 - base);
            let (king_to, rook_to) = if king_side { (6, 5) } else { (2, 3) };
            let occ2 = occ ^ BitsOf::<V>::bit(ksq) ^ BitsOf::<V>::bit(rsq);
            if (occ2 & (span(kf, king_to) | span(rf, rook_to))).any() {
                continue;
            }
            if span(kf, king_to).iter().all(|sq| self.attackers_to(sq, occ2, them).is_empty()) {
                sink.push(Move::new(ksq, rsq, MoveKind::Castle));
            }
        }
    }

    // ----- make --------------------------------------------------------------

    /// Rights that survive a move touching `sq`.
    #[inline(always)]
    pub(crate) fn castle_keep(sq: Square) -> u8 {
        if !V::CASTLING {
            return 0;
        }
        let f = V::Shape::FILES;
        let top = (V::Shape::RANKS - 1) * f;
        match sq.0 {
            4 => !(Castling::WK | Castling::WQ),
            0 => !Castling::WQ,
            s if s == f - 1 => !Castling::WK,
            s if s == top + 4 => !(Castling::BK | Castling::BQ),
            s if s == top => !Castling::BQ,
            s if s == top + f - 1 => !Castling::BK,
            _ => 0xFF,
        }
    }

    /// Chess960: rights that survive `m` (a king move drops both of the
    /// mover's rights; a move from or onto a castling rook's square drops
    /// that right).
    #[inline]
    fn castle_keep_960(&self, m: Move) -> u8 {
        let mut keep = 0xFF;
        if self.castling.0 == 0 {
            return keep;
        }
        if self.board[m.from.idx()] == Piece::new(self.side, PieceKind::King).code() {
            keep &= match self.side {
                Color::White => !(Castling::WK | Castling::WQ),
                Color::Black => !(Castling::BK | Castling::BQ),
            };
        }
        for i in 0..4 {
            if let Some(rsq) = self.castling_rook(i)
                && (rsq == m.from || rsq == m.to)
            {
                keep &= !(1 << i);
            }
        }
        keep
    }

    /// Rights that survive `m` by its origin and destination (moves that
    /// also move other pieces drop theirs when played).
    #[inline(always)]
    pub(crate) fn castling_kept(&self, m: Move) -> u8 {
        if V::CHESS960 { self.castle_keep_960(m) } else { Self::castle_keep(m.from) & Self::castle_keep(m.to) }
    }

    /// Sets the castling rights, updating the Zobrist key.
    #[inline(always)]
    pub(crate) fn set_castling(&mut self, rights: u8) {
        if rights != self.castling.0 {
            self.hash ^= self.castling_key(self.castling.0) ^ self.castling_key(rights);
            self.castling = Castling(rights);
        }
    }

    /// Plays castling move `m` on the board (firing the king's and the
    /// rook's gates); returns the rights that survive it beyond
    /// [`Position::castling_kept`].
    #[inline(always)]
    pub(crate) fn make_castle(&mut self, m: Move) -> u8 {
        let us = self.side;
        if V::CHESS960 {
            // King takes rook: `to` is the castling rook's square.
            let rank_base = m.from.0 - V::Shape::file_of(m.from).0;
            let (king_to, rook_to) = if m.to.0 > m.from.0 {
                (Square(rank_base + 6), Square(rank_base + 5))
            } else {
                (Square(rank_base + 2), Square(rank_base + 3))
            };
            let king = self.take(m.from);
            let rook = self.take(m.to);
            self.put(king_to, king);
            self.put(rook_to, rook);
            self.vacated(m.from, us);
            self.vacated(m.to, us);
            0xFF
        } else {
            let rank_base = m.from.0 - V::Shape::file_of(m.from).0;
            let (rook_from, rook_to) = if m.to.0 > m.from.0 {
                (Square(rank_base + V::Shape::FILES - 1), Square(m.to.0 - 1))
            } else {
                (Square(rank_base), Square(m.to.0 + 1))
            };
            let king = self.take(m.from);
            let rook = self.take(rook_from);
            self.put(m.to, king);
            self.put(rook_to, rook);
            self.vacated(m.from, us);
            self.vacated(rook_from, us);
            Self::castle_keep(rook_from)
        }
    }
}
