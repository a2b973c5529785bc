//! Xiangqi's Asian (AXF) chasing rule as Fairy-Stockfish plays it
//! (`chasingRule = axf`): which pieces of the side to move the last move
//! chased — attacked so that they could be taken for nothing. A side that
//! chased the same piece with every move of a repetition loses it
//! ([`super::Game::claimable`]).
//!
//! A move chases a piece of the opponent when, after it, the moved piece
//! or a piece it uncovered attacks that piece and the piece is not
//! defended (a defender that is pinned to its king, or a king that would
//! face the other king, does not count), or when the piece is worth more
//! than its attacker (a horse or cannon attacking a rook; an elephant or
//! advisor attacking a rook, cannon or horse). Never chased: the king and
//! soldiers that have not crossed the river. Mutual attacks of pieces of
//! one type do not chase, unless the attacked one is pinned or a lame
//! horse cannot strike back. A move that pins a piece chases the pieces
//! the pinned piece alone defended, when they are attacked; a move that
//! sets up a discovered check chases the pieces the discovering piece
//! attacks, but for those the king may take back.
//!
//! Fairy-Stockfish names the pieces by their built-in types (rook, cannon,
//! horse, elephant, fers, soldier, king); pieces of other types chase and
//! are chased only by the rules that do not name a type.

use super::{EMPTY, Move, State, bb, bits};
use crate::ini::{HORSE_INDEX, JANGGI_ELEPHANT_INDEX, ROOK_INDEX, SOLDIER_INDEX};
use crate::variant::VariantDef;

/// Fairy-Stockfish's index of the xiangqi cannon.
const CANNON_INDEX: u8 = 27;
/// Fairy-Stockfish's index of the xiangqi elephant.
const ELEPHANT_INDEX: u8 = 32;
/// Fairy-Stockfish's index of the fers (xiangqi's advisor).
const FERS_INDEX: u8 = 6;

/// The rook directions, as bits of [`crate::variant::DIRS`].
const ORTHOGONAL: u8 = 1 | 1 << 1 | 1 << 4 | 1 << 5;
/// The bishop directions, as bits of [`crate::variant::DIRS`].
const DIAGONAL: u8 = 1 << 2 | 1 << 3 | 1 << 6 | 1 << 7;

/// How a piece type's attacks behave for Fairy-Stockfish's pin test
/// (its `AttackRiderTypes`): taken from the Betza string.
#[derive(Clone, Copy, Default)]
struct Riders {
    /// Has a line or lame leap that a piece in between blocks.
    sliding: bool,
    /// Hops over a piece (cannon, grasshopper).
    hopping: bool,
    /// Its attacks cannot be traced back from the target (lame knight or
    /// zebra leaps, grasshoppers).
    asymmetric: bool,
}

/// [`Riders`] of a Betza string: each atom with the modifiers before it.
fn riders(betza: &str) -> Riders {
    let mut r = Riders::default();
    let mut mods = String::new();
    let mut chars = betza.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_lowercase() {
            mods.push(ch);
            continue;
        }
        if !ch.is_ascii_uppercase() {
            continue;
        }
        // A doubled atom or a range rides.
        let rides = matches!(ch, 'R' | 'B' | 'Q')
            || chars.peek() == Some(&ch)
            || chars.peek().is_some_and(|c| c.is_ascii_digit() && *c != '1');
        let captures = !mods.contains('m') || mods.contains('c');
        if captures {
            let lame = mods.contains('n');
            let hop = mods.contains('p') || mods.contains('g');
            r.hopping |= hop;
            r.sliding |= lame || (rides && !hop);
            r.asymmetric |= mods.contains('g') || (lame && matches!(ch, 'N' | 'Z'));
        }
        mods.clear();
    }
    r
}

