//! Forced captures, atomic blasts and pseudo-royal pieces (Fairy-Stockfish's
//! `mustCapture`, `blastOnCapture` and `extinctionPseudoRoyal`; lichess's
//! antichess and atomic).
//!
//! - Forced captures: when a side has a legal capture (en passant
//!   included, castling never), only its captures are legal.
//! - Blasts: a capture removes the capturing piece and every piece next to
//!   the target square but pawns (and the `blastImmuneTypes`), of both
//!   colours; a castling piece blown away takes its castling right with it.
//!   En passant blasts around the capturing pawn's destination.
//! - Pseudo-royal pieces: while a side has at most one more piece of an
//!   extinction type than the extinction count, those pieces are royal as
//!   a king is, judged as Fairy-Stockfish judges them, with the pieces
//!   royal before the move: a move may not remove one of the mover's
//!   (a capture next to its own king blowing it up), one that removes an
//!   opponent's is legal whatever it leaves attacked, and otherwise none of
//!   the mover's may be left attacked. Under blasts a royal piece next to
//!   an enemy royal piece cannot be attacked at all (taking it would blow
//!   up the taker's own), so kings may stand side by side. Castling may not
//!   start from or pass an attacked square.

use super::{EMPTY, Kind, Move, NONE, State, bb, bits};
use crate::variant::{MAX_TYPES, VariantDef};

/// [`State::check_squares`]: the enemy king's square, and per piece type
/// the squares from which a piece of the side to move may check it (all of
/// them when a type hops).
struct CheckSquares {
    king: u8,
    squares: [u128; MAX_TYPES],
    hops: bool,
}

impl State {
    /// The moves of `out` (pseudo-legal, or legal as to a royal king) that
    /// the rules of this module leave legal; the variant has one of them
    /// (or `checking = false`, or one of Menagerie's own rules, for which
    /// this only applies `checking`).
    #[cold]
    #[inline(never)]
    pub(super) fn extended_filter(&self, d: &VariantDef, out: &mut Vec<Move>) {
        if let Some(dr) = d.drops.as_ref()
            && let Some(bishop) = dr.opposite_bishops
        {
            // `dropOppositeColoredBishop`: room for bishops on both colours.
            out.retain(|&m| m.kind != Kind::Drop || self.bishops_placeable(d, dr, bishop, m));
        }
        if d.must_drop {
            // `mustDrop`: a side that can drop must (with `mustDropType`,
            // a side holding that type drops it, and only it).
            let forced = match d.must_drop_type {
                Some(t) => {
                    let held = self.hand[self.side as usize][t as usize] > 0;
                    if held {
                        out.retain(|m| m.kind != Kind::Drop || m.gate == t);
                    }
                    held
                }
                None => self.hand_count(self.side) > 0,
            };
            if forced && out.iter().any(|m| m.kind == Kind::Drop) {
                out.retain(|m| m.kind == Kind::Drop);
            }
        }
        if !d.checking {
            // `checking = false`: a move that gives check is illegal.
            // With plain moves and the enemy king not attacked now, only the
            // mover can check, or a piece behind the square it leaves (or
            // behind its new square, where a type hops).
            let checks = self.check_squares(d);
            out.retain(|&m| !self.gives_check(d, m, checks.as_ref()));
        }
        if d.pseudo_royal.is_some() {
            let royals = self.pseudo_royals(d);
            let occ = self.occ();
            let theirs = royals[(self.side ^ 1) as usize];
            // The mover's royal pieces that count (not next to an enemy
            // one under blasts); whether one of them is attacked now.
            let exposed = bits(royals[self.side as usize])
                .filter(|&sq| !self.blast_shielded(d, sq, theirs))
                .fold(0u128, |b, sq| b | bb(sq));
            // Whether one of them is attacked now; else the squares a quiet
            // move must touch to expose one (the king's test, per piece).
            let sens = bits(exposed).try_fold(0u128, |s, sq| self.sensitive(d, sq).map(|t| s | t));
            let checked = sens.is_none();
            let sens = sens.unwrap_or(u128::MAX);
            out.retain(|&m| {
                // Out of check, a quiet move of another piece can only
                // expose a royal piece along the lines through its squares
                // (or to a piece whose attacks are not lines and leaps).
                let quiet = m.kind == Kind::Normal
                    && !d.duple_check
                    && m.wall == NONE
                    && !checked
                    && self.board[m.to as usize] == EMPTY
                    && royals[self.side as usize] >> m.from & 1 == 0;
                if quiet {
                    if (bb(m.from) | bb(m.to)) & sens == 0 {
                        return true;
                    }
                    let occ2 = (occ ^ bb(m.from)) | bb(m.to);
                    return bits(exposed).all(|sq| {
                        let dirs = d.dir_bit(sq, m.from) | d.dir_bit(sq, m.to);
                        !self.attacked_by_lines(d, sq, occ2, self.side ^ 1, 0, dirs)
                    });
                }
                self.pseudo_royal_legal(d, m, royals)
            });
        }
        if d.immune != 0 {
            // `mutuallyImmuneTypes`: such a piece never takes one of its type.
            out.retain(|&m| {
                let t = self.board[m.from as usize] >> 1;
                let target = self.board[m.to as usize];
                !(d.immune >> t & 1 != 0 && target != EMPTY && target >> 1 == t && self.takes(m))
            });
        }
        if d.sittuyin.is_some() {
            self.sittuyin_filter(d, out);
        }
        if d.must_capture && out.iter().any(|&m| self.takes(m)) {
            out.retain(|&m| self.takes(m));
        }
    }

