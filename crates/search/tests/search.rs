//! The search finds forced mates in every variant — including mates that
//! need a gate entry, a kidnap, a takeover or a swap — and honours its
//! limits, multipv, threads and stop requests.

#![allow(clippy::unwrap_used)]

use menagerie_notation::{fen, uci};
use menagerie_search::{Engine, EngineOptions, Info, Limits, Score, SearchResult};
use menagerie_variants::{Move, MoveKind, VariantId};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn engine(threads: usize, multipv: usize) -> Engine {
    Engine::new(EngineOptions { hash_mb: 16, threads, multipv })
}

fn search(v: VariantId, f: &str, limits: Limits) -> SearchResult<Move> {
    let mut e = engine(1, 1);
    e.set_position(fen::parse(v, f).unwrap(), &[]).unwrap();
    compiled(e.search(limits, |_| {}))
}

/// A compiled game's search result in the compiled core's moves.
fn compiled(r: SearchResult) -> SearchResult<Move> {
    r.map_lines(|pv| pv.iter().map(|m| m.compiled().unwrap()).collect())
}

/// Asserts the search proves mate in `n` and returns the first move.
#[track_caller]
fn mate_in(v: VariantId, f: &str, n: i32) -> String {
    let r = search(v, f, Limits::depth(2 * n as u32 + 1));
    assert_eq!(r.score, Score::Mate(n), "{f}");
    // The mating line is legal from the position and ends in mate.
    let mut p = fen::parse(v, f).unwrap();
    let line = &r.lines[0].pv;
    assert_eq!(line.len() as i32, 2 * n - 1, "pv {line:?}");
    for &m in line {
        p = p.play(m).expect("pv move legal");
    }
    assert_eq!(p.count_legal(), 0);
    uci::format(v, r.best.unwrap())
}

/// The kind of the move `best` (in UCI) of the position `f`.
fn kind_of(v: VariantId, f: &str, best: &str) -> MoveKind {
    let p = fen::parse(v, f).unwrap();
    uci::parse(&p, best).unwrap().kind
}

#[test]
fn chess_mate_in_one() {
    assert_eq!(mate_in(VariantId::Chess, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1), "a1a8");
}

#[test]
fn mates_in_two_and_three() {
    for (v, f, n) in [
        (VariantId::Chess, "k7/8/2K5/8/8/8/8/7R w - - 0 1", 2),
        (VariantId::Chess, "3k3B/NP6/p3p3/P5r1/8/q2PKP2/8/1R6 w - - 2 58", 2),
        (VariantId::Chess, "7r/r1pk1p2/p5b1/P1bpRqPn/3P2nP/2N5/2Q1P1KP/2B2B1R b - - 0 32", 3),
        (VariantId::Alpaca, "1r5k/1pr5/1N1p2Q1/p1pB2P1/P3p2K/2n1P1P1/P2B3P/RNA4R[] w - - 5 41", 2),
        (VariantId::Alpaca, "6r1/rp1b1kp1/3Rppap/2p1qP1K/p5P1/P2Q3P/1B1AN3/N4n1R[] w - - 4 46", 3),
        (VariantId::Alseid, "N7/6p1/6k1/2B1Ppb1/2PpQPn1/3R1qNK/8/8[] w - - 4 63", 2),
        (VariantId::Alseid, "3s2r1/k4P2/2p2b2/P1pP1p1p/KPn5/2Q5/1r6/7R[] b - - 0 57", 3),
    ] {
        mate_in(v, f, n);
    }
}

#[test]
fn alpaca_mate_needs_a_gate_entry() {
    // The only mate: the knight leaves g1 and the entering Alpaca checks the king on h1.
    let f = "1r1Qa1nr/4b3/4P2p/pp2p1p1/P1P1Pp2/3B1PB1/1N2K3/2R3Nk[A@g] w - - 0 42";
    assert_eq!(mate_in(VariantId::Alpaca, f, 1), "g1h3");
}

#[test]
fn alseid_mate_needs_a_kidnap() {
    let f = "r1b1kb2/p5p1/n2sq3/1p1pPnr1/1P2PPQP/2P5/PBN5/RS1K1B1R[] b - - 7 29";
    let best = mate_in(VariantId::Alseid, f, 1);
    assert_eq!(best, "d6d8");
    assert_eq!(kind_of(VariantId::Alseid, f, &best), MoveKind::Kidnap);
}

