//! PGN: round trips of random games in every variant (moves, final FEN,
//! comments, NAGs, variations), the tokenizer's handling of SAN suffixes
//! in parentheses next to variations, tags and the `Variant` mapping,
//! streaming multi-game reading, and strict errors naming game, line,
//! move and token.

mod common;

use menagerie_notation::pgn::{self, GameResult, PgnErrorKind, PgnGame, PgnMove, PgnReader, ReadOptions, Variation};
use menagerie_notation::{MoveError, fen, san, uci};
use menagerie_testkit::Rng;
use menagerie_variants::{AnyPosition, Move, MoveKind, VariantId};
use proptest::prelude::*;
use std::io::{BufReader, Read};
use std::path::Path;

/// A random legal move, preferring the variant's special moves (kidnaps,
/// takeovers, swaps, gating) half of the time so that their SAN shows up.
fn random_move(p: &AnyPosition, rng: &mut Rng) -> Option<Move> {
    let legal = p.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let special: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|&m| {
            matches!(m.kind, MoveKind::Kidnap | MoveKind::Takeover | MoveKind::Jump | MoveKind::Swap)
                || san::format_with(p, m, &legal).contains('(')
        })
        .collect();
    if !special.is_empty() && rng.below(2) == 0 {
        return Some(special[rng.below(special.len())]);
    }
    Some(legal[rng.below(legal.len())])
}

/// A line of up to `plies` random moves from `p`, with random NAGs,
/// comments and (while `depth` allows) nested variations.
fn random_line(p: AnyPosition, plies: usize, depth: u32, rng: &mut Rng) -> Vec<PgnMove> {
    common::random_line(p, plies, depth, rng, &random_move, &|p, m| p.play_unchecked(m))
}

/// A random game of `variant`, optionally from a position some plies in.
fn random_game(variant: VariantId, plies: usize, from_fen: bool, rng: &mut Rng) -> PgnGame {
    let mut start = AnyPosition::start(variant);
    if from_fen {
        for _ in 0..6 {
            if let Some(m) = random_move(&start, rng) {
                start = start.play_unchecked(m);
            }
        }
    }
    let mut g = PgnGame::from_position(start);
    g.set_tag("Event", "Random \"playout\" \\ test");
    g.set_tag("White", "Menagerie");
    g.set_tag("Annotator", "tests/pgn.rs");
    g.moves = random_line(start, plies, 2, rng);
    if rng.below(4) == 0 {
        g.comments.push("Random game.".into());
    }
    g.result = match g.to_game().ok().and_then(|game| game.outcome()) {
        Some(o) => GameResult::from_outcome(o),
        None => [GameResult::Unknown, GameResult::Draw, GameResult::WhiteWins][rng.below(3)],
    };
    g
}

#[track_caller]
fn read_one(text: &str) -> PgnGame {
    let mut games = pgn::read_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0)
}

#[track_caller]
fn read_err(text: &str) -> pgn::PgnError {
    match pgn::read_str(text) {
        Ok(g) => panic!("expected an error, read {g:?}"),
        Err(e) => e,
    }
}

// ----- round trips ---------------------------------------------------------------

#[test]
fn random_games_round_trip_in_every_variant() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut all_text = String::new();
    let mut all_games = Vec::new();
    let mut san_seen = String::new();
    for &variant in VariantId::ALL {
        for k in 0..6 {
            let g = random_game(variant, 40 + 20 * k, k % 3 == 2, &mut rng);
            let text = g.to_pgn().expect("legal moves");
            let back = read_one(&text);
            assert_eq!(back, g, "{variant}:\n{text}");
            assert_eq!(back.uci_moves(), g.uci_moves());
            let fen_a = fen::format(&g.final_position().expect("legal"));
            let fen_b = fen::format(&back.final_position().expect("legal"));
            assert_eq!(fen_a, fen_b);
            assert_eq!(back.to_pgn().expect("legal"), text, "writing is stable");
            for line in text.lines().filter(|l| !l.starts_with('[')) {
                assert!(line.chars().count() <= 79, "line over 79 characters: {line:?}");
            }
            san_seen.push_str(&g.san_moves().expect("legal").join(" "));
            san_seen.push(' ');
            all_text.push_str(&text);
            all_games.push(g);
        }
    }
    // The playouts did exercise the SAN forms with parentheses and `<>`.
    for form in ["(A@", "(=", "<>", ")("] {
        assert!(san_seen.contains(form), "no SAN with {form} in the playouts");
    }
    assert!(san_seen.split(' ').any(|s| s.starts_with('S') && s.contains('-') && s.contains('(')), "no kidnap");
    // One multi-game file, read game by game.
    let read: Vec<PgnGame> = PgnReader::new(all_text.as_bytes()).map(|g| g.expect("reads")).collect();
    assert_eq!(read, all_games);
}

