//! What the search needs of a position: [`SearchPosition`], implemented for
//! the compiled variants' [`menagerie_variants::Position`] and for data
//! variants ([`crate::DataPosition`]).

use crate::eval::{EvalTables, PawnCache};
use menagerie_geometry::{Bits, Shape};
use menagerie_pieces::PieceKind;
use menagerie_variants::{Move, MoveList, Position, Variant};

/// A growable list of moves the search fills and reads back as a slice.
pub trait MoveBuffer<M>: Send {
    /// An empty list.
    fn empty() -> Self;
    /// The moves.
    fn moves(&self) -> &[M];
}

impl MoveBuffer<Move> for MoveList {
    #[inline(always)]
    fn empty() -> Self {
        MoveList::new()
    }
    #[inline(always)]
    fn moves(&self) -> &[Move] {
        self
    }
}

impl<M: Send> MoveBuffer<M> for Vec<M> {
    #[inline(always)]
    fn empty() -> Self {
        // One allocation per node instead of a few reallocations.
        Vec::with_capacity(96)
    }
    #[inline(always)]
    fn moves(&self) -> &[M] {
        self
    }
}

/// A position the search can analyse: move generation, making moves,
/// hashing, evaluation, and the move facts that order and prune the search.
pub trait SearchPosition: Clone + Send + Sync + Sized {
    /// A move of the position.
    type Move: Copy + Eq + Send + Sync + core::fmt::Debug + 'static;
    /// The list legal moves are generated into.
    type Moves: MoveBuffer<Self::Move>;
    /// The evaluation's precomputed tables, shared by the search threads.
    type Eval: Send + Sync;
    /// What one search thread's evaluation remembers between calls (a
    /// cache of the pawn-structure terms), made empty by `Default`; kept by
    /// an engine from one search to the next.
    type EvalCache: Default + Send + 'static;

