//! Camel and Rhino Chess's rules as options of a definition: takeovers
//! (`leapTakeovers`, `enabledLeapTakeovers`, `enabledJumpTakeovers`,
//! `takeoverEnablers`), swaps (`swaps`, `swapExcept`) and promoting pieces
//! (`promotingPieces`). Every move here is pseudo-legal until the mover's
//! king is tested after the whole move ([`State::legal_after`]).
//!
//! - A **takeover** converts the enemy pieces it jumps (never a royal one):
//!   they change owner and stay on their squares, keeping their type. Every
//!   takeover resets the n-move clock.
//!   - *Leap takeovers* (`t` after the squares, `h2g4t`): a leap whose path
//!     passes over at least one convertible enemy converts all of them; the
//!     destination may hold an enemy, captured as usual. The path is the
//!     squares passed before the destination going orthogonally first then
//!     diagonally, or diagonally first (per leaper): the Camel's (1,3) leap
//!     orthogonally first passes (0,1) and (0,2), the Rhino's (2,3) leap
//!     diagonally first passes (1,1) and (2,2). Leaps without such squares
//!     (one-square steps) never take over.
//!   - *Jump takeovers* (written as the plain squares): along a line the
//!     piece captures along (a slide, or a one-square step), the first piece
//!     met (sliders may pass empty squares) must be a convertible enemy; the
//!     mover lands on the next square, which must be on the board, empty and
//!     not attacked by the opponent; a royal mover also needs the jumped
//!     piece unattacked by the opponent.
//!   - An *enabled* takeover needs a friendly enabler on one of the mover's
//!     eight neighbours before the move.
//! - A **swap** exchanges two adjacent friendly pieces (not the pairs of
//!   `swapExcept`); it is written from the lower square (`a1b1`, either
//!   square is read), sets no en passant square and resets the n-move clock
//!   if a pawn moves.
//! - A pawn or **promoting piece** arriving in the promotion region from
//!   outside it by a jump takeover or a swap promotes (and a promoting piece
//!   by its ordinary move too), to one of the promotion piece types.

use super::{EMPTY, Kind, Move, NONE, State, bb, bits};
use crate::variant::{DIRS, VariantDef, opposite};

/// The square of `b` nearest to the start of a line in direction `dir`.
#[inline]
fn nearest(b: u128, dir: usize) -> u8 {
    if dir < 4 { b.trailing_zeros() as u8 } else { (127 - b.leading_zeros()) as u8 }
}

/// The squares a leap from `from` to `to` passes before `to`, going
/// orthogonally first (along the longer axis) then diagonally, or
/// diagonally first.
pub(crate) fn leap_path(d: &VariantDef, from: u8, to: u8, diagonal_first: bool) -> u128 {
    let f = i32::from(d.files);
    let (x0, y0) = (i32::from(from) % f, i32::from(from) / f);
    let (dx, dy) = (i32::from(to) % f - x0, i32::from(to) / f - y0);
    let diagonal = dx.abs().min(dy.abs());
    let straight = dx.abs().max(dy.abs()) - diagonal;
    let ortho = if dx.abs() > dy.abs() { (dx.signum(), 0) } else { (0, dy.signum()) };
    let diag = (dx.signum(), dy.signum());
    let legs =
        if diagonal_first { [(diag, diagonal), (ortho, straight)] } else { [(ortho, straight), (diag, diagonal)] };
    let (mut x, mut y, mut path) = (x0, y0, 0u128);
    for ((sx, sy), n) in legs {
        for _ in 0..n {
            x += sx;
            y += sy;
            path |= 1u128 << (y * f + x);
        }
    }
    path & !bb(to)
}

impl State {
    /// The enemy pieces a takeover may convert: the opponent's, but royal ones.
    #[inline]
    fn convertible(&self, d: &VariantDef) -> u128 {
        let royal = d.king.map_or(0, |k| self.by_type[k as usize]);
        self.by_color[(self.side ^ 1) as usize] & !royal
    }

    /// Whether a piece of type `t` of the side to move arriving on `to`
    /// from `from` promotes (a pawn or promoting piece entering the
    /// promotion region).
    #[inline]
    pub(super) fn promotes(&self, d: &VariantDef, t: u8, from: u8, to: u8) -> bool {
        let zone = d.promotion_zone[self.side as usize];
        (d.types[t as usize].pawn || d.promoting >> t & 1 != 0) && zone >> to & 1 != 0 && zone >> from & 1 == 0
    }