/// Variations glued to the move before them (`Nf3(A@g1)(1. e4 ...)`,
/// `e4(e5)`) read the same as with a space: only SAN suffixes stay glued.
#[test]
fn glued_variations_read_like_spaced_ones() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut glued_any = 0;
    for &variant in VariantId::ALL {
        for _ in 0..4 {
            let g = random_game(variant, 60, false, &mut rng);
            let text = g.to_pgn().expect("legal");
            let glued = text.replace(" (", "(");
            glued_any += usize::from(glued != text);
            assert_eq!(read_one(&glued), g, "{variant}:\n{glued}");
        }
    }
    assert!(glued_any > 10);
}

#[test]
fn every_variant_tag_and_fen_start_round_trip() {
    for &variant in VariantId::ALL {
        let mut p = AnyPosition::start(variant);
        let mut rng = Rng(7);
        for _ in 0..3 {
            p = p.play_unchecked(random_move(&p, &mut rng).expect("moves"));
        }
        let mut g = PgnGame::from_position(p);
        g.push(random_move(&p, &mut rng).expect("moves")).expect("legal");
        let text = g.to_pgn().expect("legal");
        assert_eq!(text.contains("[Variant "), variant != VariantId::Chess, "{text}");
        assert!(text.contains(&format!("[SetUp \"1\"]\n[FEN \"{}\"]", fen::format(&p))), "{text}");
        let back = read_one(&text);
        assert_eq!(back.variant, variant);
        assert_eq!(back.start, p);
        assert_eq!(back, g);
        // From the start position: no SetUp, no FEN.
        let plain = PgnGame::new(variant).to_pgn().expect("no moves");
        assert!(!plain.contains("FEN") && !plain.contains("SetUp"), "{plain}");
    }
}

#[test]
fn alpaca_fen_tag_with_reserve_bracket() {
    let fen_text = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[A@ga@b] w KQkq - 0 1";
    let text = format!("[Variant \"alpaca\"]\n[SetUp \"1\"]\n[FEN \"{fen_text}\"]\n\n1. Nf3 Nc6 *\n");
    let g = read_one(&text);
    assert_eq!(fen::format(&g.start), fen_text);
    assert_eq!(g.san_moves().expect("legal"), ["Nf3(A@g1)", "Nc6(A@b8)"]);
    assert!(g.to_pgn().expect("legal").contains(&format!("[FEN \"{fen_text}\"]")));
}

/// `tests/pgn/variants.pgn` (read by the CLI tests) is one fixed-seed
/// random game per variant as the writer writes it; regenerate it with
/// `MENAGERIE_BLESS=1` after an intended format change.
#[test]
fn the_variants_fixture_is_what_the_writer_writes() {
    let mut rng = Rng(0x0DDB_1A5E_5BAD_5EED);
    let mut text = String::new();
    for &variant in VariantId::ALL {
        let mut g = random_game(variant, 50, variant == VariantId::Alpaca2, &mut rng);
        g.set_tag("Event", &format!("{variant} playout"));
        text.push_str(&g.to_pgn().expect("legal"));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/pgn/variants.pgn");
    if std::env::var_os("MENAGERIE_BLESS").is_some() {
        std::fs::write(&path, &text).expect("writable");
    }
    let fixture = std::fs::read_to_string(&path).expect("test data");
    assert_eq!(fixture, text, "tests/pgn/variants.pgn is stale: rerun with MENAGERIE_BLESS=1");
    assert_eq!(pgn::read_str(&fixture).expect("reads").len(), VariantId::ALL.len());
}

// ----- the data model and writing --------------------------------------------------

const OPERA: &str = include_str!("../../../tests/pgn/orthodox.pgn");

#[test]
fn comments_nags_and_nested_variations_are_kept() {
    let games = pgn::read_str(OPERA).expect("reads");
    assert_eq!(games.len(), 2);
    let g = &games[0];
    assert_eq!(g.tag("White"), Some("Morphy, Paul"));
    assert_eq!(g.tag("ECO"), Some("C41"));
    assert_eq!(g.result, GameResult::WhiteWins);
    assert_eq!(g.comments, ["The Opera Game."]);
    assert_eq!(g.moves.len(), 33);
    let san = g.san_moves().expect("legal");
    assert_eq!(san[5], "Bg4");
    assert_eq!(g.moves[5].nags, [6]); // ?!
    assert_eq!(g.moves[5].comments, ["A passive pin."]);
    // 8. Nc3 (8. Qxb7 ... {comment spanning lines}).
    let v = &g.moves[14].variations;
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].moves.len(), 4);
    assert_eq!(v[0].moves[3].comments, ["is the greedy line; White prefers development."]);
    assert_eq!(g.moves[17].nags, [6]); // $6 on 9...b5
    assert_eq!(g.moves[18].nags, [1]); // 10.Nxb5!
    assert_eq!(g.moves[27].comments, ["a line comment"]); // 14...Qe6 ; a line comment
    // 15...Nxd7 (15...Qxd7 16.Qb8+ (16.Bxf6 gxf6) 16...Qd8 17.Qxd8#)
    let v = &g.moves[29].variations[0];
    assert_eq!(v.moves.len(), 4);
    assert_eq!(v.moves[1].variations[0].moves.len(), 2);
    assert_eq!(g.moves[30].nags, [3]); // 16.Qb8+!!
    let last = g.final_position().expect("legal");
    assert_eq!(last.count_legal(), 0);
    assert!(last.is_check());
    let game = g.to_game().expect("legal");
    assert_eq!(game.outcome().map(GameResult::from_outcome), Some(GameResult::WhiteWins));
    // Written and read back: equal, and the export text is stable.
    let text = g.to_pgn().expect("legal");
    assert_eq!(&read_one(&text), g);
    assert!(text.starts_with(
        "[Event \"Paris\"]\n[Site \"Paris FRA\"]\n[Date \"1858.??.??\"]\n[Round \"?\"]\n\
         [White \"Morphy, Paul\"]\n[Black \"Duke Karl / Count Isouard\"]\n[Result \"1-0\"]\n[ECO \"C41\"]\n\n\
         {The Opera Game.} 1. e4 e5 2. Nf3 d6 3. d4 Bg4 $6 {A passive pin.} 4. dxe5 Bxf3\n"
    ));
    assert!(
        // A comment is never broken: it starts a line of its own instead.
        text.contains("8. Nc3 (8. Qxb7 Qb4+ 9. Qxb4 Bxb4+\n{is the greedy line; White prefers development.}) 8... c6"),
        "{text}"
    );
    assert!(text.contains("Nxd7 (15... Qxd7 16. Qb8+ (16. Bxf6 gxf6) 16... Qd8 17. Qxd8#)"), "{text}");
    assert!(text.contains("\n15. Bxd7+ "), "a move number stays with its move: {text}");
    assert!(text.ends_with("17. Rd8# 1-0\n\n"), "{text}");
}