    /// The Zobrist key (TT and repetition).
    fn key(&self) -> u64;
    /// Plies since the last capture or pawn move.
    fn halfmove_clock(&self) -> u32;
    /// Whether the game is drawn by the n-move rule (no capture or pawn
    /// move for that long).
    fn move_rule_draw(&self) -> bool;
    /// Whether the side to move is in check.
    fn in_check(&self) -> bool;
    /// Index of the side to move (0 White, 1 Black).
    fn side_index(&self) -> usize;
    /// The legal moves.
    fn legal_moves_into(&self, out: &mut Self::Moves);
    /// The legal moves quiescence searches out of check: captures,
    /// conversions, promotions. Empty also when the game has ended.
    fn tactical_moves_into(&self, out: &mut Self::Moves);
    /// The position after the legal move `m`.
    fn play(&self, m: Self::Move) -> Self;
    /// The position with the side to move passing.
    fn play_null(&self) -> Self;
    /// True if the game has ended by a rule other than checkmate and stalemate.
    fn ended(&self) -> bool;
    /// The score, for the side to move at `ply`, of a position without
    /// legal moves (or ended by [`SearchPosition::ended`]).
    fn terminal_score(&self, ply: usize) -> i32;
    /// True if `m` captures, converts or promotes.
    fn is_tactical(&self, m: Self::Move) -> bool;
    /// Whether the legal move `m` gives check, where that is known without
    /// playing it; `None` where only playing it tells.
    fn gives_check_unplayed(&self, _m: Self::Move) -> Option<bool> {
        None
    }
    /// Nominal value of the material `m` wins at once.
    fn gain(&self, m: Self::Move, eval: &Self::Eval) -> i32;
    /// Nominal value of the piece making `m`.
    fn mover_value(&self, m: Self::Move, eval: &Self::Eval) -> i32;
    /// Static exchange value of `m`.
    fn see(&self, m: Self::Move, eval: &Self::Eval) -> i32;
    /// True if `m` promotes.
    fn is_promotion(m: Self::Move) -> bool;
    /// True for moves of a prelude phase (no pruning there).
    fn is_prelude(m: Self::Move) -> bool;
    /// True if `m` is never better than another legal move here, so the
    /// search need not try it: White's `decline` of the reserve pieces
    /// (Black may then accept, which leads to the very position White's
    /// `accept` leads to, or decline too: declining can only give Black a
    /// choice).
    fn is_dominated(&self, _m: Self::Move) -> bool {
        false
    }
    /// Number of piece-and-square slots of this position's game: every
    /// [`SearchPosition::piece_square`] is below it (or equal to it for none).
    /// A continuation-history table has (count + 1) × count entries.
    fn piece_squares(&self) -> usize;
    /// The moving piece on the destination of `m`, below [`SearchPosition::piece_squares`]
    /// (or equal to it for no such slot: a prelude choice, a drop).
    fn piece_square(&self, m: Self::Move) -> usize;
    /// The butterfly history index of `m`, below `2 * 128 * 128`.
    fn history_index(&self, m: Self::Move) -> usize;
    /// True if the side to move has pieces other than king and pawns
    /// (null-move pruning is safe).
    fn has_pieces(&self) -> bool;
    /// A key of the pawn structure: the squares of the side to move's
    /// pawns and of the opponent's (statistics kept per pawn structure).
    fn pawn_key(&self) -> u64;
    /// Whether this game brings reserve pieces into play (by gating or
    /// from a hand). Its search leaves out two refinements that measured
    /// worse in alpaca self-play: the correction history and the deeper
    /// reduction of quiet moves where the table's move captures.
    fn brings_in_reserves(&self) -> bool;
    /// Static evaluation from the side to move's point of view, with the
    /// thread's `cache`.
    fn evaluate(&self, eval: &Self::Eval, cache: &mut Self::EvalCache) -> i32;
    /// Records that the search path's position at `ply` is this one (its
    /// ancestors being those recorded at lower plies): an incremental
    /// evaluation updates from them.
    #[inline(always)]
    fn enter(&self, _cache: &mut Self::EvalCache, _ply: usize) {}
    /// [`SearchPosition::evaluate`] of the position last [`entered`] at
    /// `ply`, which may update from its ancestors' state.
    ///
    /// [`entered`]: SearchPosition::enter
    #[inline(always)]
    fn evaluate_at(&self, eval: &Self::Eval, cache: &mut Self::EvalCache, _ply: usize) -> i32 {
        self.evaluate(eval, cache)
    }
    /// `m` packed for the transposition table.
    fn pack(m: Self::Move) -> u32;
    /// A move packed by [`SearchPosition::pack`].
    fn unpack(v: u32) -> Option<Self::Move>;
    /// The variant's name (for tracing).
    fn variant_name(&self) -> &str;
    /// The moves of a line from this position, in UCI notation (for tracing).
    fn line_text(&self, line: &[Self::Move]) -> Vec<String>;
}

/// A network's evaluations stay clear of mate scores.
const NNUE_LIMIT: i32 = 20_000;

#[inline(always)]
fn clamp_nnue(v: i32) -> i32 {
    v.clamp(-NNUE_LIMIT, NNUE_LIMIT)
}

/// What one search thread's evaluation of a compiled game keeps: the
/// linear evaluation's pawn cache and the network's accumulators along the
/// search path.
pub struct ThreadEval<V: Variant> {
    /// The linear evaluation's pawn-structure cache.
    pub pawns: PawnCache<V>,
    /// The network's accumulators, by ply.
    pub nnue: menagerie_nnue::AccumulatorStack<V>,
}

impl<V: Variant> Default for ThreadEval<V> {
    fn default() -> Self {
        ThreadEval { pawns: PawnCache::default(), nnue: menagerie_nnue::AccumulatorStack::default() }
    }
}

impl<V: Variant> SearchPosition for Position<V> {
    type Move = Move;
    type Moves = MoveList;
    type Eval = EvalTables;
    type EvalCache = ThreadEval<V>;

