//! The schedule: round robins, gauntlets, rounds, repeats and opening order.

use super::*;
use std::time::Duration;

fn config(
    engines: usize,
    tournament: Tournament,
    games: u32,
    rounds: u32,
    repeat: u32,
    openings: usize,
) -> MatchConfig {
    let variant = MatchVariant::Compiled(VariantId::Chess);
    MatchConfig {
        engines: (0..engines).map(|i| EngineConfig::uci(format!("e{i}"))).collect(),
        openings: vec![Opening::start_of(&variant); openings],
        variant,
        tournament,
        games,
        rounds,
        repeat,
        concurrency: 1,
        conditions: Conditions {
            time: TimeControl::Nodes(1),
            adjudication: Adjudication::default(),
            time_margin: Duration::ZERO,
            move_timeout: Duration::from_secs(1),
            event: String::new(),
            site: String::new(),
        },
        sprt: None,
    }
}

fn games(c: &MatchConfig) -> Vec<(usize, usize, usize)> {
    schedule(c).iter().map(|p| (p.white, p.black, p.opening)).collect()
}

#[test]
fn a_round_robin_pairs_everyone_and_a_gauntlet_only_the_first() {
    let rr = games(&config(3, Tournament::RoundRobin, 2, 1, 2, 1));
    assert_eq!(rr, [(0, 1, 0), (1, 0, 0), (0, 2, 0), (2, 0, 0), (1, 2, 0), (2, 1, 0)]);
    let g = games(&config(4, Tournament::Gauntlet, 2, 1, 2, 1));
    assert_eq!(g, [(0, 1, 0), (1, 0, 0), (0, 2, 0), (2, 0, 0), (0, 3, 0), (3, 0, 0)]);
    let numbers: Vec<usize> = schedule(&config(4, Tournament::Gauntlet, 2, 1, 2, 1)).iter().map(|p| p.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
}

#[test]
fn rounds_go_on_with_the_next_openings_and_repeat_sets_how_often_each_is_played() {
    // Two rounds of two games: openings 0, 0 then 1, 1, colours alternating.
    let two = games(&config(2, Tournament::RoundRobin, 2, 2, 2, 3));
    assert_eq!(two, [(0, 1, 0), (1, 0, 0), (0, 1, 1), (1, 0, 1)]);
    // Round by round: the whole round robin, then again.
    let rr = games(&config(3, Tournament::RoundRobin, 1, 2, 2, 3));
    assert_eq!(rr, [(0, 1, 0), (0, 2, 0), (1, 2, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0)]);
    // Repeat 1: a new opening every game.
    let once = games(&config(2, Tournament::RoundRobin, 4, 1, 1, 3));
    assert_eq!(once, [(0, 1, 0), (1, 0, 1), (0, 1, 2), (1, 0, 0)]);
}

#[test]
fn a_seed_gives_one_random_order() {
    let mut a: Vec<u32> = (0..20).collect();
    let mut b = a.clone();
    openings::shuffle(&mut a, 7);
    openings::shuffle(&mut b, 7);
    assert_eq!(a, b);
    assert_ne!(a, (0..20).collect::<Vec<_>>());
    let mut c: Vec<u32> = (0..20).collect();
    openings::shuffle(&mut c, 8);
    assert_ne!(a, c);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..20).collect::<Vec<_>>());
}
