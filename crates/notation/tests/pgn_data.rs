//! PGN of variants defined as data (`menagerie_rules`): round trips of
//! random games with comments, NAGs and variations through the same
//! writer and reader as the compiled variants, the `Variant`, `SetUp` and
//! `FEN` tags, the caller's lookup of data variants, and errors.

mod common;

use menagerie_notation::MoveError;
use menagerie_notation::pgn::{
    self, AnyPgnGame, DataPgnGame, GameResult, PgnErrorKind, PgnGame, PgnMove, PgnReader, ReadOptions,
};
use menagerie_rules::{Definitions, Move, Position, VariantDef};
use menagerie_testkit::Rng;
use std::sync::{Arc, OnceLock};

/// The built-in definitions, loaded once: positions of a variant are equal
/// only with the same definition.
fn defs() -> &'static Definitions {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(Definitions::builtin)
}

fn def(name: &str) -> Arc<VariantDef> {
    defs().get(name).cloned().unwrap_or_else(|| panic!("{name} is built in"))
}

/// A lookup of the built-in data variants by name, any case.
fn builtin_lookup(name: Option<&str>) -> Option<Arc<VariantDef>> {
    let defs = defs();
    let name = name?;
    let found = defs.names().find(|n| n.eq_ignore_ascii_case(name)).map(str::to_string)?;
    defs.get(&found).cloned()
}

/// Up to `plies` random moves from `p` with NAGs, comments and variations.
fn random_line(p: Position, plies: usize, depth: u32, rng: &mut Rng) -> Vec<PgnMove<Move>> {
    let pick = |p: &Position, rng: &mut Rng| {
        let legal = p.legal_moves();
        (!legal.is_empty()).then(|| legal[rng.below(legal.len())])
    };
    common::random_line(p, plies, depth, rng, &pick, &|p, m| p.play(m))
}

fn read_one(text: &str) -> DataPgnGame {
    let mut games =
        pgn::read_str_any(text, ReadOptions::default(), builtin_lookup).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(games.len(), 1, "{text}");
    match games.remove(0) {
        AnyPgnGame::Data(g) => g,
        AnyPgnGame::Compiled(g) => panic!("read as {}\n{text}", g.variant),
    }
}

#[test]
fn random_data_games_round_trip() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for name in
        ["capablanca", "makruk", "shatranj", "seirawan", "janus", "courier", "shako", "grasshopper", "knightmate"]
    {
        let Some(d) = defs().get(name).cloned() else { continue };
        for round in 0..4 {
            let mut start = Position::start(&d);
            if round % 2 == 1 {
                // From a set-up position: a few plies in.
                for _ in 0..3 {
                    let legal = start.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    start = start.play(legal[rng.below(legal.len())]);
                }
                // A position reached by play is the one its FEN tag reads
                // back as.
            }
            let mut g = PgnGame::from_position(start.clone());
            g.set_tag("White", "Somebody");
            g.set_tag("Opening", "random");
            g.comments.push("a random game".into());
            g.moves = random_line(start.clone(), 60, 2, &mut rng);
            g.result = [GameResult::WhiteWins, GameResult::Draw, GameResult::Unknown][round % 3];
            let text = g.to_pgn().expect("legal moves");
            assert!(text.contains(&format!("[Variant \"{name}\"]")), "{text}");
            assert_eq!(text.contains("[SetUp \"1\"]"), round % 2 == 1, "{text}");
            assert!(text.lines().filter(|l| !l.starts_with('[')).all(|l| l.len() <= 79), "{text}");
            let read = read_one(&text);
            assert_eq!(read, g, "{text}");
            assert_eq!(read.to_pgn().expect("legal"), text);
            assert_eq!(read.final_position().expect("legal").fen(), g.final_position().expect("legal").fen());
        }
    }
}