#[test]
fn export_of_a_short_game_is_exact() {
    let g = read_one("[White \"x\"]\n[Black \"y\"]\n[Zeta \"last\"]\n1.e4 {best} e5 2.Nf3 $1 Nc6 *");
    assert_eq!(
        g.to_pgn().expect("legal"),
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"x\"]\n[Black \"y\"]\n\
         [Result \"*\"]\n[Zeta \"last\"]\n\n1. e4 {best} 1... e5 2. Nf3 $1 Nc6 *\n\n"
    );
}

#[test]
fn prelude_moves_are_numbered_by_the_position() {
    let mut g = PgnGame::new(VariantId::Alpaca);
    let p = AnyPosition::start(VariantId::Alpaca);
    for text in ["accept", "A@g", "A@b", "Nf3", "Nc6", "e4"] {
        let pos = g.final_position().expect("legal");
        g.push(san::parse(&pos, text).expect("legal")).expect("legal");
    }
    let text = g.to_pgn().expect("legal");
    assert!(text.contains("\n1. accept 1. A@g A@b 1. Nf3(A@g1) Nc6(A@b8) 2. e4 *\n"), "{text}");
    assert_eq!(g.start, p);
    assert_eq!(g.uci_moves(), ["accept", "A@g", "A@b", "g1f3", "b8c6", "e2e4"]);
    assert_eq!(g.positions().expect("legal").len(), 7);
}

#[test]
fn push_refuses_illegal_moves_and_set_tag_derived_tags() {
    let mut g = PgnGame::new(VariantId::Chess);
    let bad = Move::normal(menagerie_geometry::Square(4), menagerie_geometry::Square(36));
    let e = g.push(bad).expect_err("e1e5 is illegal");
    assert_eq!((e.number, e.side), (1, "White"));
    assert!(g.moves.is_empty());
    assert!(!g.set_tag("Result", "1-0"));
    assert!(!g.set_tag("FEN", "x"));
    assert!(g.set_tag("White", "Someone"));
    assert_eq!(g.tag("White"), Some("Someone"));
    // A hand-built illegal move is refused when writing.
    g.moves.push(PgnMove::new(bad));
    assert!(g.to_pgn().is_err());
    assert!(g.positions().is_err());
}

#[test]
fn comments_hold_what_pgn_can_hold() {
    let mut g = PgnGame::new(VariantId::Chess);
    g.comments.push("a } brace and\nnew   lines".into());
    let text = g.to_pgn().expect("no moves");
    assert!(text.contains("{a ) brace and new lines} *"), "{text}");
    g.set_tag("Event", "quote \" and \\ backslash");
    let back = read_one(&g.to_pgn().expect("no moves"));
    assert_eq!(back.tag("Event"), Some("quote \" and \\ backslash"));
}

