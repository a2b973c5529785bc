//! Whole-game reviews: verdicts, variants, workers, cancelling, game ends,
//! annotated PGN and JSON.

use menagerie_notation::pgn::{self, PgnGame, PgnMove};
use menagerie_notation::san;
use menagerie_review::{
    ANNOTATOR, Budget, Classification, Eval, GameReview, ReviewError, ReviewEvent, ReviewOptions, Side, SvgMode,
    Thresholds, review, win_percent,
};
use menagerie_variants::VariantId;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

type Res = Result<(), Box<dyn std::error::Error>>;

fn read(text: &str) -> Result<PgnGame, Box<dyn std::error::Error>> {
    pgn::read_str(text)?.into_iter().next().ok_or_else(|| "no game".into())
}

fn quick(workers: usize) -> ReviewOptions {
    ReviewOptions { budget: Budget::Nodes(2_000), workers, hash_mb: 4, ..ReviewOptions::default() }
}

/// The game of the PGN `text` and its review with [`quick`] options and
/// `workers` workers, the events ignored.
fn reviewed(text: &str, workers: usize) -> Result<(PgnGame, GameReview), Box<dyn std::error::Error>> {
    let game = read(text)?;
    let r = review(&game, &quick(workers), |_| {})?;
    Ok((game, r))
}

/// A game of `plies` moves of `variant` chosen by a fixed rule (prelude
/// actions included), written and read back as PGN.
fn scripted_game(variant: VariantId, plies: usize) -> Result<PgnGame, Box<dyn std::error::Error>> {
    let mut game = PgnGame::new(variant);
    for ply in 0..plies {
        let pos = game.final_position()?;
        let legal = pos.legal_moves();
        let moves = legal.as_slice();
        if moves.is_empty() {
            break;
        }
        game.push(moves[(ply * 7 + 3) % moves.len()])?;
    }
    read(&game.to_pgn()?)
}

fn without_times(mut r: GameReview) -> GameReview {
    for p in &mut r.positions {
        p.time_ms = 0;
    }
    r
}

#[test]
fn a_hanging_queen_is_a_blunder_with_the_best_line() -> Res {
    let (game, r) = reviewed("1. e4 e5 2. Nf3 Qg5 3. Nxg5 *\n", 2)?;
    assert_eq!(r.positions.len(), 6);
    assert_eq!(r.moves.len(), 5);
    let qg5 = &r.moves[3];
    assert_eq!((qg5.index, qg5.move_number, qg5.colour), (4, 2, Side::Black));
    assert_eq!(qg5.played_san, "Qg5");
    assert_eq!(qg5.played_uci, "d8g5");
    assert_eq!(qg5.classification, Classification::Blunder, "{qg5:?}");
    assert!(qg5.loss >= 30.0 && qg5.win_before > qg5.win_after);
    assert_ne!(qg5.best_uci, "d8g5");
    assert!(!qg5.best_line_san.is_empty() && qg5.best_line_san[0] == qg5.best_san);
    assert!(qg5.cp_loss >= 500, "{qg5:?}");
    assert!(matches!(qg5.eval_after, Eval::Cp(cp) if cp > 500), "{:?}", qg5.eval_after);
    // Taking the queen is the engine's move.
    assert_eq!(r.moves[4].classification, Classification::Best);
    assert_eq!(r.summary.black.blunders, 1);
    assert_eq!(r.summary.white.blunders, 0);
    assert!(r.summary.black.accuracy < r.summary.white.accuracy);
    assert!(r.summary.black.average_centipawn_loss > r.summary.white.average_centipawn_loss);

    let text = r.annotated_pgn(&game)?;
    assert!(text.contains("Qg5 $4"), "{text}");
    assert!(text.contains(&format!("Blunder. {} was best.", qg5.best_san)), "{text}");
    assert!(text.contains(&format!("[Annotator \"{ANNOTATOR}\"]")), "{text}");
    let back = read(&text)?;
    assert_eq!(back.san_moves()?, game.san_moves()?);
    let blunder = &back.moves[3];
    assert_eq!(blunder.nags, [4]);
    assert_eq!(blunder.variations.len(), 1);
    let line: Vec<String> = {
        let pos = back.positions()?[3];
        let mut p = pos;
        let mut out = Vec::new();
        for m in &blunder.variations[0].moves {
            out.push(san::format(&p, m.mv));
            p = p.play(m.mv)?;
        }
        out
    };
    assert_eq!(line, qg5.best_line_san);
    // Every move carries its evaluation.
    for m in &back.moves {
        assert!(m.comments.iter().any(|c| c.starts_with("[%eval ")), "{m:?}");
    }
    Ok(())
}

