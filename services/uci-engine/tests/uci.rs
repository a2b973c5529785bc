#![allow(clippy::unwrap_used)]
//! UCI transcripts against the built `menagerie-uci` binary.

mod common;

use common::{Engine, QUICK, field, legal_wire as legal, position_after, pv_of};
use menagerie_notation::fen;
use menagerie_variants::{AnyPosition, VariantId};
use std::time::{Duration, Instant};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// White mates with Ra8.
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
/// Black's only move Kb8 is met by Rh8#.
const MATED_IN_ONE: &str = "k7/8/1K6/8/8/8/8/7R b - - 0 1";
const CHECKMATED: &str = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";
const STALEMATED: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";
/// Camel and Rhino Chess: Black owns no Camel and no Rhino, so the game is over.
const NO_CAMEL_OR_RHINO: &str = "4k5/10/10/10/10/10/10/10/3C6/4K5 w - - 0 1";

/// Checks a search's info lines (each with depth, score, nodes and a legal
/// pv from `pos`) and its bestmove (legal; ponder legal after it); returns
/// the info lines.
fn check_search(e: &mut Engine, pos: &AnyPosition, timeout: Duration) -> (Vec<String>, String) {
    let mut lines = e.read_until_prefix("bestmove", timeout);
    let last = lines.pop().unwrap();
    let infos: Vec<String> = lines.into_iter().filter(|l| l.starts_with("info depth")).collect();
    for info in &infos {
        for key in ["depth", "seldepth", "multipv", "score", "nodes", "nps", "time", "pv"] {
            assert!(field(info, key).is_some(), "'{key}' missing in {info}");
        }
        let kind = field(info, "score").unwrap();
        assert!(kind == "cp" || kind == "mate", "{info}");
        let mut p = *pos;
        for m in pv_of(info) {
            let mv = legal(&p, m).unwrap_or_else(|err| e.fail(&format!("pv of {info}: {err}")));
            p = p.play(mv).unwrap();
        }
        assert!(!pv_of(info).is_empty(), "empty pv: {info}");
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    let best = words[1];
    let m = legal(pos, best).unwrap_or_else(|err| e.fail(&format!("bestmove: {err}")));
    if let Some(&"ponder") = words.get(2) {
        let after = pos.play(m).unwrap();
        legal(&after, words[3]).unwrap_or_else(|err| e.fail(&format!("ponder: {err}")));
    }
    (infos, best.to_string())
}

#[test]
fn handshake_lists_options_and_variants() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.read_until(QUICK, |l| l == "uciok");
    assert!(lines[0].starts_with("id name Menagerie"), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("id author ")), "{lines:?}");
    let option = |name: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("option name {name} type ")))
            .unwrap_or_else(|| panic!("no option {name}: {lines:?}"))
            .clone()
    };
    assert!(option("Hash").contains("type spin default"));
    assert!(option("Threads").contains("type spin default 1 min 1"));
    assert!(option("MultiPV").contains("type spin default 1 min 1"));
    let variants = option("UCI_Variant");
    assert!(variants.contains("type combo default chess"), "{variants}");
    let listed: Vec<&str> = variants.split(" var ").skip(1).collect();
    // The compiled variants, then those defined as data (by name).
    assert_eq!(
        listed,
        [
            "chess",
            "alpaca",
            "alpaca2",
            "alpaca-samefile",
            "alseid",
            "alseid-weak",
            "camel-rhino",
            "chess960",
            "3check",
            "5check",
            "ai-wok",
            "almost",
            "alpaca960",
            "alseid960",
            "amazon",
            "amazons",
            "antichess",
            "armageddon",
            "asean",
            "ataxx",
            "atomar",
            "atomic",
            "berolina",
            "breakthrough",
            "bughouse",
            "cambodian",
            "capablanca",
            "capahouse",
            "caparandom",
            "centaur",
            "chancellor",
            "chaturanga",
            "checkshogi",
            "chessgi",
            "chigorin",
            "clobber",
            "clobber10",
            "codrus",
            "coregal",
            "courier",
            "crazyhouse",
            "dobutsu",
            "dragon",
            "duck",
            "embassy",
            "euroshogi",
            "extinction",
            "fairy",
            "fischerandom",
            "flipello",
            "flipello10",
            "flipersi",
            "fox-and-hounds",
            "gardner",
            "georgian",
            "giveaway",
            "gorogoro",
            "gothic",
            "grand",
            "grasshopper",
            "gustav3",
            "hoppelpoppel",
            "horde",
            "isolation",
            "isolation7x7",
            "janggi",
            "janggicasual",
            "janggimodern",
            "janggitraditional",
            "janus",
            "jesonmor",
            "joust",
            "judkins",
            "karouk",
            "kinglet",
            "kingofthehill",
            "knightmate",
            "koedem",
            "kyotoshogi",
            "legan",
            "loop",
            "losalamos",
            "losers",
            "makpong",
            "makruk",
            "manchu",
            "micro",
            "mini",
            "minishogi",
            "minixiangqi",
            "misere",
            "modern",
            "newzealand",
            "nightrider",
            "nocastle",
            "nocheckatomic",
            "normal",
            "okisakishogi",
            "omicron",
            "opulent",
            "paradigm",
            "pawnback",
            "pawnsideways",
            "perfect",
            "petrified",
            "placement",
            "pocketknight",
            "raazuvaa",
            "racingkings",
            "seirawan",
            "seirawan960",
            "shako",
            "shatar",
            "shatranj",
            "shogi",
            "shoshogi",
            "shouse",
            "sittuyin",
            "snailtrail",
            "sortofalmost",
            "spartan",
            "suicide",
            "supply",
            "tencubed",
            "threekings",
            "torishogi",
            "torpedo",
            "troitzky",
            "wolf",
            "xiangqi",
            "yarishogi"
        ]
    );
    assert_eq!(option("VariantPath"), "option name VariantPath type string default <empty>");
    assert_eq!(option("UCI_Chess960"), "option name UCI_Chess960 type check default false");
    // Every option line comes before uciok, and nothing after it.
    assert_eq!(lines.last().unwrap(), "uciok");
    assert!(e.sync().is_empty());
    e.send("isready");
    assert_eq!(e.recv(QUICK).as_deref(), Some("readyok"));
    e.quit(Some("quit"));
}