#[test]
fn capablanca_movetext_is_san_from_the_rules_core() {
    let d = def("capablanca");
    let text =
        "[Event \"x\"]\n[Variant \"Capablanca\"]\n\n1. e4 {centre} e5 2. Nh3 $1 (2. Nc3 Nc6) Nc6 3. Ad3 1/2-1/2\n";
    let g = read_one(text);
    assert!(Arc::ptr_eq(&g.variant, &d));
    assert_eq!(g.san_moves().expect("legal"), ["e4", "e5", "Nh3", "Nc6", "Ad3"]);
    assert_eq!(g.uci_moves().expect("legal"), ["e2e4", "e7e5", "i1h3", "b8c6", "c1d3"]);
    assert_eq!(g.moves[0].comments, ["centre"]);
    assert_eq!(g.moves[2].nags, [1]);
    assert_eq!(g.moves[2].variations.len(), 1);
    assert_eq!(g.result, GameResult::Draw);
    let written = g.to_pgn().expect("legal");
    assert!(written.contains("[Variant \"capablanca\"]\n"), "{written}");
    assert!(written.contains("1. e4 {centre} 1... e5 2. Nh3 $1 (2. Nc3 Nc6) 2... Nc6 3. Ad3 1/2-1/2"), "{written}");
    assert_eq!(read_one(&written), g);
}

