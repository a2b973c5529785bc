#![allow(clippy::unwrap_used)]
//! XBoard/CECP transcripts against the built `menagerie-uci` binary.

mod common;

use common::{Engine, QUICK, legal, position_after};
use menagerie_notation::{fen, xboard};
use menagerie_variants::{AnyPosition, VariantId};
use std::time::{Duration, Instant};

const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
/// Each of Black's three moves is met by Rh8#.
const MATED_IN_ONE: &str = "k7/6p1/1K6/8/8/8/8/7R b - - 0 1";
const CHECKMATED: &str = "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1";

/// Reads up to the engine's `move`, checks it is legal in `pos` and that
/// every thinking line before it is well formed; returns (thinking, move).
fn engine_move(e: &mut Engine, pos: &AnyPosition, timeout: Duration) -> (Vec<String>, String) {
    let mut lines = e.read_until_prefix("move ", timeout);
    let mv = lines.pop().unwrap()["move ".len()..].to_string();
    xboard_legal(pos, &mv).unwrap_or_else(|err| e.fail(&format!("engine move: {err}")));
    for l in &lines {
        check_thinking(e, pos, l);
    }
    (lines, mv)
}

/// A legal move the engine wrote for XBoard: plain moves in coordinate
/// notation, a gating move with the entering piece (`b8c6a`, read by the
/// XBoard reader and written back the same).
fn xboard_legal(pos: &AnyPosition, text: &str) -> Result<menagerie_variants::Move, String> {
    legal(pos, text).or_else(|err| match xboard::from_xboard(pos, text).as_deref() {
        Some(&[m]) if xboard::to_xboard(pos, m).as_deref() == Some(text) => Ok(m),
        _ => Err(err),
    })
}

/// A thinking line: `depth score centiseconds nodes pv...`, the pv legal.
fn check_thinking(e: &mut Engine, pos: &AnyPosition, line: &str) {
    let w: Vec<&str> = line.split_whitespace().collect();
    let numbers = w.len() >= 5
        && w[0].parse::<u32>().is_ok()
        && w[1].parse::<i32>().is_ok()
        && w[2].parse::<u64>().is_ok()
        && w[3].parse::<u64>().is_ok();
    if !numbers {
        e.fail(&format!("not a thinking line: {line}"));
    }
    let mut p = *pos;
    for m in &w[4..] {
        let mv = xboard_legal(&p, m).unwrap_or_else(|err| e.fail(&format!("pv of '{line}': {err}")));
        p = p.play(mv).unwrap();
    }
}