#[test]
fn camel_rhino_mates_need_a_takeover_or_a_swap() {
    let f = "4kq3r/3p1n1p2/1p1p1B4/2rP4p1/9p/3B1h4/PPHK2ZCP1/3W2Pb2/7NP1/R7R1 w - - 13 44";
    let best = mate_in(VariantId::CamelRhino, f, 1);
    assert!(best == "g4f6t" || best == "g4e5t", "{best}");
    let f = "2r1z1kr2/1p1b6/1p1b5n/1qpp1w2p1/3hz5/PP1B2pRp1/1BP1KP3P/4PRPW2/4qC4/2H1c1N2P b - - 0 50";
    let best = mate_in(VariantId::CamelRhino, f, 1);
    assert_eq!(kind_of(VariantId::CamelRhino, f, &best), MoveKind::Swap);
}

#[test]
fn losing_the_last_camel_or_rhino_scores_as_mate() {
    // Black's only Camel/Rhino can be converted by a Camel takeover: that wins at once.
    let f = "4k5/10/10/10/4h5/10/4C5/10/10/4K5 w - - 0 1";
    let r = search(VariantId::CamelRhino, f, Limits::depth(3));
    assert_eq!(r.score, Score::Mate(1), "{:?}", r.lines);
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut e = engine(1, 3);
    e.set_position(fen::parse_or_start(VariantId::Chess, "").unwrap(), &[]).unwrap();
    let r = compiled(e.search(Limits::depth(5), |_| {}));
    assert_eq!(r.lines.len(), 3);
    let firsts: Vec<_> = r.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert_eq!(r.best, Some(firsts[0]));
}

#[test]
fn one_move_is_searched_for_the_whole_movetime_but_not_on_a_clock() {
    // WAC.163: analysing the sacrifice Qg2+ alone (`searchmoves`) with a
    // fixed time searches it deeply; on a clock one legal move is played
    // after the first iteration.
    let f = "5rk1/2p4p/2p4r/3P4/4p1b1/1Q2NqPp/PP3P1K/R4R2 b - - 0 1";
    let pos = fen::parse(VariantId::Chess, f).unwrap();
    let only = vec![uci::parse(&pos, "f3g2").unwrap()];
    let analysis = Limits {
        movetime: Some(Duration::from_millis(300)),
        searchmoves: only.into_iter().map(Into::into).collect(),
        ..Limits::default()
    };
    let t = std::time::Instant::now();
    let r = search(VariantId::Chess, f, analysis);
    assert_eq!(r.best, Some(uci::parse(&pos, "f3g2").unwrap()));
    // It was not cut after the first iteration: it used its whole time
    // (a lower bound, so machine load cannot fail it) and went past depth 1.
    assert!(t.elapsed() >= Duration::from_millis(300), "{:?}", t.elapsed());
    assert!(r.depth > 1, "depth {}", r.depth);
    let forced = "k7/8/1K6/8/8/8/8/7R b - - 0 1";
    let clock =
        Limits { wtime: Some(Duration::from_secs(60)), btime: Some(Duration::from_secs(60)), ..Limits::default() };
    assert_eq!(search(VariantId::Chess, forced, clock).depth, 1);
}

#[test]
fn node_limit_is_honoured() {
    let r = search(
        VariantId::Chess,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        Limits::nodes(20_000),
    );
    assert!(r.best.is_some());
    // Checked every 1/64 of the limit: it stops within 1.6 % of it (and a
    // few nodes that see the stop).
    assert!((20_000..20_000 + 20_000 / 64 + 16).contains(&r.nodes), "{}", r.nodes);
    let r = search(
        VariantId::Chess,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        Limits::nodes(3_000),
    );
    assert!((3_000..3_000 + 3_000 / 64 + 16).contains(&r.nodes), "{}", r.nodes);
    // Depth 1 completes however small the limit: the move is a searched one.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let one = search(VariantId::Chess, kiwipete, Limits::nodes(1));
    let depth1 = search(VariantId::Chess, kiwipete, Limits { depth: Some(1), ..Limits::default() });
    assert_eq!((one.depth, one.best, one.score), (1, depth1.best, depth1.score));
}

#[test]
fn stop_ends_an_infinite_search_with_a_legal_move() {
    let e = engine(2, 1);
    let lines = Arc::new(Mutex::new(Vec::<Info>::new()));
    let sink = lines.clone();
    let h = e.go(Limits { infinite: true, ..Limits::default() }, move |i| sink.lock().unwrap().push(i));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!h.is_finished());
    h.stop();
    let r = h.wait();
    let best = r.best.expect("a move");
    assert!(e.position().legal_moves().contains(&best));
    assert!(!lines.lock().unwrap().is_empty());
}

#[test]
fn lazy_smp_finds_the_same_mate() {
    let mut e = engine(2, 1);
    e.set_position(fen::parse(VariantId::Chess, "k7/8/2K5/8/8/8/8/7R w - - 0 1").unwrap(), &[]).unwrap();
    let r = compiled(e.search(Limits::depth(6), |_| {}));
    assert_eq!(r.score, Score::Mate(2));
}