/// A comment is one token of the movetext: lines break around it, never
/// inside it (a reader would show the break as part of the comment), even
/// when it is longer than a line.
#[test]
fn comments_are_never_broken_across_lines() {
    let mut g = read_one("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *");
    g.comments.push("An opening comment long enough to need most of a line of its own here.".into());
    for (i, m) in g.moves.iter_mut().enumerate() {
        m.comments.push(format!("[%eval 0.{i}]"));
        m.comments.push(format!("Mistake. Move {i} was\nbest, and this comment   runs on past the end of a line."));
        if i == 3 {
            m.comments.push("x".repeat(120));
        }
    }
    let opening = g.moves[0].clone();
    g.moves[0]
        .variations
        .push(Variation { comments: vec!["A variation's comment, long too.".into()], moves: vec![opening] });
    let text = g.to_pgn().expect("legal");
    let movetext = &text[text.find("\n\n").expect("a blank line after the tags")..];
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '\n' => assert_eq!(depth, 0, "a line break inside a comment:\n{text}"),
            _ => {}
        }
    }
    assert!(text.contains("{Mistake. Move 2 was best, and this comment runs on past the end of a line.}"), "{text}");
    for line in movetext.lines() {
        // Only a comment longer than a line makes a longer line, on its own.
        assert!(line.chars().count() <= 79 || (line.starts_with('{') && line.ends_with('}')), "{line:?}\n{text}");
    }
    assert!(movetext.lines().any(|l| l == format!("{{{}}}", "x".repeat(120))), "{text}");
    let back = read_one(&text);
    assert_eq!(back.moves.len(), g.moves.len());
    assert_eq!(back.to_pgn().expect("legal"), text, "writing is stable");
}

// ----- the tokenizer -----------------------------------------------------------------

#[test]
fn san_suffixes_stay_whole_and_variations_split() {
    // Alpaca: a glued gate suffix, then a glued variation.
    let g = read_one("[Variant \"alpaca\"]\n1. accept A@g A@b 2. Nf3(A@g1)(1. e4 e5) Nc6(A@b8)+- *");
    assert_eq!(g.san_moves().expect("legal")[3], "Nf3(A@g1)");
    assert_eq!(g.moves[3].variations.len(), 1);
    assert_eq!(g.moves[4].nags, [18]);
    // `e4(e5)`: a variation, not a suffix.
    let g = read_one("1. e4(1. d4) e5(e6) *");
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.moves[0].variations[0].moves.len(), 1);
    assert_eq!(g.moves[1].variations[0].moves.len(), 1);
    // Suffixes, numbers and results glued: `12...e5!?`, `e4!`, `Qh4#0-1`.
    let g = read_one("1.f3 e5!? 2.g4 ?? Qh4# 0-1");
    assert_eq!(g.moves[1].nags, [5]);
    assert_eq!(g.moves[2].nags, [4]);
    assert_eq!(g.result, GameResult::BlackWins);
    // A glyph glued after a check mark: `Nf3+` and `+-`.
    let g = read_one("1. e4 e5 2. Bc4 Nc6 3. Bxf7++- Kxf7 *");
    assert_eq!(g.san_moves().expect("legal")[4], "Bxf7+");
    assert_eq!(g.moves[4].nags, [18]);
    let g = read_one("1.e4 1...e5 2.Nf3 1/2-1/2");
    assert_eq!((g.moves.len(), g.result), (3, GameResult::Draw));
}

#[test]
fn camel_rhino_takeovers_and_swaps_read_as_written() {
    // Find a position with a takeover, a double takeover and a swap by playout.
    let mut rng = Rng(99);
    let mut found = [false; 3];
    for _ in 0..200 {
        let mut p = AnyPosition::start(VariantId::CamelRhino);
        for _ in 0..60 {
            let legal = p.legal_moves();
            for &m in legal.iter() {
                let s = san::format_with(&p, m, &legal);
                let kind = if s.contains(")(") {
                    1
                } else if s.contains("(=") {
                    0
                } else if s.contains("<>") {
                    2
                } else {
                    continue;
                };
                found[kind] = true;
                // Glued after it: a variation, then a NAG suffix.
                let alt = legal.iter().find(|&&o| o != m).map(|&o| san::format_with(&p, o, &legal));
                let mut g = PgnGame::from_position(p);
                g.push(m).expect("legal");
                let text = g.to_pgn().expect("legal");
                let movetext = match alt {
                    Some(alt) => text.replace(&format!("{s} *"), &format!("{s}({alt})!? *")),
                    None => text.clone(),
                };
                let back = read_one(&movetext);
                assert_eq!(back.moves[0].mv, m, "{movetext}");
                assert_eq!(back.moves[0].variations.len(), usize::from(movetext != text), "{movetext}");
            }
            match random_move(&p, &mut rng) {
                Some(m) => p = p.play_unchecked(m),
                None => break,
            }
        }
        if found.iter().all(|&f| f) {
            break;
        }
    }
    assert_eq!(found, [true; 3]);
}