    /// The number of legal moves under `checking = false` where
    /// [`VariantDef::checkless_count`] holds, a piece at a time: a move of
    /// a piece off both kings' lines (our king's sensitive squares, and the
    /// squares whose emptying could uncover a check on theirs) onto a
    /// square that neither exposes our king nor is a check square of its
    /// type is counted unseen; any other move is tested. `None` when one
    /// of the kings is missing or attacked (the moves are then listed).
    #[cold]
    #[inline(never)]
    pub(super) fn count_checkless(&self, d: &VariantDef, buf: &mut Vec<Move>) -> Option<u64> {
        let us = self.side;
        let k = self.king_sq(d, us)?;
        let sens = self.sensitive(d, k)?;
        let checks = self.check_squares(d)?;
        let uncover = self.sensitive_of(d, checks.king, us ^ 1)?;
        let occ = self.occ();
        let pawns = d.pawn.map_or(0, |p| self.by_type[p as usize] & self.by_color[us as usize]);
        buf.clear();
        if pawns != 0 {
            self.pawn_moves(d, buf, pawns);
        }
        self.castling_moves(d, buf);
        let test = |m: Move| u64::from(self.legal_in(d, m, false) && !self.gives_check(d, m, Some(&checks)));
        let mut count: u64 = buf.iter().map(|&m| test(m)).sum();
        for from in bits(self.by_color[us as usize] & !pawns) {
            let t = self.board[from as usize] >> 1;
            let b = self.targets(d, t, from, occ);
            let quick =
                if from == k || bb(from) & (sens | uncover) != 0 { 0 } else { b & !sens & !checks.squares[t as usize] };
            count += u64::from(quick.count_ones());
            for to in bits(b & !quick) {
                count += test(Move::new(from, to, Kind::Normal));
            }
        }
        Some(count)
    }

    /// Where the side to move's pieces would check the enemy king from,
    /// when [`VariantDef::plain_moves`] holds and that king is not attacked
    /// now (otherwise `None`).
    fn check_squares(&self, d: &VariantDef) -> Option<CheckSquares> {
        let us = self.side;
        let occ = self.occ();
        let king = self.king_sq(d, us ^ 1)?;
        if !d.plain_moves || self.attacked(d, king, occ, us, 0) {
            return None;
        }
        let hops = d.hop_attackers[us as usize].iter().any(|&h| h != 0);
        let mut squares = [0u128; MAX_TYPES];
        for (t, sq) in squares.iter_mut().enumerate().take(d.types.len()) {
            if self.by_type[t] & self.by_color[us as usize] == 0 {
                continue;
            }
            // Leaps traced back with the other colour's, as attacks are;
            // slides along the lines it may slide onto the king from.
            let onto = (0..8).fold(0u8, |a, dir| a | (((d.slide_attackers[us as usize][dir] >> t) & 1) as u8) << dir);
            *sq =
                if hops { u128::MAX } else { d.table(t as u8, us ^ 1, king).capture.leaps | d.slides(king, onto, occ) };
        }
        Some(CheckSquares { king, squares, hops })
    }

