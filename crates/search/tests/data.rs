//! The search of data-defined variants ([`menagerie_rules`]): forced mates
//! (checked by an independent brute-force search), material, game ends
//! with the variant's values (shatranj's bare king and stalemate), draws by
//! repetition, legal best moves from random positions, limits and stop,
//! and the Zobrist key.

#![allow(clippy::unwrap_used)]

use menagerie_game::SearchRoot;
use menagerie_rules::{Definitions, EndReason, GameResult, Move, Position};
use menagerie_search::{
    DataPosition, Engine, EngineOptions, IllegalMoveAt, Limits, Score, SearchPosition, SearchResult, Strength,
    strength_params,
};
use proptest::prelude::*;
use std::time::{Duration, Instant};

const EXAMPLE_INI: &str = include_str!("../../../tests/variants/example.ini");
const MENAGERIE_KEYS_INI: &str = include_str!("../../../tests/variants/menagerie-keys.ini");

/// The built-in definitions plus the example user files.
fn defs() -> Definitions {
    let mut d = Definitions::builtin();
    d.load(EXAMPLE_INI, "example.ini").unwrap();
    d.load(MENAGERIE_KEYS_INI, "menagerie-keys.ini").unwrap();
    d
}

fn pos(variant: &str, fen: &str) -> Position {
    let defs = defs();
    let def = defs.get(variant).unwrap_or_else(|| panic!("variant {variant}"));
    Position::from_fen(def, fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

fn engine() -> Engine {
    Engine::new(EngineOptions { hash_mb: 16, threads: 1, multipv: 1 })
}

/// Sets `e`'s game: the data position `p` followed by `moves`.
fn set(e: &mut Engine, p: Position, moves: &[Move]) -> Result<(), IllegalMoveAt> {
    let moves: Vec<menagerie_game::Move> = moves.iter().map(|&m| m.into()).collect();
    e.set_position(p, &moves)
}

/// A search's result in the data engine's moves.
fn data(r: SearchResult) -> SearchResult<Move> {
    r.map_lines(|pv| pv.iter().map(|m| m.data().unwrap()).collect())
}

/// Where `e` searches its game: on a compiled twin or not.
fn searched_on_a_twin(e: &Engine) -> bool {
    matches!(e.game().search_root(), SearchRoot::Compiled(r) if r.is_twin())
}

fn search(p: &Position, moves: &[Move], limits: Limits) -> SearchResult<Move> {
    let mut e = engine();
    set(&mut e, p.clone(), moves).unwrap();
    data(e.search(limits, |_| {}))
}

/// Whether the side to move at `p` wins, by the variant's rules alone,
/// within `n` of its own moves whatever the opponent does (plain minimax
/// over the legal moves: independent of the engine).
fn forced_win(p: &Position, n: u32) -> bool {
    if n == 0 {
        return false;
    }
    p.legal_moves().into_iter().any(|m| {
        let q = p.play(m);
        if lost_for_mover(&q) {
            return true;
        }
        let replies = q.legal_moves();
        !replies.is_empty() && replies.into_iter().all(|r| forced_win(&q.play(r), n - 1))
    })
}

/// Whether the side to move at `q` has lost: the game is over and the
/// other side wins.
fn lost_for_mover(q: &Position) -> bool {
    match q.outcome().map(|o| o.result) {
        Some(GameResult::WhiteWins) => !q.white_to_move(),
        Some(GameResult::BlackWins) => q.white_to_move(),
        _ => false,
    }
}

/// The search proves a win in `n` moves, the brute force agrees there is
/// one and none shorter, and the principal variation is legal and ends the
/// game with the opponent lost. Returns the first move's text.
#[track_caller]
fn win_in(variant: &str, fen: &str, n: i32) -> String {
    let p = pos(variant, fen);
    assert!(forced_win(&p, n as u32), "{variant} {fen}: no forced win in {n}");
    assert!(n == 1 || !forced_win(&p, n as u32 - 1), "{variant} {fen}: a win in less than {n}");
    let r = search(&p, &[], Limits::depth(2 * n as u32 + 1));
    assert_eq!(r.score, Score::Mate(n), "{variant} {fen}");
    let mut q = p.clone();
    let line = &r.lines[0].pv;
    assert_eq!(line.len() as i32, 2 * n - 1, "{variant} pv {line:?}");
    for &m in line {
        assert!(q.legal_moves().contains(&m), "{variant}: pv move {m:?} illegal");
        q = q.play(m);
    }
    assert!(lost_for_mover(&q), "{variant}: the pv does not end the game: {}", q.fen());
    p.move_text(r.best.unwrap())
}

#[test]
fn mates_in_one_and_two_in_several_variants() {
    // King and rook against a lone king: mate on the back rank at once,
    // and in two after the king takes the opposition.
    for (variant, one, two) in [
        ("capablanca", "k9/10/1K8/10/10/10/10/9R w - - 0 1", "k9/10/2K7/10/10/10/10/9R w - - 0 1"),
        ("makruk", "k7/8/1K6/8/8/8/8/7R w - - 0 1", "k7/8/2K5/8/8/8/8/7R w - - 0 1"),
        ("grasshopper", "k7/8/1K6/8/8/8/8/7R w - - 0 1", "k7/8/2K5/8/8/8/8/7R w - - 0 1"),
        ("seirawan", "k7/8/1K6/8/8/8/8/7R[] w - - 0 1", "k7/8/2K5/8/8/8/8/7R[] w - - 0 1"),
        ("centaurs", "k7/8/1K6/8/8/8/8/7R w - - 0 1", "k7/8/2K5/8/8/8/8/7R w - - 0 1"),
        ("cannons", "k9/10/1K8/10/10/10/10/9R w - - 0 1", "k9/10/2K7/10/10/10/10/9R w - - 0 1"),
        // Shatranj: Black keeps a blocked pawn so that the bare-king rule
        // does not end the game first.
        ("shatranj", "k7/7p/1K5P/8/8/8/8/6R1 w - - 0 1", "k7/7p/2K4P/8/8/8/8/6R1 w - - 0 1"),
    ] {
        let first = win_in(variant, one, 1);
        assert!(first.ends_with('8'), "{variant}: {first}");
        win_in(variant, two, 2);
    }
}

#[test]
fn mates_with_fairy_pieces() {
    // Capablanca: the archbishop (bishop + knight) mates from c7 or c6.
    win_in("capablanca", "k9/10/1K8/4A5/10/10/10/10 w - - 0 1", 1);
    // Centaurs (a user variant): the centaur (knight + king) mates from c7.
    win_in("centaurs", "k7/8/1K2C3/8/8/8/8/8 w - - 0 1", 1);
}

#[test]
fn takes_a_hanging_piece() {
    for (variant, fen, best) in [
        ("capablanca", "k9/10/10/c9/10/10/10/R8K w - - 0 1", "a1a5"),
        ("shatranj", "k7/7p/7P/r7/8/8/8/R6K w - - 0 1", "a1a5"),
        ("grasshopper", "k7/8/8/q7/8/8/8/R6K w - - 0 1", "a1a5"),
        ("makruk", "k7/8/8/r7/8/8/8/R6K w - - 0 1", "a1a5"),
    ] {
        let p = pos(variant, fen);
        let r = search(&p, &[], Limits::depth(5));
        assert_eq!(p.move_text(r.best.unwrap()), best, "{variant}");
        assert!(matches!(r.score, Score::Cp(c) if c > 200) || matches!(r.score, Score::Mate(n) if n > 0), "{variant}");
    }
}

#[test]
fn takeovers_count_as_material() {
    // The Camel's leap d4-e7 converts the queen on d5 and the rook on d6.
    let p = pos("my-camel-rhino", "c8k/10/10/10/3r6/3q6/3C6/10/10/K8C w - - 0 1");
    let r = search(&p, &[], Limits::depth(3));
    assert_eq!(p.move_text(r.best.unwrap()), "d4e7t");
    assert!(matches!(r.score, Score::Cp(c) if c > 1500), "{:?}", r.score);
    // Taking Black's last Camel wins at once (the loss rule).
    let p = pos("my-camel-rhino", "c8k/10/10/10/10/10/10/10/10/Q3K4C w - - 0 1");
    let r = search(&p, &[], Limits::depth(3));
    assert_eq!(p.move_text(r.best.unwrap()), "a1a10");
    assert!(matches!(r.score, Score::Mate(1)), "{:?}", r.score);
}

#[test]
fn shatranj_bare_king_loses() {
    // Taking Black's last piece leaves a bare king; Black's reply cannot
    // take White's rook, so Black is extinct after it: the game ends two
    // plies on, a win in one move by the search's count.
    let fen = "4k3/8/8/8/8/8/R2p4/4K3 w - - 0 1";
    let p = pos("shatranj", fen);
    let r = search(&p, &[], Limits::depth(5));
    assert_eq!(p.move_text(r.best.unwrap()), "a2d2");
    assert_eq!(r.score, Score::Mate(1));
    let q = p.play(p.parse_move("a2d2").unwrap());
    assert_eq!(q.outcome(), None, "Black may still answer");
    for reply in q.legal_moves() {
        let end = q.play(reply).outcome().unwrap();
        assert_eq!((end.reason, end.result), (EndReason::Extinction, GameResult::WhiteWins));
    }
    // The bare king against two pieces is lost at once.
    let q = pos("shatranj", "4k3/8/8/8/8/8/8/R3K2R b - - 0 1");
    assert!(lost_for_mover(&q));
    let r = search(&q, &[], Limits::depth(3));
    assert_eq!(r.best, None);
}

#[test]
fn shatranj_stalemate_wins() {
    // Nc8 or Nc6 leaves Black without a move (its pawn is blocked): a win
    // in shatranj, where stalemate loses; in chess the same moves draw.
    let fen = "k7/2K1N2p/7P/8/8/8/8/8 w - - 0 1";
    let best = win_in("shatranj", fen, 1);
    assert!(best == "e7c8" || best == "e7c6", "{best}");
    let p = pos("shatranj", fen);
    let end = p.play(p.parse_move(&best).unwrap()).outcome().unwrap();
    assert_eq!(end.reason, EndReason::Stalemate);
    let chess = pos("chess", fen);
    let stalemated = chess.play(chess.parse_move(&best).unwrap());
    assert_eq!(stalemated.outcome().map(|o| o.result), Some(GameResult::Draw));
    let r = search(&chess, &[], Limits::depth(3));
    let chosen = chess.move_text(r.best.unwrap());
    assert!(chosen != "e7c8" && chosen != "e7c6", "{chosen}");
}

#[test]
fn lichess_variants_end_as_their_rules_say() {
    // Atomic: in check, Rxb7 blows up the black king.
    assert_eq!(win_in("atomic", "1k6/Rb6/8/8/4q3/8/8/4K3 w - - 0 1", 1), "a7b7");
    // Horde: Black takes White's last pawn.
    assert_eq!(win_in("horde", "4k3/8/8/8/8/8/P7/1q6 b - - 0 1", 1), "b1a2");
    // Antichess: every king move stalemates Black, who then wins; the
    // loss is reported as one move away, not as "mate 0".
    let p = pos("antichess", "8/8/8/8/8/p7/P7/7K w - - 0 1");
    let r = search(&p, &[], Limits::depth(3));
    assert_eq!(r.score, Score::Mate(-1));
    // Antichess: offering the last piece to the pawn, which must take it,
    // wins.
    let p = pos("antichess", "8/8/8/8/8/2p5/7R/8 w - - 0 1");
    let r = search(&p, &[], Limits::depth(3));
    assert_eq!(r.score, Score::Mate(1));
    let best = p.move_text(r.best.unwrap());
    assert!(best == "h2d2" || best == "h2b2", "{best}");
}

#[test]
fn repetition_is_a_draw() {
    // White is a queen and a knight up; Black's only way out is to repeat
    // the start position a third time (twice in the game so far).
    let start = pos("capablanca", "7k2/10/10/10/10/10/10/1Q4K1N1 w - - 0 1");
    let line = |texts: &[&str]| {
        let mut moves = Vec::new();
        let mut p = start.clone();
        for text in texts {
            let m = p.parse_move(text).unwrap();
            moves.push(m);
            p = p.play(m);
        }
        (moves, p)
    };
    let (moves, p) = line(&["i1h3", "h8g8", "h3i1", "g8h8", "i1h3", "h8g8", "h3i1"]);
    let r = search(&start, &moves, Limits::depth(6));
    assert_eq!(p.move_text(r.best.unwrap()), "g8h8");
    assert_eq!(r.score, Score::Cp(0));
    // Without the history the same position is simply lost.
    let lost = |score: Score| matches!(score, Score::Cp(c) if c < -500) || matches!(score, Score::Mate(n) if n < 0);
    let r = search(&p, &[], Limits::depth(6));
    assert!(lost(r.score), "{:?}", r.score);
    // With the start seen once before, going back to it is a second
    // occurrence only: White need not repeat, so it is still lost.
    let (moves, _) = line(&["i1h3", "h8g8", "h3i1"]);
    let r = search(&start, &moves, Limits::depth(6));
    assert!(lost(r.score), "{:?}", r.score);
}

#[test]
fn n_move_rule_follows_the_variant() {
    // Capablanca keeps chess's 50 moves: with the clock at 99 plies every
    // White move (none captures or moves a pawn) draws.
    let p = pos("capablanca", "k9/10/2K7/10/10/10/10/9R w - - 99 80");
    assert_eq!(search(&p, &[], Limits::depth(4)).score, Score::Cp(0));
    let p = pos("capablanca", "k9/10/2K7/10/10/10/10/9R w - - 0 80");
    assert!(matches!(search(&p, &[], Limits::depth(4)).score, Score::Mate(n) if n > 0));
    // Makruk has no such rule (its counting is not the search's business).
    let p = pos("makruk", "k7/8/2K5/8/8/8/8/7R w - - 120 80");
    assert!(matches!(search(&p, &[], Limits::depth(4)).score, Score::Mate(n) if n > 0));
}

/// A deterministic pseudo-random sequence (SplitMix64).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut x = *state;
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The position after up to `plies` random legal moves from the start.
fn random_position(def: &std::sync::Arc<menagerie_rules::VariantDef>, seed: u64, plies: u32) -> (Position, Vec<Move>) {
    let start = Position::start(def);
    let mut p = start.clone();
    let mut moves = Vec::new();
    let mut rng = seed;
    for _ in 0..plies {
        let legal = p.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[(next(&mut rng) % legal.len() as u64) as usize];
        moves.push(m);
        p = p.play(m);
    }
    (start, moves)
}

const VARIANTS: [&str; 14] = [
    "antichess",
    "horde",
    "atomic",
    "capablanca",
    "shatranj",
    "makruk",
    "grasshopper",
    "seirawan",
    "shako",
    "knightmate",
    "centaurs",
    "cannons",
    "my-camel-rhino",
    "my-alseid",
];

/// Calls `check` on `games` random games of every variant of [`VARIANTS`]
/// (their name, start and moves), drawn from the seed `rng` with `plies`
/// choosing each game's length.
fn random_games(
    mut rng: u64,
    games: usize,
    plies: impl Fn(&mut u64) -> u32,
    mut check: impl FnMut(&str, Position, Vec<Move>),
) {
    let defs = defs();
    for variant in VARIANTS {
        let def = defs.get(variant).unwrap();
        for _ in 0..games {
            let seed = next(&mut rng);
            let (start, moves) = random_position(def, seed, plies(&mut rng));
            check(variant, start, moves);
        }
    }
}

#[test]
fn best_move_is_always_legal() {
    let mut e = engine();
    random_games(
        7,
        12,
        |rng| (next(rng) % 120) as u32,
        |variant, start, moves| {
            set(&mut e, start, &moves).unwrap();
            let p = e.position().data().unwrap().clone();
            let r = data(e.search(Limits { nodes: Some(3000), ..Limits::default() }, |_| {}));
            let legal = p.legal_moves();
            match r.best {
                Some(m) => assert!(legal.contains(&m), "{variant} {}: {m:?}", p.fen()),
                None => assert!(legal.is_empty(), "{variant} {}: no move", p.fen()),
            }
            if let Some(reply) = r.ponder {
                let q = p.play(r.best.unwrap());
                assert!(q.legal_moves().contains(&reply), "{variant} {}: ponder", p.fen());
            }
        },
    );
}

#[test]
fn piece_square_slots_are_distinct_and_within_the_games_count() {
    // What each variant's slots stand for, as first seen.
    let mut seen = std::collections::HashMap::new();
    random_games(
        11,
        6,
        |_| 100,
        |variant, start, moves| {
            let mut p = start;
            for m in moves {
                let d = DataPosition::new(p.clone());
                let slots = d.piece_squares();
                for r in p.legal_moves() {
                    let slot = d.piece_square(r);
                    // A drop has no moving piece on the board: no slot.
                    let Some(piece) = p.piece_on(r.from_square()) else {
                        assert_eq!(slot, slots, "{variant}: {r:?}");
                        continue;
                    };
                    assert!(slot < slots, "{variant}: slot {slot} of {slots}");
                    let id = (piece.white, piece.kind, r.to_square());
                    assert_eq!(
                        *seen.entry((variant.to_string(), slot)).or_insert(id),
                        id,
                        "{variant}: slot {slot} shared"
                    );
                }
                p = p.play(m);
            }
        },
    );
}

#[test]
fn limits_and_stop_are_honoured() {
    let p = Position::start(defs().get("capablanca").unwrap());
    // Depth.
    let r = search(&p, &[], Limits::depth(4));
    assert_eq!(r.depth, 4);
    assert_eq!(r.lines[0].depth, 4);
    // Nodes (checked every 1024).
    let r = search(&p, &[], Limits::nodes(20_000));
    assert!(r.nodes <= 20_000 + 2048, "{}", r.nodes);
    // Movetime.
    let t = Instant::now();
    let r = search(&p, &[], Limits::movetime(Duration::from_millis(200)));
    // Never early; how late depends on the machine's load.
    assert!(t.elapsed() >= Duration::from_millis(200), "{:?}", t.elapsed());
    assert!(r.best.is_some());
    // Stop.
    let mut e = engine();
    set(&mut e, p.clone(), &[]).unwrap();
    let handle = e.go(Limits { infinite: true, ..Limits::default() }, |_| {});
    std::thread::sleep(Duration::from_millis(150));
    // An infinite search ends only on `stop`: that it returns is the test.
    handle.stop();
    let r = data(handle.wait());
    assert!(p.legal_moves().contains(&r.best.unwrap()));
    // Strength limit: a legal move, within the strength's caps.
    let mut e = engine();
    set(&mut e, p.clone(), &[]).unwrap();
    let weak = Limits { strength: Some(Strength { elo: 1200, seed: 3 }), ..Limits::default() };
    let r = data(e.search(weak, |_| {}));
    assert!(p.legal_moves().contains(&r.best.unwrap()));
    assert!(r.depth <= strength_params(1200).depth);
    // Multipv and threads.
    let mut e = Engine::new(EngineOptions { hash_mb: 16, threads: 2, multipv: 3 });
    set(&mut e, p.clone(), &[]).unwrap();
    let r = data(e.search(Limits::depth(5), |_| {}));
    assert_eq!(r.lines.len(), 3);
    let firsts: Vec<Move> = r.lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
}

#[test]
fn illegal_history_is_rejected() {
    let p = Position::start(defs().get("capablanca").unwrap());
    let m = p.parse_move("e2e4").unwrap();
    let mut e = engine();
    let err = set(&mut e, p, &[m, m]).unwrap_err();
    assert_eq!(err.index, 1);
}

#[test]
fn moves_pack_and_unpack() {
    random_games(
        11,
        8,
        |rng| (next(rng) % 60) as u32,
        |variant, start, moves| {
            let p = moves.into_iter().fold(start, |p, m| p.play(m));
            for m in p.legal_moves() {
                assert_eq!(Move::unpack(m.pack()), Some(m), "{variant} {}", p.move_text(m));
            }
        },
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The key of a position reached by moves equals the key of the same
    /// position read from its FEN, and the key updated move by move, at
    /// every step of a random game.
    #[test]
    fn key_of_played_position_equals_key_from_fen(v in 0..VARIANTS.len(), seed in any::<u64>(), plies in 0u32..100) {
        let defs = defs();
        let def = defs.get(VARIANTS[v]).unwrap();
        let (start, moves) = random_position(def, seed, plies);
        let mut p = start;
        let mut incremental = p.key();
        for m in moves {
            let next = p.play(m);
            incremental = next.key_from(&p, incremental);
            p = next;
            let fresh = Position::from_fen(def, &p.fen()).unwrap();
            prop_assert_eq!(p.key(), fresh.key(), "{} {}", VARIANTS[v], p.fen());
            prop_assert_eq!(incremental, p.key(), "{} {}", VARIANTS[v], p.fen());
            prop_assert_eq!(DataPosition::new(p.clone()).key(), p.key());
        }
    }
}

/// A user's variant whose rules a compiled game plays is searched by that
/// game's compiled code and answered in data moves; one without is searched
/// by the data core.
#[test]
fn a_variant_with_compiled_rules_is_searched_by_the_compiled_core() {
    let mut d = defs();
    d.load("[my-chess:chess]\nstartFen = rbnqknbr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKNBR w KQkq - 0 1\n", "t.ini").unwrap();
    let def = d.get("my-chess").unwrap();
    let mut e = engine();
    set(&mut e, Position::start(def), &[]).unwrap();
    assert!(searched_on_a_twin(&e));
    // The scholar's mate in one, as the brute force confirms.
    let p = Position::from_fen(def, "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4").unwrap();
    assert!(forced_win(&p, 1));
    let r = search(&p, &[], Limits::depth(4));
    assert_eq!(r.score, Score::Mate(1));
    assert_eq!(p.move_text(r.best.unwrap()), "h5f7");
    // Lines are data moves, legal in order; a game's moves keep the twin.
    let start = Position::start(def);
    let mut at = start.clone();
    let mut moves = Vec::new();
    for text in ["e2e4", "e7e5", "c1d3"] {
        let m = at.parse_any(text).unwrap();
        at = at.play(m);
        moves.push(m);
    }
    set(&mut e, start, &moves).unwrap();
    assert!(searched_on_a_twin(&e));
    let r = data(e.search(Limits::depth(6), |_| {}));
    let mut q = e.position().data().unwrap().clone();
    for &m in &r.lines[0].pv {
        assert!(q.legal_moves().contains(&m), "{} in {}", q.move_text(m), q.fen());
        q = q.play(m);
    }
    assert_eq!(r.best, r.lines[0].pv.first().copied());
    // `searchmoves` in data moves.
    let here = e.position().data().unwrap().clone();
    let only = [here.parse_any("a7a6").unwrap()];
    let searchmoves = only.iter().map(|&m| m.into()).collect();
    let r = data(e.go(Limits { depth: Some(4), searchmoves, ..Limits::default() }, |_| {}).wait());
    assert_eq!(r.best, Some(only[0]));
    // Makruk has no compiled twin.
    set(&mut e, Position::start(d.get("makruk").unwrap()), &[]).unwrap();
    assert!(!searched_on_a_twin(&e));
}
