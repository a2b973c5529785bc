#![allow(clippy::unwrap_used)]
//! The variants defined as data (Fairy-Stockfish `variants.ini`) over UCI
//! and XBoard, against the built `menagerie-uci` binary; every move the
//! engine prints is checked with `menagerie_rules`.

mod common;

use common::{Engine, QUICK, field, pv_of};
use menagerie_rules::{Definitions, Game, Position};
use std::time::Duration;

/// `tests/variants/example.ini` of the repository (centaurs, cannons).
const EXAMPLE_INI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/variants/example.ini");

fn start(variant: &str) -> Position {
    Position::start(Definitions::builtin().get(variant).unwrap())
}

/// The position `fen` of the built-in `variant`.
fn position(variant: &str, fen: &str) -> Position {
    Position::from_fen(Definitions::builtin().get(variant).unwrap(), fen).unwrap()
}

/// A UCI search of `variant` from `fen` with the limits `go` (e.g.
/// `depth 4`): sends it and returns the position searched.
fn uci_go(e: &mut Engine, variant: &str, fen: &str, go: &str) -> Position {
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send(&format!("position fen {fen}"));
    e.send(&format!("go {go}"));
    position(variant, fen)
}

/// Plays `moves` moves of an XBoard game, engine to move second: the user
/// plays its first legal move, the engine answers with a legal move; ends
/// early when the game is over.
fn xboard_exchanges(e: &mut Engine, game: &mut Game, moves: usize) {
    for _ in 0..moves {
        let pos = game.current().clone();
        let ours = pos.legal_moves()[0];
        e.send(&format!("usermove {}", pos.move_text(ours)));
        game.play(ours);
        let pos = game.current().clone();
        let theirs = xboard_move(e, &pos);
        game.play(theirs);
        if game.outcome().is_some() {
            break;
        }
    }
}

/// The legal move written `text` in `pos` (exactly as the rules write it).
fn legal(e: &mut Engine, pos: &Position, text: &str, what: &str) -> menagerie_rules::Move {
    pos.parse_move(text).unwrap_or_else(|err| e.fail(&format!("{what}: {err} (in {})", pos.fen())))
}

