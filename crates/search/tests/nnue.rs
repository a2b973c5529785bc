#![allow(clippy::unwrap_used)]
//! The search with a network: the game's network is used when loaded, the
//! linear evaluation otherwise or when switched off.

use menagerie_nnue::{FloatNetwork, Network, active_features, feature_count, registry};
use menagerie_search::{Engine, EngineOptions, Limits, SearchPosition, ThreadEval, eval_for};
use menagerie_variants::{AnyPosition, CamelRhino, Chess, Position, VariantId};

#[test]
fn a_loaded_network_evaluates_and_searches() {
    // Without a loaded network a game plays the embedded one, if any, else the linear evaluation.
    assert_eq!(eval_for::<Chess>(true).network().is_some(), registry::embedded("chess").is_some());
    assert!(eval_for::<Chess>(false).network().is_none());

    let float = FloatNetwork::random("camel-rhino", feature_count::<CamelRhino>(), 32, 5);
    let net = Network::from_float(&float);
    registry::install(net.clone());
    let eval = eval_for::<CamelRhino>(true);
    assert!(eval.network().is_some());
    let pos = Position::<CamelRhino>::start();
    let (mut w, mut b) = (Vec::new(), Vec::new());
    active_features(&pos, pos.side_to_move(), &mut w);
    active_features(&pos, pos.side_to_move().flip(), &mut b);
    let mut cache = ThreadEval::<CamelRhino>::default();
    assert_eq!(pos.evaluate(&eval, &mut cache), net.evaluate(&w, &b));
    pos.enter(&mut cache, 0);
    assert_eq!(pos.evaluate_at(&eval, &mut cache, 0), net.evaluate(&w, &b));
    let linear = eval_for::<CamelRhino>(false);
    assert_eq!(pos.evaluate(&linear, &mut cache), linear.evaluate(&pos));

    // A search with the network and one without both finish with a legal move.
    for use_nnue in [true, false] {
        let mut e = Engine::new(EngineOptions { hash_mb: 4, threads: 1, multipv: 1 });
        e.set_use_nnue(use_nnue);
        e.set_position(AnyPosition::start(VariantId::CamelRhino), &[]).unwrap();
        let r = e.go(Limits { depth: Some(4), ..Limits::default() }, |_| {}).wait();
        let best = r.best.unwrap().compiled().unwrap();
        assert!(AnyPosition::start(VariantId::CamelRhino).legal_moves().contains(&best));
    }
    registry::uninstall("camel-rhino");
    assert_eq!(eval_for::<CamelRhino>(true).network().is_some(), registry::embedded("camel-rhino").is_some());
}