#[test]
fn every_variant_searches_from_its_start() {
    for &v in VariantId::ALL {
        let r = search(v, menagerie_variants::AnyPosition::start(v).variant().start_fen(), Limits::depth(4));
        let best = r.best.expect("a move");
        assert!(fen::parse(v, v.start_fen()).unwrap().legal_moves().contains(&best), "{v}");
    }
}

#[test]
fn a_game_with_history_sees_repetition_as_a_draw() {
    // Kings shuffling: after Ng1-f3, Ng8-f6, Nf3-g1, Nf6-g8 the start repeats.
    let mut e = engine(1, 1);
    let start = fen::parse_or_start(VariantId::Chess, "").unwrap();
    let mut p = start;
    let mut moves = Vec::new();
    for t in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        let m = uci::parse(&p, t).unwrap();
        p = p.play(m).unwrap();
        moves.push(m);
    }
    let moves: Vec<menagerie_game::Move> = moves.into_iter().map(Into::into).collect();
    e.set_position(start, &moves).unwrap();
    // Black can repeat with f6g8; the search must know the history.
    let r = compiled(e.search(Limits::depth(3), |_| {}));
    assert!(r.best.is_some());
}

#[test]
fn static_exchange_evaluation() {
    use menagerie_search::see;
    use menagerie_variants::{Chess, Position, Setup};
    let pos = |f: &str| -> Position<Chess> {
        let s: Setup = fen::parse_setup(VariantId::Chess, f).unwrap();
        Position::from_setup(&s).unwrap()
    };
    let mv = |p: &Position<Chess>, t: &str| {
        let any = menagerie_variants::AnyPosition::Chess(*p);
        uci::parse(&any, t).unwrap()
    };
    // Pawn takes a defended pawn: +100 - 100 = 0 (pawn recaptured).
    let p = pos("4k3/8/3p4/4p3/3P4/8/8/4K3 w - - 0 1");
    assert_eq!(see(&p, mv(&p, "d4e5")), 0);
    // Queen takes a pawn defended by a pawn: loses the queen.
    let p = pos("4k3/8/3p4/4p3/8/8/8/4K2Q w - - 0 1");
    assert_eq!(see(&p, mv(&p, "h1e4")), 0, "not a capture square");
    let p = pos("4k3/8/3p4/4p3/8/8/1Q6/4K3 w - - 0 1");
    assert_eq!(see(&p, mv(&p, "b2e5")), 100 - 900);
    // Rook takes an undefended knight.
    let p = pos("4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1");
    assert_eq!(see(&p, mv(&p, "d1d5")), 300);
    // X-ray: the rook behind the rook supports the capture.
    let p = pos("3rk3/8/8/3n4/8/8/3R4/3RK3 w - - 0 1");
    assert_eq!(see(&p, mv(&p, "d2d5")), 300);
}

/// RULES §2.2: White's `decline` only hands Black the choice between the
/// game without reserves and the position White's `accept` reaches, so White
/// accepts from every gating start (at depth and node limits), and the
/// search's line goes on through the placements into the game with reserves.
#[test]
fn white_accepts_the_reserve_pieces_in_every_gating_game() {
    for v in
        [VariantId::Alpaca, VariantId::Alpaca2, VariantId::AlpacaSameFile, VariantId::Alseid, VariantId::AlseidWeak]
    {
        for limits in [Limits::depth(1), Limits::depth(4), Limits { nodes: Some(5_000), ..Limits::default() }] {
            let mut e = engine(1, 1);
            e.set_position(menagerie_variants::AnyPosition::start(v), &[]).unwrap();
            let r = compiled(e.search(limits.clone(), |_| {}));
            let best = r.best.unwrap();
            assert_eq!(best.kind, MoveKind::Accept, "{v:?} {limits:?}: {}", uci::format(v, best));
            assert_eq!(r.lines[0].pv.get(1).map(|m| m.kind), Some(MoveKind::Place), "{v:?} {limits:?}");
        }
        // Black may still decline after White declined (a real choice), and
        // `searchmoves` can still ask for White's decline.
        let mut e = engine(1, 1);
        let start = menagerie_variants::AnyPosition::start(v);
        e.set_position(start, &[]).unwrap();
        let decline = uci::parse(&start, "decline").unwrap();
        let r = compiled(
            e.search(Limits { depth: Some(2), searchmoves: vec![decline.into()], ..Limits::default() }, |_| {}),
        );
        assert_eq!(r.best, Some(decline), "{v:?}");
    }
}