    /// Pushes `m`, or one move per promotion choice if `promotes`.
    fn push_promoting(&self, d: &VariantDef, out: &mut Vec<Move>, m: Move, promotes: bool) {
        if promotes {
            let types = d.promotion_types[self.side as usize].iter().filter(|&&pt| self.may_promote_to(d, pt));
            out.extend(types.map(|&pt| Move { promo: pt, ..m }));
        } else {
            out.push(m);
        }
    }

    /// The ordinary moves of a piece of a special type (kidnapper, promoting
    /// piece) to the squares `targets`.
    #[cold]
    #[inline(never)]
    pub(super) fn special_piece_moves(&self, d: &VariantDef, t: u8, from: u8, targets: u128, out: &mut Vec<Move>) {
        let kidnapper = d.kidnap.is_some_and(|k| k.piece == t);
        for to in bits(targets) {
            if kidnapper && self.victim(d, from, to).is_some() {
                self.push(d, out, Move::new(from, to, Kind::Kidnap));
            } else if self.promotes(d, t, from, to) {
                self.push_promotions(d, out, from, to);
            } else if d.shogi {
                self.shogi_moves(d, t, from, to, true, out);
            } else {
                self.push(d, out, Move::new(from, to, Kind::Normal));
            }
        }
    }

    /// The moves of a piece of type `t` from `from` to `to` in a variant
    /// with shogi-style promotions or `immobilityIllegal`, as
    /// Fairy-Stockfish generates them: the plain move (unless the piece
    /// could never move again from `to`, or must promote or demote), the
    /// promotion if the piece promotes, and the demotion if it is promoted
    /// and demotes (`pieceDemotion`), both when `from` or `to` is in the
    /// promotion region (and under `piecePromotionOnCapture` only when
    /// capturing).
    /// `plain` is false where a pawn-style promotion is forced.
    pub(super) fn shogi_moves(&self, d: &VariantDef, t: u8, from: u8, to: u8, plain: bool, out: &mut Vec<Move>) {
        let us = self.side as usize;
        let zone = d.promotion_zone[us];
        // A promotion barred by `promotionLimit` is not generated, and then
        // the plain move is not forced either.
        let mut promoted = d.promoted_type[t as usize].filter(|&pt| self.may_promote_to(d, pt));
        let mut demoted = if d.piece_demotion && self.promoted >> from & 1 != 0 { self.origin_of(from) } else { None };
        let from_zone = zone >> from & 1 != 0;
        let to_zone = zone >> to & 1 != 0;
        let capture = self.board[to as usize] != EMPTY;
        let mut plain = plain;
        if promoted.is_some() || demoted.is_some() {
            if d.mandatory_piece_promotion {
                plain &= (!from_zone && !to_zone) || (d.promotion_on_capture && !capture);
            }
            if (d.promotion_on_capture && !capture) || !(from_zone || to_zone) {
                promoted = None;
                demoted = None;
            }
        }
        if plain && d.immobile[us][t as usize] >> to & 1 == 0 {
            self.push(d, out, Move::new(from, to, Kind::Normal));
        }
        if let Some(pt) = promoted {
            self.push(d, out, Move { promo: pt, ..Move::new(from, to, Kind::PiecePromotion) });
        }
        if let Some(pt) = demoted {
            self.push(d, out, Move { promo: pt, ..Move::new(from, to, Kind::PieceDemotion) });
        }
    }

    /// Takeovers and swaps of the side to move.
    #[cold]
    #[inline(never)]
    pub(super) fn takeovers_and_swaps(&self, d: &VariantDef, out: &mut Vec<Move>) {
        if let Some(t) = d.takeovers {
            self.takeovers(d, t, out);
        }
        if let Some(except) = &d.swaps {
            self.swaps(d, except, out);
        }
    }