#[test]
fn go_depth_reports_every_iteration_and_a_legal_move() {
    let mut e = Engine::uci();
    e.send_all(&["ucinewgame", "position startpos moves e2e4 e7e5", "go depth 5"]);
    let pos = position_after(VariantId::Chess, None, &["e2e4", "e7e5"]);
    let (infos, _) = check_search(&mut e, &pos, QUICK);
    let depths: Vec<u32> = infos.iter().map(|l| field(l, "depth").unwrap().parse().unwrap()).collect();
    assert_eq!(depths, [1, 2, 3, 4, 5], "{infos:?}");
    let nodes: Vec<u64> = infos.iter().map(|l| field(l, "nodes").unwrap().parse().unwrap()).collect();
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]) && nodes[0] > 0, "{nodes:?}");
    // Nothing more after bestmove.
    assert!(e.sync().is_empty());
    e.quit(Some("quit"));
}

#[test]
fn go_movetime_and_nodes() {
    let mut e = Engine::uci();
    e.send("position startpos");
    let t = Instant::now();
    e.send("go movetime 200");
    check_search(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    let took = t.elapsed();
    // Never early; how late depends on the machine's load (the budget
    // itself is unit-tested in menagerie-search's limits.rs).
    assert!(took >= Duration::from_millis(150), "movetime 200 took {took:?}");

    e.send_all(&["position startpos moves d2d4", "go nodes 2000"]);
    let pos = position_after(VariantId::Chess, None, &["d2d4"]);
    check_search(&mut e, &pos, QUICK);
    e.quit(Some("quit"));
}

#[test]
fn go_with_clocks_uses_the_side_to_moves_time() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos", "go wtime 2000 btime 2000 winc 20 binc 20"]);
    check_search(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    // The share of the clock each search takes is unit-tested (limits.rs:
    // `a_clock_budget_leaves_time_on_the_clock`); here it answers, legally,
    // well within the hang guard.

    // Black to move with little time: White's large clock must not be used
    // (its share, a minute, would outlast the hang guard).
    e.send_all(&["position startpos moves e2e4", "go wtime 600000 btime 300 winc 0 binc 0 movestogo 10"]);
    check_search(&mut e, &position_after(VariantId::Chess, None, &["e2e4"]), QUICK);
    e.quit(Some("quit"));
}

#[test]
fn go_infinite_answers_only_after_stop() {
    let mut e = Engine::uci();
    // A middlegame-like start, a trivial ending (the search reaches its
    // maximum depth within milliseconds) and a finished game: in all three,
    // no bestmove before `stop`, and one promptly after it.
    let cases = [
        ("position startpos", Some(START)),
        ("position fen 8/8/8/4k3/8/8/8/4K3 w - - 0 1", Some("8/8/8/4k3/8/8/8/4K3 w - - 0 1")),
        (&*format!("position fen {MATE_IN_ONE}"), Some(MATE_IN_ONE)),
        (&*format!("position fen {CHECKMATED}"), None),
    ];
    for (cmd, fen_text) in cases {
        e.send(cmd);
        e.send("go infinite");
        let early = e.collect_for(Duration::from_millis(400));
        assert!(!early.iter().any(|l| l.starts_with("bestmove")), "{cmd}: bestmove before stop: {early:?}");
        e.send("stop");
        let (_, best) = e.bestmove(QUICK);
        match fen_text {
            Some(f) => {
                legal(&fen::parse(VariantId::Chess, f).unwrap(), &best).unwrap();
            }
            None => assert_eq!(best, "(none)"),
        }
        assert!(e.sync().is_empty(), "{cmd}: a second bestmove");
    }
    // `stop` with no search running says nothing.
    e.send("stop");
    assert!(e.sync().is_empty());
    e.quit(Some("quit"));
}

#[test]
fn go_ponder_waits_for_ponderhit_or_stop() {
    let mut e = Engine::uci();
    let pos = position_after(VariantId::Chess, None, &["e2e4", "e7e5"]);
    e.send_all(&["position startpos moves e2e4 e7e5", "go ponder wtime 1000 btime 1000"]);
    let early = e.collect_for(Duration::from_millis(400));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove while pondering: {early:?}");
    e.send("ponderhit");
    check_search(&mut e, &pos, QUICK);

    e.send("go ponder wtime 1000 btime 1000");
    e.collect_for(Duration::from_millis(200));
    e.send("stop");
    check_search(&mut e, &pos, Duration::from_secs(1));
    // A late ponderhit (after stop) is ignored.
    e.send("ponderhit");
    assert!(e.sync().is_empty());
    e.quit(Some("quit"));
}

#[test]
fn multipv_three_lines_per_depth() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name MultiPV value 3", "position startpos", "go depth 4"]);
    let pos = AnyPosition::start(VariantId::Chess);
    let (infos, best) = check_search(&mut e, &pos, QUICK);
    for depth in 1..=4 {
        let at: Vec<&String> = infos.iter().filter(|l| field(l, "depth") == Some(&*depth.to_string())).collect();
        let ids: Vec<&str> = at.iter().map(|l| field(l, "multipv").unwrap()).collect();
        assert_eq!(ids, ["1", "2", "3"], "depth {depth}: {at:?}");
        let firsts: Vec<&str> = at.iter().map(|l| pv_of(l)[0]).collect();
        assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2], "{firsts:?}");
        let cps: Vec<i32> = at.iter().map(|l| field(l, "cp").unwrap().parse().unwrap()).collect();
        assert!(cps.windows(2).all(|w| w[0] >= w[1]), "depth {depth}: scores not best first: {cps:?}");
    }
    let last_first = infos.iter().rev().find(|l| field(l, "multipv") == Some("1")).unwrap();
    assert_eq!(pv_of(last_first)[0], best);

    // More lines than legal moves: one line per move.
    e.go_from(MATED_IN_ONE, "go depth 3");
    let (infos, _) = check_search(&mut e, &fen::parse(VariantId::Chess, MATED_IN_ONE).unwrap(), QUICK);
    assert!(infos.iter().all(|l| field(l, "multipv") == Some("1")), "{infos:?}");

    e.send_all(&["setoption name MultiPV value 1", "position startpos", "go depth 3"]);
    let (infos, _) = check_search(&mut e, &pos, QUICK);
    assert_eq!(infos.len(), 3);
    e.quit(Some("quit"));
}