    #[inline(always)]
    fn key(&self) -> u64 {
        self.hash()
    }
    #[inline(always)]
    fn halfmove_clock(&self) -> u32 {
        Position::halfmove_clock(self)
    }
    #[inline(always)]
    fn move_rule_draw(&self) -> bool {
        Position::halfmove_clock(self) >= 100
    }
    #[inline(always)]
    fn in_check(&self) -> bool {
        self.is_check()
    }
    #[inline(always)]
    fn side_index(&self) -> usize {
        self.side_to_move().idx()
    }
    #[inline(always)]
    fn legal_moves_into(&self, out: &mut MoveList) {
        Position::legal_moves_into(self, out)
    }
    #[inline(always)]
    fn tactical_moves_into(&self, out: &mut MoveList) {
        Position::tactical_moves_into(self, out)
    }
    #[inline(always)]
    fn play(&self, m: Move) -> Self {
        self.play_unchecked(m)
    }
    #[inline(always)]
    fn play_null(&self) -> Self {
        Position::play_null(self)
    }
    #[inline(always)]
    fn ended(&self) -> bool {
        self.variant_ended()
    }
    #[inline(always)]
    fn terminal_score(&self, ply: usize) -> i32 {
        use crate::search::MATE;
        if let Some(loser) = self.variant_loser() {
            return if loser == self.side_to_move() { -MATE + ply as i32 } else { MATE - ply as i32 };
        }
        if self.is_check() { -MATE + ply as i32 } else { 0 }
    }
    #[inline(always)]
    fn is_tactical(&self, m: Move) -> bool {
        Position::is_tactical(self, m)
    }
    #[inline(always)]
    fn gives_check_unplayed(&self, m: Move) -> Option<bool> {
        Position::gives_check_unplayed(self, m)
    }
    #[inline(always)]
    fn gain(&self, m: Move, _: &EvalTables) -> i32 {
        Position::gain(self, m)
    }
    #[inline(always)]
    fn mover_value(&self, m: Move, _: &EvalTables) -> i32 {
        self.piece_at(m.from).map_or(0, |p| p.kind.value())
    }
    #[inline(always)]
    fn see(&self, m: Move, _: &EvalTables) -> i32 {
        crate::see::see(self, m)
    }
    #[inline(always)]
    fn is_promotion(m: Move) -> bool {
        m.promotion.is_some()
    }
    #[inline(always)]
    fn is_prelude(m: Move) -> bool {
        m.is_prelude()
    }
    #[inline(always)]
    fn is_dominated(&self, m: Move) -> bool {
        // White decides first (RULES §2.2); its `accept` is legal whenever
        // its `decline` is (neither moves anything).
        m.kind == menagerie_variants::MoveKind::Decline && self.side_to_move() == menagerie_pieces::Color::White
    }
    #[inline(always)]
    fn piece_squares(&self) -> usize {
        dense::<V>().slots
    }
    #[inline(always)]
    fn piece_square(&self, m: Move) -> usize {
        let d = dense::<V>();
        match self.piece_at(m.from) {
            Some(p) if !m.is_prelude() && V::has(p.kind) => {
                (p.color.idx() * d.kinds + d.index[p.kind.idx()] as usize) * d.squares + m.to.idx()
            }
            _ => d.slots,
        }
    }
    #[inline(always)]
    fn history_index(&self, m: Move) -> usize {
        (self.side_to_move().idx() * 128 + m.from.idx()) * 128 + m.to.idx()
    }
    #[inline(always)]
    fn has_pieces(&self) -> bool {
        let us = self.color(self.side_to_move());
        (us & !(self.kind(PieceKind::Pawn) | self.kind(PieceKind::King))).any()
    }
    #[inline]
    fn pawn_key(&self) -> u64 {
        let us = self.side_to_move();
        let pawns = self.kind(PieceKind::Pawn);
        pawn_sets_key((pawns & self.color(us)).to_u128(), (pawns & self.color(us.flip())).to_u128())
    }
    #[inline(always)]
    fn brings_in_reserves(&self) -> bool {
        V::GATING.is_some()
    }
    #[inline]
    fn evaluate(&self, eval: &EvalTables, cache: &mut ThreadEval<V>) -> i32 {
        match &eval.nnue {
            Some(net) => {
                let (mut stm, mut nstm) = (Vec::new(), Vec::new());
                let side = self.side_to_move();
                menagerie_nnue::active_features(self, side, &mut stm);
                menagerie_nnue::active_features(self, side.flip(), &mut nstm);
                let out = net.evaluate(&stm, &nstm);
                if net.residual() {
                    clamp_nnue(out + eval.evaluate_cached(self, &mut cache.pawns))
                } else {
                    clamp_nnue(out)
                }
            }
            None => eval.evaluate_cached(self, &mut cache.pawns),
        }
    }
    #[inline(always)]
    fn enter(&self, cache: &mut ThreadEval<V>, ply: usize) {
        cache.nnue.set(ply, self);
    }
    #[inline]
    fn evaluate_at(&self, eval: &EvalTables, cache: &mut ThreadEval<V>, ply: usize) -> i32 {
        match &eval.nnue {
            Some(net) => match cache.nnue.evaluate(net, ply) {
                Some(v) if net.residual() => clamp_nnue(v + eval.evaluate_cached(self, &mut cache.pawns)),
                Some(v) => clamp_nnue(v),
                None => self.evaluate(eval, cache),
            },
            None => eval.evaluate_cached(self, &mut cache.pawns),
        }
    }
    #[inline(always)]
    fn pack(m: Move) -> u32 {
        m.to_u32()
    }
    #[inline(always)]
    fn unpack(v: u32) -> Option<Move> {
        Move::from_u32(v)
    }
    fn variant_name(&self) -> &str {
        V::ID.name()
    }
    fn line_text(&self, line: &[Move]) -> Vec<String> {
        line.iter().map(|&m| menagerie_notation::uci::format(V::ID, m)).collect()
    }
}