/// A suffix must be the move's own: a wrong gate square, kidnap or
/// converted square is an error, not the move its head names.
#[test]
fn wrong_suffixes_are_errors() {
    let alpaca = "[Variant \"alpaca\"]\n1. accept A@g A@b 2. ";
    let g = read_one(&format!("{alpaca}Nf3(A@g1)+- *"));
    assert_eq!(g.moves.len(), 4);
    for wrong in ["Nf3(A@h1)", "Nh3(A@g1)(A@b1)", "Nc3(A@g1)"] {
        let e = read_err(&format!("{alpaca}{wrong} *"));
        match &*e.kind {
            PgnErrorKind::Move { error: MoveError::Illegal { reason, .. }, token, .. } => {
                assert_eq!(token, wrong);
                assert!(reason.contains("suffix"), "{e}");
            }
            k => panic!("{wrong}: {k:?}"),
        }
    }
    // A camel-rhino takeover with a wrong converted square, found by playout.
    let mut rng = Rng(5);
    let mut p = AnyPosition::start(VariantId::CamelRhino);
    let (pos, san_text) = loop {
        let legal = p.legal_moves();
        if let Some(s) = legal.iter().map(|&m| san::format_with(&p, m, &legal)).find(|s| s.contains("(=")) {
            break (p, s);
        }
        p = p.play_unchecked(random_move(&p, &mut rng).expect("moves"));
    };
    let i = san_text.find("(=").expect("a takeover") + 2;
    let file = san_text.as_bytes()[i];
    let other = if file == b'a' { 'b' } else { 'a' };
    let wrong = format!("{}{other}{}", &san_text[..i], &san_text[i + 1..]);
    let text = PgnGame::from_position(pos).to_pgn().expect("no moves").replace("\n*\n", &format!("\n{wrong} *\n"));
    let e = read_err(&text);
    assert!(matches!(&*e.kind, PgnErrorKind::Move { error: MoveError::Illegal { .. }, .. }), "{wrong}: {e}");
    let right = text.replace(&wrong, &san_text);
    assert_eq!(read_one(&right).san_moves().expect("legal"), [san_text]);
}

#[test]
fn coordinate_moves_only_when_asked() {
    let text = "1. e2e4 e7e5 2. g1f3 *";
    let e = read_err(text);
    assert!(matches!(*e.kind, PgnErrorKind::Move { number: 2, side: "White", ref token, .. } if token == "g1f3"));
    let opts = ReadOptions { coordinates: true };
    let g = PgnReader::with_options(text.as_bytes(), opts).next().expect("a game").expect("reads");
    assert_eq!(g.uci_moves(), ["e2e4", "e7e5", "g1f3"]);
    // Written back as SAN.
    assert!(g.to_pgn().expect("legal").contains("1. e4 e5 2. Nf3 *"));
}

#[test]
fn variant_tag_names_and_aliases() {
    for (tag, want) in [
        ("Standard", VariantId::Chess),
        ("chess", VariantId::Chess),
        ("NORMAL", VariantId::Chess),
        ("orthodox", VariantId::Chess),
        ("Alpaca", VariantId::Alpaca),
        ("Alpaca Chess", VariantId::Alpaca),
        ("alpaca2", VariantId::Alpaca2),
        ("Alpaca-SameFile", VariantId::AlpacaSameFile),
        ("alseid", VariantId::Alseid),
        ("Alseid_Weak", VariantId::AlseidWeak),
        ("camel-rhino", VariantId::CamelRhino),
        ("Camel and Rhino Chess", VariantId::CamelRhino),
        ("Chess960", VariantId::Chess960),
        ("chess-960", VariantId::Chess960),
        ("Fischerandom", VariantId::Chess960),
        ("Fischer Random Chess", VariantId::Chess960),
    ] {
        assert_eq!(pgn::variant_from_tag(tag), Some(want), "{tag}");
        let g = read_one(&format!("[Variant \"{tag}\"]\n\n*"));
        assert_eq!(g.variant, want);
    }
    for tag in ["tamerlane", "chess961", "camel-rhino-plainer", "chess-9600"] {
        assert_eq!(pgn::variant_from_tag(tag), None, "{tag}");
    }
    // The movement-only comparison rule set is read only when test-only
    // rule sets are asked for (`MENAGERIE_TEST_VARIANTS`).
    let served = std::env::var("MENAGERIE_TEST_VARIANTS").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0");
    assert_eq!(pgn::variant_from_tag("camel-rhino-plain"), served.then_some(VariantId::CamelRhinoPlain));
    let e = read_err("[White \"W\"]\n[Variant \"Crazyhouse\"]\n\n*");
    assert!(matches!(&*e.kind, PgnErrorKind::UnknownVariant { name, .. } if name == "Crazyhouse"), "{e}");
    assert_eq!(e.line, 2);
    assert!(e.to_string().contains("unknown variant 'Crazyhouse' (known: chess, alpaca"), "{e}");
}