    /// Whether the move `m` of the side to move gives check. With `checks`
    /// ([`State::check_squares`]), a plain move gives check when the mover
    /// attacks the enemy king from its new square, or when the line through
    /// the square it leaves opens (or one through its new square, for a
    /// hop); any other move is played and the result looked at.
    fn gives_check(&self, d: &VariantDef, m: Move, checks: Option<&CheckSquares>) -> bool {
        let us = self.side;
        let (Some(c), Kind::Normal, NONE) = (checks, m.kind, m.wall) else {
            return self.play(d, m).in_check(d);
        };
        let king = c.king;
        let occ = (self.occ() ^ bb(m.from)) | bb(m.to);
        let t = self.board[m.from as usize] >> 1;
        if c.squares[t as usize] >> m.to & 1 != 0 {
            // Confirmed from the mover's own movement (the squares may be
            // more than its attacks).
            let attacks = &d.table(t, us, m.to).capture;
            let direct = if attacks.hops != 0 {
                d.simple_reach(attacks, m.to, occ) >> king & 1 != 0
            } else {
                attacks.leaps >> king & 1 != 0
                    || (attacks.slides & d.dir_bit(m.to, king) != 0 && d.between(m.to, king) & occ == bb(king))
            };
            if direct {
                return true;
            }
        }
        let lines = d.dir_bit(king, m.from) | if c.hops { d.dir_bit(king, m.to) } else { 0 };
        self.attacked_by_lines(d, king, occ, us, bb(m.from), lines)
    }

    /// Whether `m` (a board move of the side to move) takes an enemy piece.
    #[inline]
    pub(super) fn takes(&self, m: Move) -> bool {
        match m.kind {
            Kind::EnPassant => true,
            Kind::Normal | Kind::Promotion | Kind::PiecePromotion | Kind::PieceDemotion => {
                m.from != m.to && self.board[m.to as usize] != EMPTY
            }
            _ => false,
        }
    }

    /// Each side's pseudo-royal pieces: those of an extinction type of
    /// which the side has at most the extinction count plus one.
    pub(super) fn pseudo_royals(&self, d: &VariantDef) -> [u128; 2] {
        let Some(types) = d.pseudo_royal else { return [0; 2] };
        let limit = d.extinction.map_or(0, |e| e.1) + 1;
        let mut royals = [0u128; 2];
        for t in bits(u128::from(types)) {
            for (c, r) in royals.iter_mut().enumerate() {
                let b = self.by_type[t as usize] & self.by_color[c];
                if b.count_ones() <= limit {
                    *r |= b;
                }
            }
        }
        royals
    }

    /// Whether the royal piece on `sq` of colour `c` cannot be attacked
    /// because it stands next to an enemy royal piece (`theirs`) and
    /// captures blast.
    #[inline]
    fn blast_shielded(&self, d: &VariantDef, sq: u8, theirs: u128) -> bool {
        d.blast.is_some() && d.neighbours[sq as usize] & theirs != 0
    }

    /// Whether one of the side to move's pseudo-royal pieces is attacked
    /// (its "check").
    pub(super) fn pseudo_royal_checked(&self, d: &VariantDef) -> bool {
        let us = self.side as usize;
        let royals = self.pseudo_royals(d);
        let occ = self.occ();
        let attacked =
            |sq: u8| !self.blast_shielded(d, sq, royals[us ^ 1]) && self.attacked(d, sq, occ, self.side ^ 1, 0);
        bits(royals[us]).any(attacked) || (d.duple_check && self.duple_checked(d, attacked))
    }

    /// `dupleCheck`: whether the side to move's pieces of the extinction
    /// types (pseudo-royal or not) are there and all `attacked`.
    fn duple_checked(&self, d: &VariantDef, attacked: impl Fn(u8) -> bool) -> bool {
        let candidates = self.pseudo_royal_candidates(d, self.side);
        candidates != 0 && bits(candidates).all(attacked)
    }