impl State {
    /// The pieces of the side to move that the last move, `m` played in
    /// `before`, chased (Fairy-Stockfish's `Position::chased`).
    pub(super) fn chased(&self, d: &VariantDef, before: &State, m: Move) -> u128 {
        let us = self.side;
        let them = us ^ 1;
        let occ = self.occ();
        let mine = self.by_color[us as usize];
        let theirs = self.by_color[them as usize];
        let of = |c: u8, fsf: u8| self.of_fsf(d, c, fsf);
        let kings = |c: u8| d.king.map_or(0, |k| self.by_type[k as usize] & self.by_color[c as usize]);
        let flying = d.xiangqi.as_ref().is_some_and(|x| x.flying_general);
        let mut pins = self.blockers_for_king(d, us);
        let their_king = self.king_sq(d, them);
        if flying && let Some(k) = their_king {
            let file = d.first_file << (k % d.files) & mine;
            if file & kings(us) != 0 && (file & !kings(us)).count_ones() <= 1 {
                pins |= file & !kings(us);
            }
        }
        // The king and the soldiers that have not crossed the river.
        let promoted = match d.xiangqi.as_ref().and_then(|x| x.soldier) {
            Some((_, zone)) => zone[us as usize],
            None => d.board,
        };
        let soldiers = of(us, SOLDIER_INDEX);
        let never = kings(us) | (soldiers & !promoted);
        let fsf = |t: u8| d.types[t as usize].fsf;
        let mut b = 0u128;
        let add = |attacker: u8, t: u8, attacks: u128, b: &mut u128| {
            if attacks & !*b == 0 {
                return;
            }
            let mut attacks = attacks & !never;
            let kind = fsf(t);
            if kind == HORSE_INDEX || kind == CANNON_INDEX {
                *b |= attacks & of(us, ROOK_INDEX);
            }
            if kind == ELEPHANT_INDEX || kind == FERS_INDEX {
                *b |= attacks & (of(us, ROOK_INDEX) | of(us, CANNON_INDEX) | of(us, HORSE_INDEX));
            }
            if kind == HORSE_INDEX && neighbours(d, attacker, true) & occ != 0 {
                for h in bits(attacks & of(us, HORSE_INDEX)) {
                    if d.free_reach(self.board[h as usize] >> 1, us, h, occ, true) >> attacker & 1 != 0 {
                        attacks ^= bb(h);
                    }
                }
            } else {
                attacks &= !(self.by_type[t as usize] & mine) | pins;
            }
            let without = occ ^ bb(attacker);
            for s in bits(attacks) {
                let roots = self.attackers_to(d, s, without, us) & !pins;
                let seen =
                    || their_king.is_some_and(|k| roots == kings(us) && d.slides(k, ORTHOGONAL, without) >> s & 1 != 0);
                if roots == 0 || (flying && seen()) {
                    *b |= bb(s);
                }
            }
        };

        // Direct attacks: only the new ones.
        let (from, to) = (m.from, m.to);
        let moved = self.board[to as usize];
        if moved != EMPTY {
            let t = moved >> 1;
            if Some(t) != d.king && fsf(t) != SOLDIER_INDEX {
                let mut direct = d.reach(t, them, to, occ, true, &self.by_type) & mine;
                if fsf(t) == ROOK_INDEX || fsf(t) == CANNON_INDEX {
                    direct &= !line(d, from, to);
                }
                add(to, t, direct, &mut b);
            }
        }

        // Discovered attacks.
        let candidates = (neighbours(d, from, false) & of(them, HORSE_INDEX))
            | (neighbours(d, from, true) & of(them, ELEPHANT_INDEX))
            | (orthogonal_lines(d, from) & (of(them, CANNON_INDEX) | of(them, ROOK_INDEX)))
            | (orthogonal_lines(d, to) & of(them, CANNON_INDEX));
        let took = before.takes(m);
        let earlier = (if took { occ } else { occ ^ bb(to) }) ^ bb(from);
        for s in bits(candidates) {
            let t = self.board[s as usize] >> 1;
            let discovered = mine & d.free_reach(t, them, s, occ, true) & !d.free_reach(t, them, s, earlier, true);
            add(s, t, discovered, &mut b);
        }

        // Defenders newly pinned, and discovered checks newly set up.
        let pinned_now = self.blockers_for_king(d, us) & !before.blockers_for_king(d, us);
        for s in bits(pinned_now & mine) {
            let t = self.board[s as usize] >> 1;
            let their_pins = self.blockers_for_king(d, them);
            for s2 in bits(mine & !never & d.free_reach(t, us, s, occ, true)) {
                if self.attackers_to(d, s2, occ, them) & !their_pins != 0 {
                    b |= bb(s2);
                }
            }
        }
        if let Some(king) = self.king_sq(d, us) {
            let king_reach = d.king.map_or(0, |k| d.reach(k, us, king, occ, true, &self.by_type));
            for s in bits(pinned_now & theirs) {
                let t = self.board[s as usize] >> 1;
                let attacks = d.reach(t, them, s, occ, true, &self.by_type) & mine;
                b |= attacks & !king_reach;
                for s2 in bits(attacks & king_reach) {
                    if self.attackers_to(d, s2, occ ^ bb(s) ^ bb(king), them) & !bb(s) != 0 {
                        b |= bb(s2);
                    }
                }
            }
        }
        b
    }