#[test]
fn set_up_positions_and_untagged_games() {
    let d = def("makruk");
    let fen = "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1";
    let start = Position::from_fen(&d, fen).expect("a makruk FEN");
    let mut g = PgnGame::from_position(start.clone());
    let m = start.parse_move("e6e5").expect("legal");
    g.push(m).expect("legal");
    assert!(g.push(m).is_err(), "the pawn has moved");
    let text = g.to_pgn().expect("legal");
    assert!(text.contains(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")), "{text}");
    assert!(text.contains("\n1... e5 *\n"), "{text}");
    assert_eq!(read_one(&text), g);
    // A game without a `Variant` tag is the lookup's answer to `None`,
    // or chess.
    let untagged = "[FEN \"rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1\"]\n\n1... e6e5 *\n";
    let d2 = Arc::clone(&d);
    let options = ReadOptions { coordinates: true };
    let games = pgn::read_str_any(untagged, options, move |n| if n.is_none() { Some(Arc::clone(&d2)) } else { None })
        .expect("reads as makruk");
    assert!(matches!(&games[..], [AnyPgnGame::Data(g)] if g.san_moves().expect("legal") == ["e5"]));
    let e = pgn::read_str_any(untagged, options, builtin_lookup).expect_err("not a chess FEN");
    assert!(matches!(*e.kind, PgnErrorKind::Fen { .. }), "{e}");
}

#[test]
fn data_games_end_with_the_rules_outcome() {
    // The data core's own chess (the reader takes a `chess` tag as the
    // compiled variant, but the writer works all the same).
    let d = def("chess");
    let mut g = PgnGame::from_position(Position::start(&d));
    let mut pos = Position::start(&d);
    for t in ["f2f3", "e7e5", "g2g4", "d8h4"] {
        let m = pos.parse_move(t).expect("legal");
        g.push(m).expect("legal");
        pos = pos.play(m);
    }
    let last = g.final_position().expect("legal");
    use menagerie_notation::pgn::PgnPosition;
    assert_eq!(last.ended(), Some(GameResult::BlackWins));
    assert!(g.to_game().expect("legal").outcome().is_some());
    assert_eq!(g.san_moves().expect("legal").last().map(String::as_str), Some("Qh4#"));
}

#[test]
fn data_errors_name_game_line_and_move() {
    let err =
        |text: &str| pgn::read_str_any(text, ReadOptions::default(), builtin_lookup).expect_err("an error").to_string();
    let e = pgn::read_str_any("[Variant \"makruk\"]\n\n1. e4 e4 *\n", ReadOptions::default(), builtin_lookup)
        .expect_err("illegal");
    assert_eq!(e.line, 3);
    match &*e.kind {
        PgnErrorKind::Move { number: 1, side: "Black", token, error: MoveError::Illegal { .. } } => {
            assert_eq!(token, "e4")
        }
        k => panic!("{k:?}"),
    }
    assert!(e.to_string().contains("'e4'"), "{e}");
    let e = err("[Variant \"capablanca\"]\n[FEN \"bad fen\"]\n\n*\n");
    assert!(e.contains("bad FEN tag 'bad fen' for capablanca"), "{e}");
    let e = err("[Variant \"nosuchvariant\"]\n\n*\n");
    assert!(e.contains("unknown variant 'nosuchvariant'") && e.contains("variants defined as data"), "{e}");
    let e = err("[Variant \"shatranj\"]\n\n1. e4 *\n");
    assert!(e.contains("game 1, line 3: move 1. (White)"), "{e}");
    // Without a lookup, a data variant is unknown.
    let e = pgn::read_str("[Variant \"makruk\"]\n\n1. e4 *\n").expect_err("compiled only");
    assert!(matches!(&*e.kind, PgnErrorKind::UnknownVariant { name, .. } if name == "makruk"), "{e}");
    // Compiled variants read through the data reader as before.
    let games = pgn::read_str_any("[Variant \"alpaca\"]\n\n1. accept *\n", ReadOptions::default(), builtin_lookup)
        .expect("alpaca is compiled");
    assert!(matches!(&games[..], [AnyPgnGame::Compiled(g)] if g.variant.name() == "alpaca"));
    let mut reader = PgnReader::with_data(
        "[Variant \"makruk\"]\n\n1. e4 *\n[Variant \"chess\"]\n\n1. e4 *\n".as_bytes(),
        ReadOptions::default(),
        builtin_lookup,
    );
    let names: Vec<String> =
        std::iter::from_fn(|| reader.read_any_game()).map(|g| g.expect("reads").variant_name()).collect();
    assert_eq!(names, ["makruk", "chess"]);
}

#[test]
fn a_start_reached_by_play_reads_back_equal() {
    // Castling rights lost on the way (the king and a rook moved), S-chess
    // gates used up, Makruk counting: the start is written as its FEN and
    // read back as an equal position.
    for (name, moves) in [
        ("capablanca", &["e2e4", "e7e5", "f1e2", "f8e7", "e1f1", "e8f8"][..]),
        ("seirawan", &["g1f3h", "g8f6e", "b1c3e", "b8c6h", "e2e4", "e7e5"][..]),
        ("janus", &["a2a4", "a7a5", "a1a3", "a8a6"][..]),
    ] {
        let d = def(name);
        let mut start = Position::start(&d);
        for text in moves {
            let m = start.parse_move(text).unwrap_or_else(|e| panic!("{name} {text}: {e}"));
            start = start.play(m);
        }
        let mut g = PgnGame::from_position(start.clone());
        let m = start.legal_moves()[0];
        g.push(m).expect("legal");
        let text = g.to_pgn().expect("legal");
        assert!(text.contains(&format!("[FEN \"{}\"]", start.fen())), "{text}");
        let read = read_one(&text);
        assert!(read.start == start, "{name}: {:?} != {:?}", read.start, start);
        assert_eq!(read, g, "{text}");
    }
    let makruk = def("makruk");
    let mut pos = Position::from_fen(&makruk, "4k3/8/8/8/8/8/8/R3K3 w - - 0 30").expect("a makruk FEN");
    for text in ["a1a2", "e8d8", "a2a3", "d8e8"] {
        pos = pos.play(pos.parse_move(text).expect("legal"));
    }
    assert!(pos.fen().contains(" - 32 "), "counting: {}", pos.fen());
    let g = PgnGame::from_position(pos.clone());
    assert_eq!(read_one(&g.to_pgn().expect("legal")), g);
}

#[test]
fn a_data_variant_named_like_a_compiled_alias_reads_back_as_itself() {
    // `standard` and `frc` are other spellings of compiled variants, but
    // not their names: a definition may take them, and its games are
    // written with its name.
    let mut defs = Definitions::builtin();
    defs.load("[standard:makruk]\n[frc:shatranj]\n", "aliases.ini").expect("loads");
    let defs = Arc::new(defs);
    for name in ["standard", "frc"] {
        let d = defs.get(name).cloned().expect("loaded");
        let mut g = PgnGame::from_position(Position::start(&d));
        g.push(Position::start(&d).legal_moves()[0]).expect("legal");
        let text = g.to_pgn().expect("legal");
        assert!(text.contains(&format!("[Variant \"{name}\"]")), "{text}");
        let lookup_defs = Arc::clone(&defs);
        let lookup = move |tag: Option<&str>| lookup_defs.get(tag?).cloned();
        let games = pgn::read_str_any(&text, ReadOptions::default(), lookup).expect("reads");
        match &games[..] {
            [AnyPgnGame::Data(read)] => assert_eq!(*read, g),
            other => panic!("{name}: {other:?}"),
        }
    }
    // Without such a definition the spellings are still the compiled variants.
    let games = pgn::read_str_any("[Variant \"Standard\"]\n\n1. e4 *\n", ReadOptions::default(), builtin_lookup)
        .expect("reads");
    assert!(matches!(&games[..], [AnyPgnGame::Compiled(g)] if g.variant.name() == "chess"));
    let games = pgn::read_str_any(
        "[Variant \"FRC\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n\n*\n",
        ReadOptions::default(),
        builtin_lookup,
    )
    .expect("reads");
    assert!(matches!(&games[..], [AnyPgnGame::Compiled(g)] if g.variant.name() == "chess960"));
}

#[test]
fn data_variations_nest_up_to_the_limit() {
    let line = |depth: usize| {
        let mut text = String::from("[Variant \"makruk\"]\n\n1. e4 ");
        text.push_str(&"(1. d4 ".repeat(depth));
        text.push_str(&") ".repeat(depth));
        text.push_str("*\n");
        text
    };
    let at_limit = line(pgn::MAX_VARIATION_DEPTH);
    let reader = std::thread::Builder::new().stack_size(512 * 1024).spawn(move || read_one(&at_limit));
    let g = reader.expect("spawns").join().expect("no stack overflow");
    assert_eq!(g.moves[0].variations.len(), 1);
    let e = pgn::read_str_any(&line(50_000), ReadOptions::default(), builtin_lookup).expect_err("too deep");
    assert!(matches!(&*e.kind, PgnErrorKind::TooDeep(_)), "{e}");
}

#[test]
fn set_up_tags_of_data_games() {
    let fen = "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1";
    let setup = |e: &pgn::PgnError| matches!(&*e.kind, PgnErrorKind::SetUp(_));
    let read = |text: &str| pgn::read_str_any(text, ReadOptions::default(), builtin_lookup);
    // `SetUp "1"` without a FEN, `SetUp "0"` with one, another value: errors.
    for text in [
        "[Variant \"makruk\"]\n[SetUp \"1\"]\n\n*\n".to_string(),
        format!("[Variant \"makruk\"]\n[SetUp \"0\"]\n[FEN \"{fen}\"]\n\n*\n"),
        format!("[Variant \"makruk\"]\n[SetUp \"2\"]\n[FEN \"{fen}\"]\n\n*\n"),
    ] {
        let e = read(&text).expect_err("a bad SetUp");
        assert!(setup(&e), "{e}");
        assert_eq!(e.line, 2, "{e}");
    }
    // `SetUp "0"` alone is the start, a FEN without `SetUp` is taken.
    let start = read_one("[Variant \"makruk\"]\n[SetUp \"0\"]\n\n1. e4 *\n");
    assert!(start.start == Position::start(&def("makruk")));
    let set = read_one(&format!("[Variant \"makruk\"]\n[FEN \"{fen}\"]\n\n1... e5 *\n"));
    assert_eq!(set.start.fen(), fen);
}

#[test]
fn comments_and_tags_are_added_to_compiled_and_data_games_alike() {
    // A data variant's game.
    let start = Position::start(&def("makruk"));
    let mut g = DataPgnGame::from_position(start.clone());
    assert!(!g.comment_last("no move yet"), "nothing to comment on");
    assert!(g.moves.is_empty() && g.comments.is_empty());
    g.comment_game("opening");
    g.comment_game(String::from("second"));
    assert_eq!(g.comments, ["opening", "second"]);
    g.push(start.parse_move("e3e4").expect("legal")).expect("legal");
    assert!(g.comment_last("a pawn move"));
    assert!(g.comment_last("twice"));
    assert_eq!(g.moves[0].comments, ["a pawn move", "twice"]);
    assert!(g.set_tag("White", "A") && g.set_tag("White", "B") && g.set_tag("Round", "3"));
    assert!(!g.set_tag("Result", "1-0"), "derived from the game");
    assert_eq!((g.tag("White"), g.tag("Round"), g.tag("Result")), (Some("B"), Some("3"), None));
    let text = g.to_pgn().expect("legal moves");
    assert!(text.contains("[White \"B\"]") && text.contains("[Round \"3\"]"), "{text}");
    assert!(text.contains("{opening} {second} 1. e4 {a pawn move} {twice} *"), "{text}");

    // A compiled variant's game, through the same methods.
    let mut g = PgnGame::new(menagerie_variants::VariantId::Chess);
    assert!(!g.comment_last("no move yet"));
    g.comment_game("start");
    let e4 = menagerie_notation::san::parse(&g.start, "e4").expect("legal");
    g.push(e4).expect("legal");
    assert!(g.comment_last("best by test"));
    assert!(g.to_pgn().expect("legal").contains("{start} 1. e4 {best by test} *"));
}