/// Reads a search's output up to `bestmove`: checks every info line's pv
/// and the bestmove and ponder moves; returns the bestmove's text.
fn uci_search(e: &mut Engine, pos: &Position) -> String {
    let mut lines = e.read_until_prefix("bestmove", Duration::from_secs(60));
    let last = lines.pop().unwrap();
    for info in lines.iter().filter(|l| l.starts_with("info depth")) {
        for key in ["depth", "seldepth", "multipv", "score", "nodes", "nps", "time", "pv"] {
            assert!(field(info, key).is_some(), "'{key}' missing in {info}");
        }
        let mut p = pos.clone();
        for m in pv_of(info) {
            let mv = legal(e, &p, m, &format!("pv of {info}"));
            p = p.play(mv);
        }
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    let best = words[1].to_string();
    if best == "(none)" {
        return best;
    }
    let m = legal(e, pos, &best, "bestmove");
    if words.get(2) == Some(&"ponder") {
        let after = pos.play(m);
        legal(e, &after, words[3], "ponder");
    }
    best
}

/// Plays a game of `variant` over UCI from the start, the engine choosing
/// both sides' moves (`go` with `limits[ply % len]`, the whole game sent
/// with `position startpos moves ...` each time), until the game ends by
/// its rules or `max_plies`; returns the game.
fn uci_game(variant: &str, limits: &[&str], max_plies: usize) -> Game {
    let mut e = Engine::uci();
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send("ucinewgame");
    assert!(e.sync().is_empty());
    let mut game = Game::new(start(variant));
    let mut texts: Vec<String> = Vec::new();
    for ply in 0..max_plies {
        if game.outcome().is_some() || game.claimable().is_some() {
            break;
        }
        if texts.is_empty() {
            e.send("position startpos");
        } else {
            e.send(&format!("position startpos moves {}", texts.join(" ")));
        }
        e.send(&format!("go {}", limits[ply % limits.len()]));
        let pos = game.current().clone();
        let best = uci_search(&mut e, &pos);
        assert_ne!(best, "(none)", "the game goes on in {}", pos.fen());
        let m = legal(&mut e, &pos, &best, "bestmove");
        game.play(m);
        texts.push(best);
    }
    // At the end of the game by checkmate, stalemate or extinction the
    // engine has no move to give.
    if game.outcome().is_some() {
        e.send(&format!("position startpos moves {}", texts.join(" ")));
        e.send("go depth 3");
        assert_eq!(uci_search(&mut e, &game.current().clone()), "(none)");
    }
    e.quit(Some("quit"));
    game
}

#[test]
fn uci_plays_a_game_of_capablanca() {
    let game = uci_game("capablanca", &["depth 3", "nodes 4000"], 400);
    // The game is played out: by the rules (checkmate, stalemate, or the
    // draws of the 50-move rule and repetition) before the cap.
    assert!(game.outcome().is_some() || game.claimable().is_some(), "{} plies", game.moves().len());
}

#[test]
fn uci_plays_a_game_of_makruk() {
    let game = uci_game("makruk", &["nodes 3000", "depth 3"], 400);
    // Makruk's counting rules end even a game that neither side can win.
    assert!(game.outcome().is_some() || game.claimable().is_some(), "{} plies", game.moves().len());
}

#[test]
fn uci_mates_and_reports_mate_scores_in_a_data_variant() {
    let mut e = Engine::uci();
    // White mates with Ra8 (the rook covers the whole back rank).
    let pos = uci_go(&mut e, "capablanca", "6k3/5ppp2/10/10/10/10/10/R5K3 w - - 0 1", "depth 4");
    let mut lines = e.read_until_prefix("bestmove", QUICK);
    let last = lines.pop().unwrap();
    assert_eq!(last.split_whitespace().nth(1), Some("a1a8"), "{lines:?}");
    let deepest = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(deepest.contains("score mate 1"), "{deepest}");
    assert_eq!(
        pos.play(pos.parse_move("a1a8").unwrap()).outcome().map(|o| o.reason),
        Some(menagerie_rules::EndReason::Checkmate)
    );
    e.quit(Some("quit"));
}

#[test]
fn uci_limits_and_options_in_a_data_variant() {
    let mut e = Engine::uci();
    e.send_all(&[
        "setoption name UCI_Variant value janus",
        "setoption name MultiPV value 3",
        "setoption name Threads value 2",
        "setoption name Hash value 8",
    ]);
    assert!(e.sync().is_empty());
    e.send("position startpos moves e2e4 e7e5");
    let pos = {
        let p = start("janus");
        let p = p.play(p.parse_move("e2e4").unwrap());
        p.play(p.parse_move("e7e5").unwrap())
    };
    e.send("go depth 3");
    let mut lines = e.read_until_prefix("bestmove", QUICK);
    lines.pop();
    for k in 1..=3 {
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 3 ") && field(l, "multipv") == Some(&k.to_string())),
            "multipv {k}: {lines:?}"
        );
    }
    e.send_all(&["setoption name MultiPV value 1", "setoption name Threads value 1"]);
    // Clock limits end the search in time.
    e.send("go wtime 2000 btime 2000 winc 10 binc 10 movestogo 20");
    uci_search(&mut e, &pos);
    e.send("go movetime 200");
    uci_search(&mut e, &pos);
    // searchmoves keeps the search to the moves given.
    e.send("go depth 3 searchmoves a2a3 b1c3");
    let best = uci_search(&mut e, &pos);
    assert!(best == "a2a3" || best == "b1c3", "{best}");
    // Infinite search answers only after stop.
    e.send("go infinite");
    assert!(e.collect_for(Duration::from_millis(300)).iter().all(|l| !l.starts_with("bestmove")));
    e.send("stop");
    uci_search(&mut e, &pos);
    // Pondering searches until ponderhit, then with the clock limits.
    e.send("go ponder wtime 1000 btime 1000");
    assert!(e.collect_for(Duration::from_millis(300)).iter().all(|l| !l.starts_with("bestmove")));
    e.send("ponderhit");
    uci_search(&mut e, &pos);
    // Bad input is reported; the game stays as it was.
    for (cmd, expect) in [
        ("position fen 10/10 w", "info string error: "),
        ("position startpos moves e2e4 e2e4", "info string error: move 2 ('e2e4'): "),
    ] {
        e.send(cmd);
        let lines = e.sync();
        assert!(lines.iter().any(|l| l.starts_with(expect)), "{cmd}: {lines:?}");
    }
    e.send("go depth 1 searchmoves z9z9");
    let lines = e.read_until_prefix("bestmove", QUICK);
    assert!(lines[0].starts_with("info string searchmoves: ignoring 'z9z9'"), "{lines:?}");
    e.send("d");
    let lines = e.sync();
    assert_eq!(lines[0], format!("info string fen {}", pos.fen()));
    // Strength limits work for data variants too.
    e.send_all(&["setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 1200", "go depth 4"]);
    uci_search(&mut e, &pos);
    // Perft and `d` speak the variant's notation.
    e.send("go perft 1");
    let lines = e.read_until_prefix("Nodes searched", QUICK);
    assert_eq!(lines.last().unwrap(), &format!("Nodes searched: {}", pos.perft(1)));
    e.quit(Some("quit"));
}