/// A 64-bit key of two pawn sets (the side to move's, the opponent's).
#[inline]
pub(crate) fn pawn_sets_key(mine: u128, theirs: u128) -> u64 {
    mix_key(mix_key(0x9E37_79B9_7F4A_7C15, mine), theirs)
}

/// `h` with the squares `bits` mixed in.
#[inline(always)]
fn mix_key(mut h: u64, bits: u128) -> u64 {
    for part in [bits as u64, (bits >> 64) as u64] {
        h = (h ^ part).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    h
}

/// The piece-and-square slots of a compiled game: only its own piece kinds,
/// only its board's squares (the continuation histories stay small).
struct Dense {
    /// The dense index of each piece kind the game has.
    index: [u8; 16],
    kinds: usize,
    squares: usize,
    slots: usize,
}

const fn dense_of(kinds: u16, squares: usize) -> Dense {
    let mut index = [0u8; 16];
    let mut i = 0;
    let mut n = 0;
    while i < 16 {
        index[i] = n;
        if kinds & (1 << i) != 0 {
            n += 1;
        }
        i += 1;
    }
    let n = n as usize;
    Dense { index, kinds: n, squares, slots: 2 * n * squares }
}

#[inline(always)]
fn dense<V: Variant>() -> &'static Dense {
    struct Of<V>(core::marker::PhantomData<V>);
    impl<V: Variant> Of<V> {
        const DENSE: Dense = dense_of(V::KINDS, <V::Shape as Shape>::SQUARES as usize);
    }
    &Of::<V>::DENSE
}

#[cfg(test)]
mod tests {
    use super::*;
    use menagerie_pieces::Color;
    use menagerie_variants::{AnyPosition, PositionVisitor, VariantId};
    use std::collections::HashMap;