#[test]
fn thresholds_at_their_boundaries() {
    let t = Thresholds::LENIENT;
    let judge = |loss| Classification::judge(loss, false, &t);
    assert_eq!(judge(0.0), Classification::Good);
    assert_eq!(judge(9.999), Classification::Good);
    assert_eq!(judge(10.0), Classification::Inaccuracy);
    assert_eq!(judge(19.999), Classification::Inaccuracy);
    assert_eq!(judge(20.0), Classification::Mistake);
    assert_eq!(judge(29.999), Classification::Mistake);
    assert_eq!(judge(30.0), Classification::Blunder);
    assert_eq!(judge(100.0), Classification::Blunder);
    assert_eq!(Classification::judge(100.0, true, &t), Classification::Best);
    let l = Thresholds::LICHESS;
    assert_eq!(Classification::judge(4.999, false, &l), Classification::Good);
    assert_eq!(Classification::judge(5.0, false, &l), Classification::Inaccuracy);
    assert_eq!(Classification::judge(10.0, false, &l), Classification::Mistake);
    assert_eq!(Classification::judge(15.0, false, &l), Classification::Blunder);
    assert_eq!(Classification::Inaccuracy.nag(), Some(6));
    assert_eq!(Classification::Mistake.nag(), Some(2));
    assert_eq!(Classification::Blunder.nag(), Some(4));
    assert_eq!(Classification::Good.nag(), None);
    assert_eq!(Classification::Best.nag(), None);
}

#[test]
fn win_probability_values() {
    let close = |a: f64, b: f64| (a - b).abs() < 0.01;
    assert_eq!(win_percent(0), 50.0);
    assert!(close(win_percent(100), 59.10), "{}", win_percent(100));
    assert!(close(win_percent(-100), 40.90));
    assert!(close(win_percent(300), 75.11), "{}", win_percent(300));
    assert!(close(win_percent(1000), 97.54), "{}", win_percent(1000));
    assert!(win_percent(100_000) <= 100.0 && win_percent(-100_000) >= 0.0);
    assert!(close(Eval::Cp(100).win_percent(Side::Black), 40.90));
    assert_eq!(Eval::Mate(3).win_percent(Side::White), 100.0);
    assert_eq!(Eval::Mate(3).win_percent(Side::Black), 0.0);
    assert_eq!(Eval::Mate(-1).win_percent(Side::Black), 100.0);
    assert_eq!(Eval::Won(Side::Black).win_percent(Side::White), 0.0);
    assert_eq!(Eval::Cp(35).pgn_value().as_deref(), Some("0.35"));
    assert_eq!(Eval::Cp(-5).pgn_value().as_deref(), Some("-0.05"));
    assert_eq!(Eval::Cp(-120).pgn_value().as_deref(), Some("-1.20"));
    assert_eq!(Eval::Mate(-3).pgn_value().as_deref(), Some("#-3"));
    assert_eq!(Eval::Won(Side::White).pgn_value(), None);
}

