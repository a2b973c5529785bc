//! The use cases every front end shares, each for a compiled game (chess),
//! a game defined as data that a compiled game plays (a loaded `[my-chess:chess]`
//! with its own start) and games defined as data without one (capablanca,
//! crazyhouse): replaying a move list, perft and divide, replaying PGN, and
//! the catalogue.

use menagerie_app::perft::{Perft, PerftHalt};
use menagerie_app::pgn::ReplayPgnError;
use menagerie_app::{GamePosition, PositionError, PositionRequest, Variants, compiled_twin};
use menagerie_notation::pgn::{GameResult, ReadOptions};
use menagerie_variants::PerftControl;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// The built-in variants and `my-chess`, chess from a position after 1. Nf3 Nf6.
fn variants() -> Variants {
    let mut v = Variants::builtin();
    let ini = "[my-chess:chess]\nstartFen = rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2\n";
    v.load(ini, "test.ini", true).expect("loads");
    v
}

const MY_CHESS_FEN: &str = "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq - 2 2";

fn texts(r: &menagerie_app::play::Replay) -> Vec<(String, String)> {
    r.moves.iter().map(|m| (m.uci.clone(), m.san.clone())).collect()
}

#[test]
fn a_replay_describes_each_move_and_the_end() {
    let v = variants();
    let mate = ["e4", "e7e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7"];
    let chess = v.replay(&PositionRequest::new("chess", "", &mate)).expect("legal");
    let sans: Vec<&str> = chess.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    assert_eq!(chess.moves[1].uci, "e7e5");
    let last = chess.moves.last().expect("moves");
    assert!(last.check && last.capture);
    assert_eq!(last.fen, chess.fen);
    assert_eq!(chess.fen, "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4");
    let ended = chess.status.ended.expect("mate");
    assert_eq!((ended.result, ended.reason), ("1-0", "checkmate"));

    // The same moves from the same position, by the data engine's notation.
    let line = ["e4", "e5", "Bc4"];
    let data = v.replay(&PositionRequest::new("my-chess", "", &line)).expect("legal");
    let compiled = v.replay(&PositionRequest::new("chess", MY_CHESS_FEN, &line)).expect("legal");
    assert_eq!(texts(&data), texts(&compiled));
    assert_eq!(data.moves.iter().map(|m| m.check).collect::<Vec<_>>(), [false, false, false]);
    assert_eq!(data.status, compiled.status);

    // A game without a compiled twin, drops included.
    let zh = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@e5"];
    let house = v.replay(&PositionRequest::new("crazyhouse", "", &zh)).expect("legal");
    assert_eq!(house.moves[2].san, "exd5");
    assert!(house.moves[2].capture);
    assert_eq!(house.moves[6].uci, "P@e5");
    let game = v.game(&PositionRequest::new("crazyhouse", "", &zh)).expect("legal");
    let end = game.current();
    assert_eq!(house.fen, end.fen());
    assert_eq!(house.moves.last().map(|m| m.fen.clone()), Some(end.fen()));
    assert!(house.status.ended.is_none());
    let capa = v.replay(&PositionRequest::new("capablanca", "", &["e4", "e5"])).expect("legal");
    assert_eq!(texts(&capa), [("e2e4".to_string(), "e4".to_string()), ("e7e5".into(), "e5".into())]);

    // The first illegal move is the error, by its index.
    let e = v.replay(&PositionRequest::new("chess", "", &["e4", "e4"])).unwrap_err();
    assert!(matches!(e, PositionError::Move { index: 1, .. }), "{e}");
    let e = v.replay(&PositionRequest::new("crazyhouse", "", &["e4", "P@e5"])).unwrap_err();
    assert!(matches!(e, PositionError::Move { index: 1, .. }), "{e}");
    let none: &[&str] = &[];
    let empty = v.replay(&PositionRequest::new("capablanca", "", none)).expect("the start");
    assert!(empty.moves.is_empty());
}

fn position(v: &Variants, variant: &str, fen: &str) -> GamePosition {
    let none: &[&str] = &[];
    v.game_position(&PositionRequest::new(variant, fen, none)).expect("a position")
}

/// `perft`'s divide at `depth` on `threads` threads, never stopped.
fn divide(perft: &Perft, depth: u32, threads: usize) -> Vec<u64> {
    let (stop, nodes) = (AtomicBool::new(false), AtomicU64::new(0));
    let ctl = PerftControl { stop: &stop, progress: &nodes, table: None };
    let roots = AtomicUsize::new(0);
    let counts = perft
        .divide::<()>(
            depth,
            threads,
            &ctl,
            |_, _| {
                roots.fetch_add(1, Ordering::Relaxed);
                Ok(())
            },
            || None,
        )
        .expect("never stopped");
    assert_eq!(roots.into_inner(), perft.root_moves());
    assert_eq!(nodes.into_inner(), counts.iter().sum::<u64>(), "every leaf in the progress counter");
    counts
}