    fn takeovers(&self, d: &VariantDef, t: crate::variant::Takeovers, out: &mut Vec<Move>) {
        let us = self.side;
        let them = us ^ 1;
        let own = self.by_color[us as usize];
        let enemy = self.by_color[them as usize];
        let occ = own | enemy;
        let convertible = self.convertible(d);
        let of_types = |set: u32| bits(u128::from(set)).fold(0u128, |b, ty| b | self.by_type[ty as usize]);
        let enablers = own & of_types(t.enablers);
        let enabled = |sq: u8| d.neighbours[sq as usize] & enablers != 0;

        for from in bits(own & of_types(t.leap | t.enabled_leap)) {
            let ty = self.board[from as usize] >> 1;
            if t.leap >> ty & 1 == 0 && !enabled(from) {
                continue;
            }
            let sm = d.table(ty, us, from);
            let diagonal_first = t.diagonal_first >> ty & 1 != 0;
            for to in bits((sm.quiet.leaps & !occ) | (sm.capture.leaps & enemy)) {
                if leap_path(d, from, to, diagonal_first) & convertible != 0 {
                    out.push(Move::new(from, to, Kind::Takeover));
                }
            }
        }

        for from in bits(own & of_types(t.enabled_jump)) {
            if !enabled(from) {
                continue;
            }
            let ty = self.board[from as usize] >> 1;
            let captures = &d.table(ty, us, from).capture;
            for dir in 0..DIRS.len() {
                let ray = d.dir_rays[from as usize][dir];
                if ray == 0 {
                    continue;
                }
                let slides = captures.slides >> dir & 1 != 0;
                let next = nearest(ray, dir);
                if !slides && captures.leaps & bb(next) == 0 {
                    continue;
                }
                let blockers = ray & occ;
                if blockers == 0 {
                    continue;
                }
                let jumped = nearest(blockers, dir);
                if (!slides && jumped != next) || convertible & bb(jumped) == 0 {
                    continue;
                }
                let beyond = d.dir_rays[jumped as usize][dir];
                if beyond == 0 {
                    continue;
                }
                let landing = nearest(beyond, dir);
                if occ & bb(landing) != 0 || self.attacked(d, landing, occ, them, 0) {
                    continue;
                }
                if d.types[ty as usize].royal && self.attacked(d, jumped, occ, them, 0) {
                    continue;
                }
                let m = Move::new(from, landing, Kind::Jump);
                self.push_promoting(d, out, m, self.promotes(d, ty, from, landing));
            }
        }
    }

    fn swaps(&self, d: &VariantDef, except: &[u32], out: &mut Vec<Move>) {
        let own = self.by_color[self.side as usize];
        for a in bits(own) {
            let ta = self.board[a as usize] >> 1;
            let higher = !((bb(a) << 1) - 1);
            for b in bits(d.neighbours[a as usize] & own & higher) {
                let tb = self.board[b as usize] >> 1;
                if except[ta as usize] >> tb & 1 != 0 {
                    continue;
                }
                let promotes = self.promotes(d, ta, a, b) || self.promotes(d, tb, b, a);
                self.push_promoting(d, out, Move::new(a, b, Kind::Swap), promotes);
            }
        }
    }

    /// The enemy pieces takeover `m` converts.
    pub(crate) fn converted(&self, d: &VariantDef, m: Move) -> u128 {
        let convertible = self.convertible(d);
        match m.kind {
            Kind::Takeover => {
                let t = self.board[m.from as usize] >> 1;
                let diagonal_first = d.takeovers.is_some_and(|k| k.diagonal_first >> t & 1 != 0);
                leap_path(d, m.from, m.to, diagonal_first) & convertible
            }
            Kind::Jump => {
                let dir = d.dir_bit(m.from, m.to).trailing_zeros() as usize;
                let back = d.dir_rays[m.to as usize].get(opposite(dir)).copied().unwrap_or(0);
                if back == 0 { 0 } else { bb(nearest(back, opposite(dir))) & convertible }
            }
            _ => 0,
        }
    }

    /// Plays takeover `m` into `n` (a copy of `self`): converts `converted`,
    /// captures on the destination and promotes if `m` says so.
    pub(super) fn play_takeover(&self, m: Move, n: &mut State, converted: u128) {
        let us = self.side;
        for sq in bits(converted) {
            let p = self.board[sq as usize];
            n.remove(sq);
            n.put(sq, p >> 1, us);
        }
        if self.board[m.to as usize] != EMPTY {
            n.remove(m.to);
        }
        let t = self.board[m.from as usize] >> 1;
        n.remove(m.from);
        n.put(m.to, if m.promo == NONE { t } else { m.promo }, us);
        n.rule50 = 0;
    }

    /// Plays swap `m` into `n` (a copy of `self`).
    pub(super) fn play_swap(&self, d: &VariantDef, m: Move, n: &mut State) {
        let us = self.side;
        let (a, b) = (self.board[m.from as usize] >> 1, self.board[m.to as usize] >> 1);
        let arrive =
            |t: u8, from: u8, to: u8| if m.promo != NONE && self.promotes(d, t, from, to) { m.promo } else { t };
        n.remove(m.from);
        n.remove(m.to);
        n.put(m.to, arrive(a, m.from, m.to), us);
        n.put(m.from, arrive(b, m.to, m.from), us);
        if d.types[a as usize].pawn || d.types[b as usize].pawn {
            n.rule50 = 0;
        }
    }
}