    /// The pieces of colour `c` of the types whose Fairy-Stockfish index
    /// is `fsf`.
    fn of_fsf(&self, d: &VariantDef, c: u8, fsf: u8) -> u128 {
        let mut b = 0;
        for (t, ty) in d.types.iter().enumerate() {
            if ty.fsf == fsf {
                b |= self.by_type[t];
            }
        }
        b & self.by_color[c as usize]
    }

    /// The pieces of colour `c` that attack `sq` given the occupancy `occ`
    /// (Fairy-Stockfish's `attackers_to`: there a janggi cannon defends
    /// another on `sq`, though it may not take it).
    fn attackers_to(&self, d: &VariantDef, sq: u8, occ: u128, c: u8) -> u128 {
        let mut by_type = self.by_type;
        if let Some(cannon) = d.xiangqi.as_ref().and_then(|x| x.janggi_cannon) {
            by_type[cannon as usize] &= !bb(sq);
        }
        let mut r = 0;
        for p in bits(self.by_color[c as usize]) {
            let t = self.board[p as usize] >> 1;
            if d.reach(t, c, p, occ, true, &by_type) >> sq & 1 != 0 {
                r |= bb(p);
            }
        }
        r
    }

    /// The pieces, of either colour, whose leaving would expose the king
    /// of colour `c` to an attack by a line, a lame leap or a hop
    /// (Fairy-Stockfish's `blockersForKing`); empty without a king.
    pub(super) fn blockers_for_king(&self, d: &VariantDef, c: u8) -> u128 {
        let Some(king) = self.king_sq(d, c) else { return 0 };
        let a = c ^ 1;
        let occ = self.occ();
        let (mut snipers, mut sliding) = (0u128, 0u128);
        for (t, ty) in d.types.iter().enumerate() {
            let ps = self.by_type[t] & self.by_color[a as usize];
            if ps == 0 {
                continue;
            }
            let rev = &d.table(t as u8, c, king).capture;
            let lines = ps & rev.pseudo & !rev.leaps;
            if lines == 0 {
                continue;
            }
            let kind = riders(&ty.betza);
            if kind.asymmetric {
                for s in bits(rev.pseudo & ps) {
                    if d.reach(t as u8, a, s, occ, true, &self.by_type) >> king & 1 == 0 {
                        snipers |= bb(s);
                    }
                }
            } else {
                snipers |= lines & !d.free_reach(t as u8, c, king, occ, true);
            }
            if kind.sliding {
                sliding |= snipers & ps;
            }
        }
        // Janggi's chariots pin along the palace diagonals too.
        if let Some(x) = d.xiangqi.as_ref().filter(|x| x.diagonal_lines >> king & 1 != 0) {
            let rooks = self.of_fsf(d, a, ROOK_INDEX);
            for s in bits(x.diagonal_lines & d.slides(king, DIAGONAL, 0) & rooks) {
                let t = self.board[s as usize] >> 1;
                if d.reach(t, a, s, occ, true, &self.by_type) >> king & 1 == 0 {
                    snipers |= bb(s);
                    sliding |= bb(s);
                }
            }
        }
        let cannons = d.xiangqi.as_ref().and_then(|x| x.janggi_cannon).map_or(0, |t| self.by_type[t as usize]);
        let occupancy = occ ^ sliding;
        let mut blockers = 0;
        for s in bits(snipers) {
            let ty = &d.types[(self.board[s as usize] >> 1) as usize];
            let hopper = riders(&ty.betza).hopping;
            let path = if ty.fsf == HORSE_INDEX {
                neighbours(d, s, false) & neighbours(d, king, true)
            } else if ty.fsf == JANGGI_ELEPHANT_INDEX {
                (neighbours(d, s, false) & leaps(d, king, &ALFIL)) | (leaps(d, s, &KNIGHT) & neighbours(d, king, true))
            } else {
                between(d, king, s)
            };
            let mut b = path & if hopper { occ ^ bb(s) } else { occupancy };
            if b != 0 && (b.count_ones() == 1 || (hopper && b.count_ones() == 2)) {
                // Janggi cannons block each other.
                if cannons >> s & 1 != 0 && b & cannons != 0 {
                    b &= cannons;
                }
                blockers |= b;
            }
        }
        blockers
    }
}