#[test]
fn perft_and_divide_count_every_kind_of_game() {
    let v = variants();
    // Chess, on this thread and over workers.
    let chess = Perft::new(position(&v, "chess", ""));
    assert_eq!(divide(&chess, 3, 1).iter().sum::<u64>(), 8_902);
    let rows = divide(&chess, 4, 3);
    assert_eq!((rows.len(), rows.iter().sum::<u64>()), (20, 197_281));
    let e4 = ("e2e4".to_string(), "e4".to_string());
    assert!((0..20).any(|i| chess.move_texts(i) == e4));
    assert_eq!(chess.count(0, 2, &AtomicU64::new(0)), 1);

    // A data game with a compiled twin counts what compiled chess counts,
    // with the same move texts, row by row.
    let mine = position(&v, "my-chess", "");
    let GamePosition::Data(p) = &mine else { panic!("my-chess is defined as data") };
    assert!(compiled_twin(p).is_some());
    let mine = Perft::new(mine);
    let same = Perft::new(position(&v, "chess", MY_CHESS_FEN));
    // Each engine in its own generation order: the same rows, by move.
    let rows = |p: &Perft| {
        let counts = divide(p, 4, 2);
        let mut rows: Vec<_> = counts.iter().enumerate().map(|(i, &n)| (p.move_texts(i), n)).collect();
        rows.sort();
        rows
    };
    assert_eq!(rows(&mine), rows(&same));

    // Data games without a twin: the data core's counts.
    for name in ["capablanca", "crazyhouse"] {
        let start = position(&v, name, "");
        let GamePosition::Data(p) = &start else { panic!("{name} is defined as data") };
        assert!(compiled_twin(p).is_none(), "{name}");
        let perft = Perft::new(start.clone());
        assert_eq!(perft.root_moves(), p.legal_moves().len());
        assert_eq!(divide(&perft, 4, 2).iter().sum::<u64>(), p.perft(4), "{name}");
        assert_eq!(divide(&perft, 2, 1).iter().sum::<u64>(), start.perft(2), "{name}");
        assert_eq!(perft.count(3, 2, &AtomicU64::new(0)), p.perft(3), "{name}");
    }
    let house = Perft::new(position(&v, "crazyhouse", ""));
    assert_eq!(house.count(4, 2, &AtomicU64::new(0)), 197_281);
    assert!((0..house.root_moves()).any(|i| house.move_texts(i) == ("g1f3".to_string(), "Nf3".to_string())));
}

#[test]
fn a_divide_stops_when_told() {
    let v = variants();
    for name in ["chess", "my-chess", "capablanca", "crazyhouse"] {
        let perft = Perft::new(position(&v, name, ""));
        // The watch's reason, on this thread (small depths) and while workers run.
        for depth in [2, 7] {
            let (stop, nodes) = (AtomicBool::new(false), AtomicU64::new(0));
            let ctl = PerftControl { stop: &stop, progress: &nodes, table: None };
            let r = perft.divide(depth, 2, &ctl, |_, _| Ok(()), || Some("deadline"));
            assert!(matches!(r, Err(PerftHalt::Stopped(Some("deadline")))), "{name} {depth}: {r:?}");
            assert!(stop.load(Ordering::Relaxed));
        }
        // A root move's callback.
        let (stop, nodes) = (AtomicBool::new(false), AtomicU64::new(0));
        let ctl = PerftControl { stop: &stop, progress: &nodes, table: None };
        let r = perft.divide(2, 1, &ctl, |i, _| if i == 3 { Err("gone") } else { Ok(()) }, || None);
        assert!(matches!(r, Err(PerftHalt::Stopped(Some("gone")))), "{name}: {r:?}");
        // The stop flag set by someone else.
        let (stop, nodes) = (AtomicBool::new(true), AtomicU64::new(0));
        let ctl = PerftControl { stop: &stop, progress: &nodes, table: None };
        let r = perft.divide::<()>(6, 2, &ctl, |_, _| Ok(()), || None);
        assert!(matches!(r, Err(PerftHalt::Stopped(None))), "{name}: {r:?}");
    }
}