// ----- streaming ---------------------------------------------------------------------

/// Counts the bytes handed out by the inner reader.
struct Counting<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<usize>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n);
        Ok(n)
    }
}

#[test]
fn the_reader_streams_game_by_game() {
    let one = "[Event \"e\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n";
    let mut text = String::new();
    for i in 0..500 {
        text.push_str(&one.replace("\"e\"", &format!("\"game {i}\"")).replace("1-0", "0-1"));
    }
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let input = BufReader::with_capacity(256, Counting { inner: text.as_bytes(), read: read.clone() });
    let mut reader = PgnReader::new(input);
    let first = reader.next().expect("a game").expect("reads");
    assert_eq!(first.tag("Event"), Some("game 0"));
    assert!(read.get() <= 512, "read {} bytes for the first game", read.get());
    assert_eq!(reader.count(), 499);
}

#[test]
fn games_without_blank_lines_or_tags_are_split_at_results() {
    let games = pgn::read_str("1. e4 e5 1-0 1. d4 d5 0-1\n[Event \"x\"]\n1. c4 *").expect("reads");
    assert_eq!(games.len(), 3);
    assert_eq!(games[1].uci_moves(), ["d2d4", "d7d5"]);
    assert_eq!(games[2].tag("Event"), Some("x"));
    assert!(pgn::read_str("").expect("empty").is_empty());
    assert!(pgn::read_str("\n\n% escape line\n").expect("nothing").is_empty());
}

// ----- errors --------------------------------------------------------------------------