fn score_of(line: &str) -> i32 {
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn features_list_every_variant() {
    let mut e = Engine::start();
    e.send_all(&["xboard", "protover 2"]);
    let lines = e.read_until(QUICK, |l| l == "feature done=1");
    assert!(lines.iter().all(|l| l.starts_with("feature ")), "{lines:?}");
    let all = lines.join(" ");
    assert!(
        all.contains(r#"variants="normal,alpaca,alpaca2,alpaca-samefile,alseid,alseid-weak,camel-rhino,fischerandom,capablanca,janus,shatranj,makruk,knightmate,seirawan,crazyhouse,shogi,xiangqi,atomic,giveaway,losers,asean,ai-wok,almost,amazon,centaur,chancellor,chaturanga,chigorin,embassy,extinction,gardner,georgian,grasshopper,hoppelpoppel,kinglet,losalamos,misere,modern,newzealand,nightrider,nocastle,paradigm,raazuvaa,shako,sortofalmost,tencubed,threekings,torpedo""#),
        "{all}"
    );
    for f in ["usermove=1", "ping=1", "setboard=1", "analyze=1", "sigint=0", "sigterm=0", "myname=\"Menagerie"] {
        assert!(all.contains(f), "{f} missing: {all}");
    }
    // Replies to features need no answer.
    e.send_all(&["accepted usermove", "accepted ping", "rejected reuse"]);
    assert!(e.ping(1).is_empty());
    e.quit(Some("quit"));
}

#[test]
fn variants_describe_board_and_pieces() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "variant normal"]);
    assert!(e.ping(1).is_empty(), "orthodox chess needs no setup");

    let expect = [
        // Pawns "visit" (`fmabmW`: the prelude's accept and placements,
        // leaving XBoard's S-Chess gating rights alone), the reserve piece is
        // in XBoard's holdings (6 slots: P N B R Q and it), and Camel and
        // Rhino pieces step onto a friend (`dK`: a swap), so that XBoard with
        // legality testing on accepts those moves.
        ("alpaca", "8x8+6_seirawan", &["piece A& WmD", "piece P& fmWfceFifmnDfmabmW"][..]),
        ("alpaca2", "8x8+6_seirawan", &["piece A& WmD", "piece P& fmWfceFifmnDfmabmW"][..]),
        ("alpaca-samefile", "8x8+6_seirawan", &["piece A& WmD", "piece P& fmWfceFifmnDfmabmW"][..]),
        ("alseid", "8x8+6_seirawan", &["piece S& mQ", "piece P& fmWfceFifmnDfmabmW"][..]),
        ("alseid-weak", "8x8+6_seirawan", &["piece S& mQ", "piece P& fmWfceFifmnDfmabmW"][..]),
        (
            "camel-rhino",
            "10x10+0_grand",
            &[
                "piece C& FCdK",
                "piece H& WZdK",
                "piece Z& NdK",
                "piece W& WdK",
                "piece K& KdK",
                "piece Q& QdK",
                "piece R& RdK",
                "piece B& BdK",
                "piece N& NdK",
            ][..],
        ),
    ];
    // XBoard 4.9's piece order: the slots whose pictures the pieces take
    // (Wazir, Zebra, Camel, Gnu for the Rhino, Camel for the Alpaca,
    // Princess for the Alseid), the King last of 66.
    let slots = [('P', 0), ('N', 1), ('W', 9), ('Z', 23), ('C', 24), ('H', 31), ('K', 65)];
    for (i, (name, size, pieces)) in expect.into_iter().enumerate() {
        e.send("new");
        e.send(&format!("variant {name}"));
        let lines = e.ping(10 + i as u32);
        let v = VariantId::from_name(name).unwrap();
        let setup = &lines[0];
        // XBoard's FEN has no prelude: the reserve pieces are in its
        // holdings, and the files they may gate on in the castling field
        // (S-Chess FEN).
        let start = fen::format(&AnyPosition::start(v));
        let start = match (start.find('['), start.find(']')) {
            (Some(_), Some(_)) => {
                let held = if name == "alpaca2" {
                    "AAaa"
                } else if name.starts_with("alseid") {
                    "Ss"
                } else {
                    "Aa"
                };
                format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[{held}] w KGFDCBQkgfdcbq - 0 1")
            }
            _ => start,
        };
        assert!(setup.starts_with("setup (") && setup.ends_with(&format!(") {size} {start}")), "{setup}");
        let letters = &setup["setup (".len()..setup.find(')').unwrap()];
        let (white, black) = letters.split_at(letters.len() / 2);
        assert_eq!(white.len(), 66, "{setup}");
        assert_eq!(white.to_ascii_lowercase(), black, "{setup}");
        for (c, i) in slots {
            if white.contains(c) {
                assert_eq!(white.find(c), Some(i), "{name}: {c} in {setup}");
            }
        }
        if v.rules().gating.is_some() {
            let g = v.rules().gating.unwrap().piece.letter();
            assert_eq!(white.find(g), Some(if g == 'A' { 24 } else { 64 }), "{setup}");
        }
        for k in v.rules().piece_kinds() {
            assert!(white.contains(k.letter()), "{name}: {} missing in {setup}", k.letter());
        }
        assert_eq!(lines.len(), 1 + pieces.len(), "{lines:?}");
        for p in pieces {
            assert!(
                lines[1..].iter().any(|l| l.starts_with(p) && l.split_whitespace().count() == 3),
                "{name}: no '{p}' in {lines:?}"
            );
        }
    }
    e.send("variant tamerlane");
    assert_eq!(e.ping(99), ["Error (unknown variant): tamerlane"]);
    // A misspelt name gets the closest one.
    e.send("variant camel-rino");
    assert_eq!(e.ping(98), ["Error (unknown variant): camel-rino (did you mean 'camel-rhino'?)"]);
    e.quit(Some("quit"));
}