#[test]
fn pgn_games_are_replayed_move_by_move() {
    let v = variants();
    let text = "[White \"A\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                [Variant \"crazyhouse\"]\n\n\
                1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@e5 *\n\n\
                [Variant \"makruk\"]\n\n1. e4 d5 *\n";
    let games = v.replay_pgn(text, ReadOptions::default()).expect("reads");
    assert_eq!(games.len(), 3);
    let chess = &games[0];
    assert_eq!(chess.variant, "chess");
    assert_eq!(chess.start_fen, "");
    assert_eq!(chess.uci_moves[0..2], ["e2e4", "e7e5"]);
    assert_eq!(chess.moves.len(), 7);
    assert_eq!(chess.moves[6].san, "Qxf7#");
    assert!(chess.moves[6].check && chess.moves[6].capture);
    assert_eq!(chess.result, GameResult::WhiteWins);
    assert!(chess.tags.contains(&("White".to_string(), "A".to_string())));
    assert!(chess.pgn.contains("4. Qxf7# 1-0"), "{}", chess.pgn);

    let house = &games[1];
    assert_eq!(house.variant, "crazyhouse");
    assert_eq!(house.uci_moves.last().map(String::as_str), Some("P@e5"));
    assert_eq!(house.moves.iter().map(|m| m.uci.clone()).collect::<Vec<_>>(), house.uci_moves);
    let zh = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "P@e5"];
    let replayed = v.replay(&PositionRequest::new("crazyhouse", "", &zh)).expect("legal");
    assert_eq!(house.moves, replayed.moves);
    assert_eq!(house.result, GameResult::Unknown);

    let makruk = &games[2];
    assert_eq!((makruk.variant.as_str(), makruk.start_fen.as_str()), ("makruk", ""));
    assert_eq!(makruk.uci_moves, ["e3e4", "d6d5"]);

    // A game from its own position keeps it.
    let text = "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e4 *\n";
    let games = v.replay_pgn(text, ReadOptions::default()).expect("reads");
    assert_eq!(games[0].start_fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(games[0].moves[0].fen, "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");

    let e = v.replay_pgn("[Variant \"makruck\"]\n\n*\n", ReadOptions::default()).unwrap_err();
    assert!(matches!(e, ReplayPgnError::Read(_)));
    assert!(e.to_string().contains("did you mean 'makruk'?"), "{e}");
}

#[test]
fn the_catalogue_lists_every_variant_once() {
    let v = variants();
    let all = v.catalogue();
    let names: Vec<String> = all.iter().map(|i| i.name.clone()).collect();
    assert_eq!(names, v.all_names());
    assert_eq!(names[0], "chess");
    let chess = &all[0];
    assert!(!chess.defined_as_data);
    assert_eq!((chess.files, chess.ranks), (8, 8));
    assert_eq!(chess.pieces.len(), 6);
    assert!(chess.pieces.iter().all(|p| p.value.is_some()));
    assert_eq!(chess.promotions.len(), 4);
    assert!(chess.promotions.contains(&'Q'));
    assert_eq!(chess.reserve_piece, None);
    for name in ["capablanca", "crazyhouse", "my-chess"] {
        let info = all.iter().find(|i| i.name == name).unwrap_or_else(|| panic!("{name} listed"));
        assert!(info.defined_as_data, "{name}");
        assert!(info.pieces.iter().all(|p| p.value.is_none()), "{name}");
        assert!(info.summary.starts_with(&format!("{name}: defined as data")), "{}", info.summary);
    }
    let capa = all.iter().find(|i| i.name == "capablanca").expect("listed");
    assert_eq!((capa.files, capa.ranks), (10, 8));
    assert!(capa.promotions.len() > 4 && capa.promotions.contains(&'Q'), "{:?}", capa.promotions);
    let mut seen = std::collections::HashSet::new();
    assert!(names.iter().all(|n| seen.insert(n.clone())), "each name once");
}

#[test]
fn a_request_becomes_a_pgn_game_with_its_result() {
    let v = variants();
    let none: &[&str] = &[];
    let mate = v.pgn_game(&PositionRequest::new("chess", "", &["f3", "e5", "g4", "Qh4"])).expect("legal");
    assert_eq!(mate.game.result(), GameResult::BlackWins);
    assert_eq!(mate.status.ended.as_ref().map(|e| e.reason), Some("checkmate"));
    assert!(mate.game.to_pgn().expect("writes").contains("2. g4 Qh4# 0-1"));
    // A draw the side to move may claim is not a result.
    let shuffle = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    let claim = v.pgn_game(&PositionRequest::new("chess", "", &shuffle)).expect("legal");
    assert_eq!((claim.game.result(), claim.status.claimable_draw), (GameResult::Unknown, "repetition"));
    // Games defined as data, with and without a compiled twin.
    let mine = v.pgn_game(&PositionRequest::new("my-chess", "", &["e4"])).expect("legal");
    assert_eq!(mine.game.variant_name(), "my-chess");
    let text = mine.game.to_pgn().expect("writes");
    assert!(text.contains("[Variant \"my-chess\"]") && text.contains("\n2. e4 *"), "{text}");
    let house = v.pgn_game(&PositionRequest::new("crazyhouse", "", &["e4", "d5", "exd5"])).expect("legal");
    assert_eq!((house.game.plies(), house.game.result()), (3, GameResult::Unknown));
    assert!(house.game.to_pgn().expect("writes").contains("2. exd5 *"));
    let start = v.pgn_game(&PositionRequest::new("capablanca", "", none)).expect("the start");
    assert_eq!(start.game.plies(), 0);
    let e = v.pgn_game(&PositionRequest::new("crazyhouse", "", &["e5"])).unwrap_err();
    assert!(matches!(e, PositionError::Move { index: 0, .. }), "{e}");
}
