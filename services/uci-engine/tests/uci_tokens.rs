#![allow(clippy::unwrap_used)]
//! UCI output that UCI clients accept (issue 13 item 2): every move token
//! the engine prints is in the generic UCI move alphabet and is accepted
//! back; `go searchmoves`; the `Ponder`, `UCI_LimitStrength` and `UCI_Elo`
//! options.

mod common;

use common::{Engine, QUICK, field, legal_wire, position_after, pv_of};
use menagerie_notation::{fen, uci};
use menagerie_variants::{AnyPosition, VariantId};

/// Reads a search's output; checks every pv, the bestmove and the ponder
/// move are wire tokens legal along the way from `pos`; returns (info
/// lines, bestmove token).
fn checked_search(e: &mut Engine, pos: &AnyPosition) -> (Vec<String>, String) {
    let mut lines = e.read_until_prefix("bestmove", QUICK);
    let last = lines.pop().unwrap();
    let infos: Vec<String> = lines.into_iter().filter(|l| l.starts_with("info depth")).collect();
    for info in &infos {
        let mut p = *pos;
        for m in pv_of(info) {
            let mv = legal_wire(&p, m).unwrap_or_else(|err| e.fail(&format!("pv of {info}: {err}")));
            p = p.play(mv).unwrap();
        }
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    let best = words[1].to_string();
    let m = legal_wire(pos, &best).unwrap_or_else(|err| e.fail(&format!("{last}: {err}")));
    if let Some(&"ponder") = words.get(2) {
        let after = pos.play(m).unwrap();
        legal_wire(&after, words[3]).unwrap_or_else(|err| e.fail(&format!("{last}: ponder: {err}")));
    }
    (infos, best)
}

/// Short games in every variant, each ply searched by the engine and
/// its printed token fed back in `position startpos moves …`; the gating
/// variants also start from each prelude state (declined by White, accepted
/// by White, accepted by Black).
#[test]
fn every_printed_token_is_generic_uci_and_is_accepted_back() {
    let mut e = Engine::uci();
    e.send("setoption name Hash value 16");
    let mut printed = std::collections::BTreeSet::new();
    for &v in VariantId::ALL.iter() {
        e.send(&format!("setoption name UCI_Variant value {}", v.name()));
        // Chess960 castling is printed king-takes-rook (the wire form) only
        // with UCI_Chess960 on.
        e.send(&format!("setoption name UCI_Chess960 value {}", v == VariantId::Chess960));
        let prefixes: Vec<Vec<String>> = if v.rules().gating.is_some() {
            vec![vec![], vec!["0000".into()], vec!["K@e1".into()], vec!["0000".into(), "K@e8".into()]]
        } else {
            vec![vec![]]
        };
        let plies = if prefixes.len() == 1 { 12 } else { 6 };
        for prefix in prefixes {
            e.send("ucinewgame");
            let mut moves = prefix.clone();
            for ply in 0..plies {
                let pos = position_after(v, None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
                if pos.outcome().is_some() && pos.count_legal() == 0 {
                    break;
                }
                let cmd = if moves.is_empty() {
                    "position startpos".to_string()
                } else {
                    format!("position startpos moves {}", moves.join(" "))
                };
                e.send(&cmd);
                // The engine took every token back: its position is ours.
                e.send("d");
                let d = e.sync();
                assert_eq!(d[0], format!("info string fen {}", fen::format(&pos)), "{}: {cmd}", v.name());
                let legal_line = d[1].strip_prefix("info string legal ").unwrap_or("");
                for tok in legal_line.split_whitespace() {
                    legal_wire(&pos, tok).unwrap_or_else(|err| e.fail(&format!("d: {err}")));
                    printed.insert(tok.to_string());
                }
                e.send(if ply % 2 == 0 { "go depth 2" } else { "go nodes 2000" });
                let (infos, best) = checked_search(&mut e, &pos);
                for i in &infos {
                    printed.extend(pv_of(i).into_iter().map(str::to_string));
                }
                printed.insert(best.clone());
                moves.push(best);
            }
        }
    }
    // The prelude is printed in the wire form, never the old words.
    for tok in ["0000", "K@e1", "K@e8", "A@e1", "A@e8", "S@d1", "b1g1a", "b8g8a"] {
        assert!(printed.contains(tok), "{tok} never printed");
    }
    for old in ["accept", "decline", "A@g", "A@bg"] {
        assert!(!printed.contains(old), "{old} printed");
    }
    assert!(printed.iter().all(|t| uci::is_wire_token(t)));
    e.quit(Some("quit"));
}

/// Camel and Rhino Chess: a takeover leap is printed with the mover's
/// letter; the old `t` form is still accepted.
#[test]
fn takeover_leaps_are_printed_with_the_movers_letter() {
    let mut e = Engine::uci();
    e.send("setoption name UCI_Variant value camel-rhino");
    // The Camel on d2 may leap to e5 over the knight on d4 and convert it.
    let f = "4k5/2c7/10/10/10/10/3n6/10/3C6/4K5 w - - 0 1";
    e.send(&format!("position fen {f}"));
    e.send("d");
    let d = e.sync();
    let legal: Vec<&str> = d[1].strip_prefix("info string legal ").unwrap().split_whitespace().collect();
    assert!(legal.contains(&"d2e5c") && legal.contains(&"d2e5"), "{legal:?}");
    assert!(legal.iter().all(|t| uci::is_wire_token(t)), "{legal:?}");
    let converted = fen::format(&position_after(VariantId::CamelRhino, Some(f), &["d2e5t"]));
    for form in ["d2e5c", "d2e5t"] {
        e.send(&format!("position fen {f} moves {form}"));
        e.send("d");
        assert_eq!(e.sync()[0], format!("info string fen {converted}"), "{form}");
    }
    // Searching here: the takeover wins a knight, and is printed as such.
    e.send(&format!("position fen {f}"));
    e.send("go depth 3");
    let pos = fen::parse(VariantId::CamelRhino, f).unwrap();
    let (_, best) = checked_search(&mut e, &pos);
    assert_eq!(best, "d2e5c");
    e.quit(Some("quit"));
}

#[test]
fn searchmoves_restrict_the_bestmove_and_every_multipv_line() {
    let mut e = Engine::uci();
    let pos = position_after(VariantId::Chess, None, &["e2e4"]);
    e.send_all(&["position startpos moves e2e4", "go depth 6 searchmoves a7a6 h7h6"]);
    let (_, best) = checked_search(&mut e, &pos);
    assert!(best == "a7a6" || best == "h7h6", "{best}");

    // Tokens end at the next keyword; an illegal one is reported and skipped.
    e.send_all(&["setoption name MultiPV value 3", "go searchmoves h7h6 e2e4 a7a6 depth 5"]);
    let said = e.read_until(QUICK, |l| l.starts_with("info string"));
    assert!(said.last().unwrap().contains("e2e4"), "{said:?}");
    let (infos, best) = checked_search(&mut e, &pos);
    assert!(best == "a7a6" || best == "h7h6", "{best}");
    // The last completed depth shows both lines, and no third.
    let last_depth = infos.iter().filter_map(|l| field(l, "depth")).next_back().unwrap().to_string();
    let finals: Vec<&str> =
        infos.iter().filter(|l| field(l, "depth") == Some(&last_depth)).filter_map(|l| field(l, "multipv")).collect();
    assert!(finals.contains(&"1") && finals.contains(&"2"), "{infos:?}");
    for l in &infos {
        let first = pv_of(l)[0];
        assert!(first == "a7a6" || first == "h7h6", "{l}");
        assert!(matches!(field(l, "multipv"), Some("1" | "2")), "{l}");
    }

    // In the prelude, old and wire forms both name a root move.
    e.send_all(&["setoption name MultiPV value 1", "setoption name UCI_Variant value alpaca"]);
    let start = AnyPosition::start(VariantId::Alpaca);
    for (only, want) in [("0000", "0000"), ("decline", "0000"), ("accept", "K@e1"), ("K@e1", "K@e1")] {
        e.send("position startpos");
        e.send(&format!("go depth 3 searchmoves {only}"));
        assert_eq!(checked_search(&mut e, &start).1, want, "searchmoves {only}");
    }
    e.quit(Some("quit"));
}

#[test]
fn options_ponder_and_strength_are_advertised_and_accepted() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.read_until(QUICK, |l| l == "uciok");
    for want in [
        "option name Ponder type check default false",
        "option name UCI_LimitStrength type check default false",
        "option name UCI_Elo type spin default 1500 min 1000 max 2650",
    ] {
        assert!(lines.iter().any(|l| l == want), "{want}: {lines:?}");
    }
    for ok in [
        "setoption name Ponder value true",
        "setoption name UCI_LimitStrength value true",
        "setoption name UCI_Elo value 1200",
        "setoption name UCI_LimitStrength value false",
    ] {
        e.send(ok);
        assert!(e.sync().is_empty(), "{ok}");
    }
    for bad in
        ["setoption name UCI_Elo value 100", "setoption name UCI_Elo value x", "setoption name Ponder value maybe"]
    {
        e.send(bad);
        let said = e.sync();
        assert!(said.len() == 1 && said[0].starts_with("info string"), "{bad}: {said:?}");
    }
    // go ponder / ponderhit with Ponder on.
    e.send_all(&["position startpos", "go ponder depth 3"]);
    e.sync();
    e.send("ponderhit");
    checked_search(&mut e, &AnyPosition::start(VariantId::Chess));
    e.quit(Some("quit"));
}

/// At 1000 Elo (the lowest) the engine often plays another move than at full strength
/// (here: the depth-6 choice), answers quickly, and its moves stay legal.
#[test]
fn limited_strength_plays_other_moves() {
    let line = [
        "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5", "a4b3", "d7d6",
        "c2c3", "e8g8",
    ];
    let mut e = Engine::uci();
    e.send("setoption name Hash value 16");
    let mut differ = 0;
    let n = line.len();
    for k in 0..n {
        let pos = position_after(VariantId::Chess, None, &line[..k]);
        let cmd = if k == 0 {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", line[..k].join(" "))
        };
        e.send("setoption name UCI_LimitStrength value false");
        e.send(&cmd);
        e.send("go depth 6");
        let (_, strong) = checked_search(&mut e, &pos);
        e.send_all(&["setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1000"]);
        e.send(&cmd);
        e.send("go depth 6");
        let (infos, weak) = checked_search(&mut e, &pos);
        // Only the requested line is reported, and the node cap holds.
        for l in &infos {
            assert_eq!(field(l, "multipv"), Some("1"), "{l}");
            assert!(field(l, "nodes").unwrap().parse::<u64>().unwrap() < 5000, "{l}");
        }
        differ += usize::from(weak != strong);
    }
    assert!(differ * 4 >= n, "1000 Elo played the full-strength move in {} of {n} positions", n - differ);

    // At the top of the scale the engine still answers with a legal move.
    e.send_all(&["setoption name UCI_Elo value 2650", "position startpos", "go movetime 200"]);
    checked_search(&mut e, &AnyPosition::start(VariantId::Chess));
    e.quit(Some("quit"));
}