#[test]
fn uci_gating_moves_of_seirawan() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name UCI_Variant value seirawan", "position startpos moves e2e4 e7e5 g1f3h"]);
    let pos = {
        let mut p = start("seirawan");
        for t in ["e2e4", "e7e5", "g1f3h"] {
            p = p.play(p.parse_move(t).unwrap());
        }
        p
    };
    e.send("d");
    let lines = e.sync();
    assert_eq!(lines[0], format!("info string fen {}", pos.fen()));
    e.send("go depth 3");
    uci_search(&mut e, &pos);
    e.quit(Some("quit"));
}

/// The score of the last info line before `bestmove`, and the bestmove.
fn score_and_move(e: &mut Engine) -> (String, String) {
    let mut lines = e.read_until_prefix("bestmove", QUICK);
    let last = lines.pop().unwrap();
    let deepest = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    let score = deepest.split(" score ").nth(1).unwrap().split(" nodes").next().unwrap().to_string();
    (score, last.split_whitespace().nth(1).unwrap().to_string())
}

#[test]
fn the_game_history_counts_for_repetition() {
    // After these moves Black's d7b8 brings the start position back for
    // the third time: a draw by Makruk's three-fold repetition, which the
    // engine sees only from the game's history.
    let shuffle = "b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1";
    let mut game = Game::new(start("makruk"));
    for t in shuffle.split(' ') {
        let m = game.current().parse_move(t).unwrap();
        game.play(m);
    }
    let mut after = game.clone();
    after.play(game.current().parse_move("d7b8").unwrap());
    assert_eq!(after.claimable().map(|o| o.reason), Some(menagerie_rules::EndReason::Repetition));
    let mut e = Engine::uci();
    e.send("setoption name UCI_Variant value makruk");
    e.send(&format!("position startpos moves {shuffle}"));
    e.send("d");
    let lines = e.sync();
    assert_eq!(lines[0], format!("info string fen {}", game.current().fen()));
    e.send("go depth 4 searchmoves d7b8");
    let (score, best) = score_and_move(&mut e);
    assert_eq!((score.as_str(), best.as_str()), ("cp 0", "d7b8"));
    // From the same position without its history the move is no draw.
    e.send(&format!("position fen {}", game.current().fen()));
    e.send("go depth 4 searchmoves d7b8");
    let (alone, _) = score_and_move(&mut e);
    e.quit(Some("quit"));
    assert_ne!(alone, "cp 0", "the test cannot tell the two apart");
}

#[test]
fn variant_path_loads_variants_and_announces_them() {
    let mut e = Engine::uci();
    e.send(&format!("setoption name VariantPath value {EXAMPLE_INI}"));
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.starts_with("info string loaded 2 variant(s)") && l.contains("centaurs, cannons")),
        "{lines:?}"
    );
    let combo = lines.iter().find(|l| l.starts_with("option name UCI_Variant type combo")).unwrap();
    for name in ["chess", "capablanca", "centaurs", "cannons"] {
        assert!(combo.split(" var ").any(|v| v == name), "{name} missing: {combo}");
    }
    e.send_all(&["setoption name UCI_Variant value centaurs", "position startpos", "go depth 4"]);
    let mut defs = Definitions::builtin();
    defs.load(&std::fs::read_to_string(EXAMPLE_INI).unwrap(), "example.ini").unwrap();
    let pos = Position::start(defs.get("centaurs").unwrap());
    uci_search(&mut e, &pos);
    e.send_all(&["setoption name UCI_Variant value cannons", "position startpos moves e2e4", "go nodes 5000"]);
    let p = Position::start(defs.get("cannons").unwrap());
    let pos = p.play(p.parse_move("e2e4").unwrap());
    uci_search(&mut e, &pos);
    e.quit(Some("quit"));
}