#[test]
fn camel_rhino_on_ten_by_ten() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name UCI_Variant value camel-rhino", "ucinewgame", "position startpos", "go depth 3"]);
    let start = AnyPosition::start(VariantId::CamelRhino);
    check_search(&mut e, &start, QUICK);

    // Two-digit ranks parse: the rook leaves j10.
    e.send_all(&["position startpos moves a3a4 j10j9 a4a5 a10a9", "d"]);
    let d = e.sync();
    let pos = position_after(VariantId::CamelRhino, None, &["a3a4", "j10j9", "a4a5", "a10a9"]);
    assert_eq!(d[0], format!("info string fen {}", fen::format(&pos)));
    assert!(d[0].starts_with("info string fen 10/rhzbqkbncr/"), "{d:?}");
    e.send("go depth 3");
    check_search(&mut e, &pos, QUICK);

    e.send("go perft 1");
    let lines = e.read_until_prefix("Nodes searched", QUICK);
    assert_eq!(lines.last().unwrap(), &format!("Nodes searched: {}", pos.count_legal()));

    // ucinewgame keeps the variant.
    e.send_all(&["ucinewgame", "position startpos", "go depth 2"]);
    check_search(&mut e, &start, QUICK);

    // A finished game: Black owns no Camel and no Rhino.
    e.go_from(NO_CAMEL_OR_RHINO, "go depth 3");
    assert_eq!(e.bestmove(QUICK).1, "(none)");
    e.quit(Some("quit"));
}