#[test]
fn an_illegal_move_names_game_players_line_move_and_token() {
    let text = "[White \"Ann\"]\n[Black \"Ben\"]\n\n1. e4 e5 *\n\n[White \"Cid\"]\n[Black \"Dee\"]\n\n1. e4 e5 2. Nf3\nNc6 3. Ke3 *\n";
    let results: Vec<_> = PgnReader::new(text.as_bytes()).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let e = results[1].clone().expect_err("Ke3 is illegal");
    assert_eq!((e.game, e.line), (2, 10));
    assert_eq!((e.white.as_deref(), e.black.as_deref()), (Some("Cid"), Some("Dee")));
    match &*e.kind {
        PgnErrorKind::Move { number, side, token, error } => {
            assert_eq!((*number, *side, token.as_str()), (3, "White", "Ke3"));
            assert!(matches!(error, MoveError::Illegal { .. }));
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        e.to_string(),
        "game 2 (Cid - Dee), line 10: move 3. (White): 'Ke3' is illegal here: a king on e1 cannot move to e3"
    );
}

#[test]
fn ambiguous_and_malformed_moves() {
    let e = read_err("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4KN1N w - - 0 1\"]\n\n1. Ng3 *");
    assert!(matches!(&*e.kind, PgnErrorKind::Move { error: MoveError::Ambiguous(_), .. }), "{e}");
    let e = read_err("1. e4 e5 2. Nf3 Xx9 *");
    assert!(matches!(&*e.kind, PgnErrorKind::Move { number: 2, side: "Black", .. }), "{e}");
    assert!(e.to_string().contains("move 2... (Black)"), "{e}");
    let e = read_err("1. e4 e5 2. Qz9 *");
    assert!(matches!(&*e.kind, PgnErrorKind::Move { error: MoveError::OffBoard { .. }, .. }), "{e}");
    // After the game ended: the reason says so.
    let e = read_err("1. f3 e5 2. g4 Qh4# 3. a3 *");
    assert!(e.to_string().contains("the game is over (checkmate, Black wins)"), "{e}");
}

#[test]
fn long_tokens_are_cut_in_errors() {
    let long = "N".repeat(5000);
    let e = read_err(&format!("1. e4 {long} *"));
    let msg = e.to_string();
    assert!(msg.len() < 400, "{} bytes", msg.len());
    assert!(msg.contains(&format!("'{}…'", "N".repeat(32))), "{msg}");
    let e = read_err(&format!("[FEN \"{long}\"]\n*"));
    assert!(matches!(*e.kind, PgnErrorKind::Fen { .. }));
    assert!(e.to_string().len() < 400);
    let e = read_err(&format!("[White \"{long}\"]\n1. e4 &&& *"));
    assert!(e.to_string().len() < 400);
    assert!(matches!(&*e.kind, PgnErrorKind::Token { token, place } if token == "&&&" && place == "after move 1."));
}

#[test]
fn bad_fen_and_setup_tags() {
    let e = read_err(
        "[Variant \"alpaca\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Aa?] x KQkq - 0 1\"]\n\n*",
    );
    assert_eq!(e.line, 3);
    assert!(matches!(&*e.kind, PgnErrorKind::Fen { variant: VariantId::Alpaca, .. }), "{e}");
    assert!(e.to_string().contains("side to move field 'x'"), "{e}");
    // A 10x10 FEN under an 8x8 variant.
    let e = read_err(&format!("[FEN \"{}\"]\n*", VariantId::CamelRhino.start_fen()));
    assert!(matches!(&*e.kind, PgnErrorKind::Fen { variant: VariantId::Chess, .. }), "{e}");
    let e = read_err("[SetUp \"1\"]\n\n*");
    assert!(matches!(*e.kind, PgnErrorKind::SetUp(_)), "{e}");
    let e = read_err("[SetUp \"yes\"]\n\n*");
    assert!(matches!(*e.kind, PgnErrorKind::SetUp(_)), "{e}");
    let e = read_err(&format!("[SetUp \"0\"]\n[FEN \"{}\"]\n\n*", VariantId::Chess.start_fen()));
    assert!(matches!(*e.kind, PgnErrorKind::SetUp(_)), "{e}");
    // A FEN without SetUp is read.
    let g = read_one("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n\n1. O-O *");
    assert_eq!(g.san_moves().expect("legal"), ["O-O"]);
}

#[test]
fn bad_tags() {
    let e = read_err("[White \"unterminated]\n\n*");
    assert!(matches!(*e.kind, PgnErrorKind::Tag { .. }), "{e}");
    let e = read_err("[White noquotes]\n\n*");
    assert!(matches!(*e.kind, PgnErrorKind::Tag { .. }), "{e}");
    let e = read_err("[White \"a\"]\n[White \"b\"]\n\n*");
    assert_eq!(*e.kind, PgnErrorKind::DuplicateTag("White".into()));
    assert_eq!(e.line, 2);
    let e = read_err("[Result \"1-0\"]\n\n1. e4 0-1");
    assert!(matches!(*e.kind, PgnErrorKind::ResultMismatch { movetext: GameResult::BlackWins, .. }), "{e}");
    // Two tags on one line are fine.
    let g = read_one("[White \"a\"] [Black \"b\"]\n*");
    assert_eq!((g.tag("White"), g.tag("Black")), (Some("a"), Some("b")));
}

#[test]
fn unbalanced_comments_and_variations() {
    let e = read_err("1. e4 {never closed e5 *\n");
    assert_eq!(*e.kind, PgnErrorKind::UnterminatedComment);
    assert_eq!(e.line, 1);
    // A tag line inside an open comment ends the game; the next one reads.
    let results: Vec<_> = PgnReader::new("1. e4 {open\nstill open\n[Event \"next\"]\n1. d4 *\n".as_bytes()).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(*results[0].clone().expect_err("open comment").kind, PgnErrorKind::UnterminatedComment);
    assert_eq!(results[1].clone().expect("reads").tag("Event"), Some("next"));
    let e = read_err("1. e4 (1. d4 d5 *");
    assert!(matches!(*e.kind, PgnErrorKind::ResultInVariation(_)), "{e}");
    let e = read_err("1. e4 (1. d4 d5");
    assert!(matches!(*e.kind, PgnErrorKind::UnclosedVariation(_)), "{e}");
    let e = read_err("1. e4 e5) *");
    assert_eq!(*e.kind, PgnErrorKind::UnopenedVariation("after move 1...".into()));
    let e = read_err("1. e4 () *");
    assert!(matches!(*e.kind, PgnErrorKind::EmptyVariation(_)), "{e}");
    let e = read_err("(1. e4) *");
    assert_eq!(*e.kind, PgnErrorKind::Dangling("(".into()));
    let e = read_err("$1 1. e4 *");
    assert_eq!(*e.kind, PgnErrorKind::Dangling("$1".into()));
    let e = read_err("1. e4 $300 *");
    assert!(matches!(&*e.kind, PgnErrorKind::Token { token, .. } if token == "$300"), "{e}");
    let e = read_err("1. e4 -- *");
    assert!(matches!(&*e.kind, PgnErrorKind::Token { token, .. } if token == "--"), "{e}");
    let e = read_err("[Event \"x\"]\n\n1. e4 e5\n");
    assert_eq!(*e.kind, PgnErrorKind::MissingResult);
    assert_eq!(e.line, 3);
    // Ended by the next game's tags: the error is on the game's own last line.
    let results: Vec<_> = PgnReader::new("1. e4 e5\n\n[Event \"y\"]\n*".as_bytes()).collect();
    let e = results[0].clone().expect_err("no result");
    assert_eq!((*e.kind.clone(), e.line), (PgnErrorKind::MissingResult, 1));
    assert!(results[1].is_ok());
}

#[test]
fn the_bad_games_file_reports_each_bad_game_and_reads_the_rest() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/pgn/bad.pgn"))
        .expect("test data");
    let results: Vec<_> = PgnReader::new(text.as_bytes()).collect();
    assert_eq!(results.len(), 4);
    assert!(results[0].is_ok());
    let e = results[1].clone().expect_err("illegal");
    assert!(e.to_string().starts_with("game 2 (Carol - Dave), line 13: move 3. (White): 'Ke3'"), "{e}");
    let e = results[2].clone().expect_err("unknown variant");
    assert!(matches!(*e.kind, PgnErrorKind::UnknownVariant { .. }));
    let g = results[3].clone().expect("alpaca");
    assert_eq!(g.variant, VariantId::Alpaca);
    assert_eq!(uci::format(g.variant, g.moves[3].mv), "g1f3");
}