#[test]
fn force_usermove_go_and_play_on() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "sd 3", "force", "usermove e2e4"]);
    assert!(e.ping(1).is_empty());
    e.send("go");
    let pos = position_after(VariantId::Chess, None, &["e2e4"]);
    let (thinking, reply) = engine_move(&mut e, &pos, QUICK);
    assert!(!thinking.is_empty());
    assert_eq!(thinking.last().unwrap().split_whitespace().next(), Some("3"), "sd 3: {thinking:?}");
    // The engine plays Black from now on: each user move gets a reply.
    let mut moves = vec!["e2e4".to_string(), reply];
    for user in ["g1f3", "b1c3"] {
        let pos = position_after(VariantId::Chess, None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
        let user = if legal(&pos, user).is_ok() { user.to_string() } else { pos_first_move(&pos) };
        e.send(&format!("usermove {user}"));
        moves.push(user);
        let pos = position_after(VariantId::Chess, None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
        let (_, reply) = engine_move(&mut e, &pos, QUICK);
        moves.push(reply);
    }
    // Protocol 1 style bare moves are accepted too (in force mode, no reply).
    e.send("force");
    let pos = position_after(VariantId::Chess, None, &moves.iter().map(String::as_str).collect::<Vec<_>>());
    e.send(&pos_first_move(&pos));
    e.send_all(&["nopost", "foo"]);
    assert_eq!(e.ping(2), ["Error (unknown command): foo"]);
    e.quit(Some("quit"));
}

fn pos_first_move(pos: &AnyPosition) -> String {
    menagerie_notation::uci::format(pos.variant(), pos.legal_moves().iter().copied().next().unwrap())
}

#[test]
fn ping_while_thinking_answers_after_the_move() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "st 1"]);
    let t = Instant::now();
    e.send_all(&["go", "ping 7"]);
    let lines = e.read_until(QUICK, |l| l == "pong 7");
    let at = lines.iter().position(|l| l.starts_with("move ")).unwrap_or_else(|| e.fail("no move before pong"));
    assert_eq!(at, lines.len() - 2, "{lines:?}");
    // The search was not cut short by the ping.
    assert!(t.elapsed() >= Duration::from_millis(700), "st 1 move after {:?}", t.elapsed());
    legal(&AnyPosition::start(VariantId::Chess), &lines[at]["move ".len()..]).unwrap();
    e.quit(Some("quit"));
}

#[test]
fn time_controls() {
    let mut e = Engine::xboard();
    // 40 moves in 5 minutes, 2 s left on our clock: a quick move.
    e.send_all(&["new", "level 40 5 0", "time 200", "otim 200"]);
    // (The share of the clock a search takes is unit-tested in
    // menagerie-search's limits.rs; here the engine answers, legally, within
    // the hang guard: machine load must not fail this test.)
    e.send("go");
    engine_move(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);

    // Incremental, base in minutes:seconds.
    e.send_all(&["new", "level 0 0:30 1", "time 3000", "otim 3000", "usermove e2e4"]);
    engine_move(&mut e, &position_after(VariantId::Chess, None, &["e2e4"]), QUICK);

    // Fixed time per move.
    e.send_all(&["new", "st 1"]);
    let t = Instant::now();
    e.send("go");
    engine_move(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(700), "st 1 took {took:?}");

    // Fixed depth (with a long time control).
    e.send_all(&["new", "level 40 5 0", "sd 3", "go"]);
    let (thinking, _) = engine_move(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    let depths: Vec<&str> = thinking.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(depths, ["1", "2", "3"]);

    // `?` moves now.
    e.send_all(&["new", "st 30", "go"]);
    std::thread::sleep(Duration::from_millis(200));
    // Without `?` the move would come after 30 s, past the hang guard.
    e.send("?");
    engine_move(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);

    // Nonsense values are survived.
    for cmd in ["level 40 5 inf", "level x y z", "level 40 99999999999999999999 1e300", "st inf", "st 1e300", "st -3"] {
        e.send(cmd);
    }
    e.send_all(&["time 99999999999999999999", "otim 18446744073709551615", "sd 0", "new"]);
    assert!(e.ping(5).is_empty());
    assert!(e.alive());
    e.quit(Some("quit"));
}

#[test]
fn illegal_usermoves_are_refused() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "force", "usermove e2e5", "usermove xyz", "usermove e7e5", "usermove", "usermove e2e4"]);
    assert_eq!(e.ping(1), ["Illegal move: e2e5", "Illegal move: xyz", "Illegal move: e7e5", "Illegal move: "]);
    // e2e4 was played: now e7e5 is fine and e2e4 is not.
    e.send_all(&["usermove e7e5", "usermove e2e4"]);
    assert_eq!(e.ping(2), ["Illegal move: e2e4"]);
    e.quit(Some("quit"));
}