#[test]
fn every_variant_reviews_and_reads_back() -> Res {
    for &variant in VariantId::ALL {
        let game = scripted_game(variant, 8)?;
        let options = ReviewOptions { svg: SvgMode::All, ..quick(2) };
        let r = review(&game, &options, |_| {})?;
        assert_eq!(r.variant, variant.name());
        assert_eq!(r.positions.len(), game.moves.len() + 1, "{variant}");
        assert_eq!(r.moves.len(), game.moves.len(), "{variant}");
        for (i, p) in r.positions.iter().enumerate() {
            assert_eq!(p.index, i);
        }
        for (i, m) in r.moves.iter().enumerate() {
            assert_eq!(m.index, i + 1);
            assert!(m.svg.as_deref().is_some_and(|s| s.starts_with("<svg")), "{variant} move {}", m.index);
        }
        assert_eq!(r.moves.iter().map(|m| m.played_san.clone()).collect::<Vec<_>>(), game.san_moves()?);
        let back = read(&r.annotated_pgn(&game)?)?;
        assert_eq!(back.variant, variant);
        assert_eq!(back.san_moves()?, game.san_moves()?, "{variant}");
        assert_eq!(back.tag("Annotator"), Some(ANNOTATOR));
    }
    Ok(())
}

#[test]
fn prelude_actions_are_judged_like_moves() -> Res {
    let (_, r) = reviewed("[Variant \"alpaca\"]\n\n1. accept 1. A@g A@b 1. Nf3 Nc6 *\n", 1)?;
    assert_eq!(r.moves.len(), 5);
    assert_eq!(r.moves[0].played_san, "accept");
    assert_eq!(r.moves[3].played_san, "Nf3(A@g1)");
    assert_eq!(r.summary.white.moves + r.summary.black.moves, 5);
    Ok(())
}

#[test]
fn workers_change_nothing_but_the_tables() -> Res {
    let game = read("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 *\n")?;
    let depth = |workers| ReviewOptions { budget: Budget::Depth(4), ..quick(workers) };
    let serial = without_times(review(&game, &depth(1), |_| {})?);
    let again = without_times(review(&game, &depth(1), |_| {})?);
    // A depth budget on one search thread is deterministic.
    assert_eq!(serial, again);
    let parallel = without_times(review(&game, &depth(3), |_| {})?);
    let indices = |r: &GameReview| r.positions.iter().map(|p| p.index).collect::<Vec<_>>();
    assert_eq!(indices(&serial), indices(&parallel));
    assert_eq!(
        serial.moves.iter().map(|m| m.index).collect::<Vec<_>>(),
        parallel.moves.iter().map(|m| m.index).collect::<Vec<_>>()
    );
    assert_eq!(
        serial.moves.iter().map(|m| m.classification).collect::<Vec<_>>(),
        parallel.moves.iter().map(|m| m.classification).collect::<Vec<_>>()
    );
    Ok(())
}

#[test]
fn events_stream_every_position_and_move() -> Res {
    let game = read("1. d4 d5 2. c4 e6 3. Nc3 Nf6 *\n")?;
    let mut events = Vec::new();
    let r = review(&game, &quick(2), |e| events.push(e))?;
    assert!(matches!(events.first(), Some(ReviewEvent::Started { positions: 7, searches: 7, workers: 2 })));
    let mut positions: Vec<usize> =
        events.iter().filter_map(|e| if let ReviewEvent::Position(p) = e { Some(p.index) } else { None }).collect();
    positions.sort_unstable();
    assert_eq!(positions, (0..7).collect::<Vec<_>>());
    let mut moves: Vec<usize> =
        events.iter().filter_map(|e| if let ReviewEvent::Move(m) = e { Some(m.index) } else { None }).collect();
    moves.sort_unstable();
    assert_eq!(moves, (1..7).collect::<Vec<_>>());
    for e in &events {
        if let ReviewEvent::Move(m) = e {
            assert_eq!(m, &r.moves[m.index - 1]);
        }
    }
    Ok(())
}

#[test]
fn the_stop_flag_cancels_promptly() -> Res {
    let game = read("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *\n")?;
    let stop = Arc::new(AtomicBool::new(false));
    let options = ReviewOptions { budget: Budget::Time(Duration::from_secs(30)), stop: Some(stop.clone()), ..quick(2) };
    let setter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            stop.store(true, Ordering::SeqCst);
        })
    };
    let started = Instant::now();
    let r = review(&game, &options, |_| {});
    let took = started.elapsed();
    let _ = setter.join();
    assert!(matches!(r, Err(ReviewError::Cancelled { total: 11, .. })), "{r:?}");
    assert!(took < Duration::from_secs(3), "took {took:?}");

    // Already set: nothing is searched.
    let r = review(&game, &options, |_| panic!("no event expected"));
    assert_eq!(r, Err(ReviewError::Cancelled { analysed: 0, total: 11 }));
    Ok(())
}

