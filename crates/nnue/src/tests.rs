//! Tests of features, quantisation and the file format.

use crate::features::{feature_count, reserve_inputs};
use crate::{FloatNetwork, Network, NetworkError, QA, QB, SCALE, SplitMix, active_features, crelu};
use menagerie_geometry::Bits;
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, Position, PositionVisitor, Variant, VariantId};

/// Positions along a random playout of `id` (start included).
pub(crate) fn playout(id: VariantId, seed: u64, plies: usize) -> Vec<AnyPosition> {
    let mut rng = SplitMix(seed);
    let mut pos = AnyPosition::start(id);
    let mut out = vec![pos];
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.outcome().is_some() {
            break;
        }
        let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
        pos = pos.play_unchecked(m);
        out.push(pos);
    }
    out
}

/// Both perspectives' features, side to move first.
fn features_of<V: Variant>(pos: &Position<V>) -> (Vec<u32>, Vec<u32>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let stm = pos.side_to_move();
    active_features(pos, stm, &mut a);
    active_features(pos, stm.flip(), &mut b);
    (a, b)
}

struct FeatureCheck;
impl PositionVisitor for FeatureCheck {
    type Output = ();
    fn visit<V: Variant>(self, pos: &Position<V>) {
        let n = feature_count::<V>();
        for p in Color::ALL {
            let mut f = Vec::new();
            active_features(pos, p, &mut f);
            let pieces = pos.occupied().iter().count();
            assert!(f.len() >= pieces && f.len() <= pieces + reserve_inputs::<V>() / 2 * 2);
            assert!(f.iter().all(|&x| (x as usize) < n), "{f:?} >= {n}");
            let mut sorted = f.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), f.len(), "duplicate features");
        }
    }
}

#[test]
fn features_in_range_and_distinct_in_every_game() {
    for &id in VariantId::EVERY {
        for seed in 0..4 {
            for pos in playout(id, seed, 120) {
                pos.visit(FeatureCheck);
            }
        }
    }
}

struct Mirror;
impl PositionVisitor for Mirror {
    type Output = ();
    fn visit<V: Variant>(self, pos: &Position<V>) {
        let (mut w, mut b) = (Vec::new(), Vec::new());
        active_features(pos, Color::White, &mut w);
        active_features(pos, Color::Black, &mut b);
        w.sort_unstable();
        b.sort_unstable();
        assert_eq!(w, b, "{:?}: a symmetric start position looks the same to both sides", V::ID);
    }
}

#[test]
fn symmetric_start_positions_look_the_same_from_both_sides() {
    for &id in VariantId::EVERY {
        AnyPosition::start(id).visit(Mirror);
    }
}

#[test]
fn feature_counts() {
    use menagerie_variants::{Alpaca, CamelRhino, Chess};
    assert_eq!(feature_count::<Chess>(), 2 * 6 * 64);
    assert_eq!(feature_count::<CamelRhino>(), 2 * CamelRhino::KINDS.count_ones() as usize * 100);
    let g = Alpaca::GATING.map_or(0, |g| g.count as usize);
    assert_eq!(feature_count::<Alpaca>(), 2 * 7 * 64 + 2 * (g + 8));
}

/// A rigorous bound on |quantised - float| for one position: the rounding
/// of every weight propagated through the network (the clipped ReLU is
/// 1-Lipschitz), plus one centipawn for the final integer division and
/// 0.01 % of the activations' size for f32 summation.
fn bound(float: &FloatNetwork, q: &Network, stm: &[u32], nstm: &[u32]) -> f32 {
    let (h, hq) = (float.hidden, q.hidden);
    let mut total = (float.b2 - q.b2 as f32 / (QA * QB) as f32).abs();
    for (half, feats) in [stm, nstm].into_iter().enumerate() {
        let acc = float.accumulate(feats);
        for (i, &a) in acc.iter().enumerate().take(h) {
            let mut err = (float.b1[i] - q.b1[i] as f32 / QA as f32).abs();
            for &f in feats {
                let f = f as usize;
                err += (float.w1[f * h + i] - q.w1[f * hq + i] as f32 / QA as f32).abs();
            }
            let wq = q.w2[half * hq + i] as f32 / QB as f32;
            total += wq.abs() * err + crelu(a) * (float.w2[half * h + i] - wq).abs();
        }
    }
    total * SCALE as f32 + 1.0 + 1e-4 * SCALE as f32 * float.w2.iter().map(|w| w.abs()).sum::<f32>()
}