#[test]
fn setboard_undo_and_remove() {
    let mut e = Engine::xboard();
    e.send_all(&[
        "new",
        "force",
        "usermove e2e4",
        "usermove e7e5",
        "remove",
        "usermove e7e5",
        "usermove d2d4",
        "undo",
        "usermove d7d5",
        "usermove c2c4",
    ]);
    assert_eq!(e.ping(1), ["Illegal move: e7e5", "Illegal move: d7d5"]);
    // Undo with nothing to undo is harmless.
    e.send_all(&["undo", "remove", "undo"]);
    assert!(e.ping(2).is_empty());

    e.send(&format!("setboard {MATE_IN_ONE}"));
    e.send_all(&["usermove e2e4", "usermove a1a7"]);
    assert_eq!(e.ping(3), ["Illegal move: e2e4"]);
    e.send("setboard not a fen");
    e.ping_says_one(4, "tellusererror Illegal position");

    // A gated FEN in its variant.
    e.send("variant alpaca");
    e.ping(5);
    e.send_all(&[
        "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@f] w KQkq - 0 1",
        "usermove g1f3",
        "sd 2",
        "go",
    ]);
    let gated = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@f] w KQkq - 0 1";
    engine_move(&mut e, &position_after(VariantId::Alpaca, Some(gated), &["g1f3"]), QUICK);
    e.quit(Some("quit"));
}

#[test]
fn game_ends_give_result_lines() {
    let mut e = Engine::xboard();
    // The engine mates.
    e.send_all(&["new", "force"]);
    e.send(&format!("setboard {MATE_IN_ONE}"));
    e.send_all(&["sd 3", "go"]);
    let lines = e.read_until(QUICK, |l| l.starts_with("1-0"));
    let n = lines.len();
    assert_eq!(lines[n - 2], "move a1a8");
    assert_eq!(lines[n - 1], "1-0 {White mates}");
    // Mate-in-one is reported as 100000 + 1 in the thinking output.
    assert_eq!(score_of(&lines[n - 3]), 100_001, "{lines:?}");
    assert!(e.ping(1).is_empty());

    // The engine is mated in one whatever it plays: -100000 - 1.
    e.send_all(&["new", "force"]);
    e.send(&format!("setboard {MATED_IN_ONE}"));
    e.send_all(&["sd 3", "go"]);
    let (thinking, _) = engine_move(&mut e, &fen::parse(VariantId::Chess, MATED_IN_ONE).unwrap(), QUICK);
    assert_eq!(score_of(thinking.last().unwrap()), -100_001, "{thinking:?}");
    // The user mates: the result follows the move.
    e.send_all(&["force", "usermove h1h8"]);
    assert_eq!(e.ping(2), ["1-0 {White mates}"]);

    // Black mates by the user's move (fool's mate).
    e.send_all(&["new", "force"]);
    for m in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        e.send(&format!("usermove {m}"));
    }
    assert_eq!(e.ping(3), ["0-1 {Black mates}"]);

    // Stalemate by the user's move.
    e.send_all(&["new", "force", "setboard 7k/8/6K1/8/8/8/8/5Q2 w - - 0 1", "usermove f1f7"]);
    assert_eq!(e.ping(4), ["1/2-1/2 {stalemate, draw}"]);

    // Asked to move in a lost position: only the result.
    e.send_all(&["new", "force"]);
    e.send(&format!("setboard {CHECKMATED}"));
    e.send("go");
    let lines = e.read_until(QUICK, |l| l.starts_with("1-0"));
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "1-0 {White mates}");

    // Camel and Rhino Chess: a takeover of the last Camel or Rhino loses.
    e.send_all(&["new", "variant camel-rhino"]);
    e.ping(5);
    e.send_all(&["force", "setboard 4k5/10/10/10/10/10/10/3h6/2C7/4K5 w - - 0 1", "usermove c2d3"]);
    assert_eq!(e.ping(6), ["1-0 {Black has no Camel or Rhino}"]);
    e.quit(Some("quit"));
}

/// Skips to the first depth-1 thinking line and checks the new analysis up
/// to depth 3 against `pos`.
fn restarted(e: &mut Engine, pos: &AnyPosition) -> Vec<String> {
    e.read_until(QUICK, |l| l.starts_with("1 "));
    let lines = e.read_until(QUICK, |l| l.starts_with("3 "));
    for l in &lines {
        check_thinking(e, pos, l);
    }
    lines
}

