//! Incrementally updated accumulators along a search path.
//!
//! The search is copy-make: each ply has its own position. An
//! [`AccumulatorStack`] keeps, per ply, the position and the two
//! perspectives' accumulators (White's and Black's). A ply's accumulators
//! are computed only when that ply is evaluated, from the nearest ancestor
//! whose accumulators are known, by the difference of the piece bitboards
//! per (colour, kind) between consecutive positions (added and removed
//! squares) and of the reserve features. That covers every move mechanism
//! (castling, promotions, gating, kidnaps, takeovers, swaps) without code
//! per mechanism. When the difference is larger than a refresh, the ply is
//! refreshed from its own position.

use crate::features::{dense_kind, piece_feature, reserve_features};
use crate::simd::Kernels;
use crate::{Network, active_features};
use menagerie_geometry::Bits;
use menagerie_pieces::{Color, PieceKind};
use menagerie_variants::{Position, Variant};

/// Longest chain of incremental updates tried before refreshing instead.
const MAX_CHAIN: usize = 6;

/// One ply: its position and, when `valid`, both perspectives' accumulators.
#[derive(Clone)]
struct Frame<V: Variant> {
    pos: Option<Position<V>>,
    acc: [Vec<i16>; 2],
    valid: bool,
}

/// The accumulators of the positions along one search path, by ply.
pub struct AccumulatorStack<V: Variant> {
    frames: Vec<Frame<V>>,
    kernels: Kernels,
    hidden: usize,
    added: Vec<u32>,
    removed: Vec<u32>,
    scratch: [Vec<u32>; 2],
    /// Counters: (incremental updates, refreshes).
    pub stats: (u64, u64),
}

impl<V: Variant> Default for AccumulatorStack<V> {
    fn default() -> Self {
        AccumulatorStack::with_kernels(Kernels::detect())
    }
}

impl<V: Variant> AccumulatorStack<V> {
    /// An empty stack using kernels `kernels`.
    pub fn with_kernels(kernels: Kernels) -> Self {
        AccumulatorStack {
            frames: Vec::new(),
            kernels,
            hidden: 0,
            added: Vec::new(),
            removed: Vec::new(),
            scratch: [Vec::new(), Vec::new()],
            stats: (0, 0),
        }
    }

    /// Records `pos` as the position at `ply` (its ancestors being the
    /// positions recorded at the lower plies); its accumulators are computed
    /// when first asked for.
    #[inline]
    pub fn set(&mut self, ply: usize, pos: &Position<V>) {
        if self.frames.len() <= ply {
            self.frames.resize_with(ply + 1, || Frame { pos: None, acc: [Vec::new(), Vec::new()], valid: false });
        }
        let f = &mut self.frames[ply];
        if f.valid && f.pos.as_ref() == Some(pos) {
            return;
        }
        f.pos = Some(*pos);
        f.valid = false;
    }

    /// The evaluation by `net` of the position recorded at `ply`, in
    /// centipawns for its side to move; `None` if no position was recorded
    /// there.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize) -> Option<i32> {
        let stm = self.frames.get(ply)?.pos.as_ref()?.side_to_move();
        let k = self.kernels;
        let (w, b) = self.accumulators(net, ply)?;
        Some(match stm {
            Color::White => net.output(w, b, k),
            Color::Black => net.output(b, w, k),
        })
    }

    /// White's and Black's accumulators of the position at `ply`.
    pub fn accumulators(&mut self, net: &Network, ply: usize) -> Option<(&[i16], &[i16])> {
        self.frames.get(ply)?.pos.as_ref()?;
        if self.hidden != net.hidden() {
            self.hidden = net.hidden();
            for f in &mut self.frames {
                f.valid = false;
                f.acc = [vec![0; self.hidden], vec![0; self.hidden]];
            }
        }
        if !self.frames[ply].valid {
            self.compute(net, ply);
        }
        let [w, b] = &self.frames[ply].acc;
        Some((w, b))
    }

    fn compute(&mut self, net: &Network, ply: usize) {
        let start =
            (ply.saturating_sub(MAX_CHAIN)..ply).rev().find(|&j| self.frames[j].valid && self.frames[j].pos.is_some());
        match start {
            Some(j) => {
                for k in j + 1..=ply {
                    self.update(net, k);
                }
            }
            None => self.refresh(net, ply),
        }
    }

    fn ensure(&mut self, ply: usize) {
        let h = self.hidden;
        let f = &mut self.frames[ply];
        for a in &mut f.acc {
            if a.len() != h {
                *a = vec![0; h];
            }
        }
    }

    /// Recomputes the accumulators at `ply` from its position.
    fn refresh(&mut self, net: &Network, ply: usize) {
        self.ensure(ply);
        let Some(pos) = self.frames[ply].pos else { return };
        for c in Color::ALL {
            let feats = &mut self.scratch[0];
            feats.clear();
            active_features(&pos, c, feats);
            net.refresh(feats, &mut self.frames[ply].acc[c.idx()], self.kernels);
        }
        self.frames[ply].valid = true;
        self.stats.1 += 1;
    }

    /// Computes the accumulators at `ply` from those at `ply - 1`.
    fn update(&mut self, net: &Network, ply: usize) {
        let (Some(parent), Some(child)) = (self.frames[ply - 1].pos, self.frames[ply].pos) else {
            return self.refresh(net, ply);
        };
        self.ensure(ply);
        let mut changed = 0usize;
        for c in Color::ALL {
            let (added, removed) = (&mut self.added, &mut self.removed);
            added.clear();
            removed.clear();
            for kind in PieceKind::ALL {
                let Some(dense) = dense_kind::<V>(kind) else { continue };
                for color in Color::ALL {
                    let (p, q) = (parent.kind(kind) & parent.color(color), child.kind(kind) & child.color(color));
                    if p == q {
                        continue;
                    }
                    removed.extend((p & !q).iter().map(|sq| piece_feature::<V>(c, color, dense, sq)));
                    added.extend((q & !p).iter().map(|sq| piece_feature::<V>(c, color, dense, sq)));
                }
            }
            if V::GATING.is_some() {
                let [a, b] = &mut self.scratch;
                a.clear();
                b.clear();
                reserve_features(&parent, c, a);
                reserve_features(&child, c, b);
                if a != b {
                    removed.extend(a.iter().filter(|f| !b.contains(f)));
                    added.extend(b.iter().filter(|f| !a.contains(f)));
                }
            }
            changed = changed.max(added.len() + removed.len());
            if changed > 16 {
                break;
            }
            let (lo, hi) = self.frames.split_at_mut(ply);
            let acc = &mut hi[0].acc[c.idx()];
            acc.copy_from_slice(&lo[ply - 1].acc[c.idx()]);
            let inputs = net.inputs();
            for &f in self.removed.iter().filter(|&&f| (f as usize) < inputs) {
                self.kernels.sub(acc, net.row(f));
            }
            for &f in self.added.iter().filter(|&&f| (f as usize) < inputs) {
                self.kernels.add(acc, net.row(f));
            }
        }
        if changed > 16 {
            return self.refresh(net, ply);
        }
        self.frames[ply].valid = true;
        self.stats.0 += 1;
    }
}