#[test]
fn prelude_moves_of_gating_variants() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name UCI_Variant value alpaca", "position startpos", "go depth 3"]);
    let (_, best) = check_search(&mut e, &AnyPosition::start(VariantId::Alpaca), QUICK);
    assert!(best == "K@e1" || best == "0000", "{best}");

    // White accepted and placed on g: Black places.
    e.send_all(&["position startpos moves accept A@g", "go depth 3"]);
    let pos = position_after(VariantId::Alpaca, None, &["accept", "A@g"]);
    let (_, best) = check_search(&mut e, &pos, QUICK);
    assert!(best.starts_with("A@") && best.ends_with('8') && best.len() == 4, "{best}");

    // White declined: Black decides.
    e.send_all(&["position startpos moves decline", "go depth 3"]);
    let pos = position_after(VariantId::Alpaca, None, &["decline"]);
    let (_, best) = check_search(&mut e, &pos, QUICK);
    assert!(best == "K@e8" || best == "0000", "{best}");

    // Gates in the FEN bracket; g1f3 fires White's gate.
    let gated = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@f] w KQkq - 0 1";
    e.send(&format!("position fen {gated} moves g1f3"));
    e.send("d");
    let d = e.sync();
    assert_eq!(d[0], "info string fen rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBAR[a@f] b KQkq - 1 1");
    e.send("go depth 3");
    check_search(&mut e, &position_after(VariantId::Alpaca, Some(gated), &["g1f3"]), QUICK);

    // Two pieces each: Black places both at once.
    e.send_all(&["setoption name UCI_Variant value alpaca2", "position startpos moves accept A@bg", "go depth 3"]);
    let pos = position_after(VariantId::Alpaca2, None, &["accept", "A@bg"]);
    let (_, best) = check_search(&mut e, &pos, QUICK);
    assert!(best.len() == 5 && best.ends_with('a') && &best[1..2] == "8" && &best[3..4] == "8", "{best}");

    // Same file: Black's only placement.
    e.send_all(&[
        "setoption name UCI_Variant value alpaca-samefile",
        "position startpos moves accept A@c",
        "go depth 3",
    ]);
    assert_eq!(e.bestmove(QUICK).1, "A@c8");

    // The Alseid is gated the same way, with its own letter.
    for v in ["alseid", "alseid-weak"] {
        e.send(&format!("setoption name UCI_Variant value {v}"));
        e.send_all(&["position startpos moves accept S@d", "go depth 3"]);
        let pos = position_after(VariantId::from_name(v).unwrap(), None, &["accept", "S@d"]);
        let (_, best) = check_search(&mut e, &pos, QUICK);
        assert!(best.starts_with("S@"), "{v}: {best}");
    }
    e.quit(Some("quit"));
}