#[test]
fn analyze_follows_the_board_until_exit() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "force", "post", "usermove e2e4", "analyze"]);
    let after_e4 = position_after(VariantId::Chess, None, &["e2e4"]);
    let lines = e.read_until(QUICK, |l| l.starts_with("4 "));
    for l in &lines {
        check_thinking(&mut e, &after_e4, l);
    }
    // ping is answered at once and the analysis goes on.
    e.send("ping 1");
    let mut lines = e.read_until(QUICK, |l| l == "pong 1");
    lines.pop();
    let after = e.collect_for(Duration::from_millis(300));
    assert!(!after.is_empty(), "analysis stopped at ping");
    lines.extend(after);
    for l in &lines {
        check_thinking(&mut e, &after_e4, l);
    }

    // A move, an undo and a new board: each restarts the analysis (the old
    // one was deeper than 1 by now, so its lines end at the first depth-1 line).
    e.send("usermove e7e5");
    let after_e5 = position_after(VariantId::Chess, None, &["e2e4", "e7e5"]);
    restarted(&mut e, &after_e5);
    e.send("undo");
    restarted(&mut e, &after_e4);
    e.send(&format!("setboard {MATE_IN_ONE}"));
    let lines = restarted(&mut e, &fen::parse(VariantId::Chess, MATE_IN_ONE).unwrap());
    assert_eq!(score_of(lines.last().unwrap()), 100_001);
    e.send_all(&[".", "exit"]);
    let lines = e.ping(2);
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    // Nothing after exit.
    assert!(e.collect_for(Duration::from_millis(300)).is_empty());
    e.quit(Some("quit"));
}

#[test]
fn variant_games_over_xboard() {
    let mut e = Engine::xboard();
    // Camel and Rhino Chess: on ten ranks XBoard numbers them from 0, both
    // ways (XBoard's a2a3 is a3a4).
    e.send_all(&["new", "variant camel-rhino"]);
    e.ping(10);
    e.send_all(&["sd 2", "usermove a2a3"]);
    let pos = position_after(VariantId::CamelRhino, None, &["a3a4"]);
    let mut lines = e.read_until_prefix("move ", QUICK);
    let reply = from_rank0(&lines.pop().unwrap()["move ".len()..]);
    for l in &lines {
        let pv: Vec<String> = l.split_whitespace().skip(4).map(from_rank0).collect();
        let mut p = pos;
        for m in &pv {
            p = p.play(legal(&p, m).unwrap_or_else(|err| e.fail(&format!("pv of '{l}': {err}")))).unwrap();
        }
    }
    let pos = pos.play(legal(&pos, &reply).unwrap_or_else(|err| e.fail(&err))).unwrap();
    e.send_all(&["force", "usermove a0a2", "usermove j9j8", "usermove j8j6"]);
    assert_eq!(e.ping(1), ["Illegal move: j8j6"]);
    let pos = pos.play(legal(&pos, "a1a3").unwrap()).unwrap();
    let pos = pos.play(legal(&pos, "j10j9").unwrap()).unwrap();
    e.send_all(&["usermove a2a0", "go"]);
    let mut lines = e.read_until_prefix("move ", QUICK);
    let reply = from_rank0(&lines.pop().unwrap()["move ".len()..]);
    legal(&pos.play(legal(&pos, "a3a1").unwrap()).unwrap(), &reply).unwrap_or_else(|err| e.fail(&err));

    // Alpaca prelude as XBoard moves: White's accept-and-place on g is the
    // pawn's visit g2-g3-g2 (as XBoard 4.9 relays it: g2g3,g3g2; the
    // knight's g1g3,g3g1 is read too); the engine (Black) places with a
    // pawn's visit.
    e.send_all(&["new", "variant alpaca", "sd 2", "usermove g2g3,g3g2"]);
    let mut lines = e.read_until_prefix("move ", QUICK);
    let placed = lines.pop().unwrap()["move ".len()..].to_string();
    assert!(
        lines.iter().all(|l| l.starts_with("setup") || l.starts_with("piece") || l.split_whitespace().count() >= 5),
        "{lines:?}"
    );
    let b = placed.as_bytes();
    assert!(
        placed.len() == 7 && b[1] == b'7' && b[3] == b'6' && b[4] == b'-' && placed[..2] == placed[5..],
        "{placed}"
    );
    let files: String = {
        let mut f = vec![b[0] as char, b[2] as char];
        f.sort();
        f.dedup();
        f.into_iter().collect()
    };
    let pos = position_after(VariantId::Alpaca, None, &["accept", "A@g", &format!("A@{files}")]);
    // The gating move carries the entering Alpaca (S-Chess style).
    e.send("usermove g1f3a");
    let pos = pos.play(legal(&pos, "g1f3").unwrap()).unwrap();
    engine_move(&mut e, &pos, QUICK);

    // Declining is a pass (@@@@); XBoard then sends the position after it
    // (here exactly as XBoard 4.9 writes it: holdings and S-Chess castling
    // field; the bracketless form is read too), and the engine to move
    // (here Black) plays.
    e.send_all(&["new", "variant alpaca", "sd 2", "force"]);
    for board in ["RNBQKBNR[Aa] b KGFDCBQkgfdcbq - 0 1", "RNBQKBNR b KQkq - 0 1"] {
        e.send("force");
        e.send(&format!("setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/{board}"));
        e.send("go");
        let lines = e.read_until_prefix("move ", QUICK);
        let answer = &lines.last().unwrap()["move ".len()..];
        // Black's accept is a visit of its h-pawn (no back-rank piece moves:
        // XBoard would revoke its castling and gating rights).
        assert!(answer == "@@@@" || answer == "h7h6-h7", "{answer}");
    }
    // The user (White) declines by a pass, then Black declines: orthodox chess.
    e.send_all(&["new", "variant alpaca", "force", "usermove @@@@", "usermove @@@@", "usermove @@@@", "usermove e2e4"]);
    let said: Vec<String> =
        e.ping(2).into_iter().filter(|l| !l.starts_with("setup") && !l.starts_with("piece")).collect();
    assert_eq!(said, ["Illegal move: @@@@"]);
    e.quit(Some("quit"));
}