/// A variants file with an unknown key on line 4.
fn bad_ini() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("menagerie-uci-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.ini");
    std::fs::write(&path, "# a bad file\n[bad:chess]\nmaxFile = 9\nnoSuchKey = 1\n").unwrap();
    path
}

#[test]
fn a_bad_variant_path_is_reported_and_the_engine_goes_on() {
    let bad = bad_ini();
    let mut e = Engine::uci();
    e.send(&format!("setoption name VariantPath value {}", bad.display()));
    let lines = e.sync();
    // Leniently (the default) the section is skipped with a warning naming
    // the file, line and key; the rest of the file would load.
    let l = &lines[0];
    assert!(l.starts_with("info string warning: VariantPath: ") && l.contains("variant 'bad' skipped"), "{l}");
    assert!(l.contains(&format!("{}:4:", bad.display())) && l.contains("noSuchKey"), "{l}");
    let loaded = lines.iter().find(|l| l.starts_with("info string loaded 0 variant(s)")).expect("a summary line");
    assert_eq!(*loaded, format!("info string loaded 0 variant(s) from {} (1 skipped)", bad.display()));
    // StrictVariants makes it an error.
    e.send("setoption name StrictVariants value true");
    e.send(&format!("setoption name VariantPath value {}", bad.display()));
    let lines = e.sync();
    assert_eq!(lines.len(), 1, "{lines:?}");
    let l = &lines[0];
    assert!(l.starts_with("info string error: VariantPath: "), "{l}");
    assert!(l.contains(&format!("{}:4:", bad.display())) && l.contains("noSuchKey"), "{l}");
    e.send("setoption name VariantPath value /no/such/file.ini");
    let lines = e.sync();
    assert!(
        lines[0].starts_with("info string error: VariantPath: cannot read variants file /no/such/file.ini"),
        "{lines:?}"
    );
    // Nothing was added; the engine still plays.
    e.send("setoption name UCI_Variant value bad");
    let lines = e.sync();
    assert!(lines[0].starts_with("info string unknown variant 'bad'"), "{lines:?}");
    e.send_all(&["setoption name UCI_Variant value shatranj", "position startpos", "go depth 3"]);
    uci_search(&mut e, &start("shatranj"));
    // Several files, separated as in PATH: each is loaded or reported.
    e.send(&format!("setoption name VariantPath value {EXAMPLE_INI}:{}", bad.display()));
    let lines = e.sync();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with("info string loaded 2 variant(s)"), "{lines:?}");
    assert!(lines[1].starts_with("info string error: VariantPath: ") && lines[1].contains("noSuchKey"), "{lines:?}");
    assert!(
        lines[2].starts_with("option name UCI_Variant type combo") && lines[2].contains(" var centaurs"),
        "{lines:?}"
    );
    e.quit(Some("quit"));
}

#[test]
fn variants_flag_and_environment() {
    for (args, envs) in [(vec!["--variants", EXAMPLE_INI], vec![]), (vec![], vec![("MENAGERIE_VARIANTS", EXAMPLE_INI)])]
    {
        let mut e = Engine::start_with(&args, &envs);
        e.send("uci");
        let lines = e.read_until(QUICK, |l| l == "uciok");
        let combo = lines.iter().find(|l| l.starts_with("option name UCI_Variant")).unwrap();
        assert!(combo.split(" var ").any(|v| v == "centaurs"), "{combo}");
        e.send_all(&["setoption name UCI_Variant value centaurs", "position startpos", "go depth 2"]);
        let best = e.bestmove(QUICK).1;
        assert_ne!(best, "(none)");
        e.quit(Some("quit"));
    }
    // With --strict a bad file stops the engine at start-up, naming file,
    // line and key (without it the section is skipped with a warning).
    let bad = bad_ini();
    let mut e = Engine::start_with(&["--strict", "--variants", &bad.display().to_string()], &[]);
    let deadline = std::time::Instant::now() + QUICK;
    while e.alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    let stderr = e.stderr();
    assert!(stderr.contains(&format!("{}:4:", bad.display())) && stderr.contains("noSuchKey"), "{stderr}");
    let status = e.exit_status();
    assert!(!status.success(), "{status}");
}

// ---------------------------------------------------------------- XBoard