#[test]
fn perft_divides_the_start_position() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos", "go perft 3"]);
    let lines = e.read_until_prefix("Nodes searched", QUICK);
    let divide: Vec<(&str, u64)> = lines
        .iter()
        .filter_map(|l| l.split_once(": "))
        .filter(|(m, _)| !m.contains(' '))
        .map(|(m, n)| (m, n.parse().unwrap()))
        .collect();
    assert_eq!(divide.len(), 20, "{lines:?}");
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 8902);
    assert!(divide.contains(&("e2e4", 600)) && divide.contains(&("g1f3", 440)), "{divide:?}");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");

    // Prelude actions count: accept and decline.
    e.send_all(&["setoption name UCI_Variant value alpaca", "position startpos", "go perft 1"]);
    let lines = e.read_until_prefix("Nodes searched", QUICK);
    assert!(lines.contains(&"accept: 1".to_string()) && lines.contains(&"decline: 1".to_string()), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 2");
    e.quit(Some("quit"));
}

#[test]
fn mate_scores() {
    let mut e = Engine::uci();
    e.go_from(MATE_IN_ONE, "go depth 4");
    let (infos, best) = check_search(&mut e, &fen::parse(VariantId::Chess, MATE_IN_ONE).unwrap(), QUICK);
    assert_eq!(best, "a1a8");
    assert!(infos.last().unwrap().contains(" score mate 1 "), "{infos:?}");

    e.go_from(MATED_IN_ONE, "go depth 4");
    let (infos, best) = check_search(&mut e, &fen::parse(VariantId::Chess, MATED_IN_ONE).unwrap(), QUICK);
    assert_eq!(best, "a8b8");
    assert!(infos.last().unwrap().contains(" score mate -1 "), "{infos:?}");

    e.go_from(MATE_IN_ONE, "go mate 1");
    assert_eq!(e.bestmove(QUICK).1, "a1a8");
    e.quit(Some("quit"));
}

#[test]
fn finished_games_give_bestmove_none() {
    let mut e = Engine::uci();
    for f in [CHECKMATED, STALEMATED] {
        e.go_from(f, "go depth 5");
        let (_, best) = e.bestmove(QUICK);
        assert_eq!(best, "(none)", "{f}");
        e.send("go movetime 100");
        assert_eq!(e.bestmove(QUICK).1, "(none)", "{f}");
    }
    // Reached by moves (fool's mate).
    e.send_all(&["position startpos moves f2f3 e7e5 g2g4 d8h4", "go depth 3"]);
    assert_eq!(e.bestmove(QUICK).1, "(none)");
    e.send("go perft 2");
    assert_eq!(e.read_until_prefix("Nodes searched", QUICK).last().unwrap(), "Nodes searched: 0");
    e.quit(Some("quit"));
}

#[test]
fn bad_input_is_reported_and_the_engine_goes_on() {
    let mut e = Engine::uci();
    e.send("position startpos moves e2e4");
    let bad: &[&str] = &[
        "foo bar",
        "position fen xyz",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -5 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] w KQkq - 0 1",
        "position startpos moves e2e4 e7e5 e1e3",
        "position startpos moves e2e4 zz9",
        "position startpos moves accept",
        "position",
        "position sideways",
        "setoption name UCI_Variant value tamerlane",
        "setoption name Hash value lots",
        "setoption name Hash value 0",
        "setoption name Threads value 0",
        "setoption name MultiPV value 1000",
        "setoption name NoSuchOption value 1",
        "setoption value 3",
    ];
    for cmd in bad {
        e.send(cmd);
        let said = e.sync();
        assert!(
            said.len() == 1 && said[0].starts_with("info string "),
            "'{cmd}' should give one info string line, got {said:?}"
        );
    }
    // The position is still the last good one.
    e.send("go depth 3");
    check_search(&mut e, &position_after(VariantId::Chess, None, &["e2e4"]), QUICK);

    // Malformed bytes, empty and blank lines, Windows line ends, odd spacing.
    e.send_bytes(b"\xff\xfe\x00junk\n\n   \n");
    assert!(e.sync().iter().all(|l| l.starts_with("info string")));
    e.send_bytes(b"position   startpos   moves  d2d4\r\n");
    e.send("go   depth   2");
    check_search(&mut e, &position_after(VariantId::Chess, None, &["d2d4"]), QUICK);

    // Garbage in go: a search still runs and can be stopped.
    e.send("go depth x nodes -3 searchmoves e2e4 wtime");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    check_search(&mut e, &position_after(VariantId::Chess, None, &["d2d4"]), QUICK);
    e.send("go perft x");
    e.read_until_prefix("Nodes searched", QUICK);
    assert!(e.alive());
    e.quit(Some("quit"));
}