    /// The pieces of colour `c` of the extinction types.
    fn pseudo_royal_candidates(&self, d: &VariantDef, c: u8) -> u128 {
        let types = u128::from(d.pseudo_royal.unwrap_or(0));
        bits(types).fold(0u128, |b, t| b | self.by_type[t as usize]) & self.by_color[c as usize]
    }

    /// Fairy-Stockfish's legality of `m` as to pseudo-royal pieces, `royals`
    /// being [`State::pseudo_royals`] of this position.
    fn pseudo_royal_legal(&self, d: &VariantDef, m: Move, royals: [u128; 2]) -> bool {
        if let Some(legal) = self.pseudo_royal_plain(d, m, royals) {
            return legal;
        }
        let us = self.side;
        let them = us ^ 1;
        let mut mine = royals[us as usize];
        let theirs = royals[them as usize];
        let mut kto = m.to;
        if m.kind == Kind::Castling {
            let cr = 2 * us as usize + usize::from(m.to < m.from);
            let (kfrom, _, king_to, _) = self.castle_squares(d, cr);
            kto = king_to;
            if mine >> kfrom & 1 != 0 {
                // The king's squares from its own to its destination (not
                // included), with the king lifted.
                let occ = self.occ() ^ bb(kfrom);
                let mut s = kfrom;
                loop {
                    if !self.blast_shielded(d, s, theirs) && self.attacked(d, s, occ, them, 0) {
                        return false;
                    }
                    if kto == kfrom {
                        break;
                    }
                    s = if kto > kfrom { s + 1 } else { s - 1 };
                    if s == kto {
                        break;
                    }
                }
            }
        }
        if m.kind != Kind::Drop && mine >> m.from & 1 != 0 {
            mine ^= bb(m.from) | bb(kto);
        }
        if m.kind == Kind::Drop && d.pseudo_royal.is_some_and(|t| t >> m.gate & 1 != 0) {
            // A dropped piece of an extinction type is royal at once.
            mine |= bb(m.to);
        }
        if m.kind == Kind::Promotion && d.pseudo_royal.is_some_and(|t| t >> m.promo & 1 != 0) {
            let own = self.by_type[m.promo as usize] & self.by_color[us as usize];
            if own.count_ones() > d.extinction.map_or(0, |e| e.1) {
                mine &= !own;
            } else {
                mine |= bb(kto);
            }
        }
        let n = self.play(d, m);
        let occ = n.occ();
        if mine & !n.by_color[us as usize] != 0 {
            // One of the mover's royal pieces is blown up (or petrified).
            return false;
        }
        // Royal pieces of a petrifying type cannot capture (they would turn
        // to stone): they attack nothing here.
        let stone = bits(u128::from(d.petrify & d.pseudo_royal.unwrap_or(0)))
            .fold(0u128, |b, t| b | n.by_type[t as usize])
            & n.by_color[them as usize];
        let attacked = |sq: u8| !self.blast_shielded(d, sq, theirs) && n.attacked(d, sq, occ, them, stone);
        // Taking an enemy royal piece ends the game: own royal pieces left
        // attacked do not matter then.
        if theirs & !n.by_color[them as usize] == 0 && bits(mine).any(attacked) {
            return false;
        }
        if d.duple_check {
            // All the mover's extinction-type pieces attacked at once is
            // illegal even then (Fairy-Stockfish).
            let mut all = self.pseudo_royal_candidates(d, us);
            if m.kind != Kind::Drop && all >> m.from & 1 != 0 {
                all ^= bb(m.from) | bb(kto);
            }
            if m.kind == Kind::Promotion && d.pseudo_royal.is_some_and(|t| t >> m.promo & 1 != 0) {
                all |= bb(kto);
            }
            if all != 0 && bits(all).all(attacked) {
                return false;
            }
        }
        true
    }