/// Reads up to the engine's `move`, checking its thinking lines' pvs and
/// the move in `pos`; returns the move.
fn xboard_move(e: &mut Engine, pos: &Position) -> menagerie_rules::Move {
    let mut lines = e.read_until_prefix("move ", Duration::from_secs(60));
    let text = lines.pop().unwrap()["move ".len()..].to_string();
    for l in &lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        assert!(w.len() >= 5 && w[..4].iter().all(|n| n.parse::<i64>().is_ok()), "not a thinking line: {l}");
        let mut p = pos.clone();
        for m in &w[4..] {
            let mv = legal(e, &p, m, &format!("pv of '{l}'"));
            p = p.play(mv);
        }
    }
    legal(e, pos, &text, "engine move")
}

#[test]
fn xboard_plays_capablanca() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "variant capablanca"]);
    assert!(e.ping(1).is_empty(), "XBoard knows capablanca: no setup");
    e.send_all(&["level 40 5 0", "sd 3", "time 30000", "otim 30000"]);
    let mut game = Game::new(start("capablanca"));
    // The user plays White, the engine Black.
    xboard_exchanges(&mut e, &mut game, 8);
    // The engine can also play White, and `st` limits its time.
    e.send_all(&["force", "st 1", "go"]);
    let pos = game.current().clone();
    let m = xboard_move(&mut e, &pos);
    game.play(m);
    assert!(e.ping(2).is_empty());
    e.quit(Some("quit"));
}

#[test]
fn xboard_announces_mate_in_capablanca() {
    let mut e = Engine::xboard();
    e.send_all(&[
        "new",
        "variant capablanca",
        "force",
        "setboard 6k3/5ppp2/10/10/10/10/10/R5K3 w - - 0 1",
        "sd 3",
        "go",
    ]);
    let lines = e.read_until_prefix("1-0", QUICK);
    assert!(lines.iter().any(|l| l == "move a1a8"), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "1-0 {White mates}");
    e.quit(Some("quit"));
}

#[test]
fn xboard_shatranj_stalemate_loses() {
    let mut e = Engine::xboard_forced("shatranj");
    // The fers steps c5-b6: Black's king and blocked pawn cannot move,
    // and in shatranj the stalemated side loses.
    let fen = "k7/2K5/8/1pQ5/1P6/8/8/8 w - - 0 1";
    let pos = position("shatranj", fen);
    pos.parse_move("c5b6").unwrap();
    e.send(&format!("setboard {fen}"));
    e.send("usermove c5b6");
    let lines = e.ping(1);
    assert_eq!(lines, ["1-0 {Stalemate}"]);
    // A usual game: the engine answers moves in shatranj's notation.
    e.send_all(&["new", "variant shatranj", "sd 2", "usermove e2e3"]);
    let p = start("shatranj");
    let p = p.play(p.parse_move("e2e3").unwrap());
    xboard_move(&mut e, &p);
    assert!(e.ping(2).is_empty());
    e.send("usermove e2e4");
    assert_eq!(e.ping(3), ["Illegal move: e2e4"]);
    e.quit(Some("quit"));
}

#[test]
fn xboard_seirawan_gating_undo_and_analyze() {
    let mut e = Engine::xboard();
    e.send_all(&["new", "variant seirawan", "force", "usermove e2e4", "usermove e7e5", "usermove g1f3h"]);
    assert!(e.ping(1).is_empty());
    e.send_all(&["undo", "usermove g1f3e"]);
    let mut p = start("seirawan");
    for t in ["e2e4", "e7e5", "g1f3e"] {
        p = p.play(p.parse_move(t).unwrap());
    }
    e.send("analyze");
    std::thread::sleep(Duration::from_millis(300));
    e.send("exit");
    let lines = e.ping(2);
    assert!(!lines.is_empty(), "analysis prints thinking lines");
    for l in &lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        let mut q = p.clone();
        for m in &w[4..] {
            let mv = legal(&mut e, &q, m, &format!("pv of '{l}'"));
            q = q.play(mv);
        }
    }
    e.send_all(&["sd 2", "go"]);
    xboard_move(&mut e, &p);
    e.quit(Some("quit"));
}