#[test]
fn options_hash_threads_and_a_table_too_large() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name Hash value 16", "setoption name Threads value 2", "setoption name Clear Hash"]);
    assert!(e.sync().is_empty());
    e.send_all(&["position startpos", "go depth 6"]);
    check_search(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);

    // The advertised maximum is more than most machines hold: refused with a
    // message instead of aborting on the allocation.
    e.send("setoption name Hash value 65536");
    let said = e.sync();
    assert!(said.iter().all(|l| l.starts_with("info string")), "{said:?}");
    assert!(e.alive());
    e.send_all(&["setoption name Threads value 1", "go depth 4"]);
    check_search(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    e.quit(Some("quit"));
}

#[test]
fn quit_or_end_of_input_during_a_search() {
    let mut e = Engine::uci();
    e.send("go infinite");
    e.collect_for(Duration::from_millis(100));
    e.quit(Some("quit"));
    // `quit` waits for the exit within the QUICK hang guard.

    let mut e = Engine::uci();
    e.send_all(&["position startpos moves e2e4", "go infinite"]);
    e.collect_for(Duration::from_millis(100));
    e.quit(None);
}

#[test]
fn a_new_search_replaces_a_running_one() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos", "go infinite"]);
    e.collect_for(Duration::from_millis(100));
    // A new position stops the old search (which reports its move) first.
    e.send("position startpos moves e2e4");
    check_search(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    e.send("go depth 3");
    check_search(&mut e, &position_after(VariantId::Chess, None, &["e2e4"]), QUICK);
    e.quit(Some("quit"));
}

#[test]
fn the_engine_survives_internal_errors() {
    // While the rules code lets a pinned Alpaca leap over its own king (see
    // the ignored test below), `f1h1` is accepted here and the position
    // after it has a capturable king, which makes the search and perft
    // panic. The engine must neither die nor answer `bestmove (none)` while
    // it has moves. Once the rules are fixed, `f1h1` is refused instead.
    let mut e = Engine::uci();
    e.send_all(&["setoption name UCI_Variant value alpaca", "position fen 4k3/8/8/8/8/8/8/r4AK1 w - - 0 1 moves f1h1"]);
    let accepted = e.sync().is_empty();
    e.send("go perft 2");
    e.sync();
    e.send("go depth 3");
    let (_, best) = e.bestmove(QUICK);
    if accepted {
        assert_ne!(best, "(none)");
    }
    e.send("go perft 1");
    e.sync();
    assert!(e.alive());
    e.send_all(&["position startpos", "go depth 2"]);
    check_search(&mut e, &AnyPosition::start(VariantId::Alpaca), QUICK);
    e.quit(Some("quit"));
}

#[test]
fn pinned_alpaca_cannot_leap_over_its_own_king() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name UCI_Variant value alpaca", "position fen 4k3/8/8/8/8/8/8/r4AK1 w - - 0 1", "d"]);
    let d = e.sync();
    let legal_moves: Vec<&str> = d[1].split_whitespace().skip(3).collect();
    assert!(!legal_moves.contains(&"f1h1"), "f1h1 leaves the king on g1 in check from a1: {legal_moves:?}");
    // Found by self-play (alpaca-samefile): perft 5 here reached a position
    // without a white king and panicked.
    e.send_all(&["position fen 2r3k1/5ppp/4b1a1/8/8/4PA2/2PR1PPP/r5K1 w - - 5 33", "go perft 5"]);
    let lines = e.read_until(Duration::from_secs(60), |l| l.starts_with("Nodes searched") || l.contains("error"));
    assert!(lines.last().unwrap().starts_with("Nodes searched"), "{lines:?}");
    assert!(!e.stderr().contains("panicked"), "{}", e.stderr());
    e.quit(Some("quit"));
}