/// A move in XBoard's ten-rank notation (ranks from 0) in Menagerie's.
fn from_rank0(text: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            out.push_str(&(digits.parse::<u32>().unwrap() + 1).to_string());
            digits.clear();
        }
        if c != ' ' {
            out.push(c);
        }
    }
    out
}

#[test]
fn new_discards_a_running_search() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "st 5", "go"]);
    std::thread::sleep(Duration::from_millis(100));
    e.send("new");
    let lines = e.ping(1);
    assert!(!lines.iter().any(|l| l.starts_with("move")), "{lines:?}");
    // The new game starts clean: the engine plays Black after e2e4.
    e.send_all(&["sd 2", "usermove e2e4"]);
    engine_move(&mut e, &position_after(VariantId::Chess, None, &["e2e4"]), QUICK);

    // Oversized hash is refused, not fatal.
    e.send("memory 65536");
    let said = e.ping(2);
    assert!(said.iter().all(|l| l.starts_with("telluser")), "{said:?}");
    e.send_all(&["cores 2", "new", "sd 4", "go"]);
    engine_move(&mut e, &AnyPosition::start(VariantId::Chess), QUICK);
    // End of input ends the engine cleanly.
    e.quit(None);
}

/// `variant fischerandom` is Chess960: no setup needed, castling written
/// O-O/O-O-O by the engine, and read as O-O-O, king-takes-rook or
/// king-to-square from XBoard.
#[test]
fn fischerandom_over_xboard() {
    const FRC_MATE: &str = "2rkr3/2p1p3/8/8/8/8/8/RK6 w Q - 0 1";
    let mut e = Engine::xboard();
    e.send_all(&["new", "variant fischerandom"]);
    assert!(e.ping(1).is_empty(), "XBoard knows fischerandom");
    e.send("force");
    e.send(&format!("setboard {FRC_MATE}"));
    e.send_all(&["sd 3", "go"]);
    let lines = e.read_until_prefix("move ", QUICK);
    assert_eq!(lines.last().unwrap(), "move O-O-O");
    assert_eq!(e.ping(2), ["1-0 {White mates}"]);
    // From XBoard: O-O-O, king-takes-rook, or king-to-square when that is
    // not an ordinary king move (here b1c1 is one: the king steps, no mate).
    for (i, (mv, mates)) in [("O-O-O", true), ("b1a1", true), ("b1c1", false)].into_iter().enumerate() {
        e.send_all(&["new", "variant fischerandom", "force", "setboard 2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1"]);
        e.send(&format!("usermove {mv}"));
        let lines = e.ping(3 + i as u32);
        let want: &[&str] = if mates { &["1-0 {White mates}"] } else { &[] };
        assert_eq!(lines, want, "{mv}");
    }
    let pos = position_after(VariantId::Chess960, Some(FRC_MATE), &["b1a1"]);
    assert!(pos.outcome().is_some(), "O-O-O mates");
    e.quit(Some("quit"));
}

/// XBoard 4.9 writes a FEN without a castling field on a board without
/// castling: the engine reads it (no error popup at the start of every
/// Camel and Rhino game) and plays from it.
#[test]
fn xboards_own_camel_rhino_fen_is_read() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "variant camel-rhino"]);
    e.ping(1);
    e.send_all(&[
        "force",
        "setboard r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - 0 1",
        "usermove e3e4",
    ]);
    assert!(e.ping(2).is_empty());
    e.send_all(&["setboard r8r/1hzbqkbnc1/pppp2pppp/5w4/4w5/10/3W1W4/PPPP2PPPP/1HZBQKBNC1/R8R b - 2 2", "sd 2", "go"]);
    // Black's move, ranks counted from 0 as XBoard does on ten ranks.
    let lines = e.read_until_prefix("move ", QUICK);
    assert!(lines.iter().all(|l| !l.contains("Illegal position")), "{lines:?}");
    let after = "r8r/1hzbqkbnc1/pppp2pppp/5w4/4w5/10/3W1W4/PPPP2PPPP/1HZBQKBNC1/R8R b - - 2 2";
    let pos = fen::parse(VariantId::CamelRhino, after).unwrap();
    let text = lines.last().unwrap().trim_start_matches("move ").to_string();
    assert!(menagerie_notation::xboard::from_xboard(&pos, &text).is_some(), "{text}");
    e.quit(Some("quit"));
}