    /// [`State::pseudo_royal_legal`] told from the move's squares, without
    /// playing it: for a plain move, capture or promotion in a variant
    /// where that is enough (`royal_plain`); `None` for the other moves.
    #[inline]
    fn pseudo_royal_plain(&self, d: &VariantDef, m: Move, royals: [u128; 2]) -> Option<bool> {
        if !d.royal_plain
            || !matches!(m.kind, Kind::Normal | Kind::Promotion)
            || m.wall != NONE
            || (m.kind == Kind::Promotion && d.pseudo_royal.is_some_and(|t| t >> m.promo & 1 != 0))
        {
            return None;
        }
        let them = self.side ^ 1;
        let (from, to) = (bb(m.from), bb(m.to));
        let mut mine = royals[self.side as usize];
        if mine & from != 0 {
            mine ^= from | to;
        }
        let theirs = royals[them as usize];
        let capture = self.board[m.to as usize] != EMPTY;
        let occ = self.occ() ^ from;
        // The occupancy after the move and the squares it empties of pieces
        // that stood there before (the captured piece, or the blast's).
        let (occ, gone) = if capture && d.blast.is_some() {
            let pawns = d.pawn.map_or(0, |p| self.by_type[p as usize]);
            let blasted = (d.neighbours[m.to as usize] & occ & !pawns) | to;
            if mine & blasted != 0 {
                // One of the mover's royal pieces is blown up.
                return Some(false);
            }
            (occ & !blasted, blasted)
        } else {
            (occ | to, if capture { to } else { 0 })
        };
        // Taking an enemy royal piece ends the game.
        if theirs & gone != 0 {
            return Some(true);
        }
        Some(!bits(mine).any(|sq| !self.blast_shielded(d, sq, theirs) && self.attacked(d, sq, occ, them, gone)))
    }

    /// Petrification after the capture `m` by a piece of type `t` (`landed`
    /// on the destination, a promotion's new type) into `n`, where a blast
    /// has removed `blasted`: a capturer of a petrifying type turns into a
    /// wall where it lands (without blasts, it is removed there first), and
    /// under `petrifyBlastPieces` so do the other pieces blasted.
    #[cold]
    #[inline(never)]
    pub(super) fn petrify(d: &VariantDef, m: Move, t: u8, landed: u8, blasted: u128, n: &mut State) {
        let removed = if d.blast.is_some() {
            blasted
        } else if d.petrify >> t & 1 != 0 {
            n.remove(m.to);
            bb(m.to)
        } else {
            0
        };
        if removed & bb(m.to) != 0 && d.petrify >> landed & 1 != 0 {
            n.walls |= bb(m.to);
        }
        if d.petrify_blast {
            n.walls |= removed & !bb(m.to);
        }
    }

    /// With drops, the pieces a blast removed (`blasted`, the capturer's
    /// new type `landed` on `m.to`) go to the hands of their owners'
    /// opponents when captures go to hand (a promoted one as the type it
    /// was promoted from, else a pawn, unless `dropLoop`), as
    /// Fairy-Stockfish's atomiczh plays; their promotion marks go.
    #[cold]
    #[inline(never)]
    pub(super) fn blast_to_hands(&self, d: &VariantDef, m: Move, n: &mut State, blasted: u128, landed: u8) {
        let Some(dr) = d.drops.filter(|dr| dr.to_hand) else { return };
        for sq in bits(blasted) {
            let (t, c, promoted, origin) = if sq == m.to {
                (landed, self.side, n.promoted >> sq & 1 != 0, n.origin_of(sq))
            } else {
                let p = self.board[sq as usize];
                (p >> 1, p & 1, self.promoted >> sq & 1 != 0, self.origin_of(sq))
            };
            let t = if dr.demote && promoted { origin.or(d.pawn).unwrap_or(t) } else { t };
            let h = &mut n.hand[(c ^ 1) as usize][t as usize];
            *h = h.saturating_add(1);
            n.promoted &= !bb(sq);
            State::set_origin(&mut n.origin, sq, None);
        }
    }

    /// The blast of a capture on `to` in `n` (the position after the move
    /// but for the blast): the capturing piece and the pieces next to `to`
    /// but pawns and immune types go; the squares emptied.
    #[cold]
    #[inline(never)]
    pub(super) fn blast(d: &VariantDef, immune: u32, to: u8, n: &mut State) -> u128 {
        let pawns = d.pawn.map_or(0, |p| n.by_type[p as usize]);
        let spared = bits(u128::from(immune)).fold(0u128, |b, t| b | n.by_type[t as usize]);
        let blasted = ((d.neighbours[to as usize] & n.occ() & !pawns) | bb(to)) & !spared;
        for sq in bits(blasted) {
            n.remove(sq);
        }
        blasted
    }
}
