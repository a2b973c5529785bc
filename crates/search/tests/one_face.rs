//! The one verb set (`Engine::set_game` / `Engine::go` on a
//! `menagerie_game::Game`) answers what the engine answered before it had
//! one: the same best move, principal variation, score and node count at a
//! fixed depth, for a compiled game (chess), a game defined as data that a
//! compiled game plays exactly (a chess with shuffled pieces, searched on
//! compiled chess), and games defined as data without a compiled twin
//! (capablanca, crazyhouse).
//!
//! The expected figures are those `menagerie-uci` printed at commit 8bc350e
//! (before `menagerie-game`), with `Hash 16`, one thread, `go depth 5` from
//! the start position: compiled chess through `set_position`/`go`, the data
//! games through `set_data_position`/`go_data`.

#![allow(clippy::unwrap_used)]

use menagerie_game::{Game, Position, SearchRoot};
use menagerie_rules::Definitions;
use menagerie_search::{Engine, EngineOptions, Limits, Score};
use menagerie_variants::{AnyPosition, VariantId};

/// Searches `start` to depth 5 and returns the best move, the principal
/// variation (as text), the score and the nodes.
fn depth_five(start: Position) -> (String, String, Score, u64) {
    let mut e = Engine::new(EngineOptions { hash_mb: 16, threads: 1, multipv: 1 });
    e.set_game(&Game::new(start));
    let r = e.search(Limits::depth(5), |_| {});
    let root = e.position();
    let best = root.move_text(r.best.unwrap());
    (best, root.line_text(&r.lines[0].pv, false).join(" "), r.score, r.nodes)
}

fn data(defs: &Definitions, name: &str) -> Position {
    menagerie_rules::Position::start(defs.get(name).unwrap()).into()
}

#[test]
fn a_compiled_game_answers_as_before() {
    let got = depth_five(AnyPosition::start(VariantId::Chess).into());
    assert_eq!(got, ("e2e4".into(), "e2e4 d7d5 e4d5 d8d5 d2d4".into(), Score::Cp(59), 1465));
}

#[test]
fn a_data_game_with_a_compiled_twin_answers_as_before() {
    let mut defs = Definitions::builtin();
    defs.load("[my-chess:chess]\nstartFen = rbnqknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKNBR w KQkq - 0 1\n", "t.ini")
        .unwrap();
    let start = data(&defs, "my-chess");
    assert!(matches!(Game::new(start.clone()).search_root(), SearchRoot::Compiled(r) if r.is_twin()));
    let got = depth_five(start);
    assert_eq!(got, ("c2c4".into(), "c2c4 c7c5 b1e4 b8e5 e4b7".into(), Score::Cp(63), 878));
}

#[test]
fn data_games_without_a_twin_answer_as_before() {
    let defs = Definitions::builtin();
    let capablanca = data(&defs, "capablanca");
    assert!(matches!(Game::new(capablanca.clone()).search_root(), SearchRoot::Data { .. }));
    let got = depth_five(capablanca);
    assert_eq!(got, ("h1i3".into(), "h1i3 h8i6 e2e4 e7e5 d1i6".into(), Score::Cp(27), 2973));
    let got = depth_five(data(&defs, "crazyhouse"));
    assert_eq!(got, ("e2e4".into(), "e2e4 e7e5 d1f3 b8c6 f1c4".into(), Score::Cp(12), 1416));
}