/// A Camel and Rhino Chess position (reached in self-play with `go nodes
/// 2000`) whose first iteration searches for minutes.
const CAMEL_RHINO_SLOW: &str = "r6b1N/1hzb1p1C2/pppp2Pk1p/4ww4/5c4/3H6/4WW4/PPPP2PPPP/2ZB1KB3/R8R b - - 0 10";

#[test]
fn camel_rhino_search_honours_limits() {
    let mut e = Engine::uci();
    e.send("setoption name UCI_Variant value camel-rhino");
    e.send(&format!("position fen {CAMEL_RHINO_SLOW}"));
    let pos = fen::parse(VariantId::CamelRhino, CAMEL_RHINO_SLOW).unwrap();
    for go in ["go movetime 200", "go nodes 2000", "go depth 1"] {
        e.send(go);
        check_search(&mut e, &pos, QUICK);
    }
    e.send("go infinite");
    e.collect_for(Duration::from_millis(200));
    e.send("stop");
    check_search(&mut e, &pos, QUICK);
    e.quit(Some("quit"));
}

#[test]
fn bestmove_agrees_with_the_last_reported_pv() {
    let mut e = Engine::uci();
    let mut moves: Vec<String> = Vec::new();
    let mut mismatches = Vec::new();
    for _ in 0..60 {
        let pos = position_after(VariantId::Chess, None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
        if pos.legal_moves().is_empty() {
            break;
        }
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go nodes 3000");
        let (infos, best) = check_search(&mut e, &pos, QUICK);
        let last = infos.iter().rev().find(|l| field(l, "multipv") == Some("1")).unwrap();
        if pv_of(last)[0] != best {
            mismatches.push(format!("ply {}: bestmove {best}, last {last}", moves.len() + 1));
        }
        moves.push(best);
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    e.quit(Some("quit"));
}

/// Chess960: White's only mate is O-O-O (king b1, rook a1 → c1/d1). With
/// `UCI_Chess960` on, castling is written king-takes-rook (`b1a1`); with
/// it off (the variant chosen by name), king-to-square (`b1c1`). Both
/// forms are read.
#[test]
fn uci_chess960_castling_forms() {
    const FRC_MATE: &str = "2rkr3/2p1p3/8/8/8/8/8/RK6 w Q - 0 1";
    let mut e = Engine::uci();
    e.send("setoption name UCI_Chess960 value true");
    e.go_from(FRC_MATE, "go depth 3");
    let (_, best) = e.bestmove(QUICK);
    assert_eq!(best, "b1a1");
    e.send("d");
    let lines = e.read_until(QUICK, |l| l.starts_with("info string legal"));
    let legal = lines.last().unwrap();
    assert!(legal.contains(" b1a1") && legal.contains(" b1c1"), "castling and Kc1 both listed: {legal}");
    // Shredder-FEN and both input forms of castling.
    for mv in ["b1a1", "O-O-O"] {
        e.send(&format!("position fen 2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1 moves {mv}"));
        e.send("d");
        let lines = e.read_until(QUICK, |l| l.starts_with("info string fen"));
        assert_eq!(lines.last().unwrap(), "info string fen 2rkr3/2p1p3/8/8/8/8/8/2KR4 b - - 1 1", "{mv}");
    }
    // The standard start as chess960 (#518): same moves as chess.
    e.send_all(&["position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1", "d"]);
    let lines = e.read_until(QUICK, |l| l.starts_with("info string fen"));
    assert!(lines.last().unwrap().contains("RNBQ1RK1 b kq"), "{lines:?}");
    // Off: UCI_Variant chess960 prints king-to-square.
    e.send_all(&["setoption name UCI_Chess960 value false", "setoption name UCI_Variant value chess960"]);
    e.go_from(FRC_MATE, "go depth 3");
    let (_, best) = e.bestmove(QUICK);
    assert_eq!(best, "b1c1");
    // Off with orthodox chess: a Chess960 FEN is not a chess position.
    e.send_all(&["setoption name UCI_Variant value chess", "position fen 2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1"]);
    let lines = e.sync();
    assert!(lines.iter().any(|l| l.starts_with("info string error")), "{lines:?}");
    e.quit(Some("quit"));
}
