//! The capture-only generator used by quiescence search yields exactly the
//! legal moves that capture, convert or promote, in every variant.

use menagerie_testkit::Rng;
use menagerie_variants::{AnyPosition, VariantId};

#[test]
fn tactical_moves_are_the_tactical_legal_moves() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for &v in VariantId::EVERY {
        for _game in 0..8 {
            let mut p = AnyPosition::start(v);
            for _ply in 0..80 {
                let legal = p.legal_moves();
                let mut want: Vec<_> = legal.iter().copied().filter(|&m| p.is_tactical(m)).collect();
                let mut got: Vec<_> = p.tactical_moves().to_vec();
                want.sort_by_key(|m| m.to_u32());
                got.sort_by_key(|m| m.to_u32());
                assert_eq!(got, want, "{v}: {p:?}");
                checked += 1;
                if legal.is_empty() {
                    break;
                }
                p = p.play_unchecked(legal[rng.below(legal.len())]);
            }
        }
    }
    assert!(checked > 1000);
}