#[test]
fn results() {
    for r in [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Unknown] {
        assert_eq!(GameResult::from_token(r.as_str()), Some(r));
        assert_eq!(r.to_string(), r.as_str());
    }
    assert_eq!(GameResult::from_token("1/2"), None);
}

// ----- robustness -------------------------------------------------------------------

/// Fragments of PGN (and of things that are not) to build random files from.
const FRAGMENTS: &[&str] = &[
    "[Event \"x\"]\n",
    "[Variant \"alpaca\"]\n",
    "[Variant \"camel-rhino\"]\n",
    "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n",
    "[SetUp \"1\"]\n",
    "[White \"é\\\"\"]\n",
    "[Bad",
    "\n",
    "\n\n",
    " ",
    "1.",
    "12...",
    "e4",
    "e5",
    "Nf3",
    "Nf3(A@g1)",
    "accept",
    "A@g",
    "A@b",
    "(",
    ")",
    "{",
    "}",
    "{c}",
    ";x\n",
    "%esc\n",
    "$1",
    "$999",
    "!?",
    "??",
    "+-",
    "=",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "O-O",
    "0-0-0",
    "Sd4-d6(Nd1-d4)",
    "Nxg4(=h3)",
    "Qe2<>Kf2",
    "(=",
    "(A@",
    "é",
    "\u{feff}",
    "--",
    "[",
    "]",
    "\"",
    "e2e4",
    "h2g4t",
    "z99",
    "Q",
    "@",
    "<>",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// Reading any mix of fragments never panics, every game either reads
    /// (and then writes and reads back equal) or is a short error.
    #[test]
    fn reading_anything_never_panics(parts in proptest::collection::vec(0..FRAGMENTS.len(), 0..60), glued: bool) {
        let text: String = parts.iter().map(|&i| FRAGMENTS[i]).collect::<Vec<_>>().join(if glued { "" } else { " " });
        for result in PgnReader::new(text.as_bytes()).take(100) {
            match result {
                Ok(g) => {
                    let written = g.to_pgn().expect("a read game is legal");
                    prop_assert_eq!(read_one(&written), g);
                }
                Err(e) => prop_assert!(e.to_string().len() < 600, "{}", e),
            }
        }
    }
}

/// `1. e4` and `depth` variations, each nested in the one before.
fn nested(depth: usize) -> String {
    let mut text = String::from("1. e4 ");
    for _ in 0..depth {
        text.push_str("(1. d4 ");
    }
    for _ in 0..depth {
        text.push_str(") ");
    }
    text.push_str("*\n");
    text
}

#[test]
fn variations_nest_up_to_the_limit_and_no_deeper() {
    // On a small stack: the limit keeps the reader's recursion shallow.
    let reader = std::thread::Builder::new().stack_size(512 * 1024).spawn(|| {
        let games = pgn::read_str(&nested(pgn::MAX_VARIATION_DEPTH)).expect("at the limit");
        let mut depth = 0;
        let mut line = &games[0].moves;
        while let Some(v) = line.first().and_then(|m| m.variations.first()) {
            depth += 1;
            line = &v.moves;
        }
        assert_eq!(depth, pgn::MAX_VARIATION_DEPTH);
        // Writing and reading it again works as well.
        assert_eq!(pgn::read_str(&games[0].to_pgn().expect("legal")).expect("reads"), games);
    });
    reader.expect("spawns").join().expect("no stack overflow");
    for depth in [pgn::MAX_VARIATION_DEPTH + 1, 100_000] {
        // Deeper is an error (it used to overflow the stack and abort the
        // process), and the reader goes on with the next game.
        let text = format!("{}[Event \"next\"]\n\n1. e4 *\n", nested(depth));
        let mut reader = PgnReader::new(text.as_bytes());
        let e = reader.next().expect("a game").expect_err("too deep");
        assert!(matches!(&*e.kind, PgnErrorKind::TooDeep(place) if place == "after move 1."), "{e}");
        assert_eq!(e.line, 1);
        assert!(e.to_string().contains("nested more than 100 deep"), "{e}");
        let next = reader.next().expect("the next game").expect("reads");
        assert_eq!(next.tag("Event"), Some("next"));
    }
}