    /// Random playouts from the start: every move's piece-and-square slot is
    /// below the game's count, and two moves share a slot exactly when the
    /// same piece (colour and kind) lands on the same square.
    struct Slots(u64);

    impl PositionVisitor for Slots {
        type Output = usize;
        fn visit<V: Variant>(self, start: &Position<V>) -> usize {
            let mut state = self.0;
            let mut seen: HashMap<usize, (Color, PieceKind, usize)> = HashMap::new();
            let slots = start.piece_squares();
            for _ in 0..8 {
                let mut pos = *start;
                for _ in 0..200 {
                    let moves = pos.legal_moves();
                    if moves.as_slice().is_empty() || pos.variant_ended() {
                        break;
                    }
                    for &m in moves.as_slice() {
                        let slot = pos.piece_square(m);
                        assert_eq!(slots, pos.piece_squares());
                        match pos.piece_at(m.from) {
                            Some(p) if !m.is_prelude() => {
                                assert!(slot < slots, "{:?} {m:?}: slot {slot} of {slots}", V::ID);
                                let id = (p.color, p.kind, m.to.idx());
                                assert_eq!(*seen.entry(slot).or_insert(id), id, "{:?}: slot {slot} shared", V::ID);
                            }
                            _ => assert_eq!(slot, slots),
                        }
                    }
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    pos = pos.play_unchecked(moves.as_slice()[(state % moves.as_slice().len() as u64) as usize]);
                }
            }
            seen.len()
        }
    }

    #[test]
    fn pawn_keys_follow_the_pawns_and_the_side_to_move_only() {
        let key = |f: &str| match menagerie_notation::fen::parse(VariantId::Chess, f) {
            Ok(AnyPosition::Chess(p)) => p.pawn_key(),
            other => panic!("{f}: {other:?}"),
        };
        let start = key("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        // Other pieces elsewhere, the same pawns: the same key.
        assert_eq!(start, key("r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3"));
        assert_eq!(start, key("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1"));
        // A pawn moved, or one captured: another key.
        assert_ne!(start, key("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"));
        assert_ne!(start, key("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        // The same pawns with the other side to move: the sides' sets swap.
        let white = key("4k3/pp6/8/8/8/8/6PP/4K3 w - - 0 1");
        assert_ne!(white, key("4k3/pp6/8/8/8/8/6PP/4K3 b - - 0 1"));
        // Keys of ten-rank boards see their upper squares too.
        let camel = |f: &str| match menagerie_notation::fen::parse(VariantId::CamelRhino, f) {
            Ok(AnyPosition::CamelRhino(p)) => p.pawn_key(),
            other => panic!("{f}: {other:?}"),
        };
        assert_ne!(
            camel("4k5/p9/10/10/10/10/10/10/10/4K5 w - - 0 1"),
            camel("4k5/1p8/10/10/10/10/10/10/10/4K5 w - - 0 1")
        );
    }

    #[test]
    fn the_games_with_reserve_pieces_are_known() {
        struct Reserves;
        impl PositionVisitor for Reserves {
            type Output = bool;
            fn visit<V: Variant>(self, start: &Position<V>) -> bool {
                start.brings_in_reserves()
            }
        }
        for &id in VariantId::EVERY {
            let gating = matches!(
                id,
                VariantId::Alpaca
                    | VariantId::Alpaca2
                    | VariantId::AlpacaSameFile
                    | VariantId::Alseid
                    | VariantId::AlseidWeak
            );
            assert_eq!(AnyPosition::start(id).visit(Reserves), gating, "{id:?}");
        }
    }

    #[test]
    fn piece_square_slots_are_dense_distinct_and_within_the_games_count() {
        for &id in VariantId::EVERY {
            let used = AnyPosition::start(id).visit(Slots(0x2545_F491_4F6C_DD1D ^ id as u64));
            assert!(used > 20, "{id:?}: {used} slots seen");
        }
    }
}