struct QuantCheck {
    seed: u64,
    hidden: usize,
    worst: f32,
}
impl PositionVisitor for QuantCheck {
    type Output = f32;
    fn visit<V: Variant>(self, pos: &Position<V>) -> f32 {
        let float = FloatNetwork::random(V::ID.name(), feature_count::<V>(), self.hidden, self.seed);
        let q = Network::from_float(&float);
        let (stm, nstm) = features_of(pos);
        let (qe, fe) = (q.evaluate(&stm, &nstm), float.forward(&stm, &nstm));
        let b = bound(&float, &q, &stm, &nstm);
        let diff = (qe as f32 - fe).abs();
        assert!(diff <= b, "{:?}: quantised {qe} vs float {fe}: {diff} > bound {b}", V::ID);
        self.worst.max(diff)
    }
}

/// Quantised output equals the float reference within the per-position
/// bound above, and within 40 cp absolute (worst seen: 27 cp; w2 rounded to 1/64 dominates), on random nets (weights as
/// [`FloatNetwork::random`]) and random positions of every compiled game.
#[test]
fn quantised_matches_float_in_every_game() {
    let mut worst = 0f32;
    for &id in VariantId::EVERY {
        for seed in 0..3u64 {
            for (i, pos) in playout(id, seed, 80).into_iter().enumerate().step_by(7) {
                let hidden = [32, 40, 128][(seed as usize + i) % 3];
                worst = pos.visit(QuantCheck { seed: seed * 1000 + i as u64, hidden, worst });
            }
        }
    }
    assert!(worst <= 40.0, "worst difference {worst} cp");
}

#[test]
fn round_trip() {
    use menagerie_variants::{CamelRhino, Chess};
    for (name, inputs, hidden) in
        [("chess", feature_count::<Chess>(), 128), ("camel-rhino", feature_count::<CamelRhino>(), 20)]
    {
        let q = Network::from_float(&FloatNetwork::random(name, inputs, hidden, 7));
        assert_eq!(q.hidden() % 16, 0);
        let bytes = q.to_bytes();
        let back = Network::from_bytes(&bytes).expect("round trip");
        assert_eq!(back, q);
        assert_eq!(back.to_bytes(), bytes);
        assert!(back.check(name, inputs).is_ok());
        assert!(matches!(back.check("alpaca", inputs), Err(NetworkError::VariantMismatch { .. })));
        assert!(matches!(back.check(name, inputs + 1), Err(NetworkError::InputMismatch { .. })));
    }
}

fn small() -> Vec<u8> {
    Network::from_float(&FloatNetwork::random("chess", 24, 16, 3)).to_bytes()
}

#[test]
fn every_truncation_and_byte_flip_is_an_error() {
    let bytes = small();
    for len in 0..bytes.len() {
        assert!(matches!(Network::from_bytes(&bytes[..len]), Err(NetworkError::Truncated { .. })), "length {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(Network::from_bytes(&longer), Err(NetworkError::TrailingBytes(1))));
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            assert!(Network::from_bytes(&b).is_err(), "flip {flip:#x} at byte {i} accepted");
        }
    }
}

/// A version 1 file (no flags field) still reads, as a plain network; the
/// residual flag round-trips through version 2.
#[test]
fn version_1_files_read_and_the_residual_flag_round_trips() {
    let mut float = FloatNetwork::random("chess", 24, 16, 3);
    let plain = Network::from_float(&float);
    let v2 = plain.to_bytes();
    let flags_at = 4 + 4 + 2 + 5 + 4 + 4 + 12;
    let mut v1 = v2[..flags_at].to_vec();
    v1.extend_from_slice(&v2[flags_at + 4..v2.len() - 8]);
    v1[4] = 1;
    let sum = crate::fnv1a64(&v1).to_le_bytes();
    v1.extend_from_slice(&sum);
    let read = Network::from_bytes(&v1).expect("a version 1 file reads");
    assert_eq!(read, plain);
    assert!(!read.residual());
    float.residual = true;
    let residual = Network::from_float(&float);
    let back = Network::from_bytes(&residual.to_bytes()).expect("reads back");
    assert!(back.residual());
    assert_eq!(back, residual);
}

