//! The game ends that look at the whole game (n-fold repetition, janggi's
//! move repetition, xiangqi's chasing rule, the move rule, material
//! counting) against
//! Fairy-Stockfish: every prefix of the games of
//! `tests/perft/game-ends-pyffish.txt` (written by
//! `benches/fsf_game_ends.py` with pyffish's `is_optional_game_end`) must
//! end, or go on, as it says.

use menagerie_rules::{Definitions, Game, GameResult, Position};

const GAMES: &str = include_str!("../../../tests/perft/game-ends-pyffish.txt");

/// The end `game` may be claimed with now, for the side to move.
fn claim(game: &Game) -> &'static str {
    let white = game.current().white_to_move();
    match game.claimable().map(|o| o.result) {
        None => "-",
        Some(GameResult::Draw) => "draw",
        Some(GameResult::WhiteWins) if white => "win",
        Some(GameResult::BlackWins) if !white => "win",
        Some(_) => "loss",
    }
}

/// Replays each game of `text` (lines `variant;start fen;moves;expected`,
/// one expected word per prefix of the moves) and asks `check` about each
/// prefix's game and word: a game stops at the first answer `Some(what
/// Menagerie says)`, noted as a failure. The games replayed and the failures.
fn replay<'a>(
    defs: &Definitions,
    text: &'a str,
    mut check: impl FnMut(&'a str, &Game, &'a str) -> Option<String>,
) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let mut games = 0;
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let [variant, fen, moves, expected] = line.split(';').collect::<Vec<_>>()[..] else {
            panic!("bad line {line}")
        };
        let def = defs.get(variant).unwrap_or_else(|| panic!("no variant {variant}"));
        let mut game = Game::new(Position::from_fen(def, fen).unwrap_or_else(|e| panic!("{fen}: {e}")));
        let moves: Vec<&str> = moves.split_whitespace().collect();
        let expected: Vec<&str> = expected.split_whitespace().collect();
        assert_eq!(expected.len(), moves.len() + 1, "{line}");
        games += 1;
        for (ply, want) in expected.iter().enumerate() {
            if let Some(got) = check(variant, &game, want) {
                failures.push(format!("{variant} {fen} after {:?}: {got}, Fairy-Stockfish {want}", &moves[..ply]));
                break;
            }
            if let Some(text) = moves.get(ply) {
                let m = game.current().parse_move(text).unwrap_or_else(|e| panic!("{variant} {text}: {e}"));
                game.play(m);
            }
        }
    }
    (games, failures)
}

#[test]
fn whole_game_ends_are_fairy_stockfishs() {
    let defs = Definitions::builtin();
    let mut prefixes = 0;
    let mut ends = std::collections::BTreeMap::<(&str, &str), usize>::new();
    let (games, failures) = replay(&defs, GAMES, |variant, game, want| {
        prefixes += 1;
        let got = claim(game);
        if want != "-" {
            *ends.entry((variant, want)).or_default() += 1;
        }
        (got != want).then(|| got.to_string())
    });
    assert!(failures.is_empty(), "{} of {games} games differ:\n{}", failures.len(), failures.join("\n"));
    // The file holds what it is there for: janggi's move repetitions (a win
    // for the side to move), repetitions valued by material, and Cambodian
    // chess's repetitions, in which the gates do not count, and xiangqi's
    // chases (a chaser loses) and repetitions without one.
    assert!(games >= 180 && prefixes >= 9000, "{games} games, {prefixes} positions");
    assert!(ends.get(&("janggimodern", "win")).is_some_and(|&n| n >= 50), "{ends:?}");
    assert!(ends.get(&("janggi", "loss")).is_some_and(|&n| n >= 5), "{ends:?}");
    for end in ["win", "loss", "draw"] {
        assert!(ends.get(&("xiangqi", end)).is_some_and(|&n| n >= 5), "{ends:?}");
    }
    for variant in ["cambodian", "karouk"] {
        assert!(ends.get(&(variant, "draw")).is_some_and(|&n| n >= 25), "{ends:?}");
    }
}

const CHASED: &str = include_str!("../../../tests/perft/chased-fsf.txt");

/// The name of square `s` on a board `files` wide (`a1`, `i10`).
fn square_name(files: u8, s: u32) -> String {
    format!("{}{}", (b'a' + (s % u32::from(files)) as u8) as char, s / u32::from(files) + 1)
}

#[test]
fn chased_pieces_are_fairy_stockfishs() {
    // `tests/perft/chased-fsf.txt` (written by `benches/fsf_chased.py`
    // with a Fairy-Stockfish binary built from source): after every move
    // of seeded games of xiangqi, and of Manchu chess, janggi and chess
    // with the chasing rule (`tests/variants/chasing.ini`), the pieces it
    // chased.
    let mut defs = Definitions::builtin();
    defs.load(include_str!("../../../tests/variants/chasing.ini"), "chasing.ini").expect("chasing.ini loads");
    let mut chases = 0;
    let (games, failures) = replay(&defs, CHASED, |_, game, want| {
        let files = game.current().variant().files;
        let mut squares: Vec<String> =
            (0..128).filter(|s| game.chased() >> s & 1 != 0).map(|s| square_name(files, s)).collect();
        squares.sort();
        let mut wanted: Vec<&str> = if want == "-" { Vec::new() } else { want.split(',').collect() };
        wanted.sort();
        chases += wanted.len();
        (squares != wanted).then(|| format!("{squares:?}"))
    });
    assert!(failures.is_empty(), "{} of {games} games differ:\n{}", failures.len(), failures.join("\n"));
    assert!(games >= 450 && chases >= 2500, "{games} games, {chases} chased pieces");
}

#[test]
fn the_chasing_rule_takes_any_move() {
    // Drops, passes, castling, en passant and promotions under the chasing
    // rule: seeded random games, each position's chases and game end asked.
    let mut defs = Definitions::builtin();
    let ini = "[cz:crazyhouse]\nchasingRule = axf\n[jg:janggi]\nchasingRule = axf\n[ch:chess]\nchasingRule = axf\n";
    defs.load(ini, "chasing.ini").expect("loads");
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for name in ["cz", "jg", "ch"] {
        for _ in 0..20 {
            let mut game = Game::new(Position::start(defs.get(name).expect(name)));
            for _ in 0..200 {
                if game.outcome().is_some() || game.claimable().is_some() {
                    break;
                }
                let moves = game.current().legal_moves();
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                game.play(m);
                assert_eq!(game.chased() & !game.current().variant().board_squares(), 0, "{name}");
            }
        }
    }
}
