//! Variants defined as data through the CLI: the built-in `variants.ini`
//! games and user files given with `--variants`, for perft, divide, moves
//! and validate; clear errors for malformed definitions and for the tasks
//! data variants do not have yet.

mod common;

use common::{run, stderr, stdout};
use std::process::Output;

fn last_line(o: &Output) -> String {
    stdout(o).lines().last().unwrap_or_default().to_string()
}

const EXAMPLE: &str = "tests/variants/example.ini";

#[test]
fn built_in_data_variants_count_fairy_stockfish_perft() {
    // Fairy-Stockfish's published counts (tests/perft/data-variants.epd).
    for (variant, depth, nodes) in [("makruk", "4", "273026"), ("courier", "3", "20225"), ("shako", "2", "2230")] {
        let o = run(&["perft", "--variant", variant, depth]);
        assert!(o.status.success(), "{variant}: {}", stderr(&o));
        if variant == "makruk" {
            assert_eq!(last_line(&o), nodes);
        }
    }
    let o = run(&["perft", "--variant", "makruk", "--threads", "2", "4"]);
    assert_eq!(last_line(&o), "273026");
}

#[test]
fn user_variants_load_from_a_file() {
    // Counts checked against pyffish with the same file loaded.
    let o = run(&["--variants", EXAMPLE, "perft", "--variant", "centaurs", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(last_line(&o), "222973");
    let o = run(&["--variants", EXAMPLE, "perft", "--variant", "cannons", "3"]);
    assert_eq!(last_line(&o), "19396");
    let o = run(&["--variants", EXAMPLE, "variants"]);
    let listing = stdout(&o);
    assert!(listing.contains("centaurs  8x8") && listing.contains("cannons  10x8"), "{listing}");
    // Without the file the variant is unknown, and the message lists what is known.
    let o = run(&["perft", "--variant", "centaurs", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown variant 'centaurs': did you mean 'centaur'? (known: chess, "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn divide_moves_and_validate_speak_fairy_stockfish_coordinates() {
    let o = run(&["divide", "--variant", "shako", "1"]);
    let text = stdout(&o);
    assert!(text.contains("a1b1: 1") && text.contains("h2g4: 1"), "{text}");
    assert_eq!(last_line(&o), text.lines().filter(|l| l.ends_with(": 1")).count().to_string());
    let o = run(&["moves", "--variant", "seirawan", "--moves", "e2e4 e7e5"]);
    let moves = stdout(&o);
    assert!(moves.lines().any(|m| m == "g1f3h"), "a gating move: {moves}");
    let o = run(&["--json", "validate", "--variant", "makruk", "--moves", "e3e4", "e6e5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(r#""fen":"rnsmksnr/8/pppp1ppp/4p3/4P3/PPPP1PPP/8/RNSKMSNR w - - 0 2""#),
        "{}",
        stdout(&o)
    );
    let o = run(&["validate", "--variant", "makruk", "e2e4"]);
    assert_eq!(o.status.code(), Some(1), "an illegal move exits 1");
    assert!(stderr(&o).contains("'e2e4' is not a legal move"), "{}", stderr(&o));
}

#[test]
fn bad_definitions_and_missing_tasks_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("menagerie-data-variants-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write ini");
        p.display().to_string()
    };
    let bad_key = write("bad-key.ini", "[mine:chess]\n\nflyingKings = true\n");
    // Leniently (the default) a section that cannot be played is skipped
    // with a warning naming the file and line; --strict makes it an error.
    let o = run(&["--variants", &bad_key, "variants"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("bad-key.ini:3"), "{}", stderr(&o));
    assert!(stderr(&o).contains("variant 'mine' skipped") && stderr(&o).contains("flyingKings"), "{}", stderr(&o));
    assert!(!stdout(&o).lines().any(|l| l.starts_with("mine ")), "{}", stdout(&o));
    let o = run(&["--strict", "--variants", &bad_key, "variants"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad-key.ini:3") && stderr(&o).contains("flyingKings"), "{}", stderr(&o));
    let bad_betza = write("bad-betza.ini", "[mine:chess]\ncustomPiece1 = x:Nq\n");
    let o = run(&["--strict", "--variants", &bad_betza, "variants"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad-betza.ini:2"), "{}", stderr(&o));
    let clash = write("clash.ini", "[alpaca:chess]\ncustomPiece1 = a:WmD\n");
    let o = run(&["--variants", &clash, "variants"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("'alpaca' skipped: the name is built into Menagerie"), "{}", stderr(&o));
    let o = run(&["--strict", "--variants", &clash, "variants"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'alpaca' is built into Menagerie"), "{}", stderr(&o));
    let o = run(&["--variants", "no/such/file.ini", "variants"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read variants file no/such/file.ini"), "{}", stderr(&o));
    let o = run(&["analyze", "--variant", "makruk", "--depth", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--depth must be 1..100"), "{}", stderr(&o));
    let o = run(&["moves", "--variant", "makruk", "--fen", "not a fen"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: bad FEN"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn epd_suites_verify_data_variants_and_mixed_suites() {
    // Every line of Fairy-Stockfish's published suite for the data games.
    let o = run(&["epd", "tests/perft/data-variants.epd"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(last_line(&o), "21 passed, 0 failed, 0 skipped");
    // A suite mixing compiled and data variants, with a wrong count and a bad FEN.
    let dir = std::env::temp_dir().join(format!("menagerie-data-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let suite = dir.join("mixed.epd");
    std::fs::write(
        &suite,
        "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 ;variant makruk ;D1 23 ;D2 529\n\
         8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3\n\
         rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 ;variant makruk ;D2 530\n\
         not a fen ;variant shako ;D1 1\n",
    )
    .expect("write suite");
    let path = suite.display().to_string();
    let o = run(&["epd", &path]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(last_line(&o), "2 passed, 2 failed, 0 skipped");
    assert!(stdout(&o).contains("line 3: depth 2: expected 530, got 529"), "{}", stdout(&o));
    assert!(stdout(&o).contains("line 4: bad FEN"), "{}", stdout(&o));
    // A data variant as the suite's default.
    std::fs::write(&suite, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 ;D2 529\n").expect("write suite");
    let o = run(&["epd", "--variant", "makruk", &path]);
    assert_eq!(last_line(&o), "1 passed, 0 failed, 0 skipped");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn data_variants_write_and_read_san() {
    let o = run(&["moves", "--variant", "seirawan", "--san"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in ["a2a3 a3", "g1f3 Nf3", "g1f3h Nf3/H", "b1c3e Nc3/E"] {
        assert!(out.lines().any(|l| l == line), "no '{line}' in {out}");
    }
    // SAN in --moves and as the move validated, in JSON with both forms.
    let o = run(&["--json", "validate", "--variant", "capablanca", "--moves", "e4 e5", "Cg3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(r#""move":"h1g3""#) && out.contains(r#""san":"Cg3""#), "{out}");
    // Ambiguous and malformed SAN are refused with the reason.
    let fen = "4k5/10/10/10/10/2N7/10/2N1K1N3 w - - 0 1";
    let o = run(&["validate", "--variant", "capablanca", "--fen", fen, "Ne2"]);
    assert!(!o.status.success() && stderr(&o).contains("ambiguous"), "{}", stderr(&o));
    let o = run(&["validate", "--variant", "capablanca", "--fen", fen, "Nge2"]);
    assert!(o.status.success() && stdout(&o).contains("move: g1e2"), "{}", stdout(&o));
    let o = run(&["validate", "--variant", "capablanca", "zz"]);
    assert!(!o.status.success() && stderr(&o).contains("not a move in coordinate form"), "{}", stderr(&o));
}

#[test]
fn data_variants_report_game_rules() {
    // A third occurrence of a makruk position: the repetition rule.
    let shuffle = "a1a2 e8d8 a2a1 d8e8 a1a2 e8d8 a2a1";
    let o = run(&[
        "validate",
        "--variant",
        "makruk",
        "--fen",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "--moves",
        shuffle,
        "d8e8",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A third occurrence is a draw the player to move may claim (the
    // server's claimable_draw), not the game's end.
    assert!(stdout(&o).contains("claimable draw: repetition"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("outcome:"), "{}", stdout(&o));
    // The 50-move rule of capablanca.
    let o = run(&["validate", "--variant", "capablanca", "--fen", "4k5/10/10/10/10/10/10/R3K5 w - - 99 80", "a1a2"]);
    assert!(stdout(&o).contains("claimable draw: n_move_rule"), "{}", stdout(&o));
    // After checkmate no move is validated.
    let mate = "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1";
    let o = run(&["validate", "--variant", "capablanca", "--fen", mate, "--moves", "b1b8", "a8a7"]);
    assert!(!o.status.success() && stderr(&o).contains("checkmate"), "{}", stderr(&o));
}

#[test]
fn data_variants_are_analysed() {
    // Best move and a line per depth, in coordinate form and SAN.
    let o = run(&["--json", "analyze", "--variant", "capablanca", "--depth", "4", "--multipv", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let infos = out.lines().filter(|l| l.contains(r#""type":"info""#)).count();
    assert_eq!(infos, 8, "{out}");
    assert!(last_line(&o).contains(r#""type":"analyze""#) && last_line(&o).contains("bestmove_san"), "{out}");
    // A mate in one in a user's variant file: the centaur (NK) mates.
    let o = run(&[
        "--variants",
        EXAMPLE,
        "analyze",
        "--variant",
        "centaurs",
        "--fen",
        "k7/8/1K2C3/8/8/8/8/8 w - - 0 1",
        "--depth",
        "3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("score mate 1"), "{}", stdout(&o));
    // The game's moves count, and a finished game is refused.
    let mate = "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1";
    let o = run(&["analyze", "--variant", "capablanca", "--fen", mate, "--moves", "Qb8"]);
    assert!(!o.status.success() && stderr(&o).contains("the game is over: White mates"), "{}", stderr(&o));
}

#[test]
fn svg_draws_a_data_variant_with_its_last_move_and_arrows() {
    let o = run(&["svg", "--variant", "capablanca", "--moves", "e2e4", "--arrow", "j1j8:red", "--highlight", "i8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = stdout(&o);
    assert_eq!(svg.matches("class=\"square ").count(), 80);
    assert_eq!(svg.matches("class=\"piece ").count(), 40);
    assert!(svg.contains("sq-j8") && svg.contains("sq-e4"));
    let o = run(&["svg", "--variant", "makruk", "--arrow", "j1j8"]);
    assert!(!o.status.success() && stderr(&o).contains("j1"), "{}", stderr(&o));
}

/// Menagerie's rule keys in a user's file.
const KEYS: &str = "tests/variants/menagerie-keys.ini";

/// Checks the perft count to `depth` of `variant` of [`KEYS`] from `fen`
/// (its start if empty).
#[track_caller]
fn keys_perft(variant: &str, fen: &str, depth: &str, count: &str) {
    let mut args = vec!["--variants", KEYS, "perft", "--variant", variant];
    if !fen.is_empty() {
        args.extend(["--fen", fen]);
    }
    args.push(depth);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(last_line(&o), count, "{variant} {fen}: {}", stderr(&o));
}

#[test]
fn pioneer_gating_variants_load_from_a_file() {
    // The compiled alpaca's counts (tests/perft/alpaca.epd).
    keys_perft("my-alpaca", "", "5", "35782");
    keys_perft("my-alpaca", "r3k2r/pppq1ppp/2npbn2/4p3/4P3/2NPBN2/PPPQ1PPP/R3K2R[A@ea@h] w KQkq - 0 10", "3", "63057");
    // The prelude's actions are moves; SAN names the entry.
    let o = run(&["--variants", KEYS, "moves", "--variant", "pioneer-hawks", "--moves", "accept"]);
    let moves = stdout(&o);
    assert!(moves.lines().any(|m| m == "H@bg") && !moves.lines().any(|m| m == "H@eh"), "{moves}");
    let o = run(&[
        "--variants",
        KEYS,
        "--json",
        "validate",
        "--variant",
        "pioneer-hawks",
        "--moves",
        "accept H@bg H@bg",
        "Nf3",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBHR[H@bh@bh@g] b KQkq - 1 1"), "{out}");
    // Kidnapping: the compiled alseid's counts (tests/perft/alseid.epd).
    keys_perft("my-alseid", "4k3/3r4/3p4/2NS4/3P4/3s4/3B4/4K3[] w - - 0 1", "3", "39249");
    // Black may not take another file than White's.
    let o = run(&["--variants", KEYS, "validate", "--variant", "pioneer-hawks", "--moves", "accept H@bg", "H@cg"]);
    assert!(stdout(&o).contains("illegal"), "{} {}", stdout(&o), stderr(&o));
}

#[test]
fn takeover_and_swap_variants_load_from_a_file() {
    // The compiled camel-rhino's counts (tests/perft/camel-rhino.epd).
    keys_perft("my-camel-rhino", "", "3", "1119157");
    let fen = "h1z1q4r/1rb2bkn2/pppwpcpp1p/10/5w2p1/2P7/4HWP3/PP1PWKPPQP/2ZB3RC1/5BN2R w - - 2 11";
    keys_perft("my-camel-rhino", fen, "2", "6787");
    // A takeover in SAN, its converted squares marked.
    let fen = "c8k/10/10/10/3n6/3p6/3C6/10/10/K9 w - - 0 1";
    let o =
        run(&["--variants", KEYS, "--json", "validate", "--variant", "my-camel-rhino", "--fen", fen, "Cxe7(=d5)(=d6)"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("c8k/10/10/4C5/3N6/3P6/10/10/10/K9 b - - 0 1"), "{}", stdout(&o));
    // A user's own takeover variant: the Knight beside its Queen converts the pawn on d3.
    let fen = "4k3/8/8/8/8/3p4/3NQ3/4K3 w - - 0 1";
    let o = run(&["--variants", KEYS, "moves", "--variant", "queen-escort", "--fen", fen]);
    let moves = stdout(&o);
    assert!(moves.lines().any(|m| m == "d2c4t") && moves.lines().any(|m| m == "d2e4t"), "{moves}");
    assert!(!moves.lines().any(|m| m == "d2b3t"), "the path to b3 passes c2, which is empty: {moves}");
}

/// A misspelt variant gets the closest name suggested before the list,
/// compiled, built-in data and loaded variants alike; a name far from
/// every variant gets the list alone.
#[test]
fn a_misspelt_variant_gets_the_closest_name_suggested() {
    for (args, meant) in [
        (&["perft", "--variant", "camel-rino", "1"][..], "camel-rhino"),
        (&["moves", "--variant", "Makruck"], "makruk"),
        (&["--variants", EXAMPLE, "perft", "--variant", "centuars", "1"], "centaurs"),
        (&["epd", "--variant", "chess96", "tests/perft/chess-standard.epd"], "chess960"),
        (&["svg", "--variant", "alsied"], "alseid"),
        (&["svg", "--variant", "shatranji"], "shatranj"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(&format!(": did you mean '{meant}'? (known: chess, ")), "{args:?}: {}", stderr(&o));
    }
    let o = run(&["perft", "--variant", "tamerlane", "1"]);
    assert!(stderr(&o).contains("unknown variant 'tamerlane' (known: chess, "), "{}", stderr(&o));
}

#[test]
fn flag_wins_and_check_counting_end_games_in_the_cli() {
    // King of the hill: the king's step onto e4 wins at once.
    let o = run(&["--json", "validate", "--variant", "kingofthehill", "--fen", "k7/8/8/8/8/3K4/8/8 w - - 0 1", "d3e4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(r#""outcome":"flag, White wins""#), "{}", stdout(&o));
    // Three-check: the third check wins; the FEN counts the checks left.
    let fen = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1+1 0 3";
    let o = run(&["validate", "--variant", "3check", "--fen", fen, "Bb5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("san: Bb5#") && out.contains(" b KQkq - 0+1 1 3"), "{out}");
    assert!(out.contains("outcome: checks, White wins"), "{out}");
    // Racing kings: no move may give check, and perft counts as Fairy-Stockfish.
    let o = run(&["perft", "--variant", "racingkings", "3"]);
    assert_eq!(last_line(&o), "11264");
}

#[test]
fn antichess_horde_and_atomic_in_the_cli() {
    for (variant, count) in [("antichess", "8067"), ("horde", "1274"), ("atomic", "8902")] {
        let o = run(&["perft", "--variant", variant, "3"]);
        assert!(o.status.success(), "{variant}: {}", stderr(&o));
        assert_eq!(last_line(&o), count, "{variant}");
    }
    // Atomic: the capture that blows up the black king wins at once.
    let o = run(&["validate", "--variant", "atomic", "--fen", "1k6/Rb6/8/8/4q3/8/8/4K3 w - - 0 1", "a7b7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("outcome: extinction, White wins"), "{}", stdout(&o));
    // Antichess: the only capture is forced.
    let o = run(&[
        "validate",
        "--variant",
        "antichess",
        "--fen",
        "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2",
        "e4e5",
    ]);
    assert_eq!(o.status.code(), Some(1), "a quiet move when a capture exists is illegal");
    assert!(stderr(&o).contains("'e4e5' is not a legal move"), "{}", stderr(&o));
}