/// The alfil's leaps (two squares diagonally).
const ALFIL: [(i32, i32); 4] = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
/// The knight's leaps.
const KNIGHT: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];

/// The squares next to `sq` diagonally (`diagonal`) or orthogonally.
fn neighbours(d: &VariantDef, sq: u8, diagonal: bool) -> u128 {
    let steps = if diagonal { [(1, 1), (1, -1), (-1, 1), (-1, -1)] } else { [(1, 0), (-1, 0), (0, 1), (0, -1)] };
    leaps(d, sq, &steps)
}

/// The squares `steps` (file, rank) away from `sq`.
fn leaps(d: &VariantDef, sq: u8, steps: &[(i32, i32)]) -> u128 {
    let (f, r) = (i32::from(sq % d.files), i32::from(sq / d.files));
    steps.iter().filter_map(|&(df, dr)| square(d, f + df, r + dr)).fold(0, |b, s| b | bb(s))
}

/// The square at file `f` and rank `r`, if it is on the board.
fn square(d: &VariantDef, f: i32, r: i32) -> Option<u8> {
    let on = (0..i32::from(d.files)).contains(&f) && (0..i32::from(d.ranks)).contains(&r);
    on.then(|| (r * i32::from(d.files) + f) as u8)
}

/// The rank and file of `sq`, `sq` not included.
fn orthogonal_lines(d: &VariantDef, sq: u8) -> u128 {
    d.slides(sq, ORTHOGONAL, 0)
}

/// The step from `a` towards `b` along a rook or bishop line, if they
/// share one.
fn direction(d: &VariantDef, a: u8, b: u8) -> Option<(i32, i32)> {
    let (df, dr) = (i32::from(b % d.files) - i32::from(a % d.files), i32::from(b / d.files) - i32::from(a / d.files));
    (a != b && (df == 0 || dr == 0 || df.abs() == dr.abs())).then(|| (df.signum(), dr.signum()))
}

/// The whole line, edge to edge, through `a` and `b`; empty if they share
/// no rook or bishop line.
fn line(d: &VariantDef, a: u8, b: u8) -> u128 {
    let Some((df, dr)) = direction(d, a, b) else { return 0 };
    let (f, r) = (i32::from(a % d.files), i32::from(a / d.files));
    let mut line = bb(a);
    for sign in [1, -1] {
        let mut k = 1;
        while let Some(s) = square(d, f + sign * k * df, r + sign * k * dr) {
            line |= bb(s);
            k += 1;
        }
    }
    line
}

/// The squares between `a` and `b` on their line, and `b` (just `b` when
/// they share no line): Fairy-Stockfish's `between_bb`.
fn between(d: &VariantDef, a: u8, b: u8) -> u128 {
    let Some((df, dr)) = direction(d, a, b) else { return bb(b) };
    let (f, r) = (i32::from(a % d.files), i32::from(a / d.files));
    let mut squares = 0;
    let mut k = 1;
    while let Some(s) = square(d, f + k * df, r + k * dr) {
        squares |= bb(s);
        if s == b {
            break;
        }
        k += 1;
    }
    squares
}