// ------------------------------------------- XBoard's drop and Asian games

/// The built-in data variant `name` at `fen` (its start without).
fn data_position(name: &str, fen: Option<&str>) -> menagerie_rules::Position {
    let def = menagerie_rules::Definitions::builtin().get(name).unwrap().clone();
    match fen {
        Some(f) => menagerie_rules::Position::from_fen(&def, f).unwrap(),
        None => menagerie_rules::Position::start(&def),
    }
}

/// Reads up to the engine's `move` and returns it, checked legal in `pos`
/// (after `to_ours`, which turns XBoard's notation into Menagerie's).
fn data_engine_move(
    e: &mut Engine,
    pos: &menagerie_rules::Position,
    to_ours: fn(&str) -> String,
) -> menagerie_rules::Move {
    let mut lines = e.read_until_prefix("move ", Duration::from_secs(60));
    let text = to_ours(&lines.pop().unwrap()["move ".len()..]);
    pos.parse_move(&text).unwrap_or_else(|err| e.fail(&format!("engine move {text}: {err} in {}", pos.fen())))
}

/// Crazyhouse under XBoard's name: the user's drop (`P@e6`) is played, the
/// engine answers legally, `holding` replaces both hands or adds the piece
/// one side gained, and bad holdings get an error line.
#[test]
fn crazyhouse_drops_and_holdings() {
    let mut e = Engine::xboard_forced("crazyhouse");
    assert!(e.ping(1).is_empty(), "XBoard knows crazyhouse: no setup");
    let mut pos = data_position("crazyhouse", None);
    for m in ["e2e4", "d7d5", "e4d5", "g8f6"] {
        e.send(&format!("usermove {m}"));
        pos = pos.play(pos.parse_move(m).unwrap());
    }
    // White captured a pawn: it drops it, and the engine (Black) answers.
    e.send_all(&["sd 3", "playother", "usermove P@e6"]);
    pos = pos.play(pos.parse_move("P@e6").unwrap());
    let reply = data_engine_move(&mut e, &pos, str::to_string);
    assert!(e.ping(2).is_empty());
    pos = pos.play(reply);
    // `holding` sets both hands (here White's queen, Black's two pawns) ...
    e.send_all(&["force", "holding [Q] [PP]"]);
    assert!(e.ping(3).is_empty());
    // The position with these hands, by the rules.
    let with_hand = |pos: &menagerie_rules::Position, hand: &str| {
        let fen = pos.fen();
        let (board, rest) = fen.split_once('[').unwrap();
        data_position("crazyhouse", Some(&format!("{board}[{hand}]{}", rest.split_once(']').unwrap().1)))
    };
    let texts = |pos: &menagerie_rules::Position| -> Vec<String> {
        pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect()
    };
    let pos = with_hand(&pos, "Qpp");
    let queen = texts(&pos).into_iter().find(|t| t.starts_with("Q@")).unwrap();
    e.send(&format!("usermove {queen}"));
    assert!(e.ping(4).is_empty(), "{queen} from White's new holdings");
    let pos = pos.play(pos.parse_move(&queen).unwrap());
    // ... or adds the piece one side gained to the hands played (the
    // lists, which may lag behind, are then not used).
    e.send("holding [] [PPNN] BN");
    let pos = with_hand(&pos, "ppn");
    let knight = texts(&pos).into_iter().find(|t| t.starts_with("N@")).unwrap();
    e.send(&format!("usermove {knight}"));
    assert!(e.ping(5).is_empty(), "{knight} from Black's hand");
    let pos = pos.play(pos.parse_move(&knight).unwrap());
    let white = texts(&pos).into_iter().next().unwrap();
    e.send(&format!("usermove {white}"));
    let pos = pos.play(pos.parse_move(&white).unwrap());
    let again = texts(&pos).into_iter().find(|t| t.starts_with("P@")).unwrap().replace("P@", "N@");
    e.send(&format!("usermove {again}"));
    assert_eq!(e.ping(6), [format!("Illegal move: {again}")], "one knight only");
    for bad in ["holding", "holding [Q]", "holding [Q] [p] XQ", "holding [Q1] []"] {
        e.send(bad);
        let said = e.ping(7);
        assert!(said.len() == 1 && said[0].starts_with("Error (bad holdings): "), "{bad}: {said:?}");
    }
    // In a variant without hands.
    e.send_all(&["new", "holding [Q] []"]);
    e.ping_says_one(8, "Error (bad holdings): chess has no holdings");
    e.quit(Some("quit"));
}