#[test]
fn xboard_describes_the_data_variants_it_does_not_know() {
    let mut e = Engine::xboard();
    // Built-in pieces on XBoard's pictures (Archbishop, Chancellor), others
    // on free slots, with their Betza movement; the board's size and start.
    for (i, (name, size, pieces)) in [
        ("amazon", "8x8", &["piece A& QN"][..]),
        ("chancellor", "9x9", &["piece C& RN"][..]),
        ("embassy", "10x8", &["piece A& BN", "piece C& RN"][..]),
        ("grasshopper", "8x8", &["piece G& gQ"][..]),
        ("nightrider", "8x8", &["piece N& NN"][..]),
        // Castling on the second rank, given to the king as XBoard's Betza
        // castling: two squares towards the rook one file in from the edge.
        ("shako", "10x10", &["piece E& FA", "piece C& mRcpR", "piece K& KijO2"][..]),
    ]
    .into_iter()
    .enumerate()
    {
        e.send("new");
        e.send(&format!("variant {name}"));
        let lines = e.ping(10 + i as u32);
        let def = Definitions::builtin().get(name).unwrap().clone();
        let setup = &lines[0];
        assert!(
            setup.starts_with("setup (P") && setup.ends_with(&format!(") {size}+0_fairy {}", def.start_fen)),
            "{setup}"
        );
        let table = &setup["setup (".len()..setup.find(')').unwrap()];
        assert_eq!(table.len(), 132, "{table}");
        assert_eq!(&table[65..66], "K");
        assert_eq!(&lines[1..], pieces, "{lines:?}");
    }
    // Not described: gating with Chess960 castling, and XBoard's own
    // Courier (another start position).
    for name in ["seirawan960", "courier"] {
        e.send("new");
        e.send(&format!("variant {name}"));
        let lines = e.ping(20);
        assert_eq!(lines, [format!("Error (unknown variant): {name}")]);
    }
    // Shako's castling as XBoard sends it (ranks from 0): the king's two
    // steps on the second rank bring the rook from i2 to g2, which can then
    // go down to g1.
    e.send_all(&[
        "new",
        "variant shako",
        "force",
        "setboard c8c/ernbqk2re/pppppppppp/10/10/10/10/PPPPPPPPPP/ERNBQK2RE/C8C w KQkq - 0 1",
    ]);
    for m in ["f1h1", "f8h8", "g1g0"] {
        e.send(&format!("usermove {m}"));
    }
    let lines = e.ping(21);
    assert!(lines.iter().all(|l| l.starts_with("setup") || l.starts_with("piece")), "{lines:?}");
    // A game of grasshopper: the engine's moves are legal.
    e.send_all(&["new", "variant grasshopper", "sd 2"]);
    assert_eq!(e.ping(30).len(), 2, "setup and piece");
    let mut game = Game::new(start("grasshopper"));
    xboard_exchanges(&mut e, &mut game, 4);
    e.quit(Some("quit"));
}

#[test]
fn uci_plays_flag_and_check_counting_games_to_their_end() {
    // The search sees a king on the hill, a king on the eighth rank and
    // the third check as the end of the game: every move it gives is
    // legal, and after the end it has none.
    for variant in ["racingkings", "3check"] {
        let game = uci_game(variant, &["nodes 2000", "depth 3"], 160);
        assert!(!game.moves().is_empty(), "{variant}");
    }
    // A king one step from the hill takes it: a mate in one.
    let mut e = Engine::uci();
    let pos = uci_go(&mut e, "kingofthehill", "k7/8/8/8/8/3K4/8/8 w - - 0 1", "depth 3");
    let best = uci_search(&mut e, &pos);
    let after = pos.play(legal(&mut e, &pos, &best, "bestmove"));
    let o = after.outcome().unwrap_or_else(|| e.fail(&format!("{best} does not reach the hill")));
    assert_eq!(o.to_string(), "flag, White wins");
    e.quit(Some("quit"));
}

#[test]
fn uci_plays_antichess_horde_and_atomic_legally() {
    // Forced captures, a side without a king, explosions: every move the
    // engine gives is legal, and after the end it has none.
    for variant in ["antichess", "horde", "atomic"] {
        let game = uci_game(variant, &["nodes 2000", "depth 3"], 120);
        assert!(!game.moves().is_empty(), "{variant}");
    }
    // Atomic: in check, Rxb7 blows up the black king and wins at once.
    let mut e = Engine::uci();
    let pos = uci_go(&mut e, "atomic", "1k6/Rb6/8/8/4q3/8/8/4K3 w - - 0 1", "depth 3");
    let best = uci_search(&mut e, &pos);
    assert_eq!(best, "a7b7");
    e.quit(Some("quit"));
}