#[test]
fn each_corruption_names_its_error() {
    let bytes = small();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::BadMagic)));
    let mut b = bytes.clone();
    b[4] = 3;
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::UnsupportedVersion { found: 3, supported: 2 })));
    // Hidden size (after magic, version, name length, "chess", inputs).
    let hidden_at = 4 + 4 + 2 + 5 + 4;
    let mut b = bytes.clone();
    b[hidden_at] = 17;
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::BadSize { hidden: 17, .. })));
    let mut b = bytes.clone();
    b[hidden_at + 3] = 0x7F;
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::BadSize { .. })));
    let mut b = bytes.clone();
    let last_weight = b.len() - 12;
    b[last_weight] ^= 1;
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::Checksum { .. })));
    // A name that is not UTF-8, checksum recomputed.
    let mut b = bytes.clone();
    b[10] = 0xFF;
    let n = b.len() - 8;
    let sum = crate::fnv1a64(&b[..n]).to_le_bytes();
    b[n..].copy_from_slice(&sum);
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::BadName)));
    // Other quantisation constants, checksum recomputed.
    let mut b = bytes.clone();
    b[hidden_at + 4] = 254;
    let sum = crate::fnv1a64(&b[..n]).to_le_bytes();
    b[n..].copy_from_slice(&sum);
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::Quantisation { qa: 254, .. })));
    // Unknown flag bits, checksum recomputed.
    let flags_at = hidden_at + 4 + 12;
    let mut b = bytes.clone();
    b[flags_at] = 0b110;
    let sum = crate::fnv1a64(&b[..n]).to_le_bytes();
    b[n..].copy_from_slice(&sum);
    assert!(matches!(Network::from_bytes(&b), Err(NetworkError::UnknownFlags(0b110))));
    let err = Network::load(std::path::Path::new("/nonexistent/net.nnue")).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/net.nnue"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Arbitrary bytes, or a valid file with arbitrary bytes overwritten, never panic.
    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
                                   at in 0usize..600, patch in proptest::collection::vec(proptest::num::u8::ANY, 1..8)) {
        let _ = Network::from_bytes(&data);
        let mut b = small();
        for (i, p) in patch.iter().enumerate() {
            if let Some(x) = b.get_mut(at + i) { *x = *p; }
        }
        let _ = Network::from_bytes(&b);
    }
}

struct IncrementalCheck {
    kernels: crate::simd::Kernels,
    every: usize,
}
impl IncrementalCheck {
    fn run<V: Variant>(&self, path: &[Position<V>], net: &Network) {
        let mut stack = crate::AccumulatorStack::<V>::with_kernels(self.kernels);
        for (ply, pos) in path.iter().enumerate() {
            stack.set(ply, pos);
            if ply % self.every != 0 && ply + 1 != path.len() {
                continue;
            }
            let (w, b) = stack.accumulators(net, ply).expect("recorded");
            let (w, b) = (w.to_vec(), b.to_vec());
            for (c, got) in [(Color::White, w), (Color::Black, b)] {
                let mut f = Vec::new();
                active_features(pos, c, &mut f);
                let mut want = vec![0; net.hidden()];
                net.refresh(&f, &mut want, crate::simd::Kernels::portable());
                assert_eq!(got, want, "{:?} ply {ply} perspective {c:?}", V::ID);
            }
            let (stm, nstm) = features_of(pos);
            assert_eq!(stack.evaluate(net, ply), Some(net.evaluate(&stm, &nstm)));
        }
        assert!(stack.stats.0 > 0, "no incremental update happened");
    }
}

struct Playout(IncrementalCheck, u64);
impl PositionVisitor for Playout {
    type Output = ();
    fn visit<V: Variant>(self, start: &Position<V>) {
        let mut rng = SplitMix(self.1);
        let mut path = vec![*start];
        let mut pos = *start;
        for _ in 0..160 {
            let moves = pos.legal_moves();
            if moves.is_empty() || pos.outcome().is_some() {
                break;
            }
            // A null move now and then (the search's null-move pruning).
            pos = if rng.next_u64() % 17 == 0 && !pos.is_check() {
                pos.play_null()
            } else {
                pos.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize])
            };
            path.push(pos);
        }
        let net = Network::from_float(&FloatNetwork::random(V::ID.name(), feature_count::<V>(), 64, self.1));
        self.0.run(&path, &net);
    }
}

/// Along random playouts of every compiled game, the incrementally updated
/// accumulators equal a full refresh at every ply (updates from the
/// previous ply, and chains of updates over plies not evaluated), with both
/// kernel sets.
#[test]
fn incremental_equals_refresh_in_every_game() {
    for &id in VariantId::EVERY {
        for seed in 0..6u64 {
            let kernels = if seed % 2 == 0 { crate::simd::Kernels::detect() } else { crate::simd::Kernels::portable() };
            let every = [1, 3, 5][seed as usize % 3];
            AnyPosition::start(id).visit(Playout(IncrementalCheck { kernels, every }, seed));
        }
    }
}