/// `setboard` with XBoard's crazyhouse FEN: pockets (`[Pp]`, `-` for none,
/// `~` after a promoted piece); a drop from them and the engine's reply.
#[test]
fn crazyhouse_setboard_with_pockets() {
    let mut e = Engine::xboard_forced("crazyhouse");
    let fen = "rnbqkbnr/ppp1pppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pp] w KQkq - 0 1";
    e.send_all(&[&format!("setboard {fen}"), "usermove P@d5"]);
    assert!(e.ping(1).is_empty());
    let pos = data_position("crazyhouse", Some(fen));
    let pos = pos.play(pos.parse_move("P@d5").unwrap());
    e.send_all(&["sd 3", "go"]);
    let reply = data_engine_move(&mut e, &pos, str::to_string);
    assert!(e.ping(2).is_empty());
    let _ = pos.play(reply);
    // Empty pockets as XBoard writes them, and a promoted queen.
    e.send_all(&["force", "setboard 4k3/8/8/8/8/8/8/Q~3K3[-] b - - 0 1"]);
    assert!(e.ping(3).is_empty());
    e.send("setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pz] w KQkq - 0 1");
    e.ping_says_one(4, "tellusererror Illegal position");
    e.quit(Some("quit"));
}

/// Shogi under XBoard's name: coordinates `a`-`i` and `1`-`9` from Sente's
/// side, promotion `+`, a deferral written `=` by XBoard, drops; XBoard's
/// FEN (`+B`, `[-]`, no castling field).
#[test]
fn shogi_promotions_drops_and_fen() {
    let mut e = Engine::xboard_forced("shogi");
    assert!(e.ping(1).is_empty(), "XBoard knows shogi: no setup");
    let mut pos = data_position("shogi", None);
    // Bishop takes bishop and promotes; silver takes the horse.
    for (sent, ours) in [("c3c4", "c3c4"), ("g7g6", "g7g6"), ("b2h8+", "b2h8+"), ("g9h8", "g9h8")] {
        e.send(&format!("usermove {sent}"));
        pos = pos.play(pos.parse_move(ours).unwrap());
    }
    assert!(e.ping(2).is_empty());
    e.send_all(&["sd 3", "usermove B@e5", "go"]);
    pos = pos.play(pos.parse_move("B@e5").unwrap());
    let reply = data_engine_move(&mut e, &pos, str::to_string);
    assert!(e.ping(3).is_empty());
    let _ = pos.play(reply);
    // A deferred promotion, as XBoard sends it, from its FEN.
    let fen = "lnsgkgsnl/1r5b1/pppppp1pp/6P2/9/9/PPPPPP1PP/1B5R1/LNSGKGSNL[Pp] w 0 1";
    e.send_all(&["force", &format!("setboard {fen}"), "usermove g6g7="]);
    assert!(e.ping(4).is_empty(), "g6g7= defers");
    let p = data_position("shogi", Some(fen));
    let deferred = p.play(p.parse_move("g6g7").unwrap());
    e.send_all(&["go"]);
    let reply = data_engine_move(&mut e, &deferred, str::to_string);
    assert!(e.ping(5).is_empty());
    let _ = deferred.play(reply);
    e.quit(Some("quit"));
}

/// Xiangqi under XBoard's name: ranks from 0, and XBoard's FEN letters
/// (`H` horse, `E` elephant) in `setboard`.
#[test]
fn xiangqi_ranks_from_zero_and_xboard_letters() {
    let mut e = Engine::xboard_forced("xiangqi");
    assert!(e.ping(1).is_empty(), "XBoard knows xiangqi: no setup");
    let fen = "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w 0 1";
    e.send_all(&[&format!("setboard {fen}"), "usermove h2e2", "sd 3", "go"]);
    let pos = data_position("xiangqi", None);
    let pos = pos.play(pos.parse_move("h3e3").unwrap());
    let reply = data_engine_move(&mut e, &pos, from_rank0);
    assert!(e.ping(2).is_empty());
    let _ = pos.play(reply);
    e.quit(Some("quit"));
}