#[test]
fn a_checkmate_is_reported_without_a_search() -> Res {
    let game = read("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n")?;
    let mut searched_final = false;
    let r = review(&game, &quick(2), |e| {
        if let ReviewEvent::Started { positions, searches, .. } = e {
            searched_final = searches == positions;
        }
    })?;
    assert!(!searched_final);
    let last = r.positions.last().ok_or("no positions")?;
    assert_eq!(last.index, 7);
    assert_eq!(last.score, Eval::Won(Side::White));
    assert_eq!((last.depth, last.nodes, last.best_move_uci.as_deref()), (0, 0, None));
    let end = last.outcome.as_ref().ok_or("no outcome")?;
    assert_eq!(end.result, "1-0");
    assert_eq!(end.description, "checkmate, White wins");
    let mate = &r.moves[6];
    assert_eq!(mate.played_san, "Qxf7#");
    assert_eq!(mate.eval_after, Eval::Won(Side::White));
    assert_eq!(mate.win_after, 100.0);
    assert_eq!(mate.classification, Classification::Best);
    assert_eq!((last.chances.white, last.chances.draw, last.chances.black), (1000, 0, 0));
    // Nf6 allowed mate in one.
    assert_eq!(r.moves[5].eval_after, Eval::Mate(1));
    assert_eq!(r.moves[5].classification, Classification::Blunder);
    let text = r.annotated_pgn(&game)?;
    assert!(text.contains("Qxf7# {Checkmate, White wins.}"), "{text}");
    assert_eq!(read(&text)?.san_moves()?, game.san_moves()?);
    Ok(())
}

#[test]
fn json_has_the_expected_fields() -> Res {
    let game = read("1. e4 e5 2. Nf3 Qg5 3. Nxg5 *\n")?;
    let options = ReviewOptions { svg: SvgMode::Mistakes, ..quick(1) };
    let r = review(&game, &options, |_| {})?;
    let v = serde_json::to_value(&r)?;
    assert_eq!(v["variant"], "chess");
    assert!(v["positions"][0]["score"]["cp"].is_i64());
    assert_eq!(v["positions"][0]["side_to_move"], "white");
    assert!(v["positions"][0]["best_move_san"].is_string());
    assert!(v["positions"][0]["pv_uci"].is_array());
    for field in ["white", "draw", "black"] {
        assert!(v["positions"][0]["chances"][field].is_u64(), "chances.{field}");
    }
    let m = &v["moves"][3];
    assert_eq!(m["classification"], "blunder");
    assert_eq!(m["colour"], "black");
    assert_eq!(m["played_uci"], "d8g5");
    for field in ["eval_before", "eval_after", "win_before", "win_after", "loss", "best_san", "best_line_san"] {
        assert!(!m[field].is_null(), "{field}");
    }
    assert!(m["svg"].as_str().is_some_and(|s| s.starts_with("<svg")));
    assert!(v["moves"][4].get("svg").is_none(), "a good move has no picture in Mistakes mode");
    for side in ["white", "black"] {
        for field in ["inaccuracies", "mistakes", "blunders", "average_centipawn_loss", "accuracy"] {
            assert!(!v["summary"][side][field].is_null(), "{side} {field}");
        }
    }
    let started = serde_json::to_value(ReviewEvent::Started { positions: 3, searches: 2, workers: 1 })?;
    assert_eq!(started["event"], "started");
    Ok(())
}

#[test]
fn bad_options_games_and_pairings_are_errors() -> Res {
    let game = read("1. e4 e5 *\n")?;
    for budget in [Budget::Nodes(0), Budget::Depth(0), Budget::Depth(1000), Budget::Time(Duration::ZERO)] {
        let r = review(&game, &ReviewOptions { budget, ..quick(1) }, |_| {});
        assert!(matches!(r, Err(ReviewError::Options(_))), "{budget:?}: {r:?}");
    }
    let mut illegal = game.clone();
    let e4 = illegal.moves[0].mv;
    illegal.moves.push(PgnMove::new(e4));
    assert!(matches!(review(&illegal, &quick(1), |_| {}), Err(ReviewError::Game(_))));

    let r = review(&game, &quick(1), |_| {})?;
    let other = read("1. d4 d5 *\n")?;
    assert!(matches!(r.annotated_pgn(&other), Err(ReviewError::Mismatch(_))));
    Ok(())
}

#[test]
fn a_game_without_moves_has_one_position() -> Res {
    let (game, r) = reviewed("*\n", 0)?;
    assert_eq!(r.positions.len(), 1);
    assert!(r.moves.is_empty());
    assert_eq!(r.summary.white.accuracy, None);
    let back = read(&r.annotated_pgn(&game)?)?;
    assert!(back.moves.is_empty());
    Ok(())
}

#[test]
fn existing_annotations_are_kept_and_old_evals_replaced() -> Res {
    let (game, r) = reviewed("1. e4 {[%eval 9.99] king's pawn} $1 (1. d4) e5 2. Nf3 Qg5 3. Nxg5 *\n", 1)?;
    let back = read(&r.annotated_pgn(&game)?)?;
    let e4 = &back.moves[0];
    assert!(e4.comments.iter().any(|c| c == "king's pawn"), "{e4:?}");
    assert!(!e4.comments.iter().any(|c| c.contains("9.99")), "{e4:?}");
    assert_eq!(e4.comments.iter().filter(|c| c.starts_with("[%eval")).count(), 1);
    assert_eq!(e4.variations.len(), 1);
    // The reader's own `$1` stays unless the review judges the move, whose
    // verdict then replaces it (a move is not both good and a mistake).
    match r.moves[0].classification.nag() {
        None => assert_eq!(e4.nags, [1], "{e4:?}"),
        Some(verdict) => assert_eq!(e4.nags, [verdict], "{e4:?}"),
    }
    Ok(())
}

#[test]
fn a_panicking_callback_stops_the_workers() {
    let game = read("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *\n").expect("game");
    // Left alone, the workers would go on with their next minute-long
    // searches: far longer than any machine load could delay a stop.
    let options = ReviewOptions { budget: Budget::Time(Duration::from_secs(60)), ..quick(2) };
    let panicked = std::sync::Mutex::new(None);
    let r = std::panic::catch_unwind(|| {
        review(&game, &options, |e| {
            if let ReviewEvent::Position(_) = e {
                *panicked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Instant::now());
                panic!("the caller fails");
            }
        })
    });
    assert!(r.is_err());
    let at = panicked.lock().unwrap_or_else(std::sync::PoisonError::into_inner).expect("a position event");
    assert!(at.elapsed() < Duration::from_secs(30), "took {:?} after the panic", at.elapsed());
}

/// Each position's chances come from the game's win/draw/loss model, add up
/// to 1000, follow the evaluation, and give the judged moves their
/// expected scores.
#[test]
fn chances_follow_the_games_model() -> Res {
    use menagerie_search::wdl::{WdlModel, material_fraction};
    let (_, r) = reviewed("1. e4 e5 2. Nf3 Qg5 3. Nxg5 *\n", 1)?;
    let model = WdlModel::for_variant("chess");
    for p in &r.positions {
        let c = p.chances;
        assert_eq!(c.white + c.draw + c.black, 1000, "{p:?}");
        let m = material_fraction(&p.fen, VariantId::Chess.start_fen());
        assert_eq!(c, p.score.chances(&model, m), "{p:?}");
    }
    // After Nxg5 White is a queen up: White's chances are the larger.
    let last = r.positions.last().ok_or("no positions")?.chances;
    assert!(last.white > 500 && last.black < 100, "{last:?}");
    for m in &r.moves {
        let before = r.positions[m.index - 1].chances.expected_percent(m.colour);
        let after = r.positions[m.index].chances.expected_percent(m.colour);
        assert_eq!((m.win_before, m.win_after), (before, after), "{m:?}");
    }
    Ok(())
}
