//! Rule tests for Camel and Rhino Chess (`camel-rhino`, RULES.md §0 and §4):
//! one named test per rule, each on a small position with the exact legal
//! move list (coordinate form, sorted) or the exact resulting FEN, derived by
//! hand from RULES.md.
//!
//! Positions are written as piece lists (`"Ka1 Cj1 / kj10 cj9"`, upper case
//! White, lower case Black, the `/` is only for the reader) and turned into a
//! 10x10 FEN by [`fen_of`]; every FEN used is checked to round-trip.
//! Remember that both sides must own a Camel or a Rhino, or the game is over
//! and there are no moves (§4.6).

use menagerie_geometry::Square;
use menagerie_notation::{fen, san, uci};
use menagerie_pieces::Color;
use menagerie_variants::{AnyPosition, MoveKind, Outcome, VariantId, WinReason};

const V: VariantId = VariantId::CamelRhino;

const START: &str = "r8r/1hzbqkbnc1/pppp2pppp/4ww4/10/10/4WW4/PPPP2PPPP/1HZBQKBNC1/R8R w - - 0 1";

// ----- helpers ---------------------------------------------------------------

fn sq(name: &str) -> Square {
    let file = name.as_bytes()[0].wrapping_sub(b'a');
    let rank: u8 = name[1..].parse().unwrap_or_else(|_| panic!("bad square {name}"));
    assert!(file < 10 && (1..=10).contains(&rank), "bad square {name}");
    Square((rank - 1) * 10 + file)
}

/// The board field of a FEN from a piece list such as `"Ka1 Cj1 / kj10 cj9"`.
fn board(pieces: &str) -> String {
    let mut grid = [['.'; 10]; 10];
    for tok in pieces.split_whitespace().filter(|t| *t != "/") {
        let letter = tok.chars().next().expect("non-empty token");
        let s = sq(&tok[1..]).0 as usize;
        assert_eq!(grid[s / 10][s % 10], '.', "square {tok} given twice");
        grid[s / 10][s % 10] = letter;
    }
    let ranks: Vec<String> =
        grid.iter().rev().map(|rank| menagerie_testkit::fen_rank(rank.iter().copied(), '.')).collect();
    ranks.join("/")
}

fn fen_of(pieces: &str, rest: &str) -> String {
    format!("{} {rest}", board(pieces))
}

/// Parses a FEN and checks that formatting gives it back.
fn pos(text: &str) -> AnyPosition {
    let p = fen::parse(V, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(fen::format(&p), text, "FEN round trip");
    p
}

fn setup(pieces: &str, rest: &str) -> AnyPosition {
    pos(&fen_of(pieces, rest))
}

fn strings(p: &AnyPosition, keep: impl Fn(&menagerie_variants::Move) -> bool) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().iter().filter(|m| keep(m)).map(|&m| uci::format(V, m)).collect();
    v.sort();
    let n = v.len();
    v.dedup();
    assert_eq!(v.len(), n, "duplicate coordinate strings in {}", fen::format(p));
    v
}

/// Every legal move, coordinate form, sorted.
fn legal(p: &AnyPosition) -> Vec<String> {
    strings(p, |_| true)
}

/// The legal moves of the piece on `square`, including the swaps it takes part in.
fn moves_of(p: &AnyPosition, square: &str) -> Vec<String> {
    let s = sq(square);
    strings(p, |m| m.from == s || (m.kind == MoveKind::Swap && m.to == s))
}

/// The legal swaps.
fn swaps(p: &AnyPosition) -> Vec<String> {
    strings(p, |m| m.kind == MoveKind::Swap)
}

/// The eight promotion choices of §4.2, appended to `prefix`.
fn promos(prefix: &str) -> Vec<String> {
    "qrbnzchw".chars().map(|c| format!("{prefix}{c}")).collect()
}

fn set<S: AsRef<str>>(moves: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut v: Vec<String> = moves.into_iter().map(|s| s.as_ref().to_string()).collect();
    v.sort();
    v
}

#[track_caller]
fn assert_moves(p: &AnyPosition, actual: Vec<String>, expected: Vec<String>) {
    if actual != expected {
        let missing: Vec<&String> = expected.iter().filter(|m| !actual.contains(m)).collect();
        let extra: Vec<&String> = actual.iter().filter(|m| !expected.contains(m)).collect();
        panic!(
            "move list differs in {}\n  missing (expected, not generated): {missing:?}\n  extra (generated, not expected): {extra:?}\n  actual: {actual:?}",
            fen::format(p)
        );
    }
}

/// Asserts the legal moves of `p` are `expected`.
#[track_caller]
fn assert_legal(p: &AnyPosition, expected: Vec<String>) {
    assert_moves(p, legal(p), expected);
}

/// Asserts the legal moves of the piece on `square` (its swaps included)
/// are `expected`.
#[track_caller]
fn assert_moves_of(p: &AnyPosition, square: &str, expected: Vec<String>) {
    assert_moves(p, moves_of(p, square), expected);
}

/// Asserts that `mv` leads to the position of the piece list `pieces` with
/// the FEN fields `rest`.
#[track_caller]
fn assert_after(p: &AnyPosition, mv: &str, pieces: &str, rest: &str) {
    assert_eq!(after(p, mv), fen_of(pieces, rest), "{mv} in {}", fen::format(p));
}

/// Plays `mv` and asserts the position reached is the one of the piece
/// list `pieces` with the FEN fields `rest`; returns it.
#[track_caller]
fn plays_to(p: &AnyPosition, mv: &str, pieces: &str, rest: &str) -> AnyPosition {
    let q = play(p, mv);
    assert_eq!(fen::format(&q), fen_of(pieces, rest), "{mv} in {}", fen::format(p));
    q
}

fn play(p: &AnyPosition, mv: &str) -> AnyPosition {
    let m = uci::parse(p, mv).unwrap_or_else(|e| panic!("{mv} in {}: {e}", fen::format(p)));
    p.play(m).expect("uci::parse returns legal moves")
}

fn after(p: &AnyPosition, mv: &str) -> String {
    fen::format(&play(p, mv))
}

fn san_of(p: &AnyPosition, mv: &str) -> String {
    let m = uci::parse(p, mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    san::format(p, m)
}

fn no_camel_or_rhino(winner: Color) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason: WinReason::NoCamelOrRhino })
}

#[test]
fn piece_list_builder_matches_the_start_fen() {
    let pieces = "Ra1 Rj1 Hb2 Zc2 Bd2 Qe2 Kf2 Bg2 Nh2 Ci2 Pa3 Pb3 Pc3 Pd3 Pg3 Ph3 Pi3 Pj3 We4 Wf4 / \
                  ra10 rj10 hb9 zc9 bd9 qe9 kf9 bg9 nh9 ci9 pa8 pb8 pc8 pd8 pg8 ph8 pi8 pj8 we7 wf7";
    assert_eq!(fen_of(pieces, "w - - 0 1"), START);
}

// ----- §4.1 board and setup ----------------------------------------------------

/// §4.1: the corrected start position (black pawns on a8–d8, g8–j8), its FEN
/// round trip, and White's 105 moves: 76 ordinary moves and 29 swaps (no
/// takeover is possible: no enemy piece is near).
#[test]
fn start_position_fen_and_moves() {
    let p = pos(START);
    assert_eq!(p, AnyPosition::start(V));
    assert_eq!(fen::format(&AnyPosition::start(V)), START);
    // Pawns: one or two steps from rank 3.
    let pawns = [
        "a3a4", "a3a5", "b3b4", "b3b5", "c3c4", "c3c5", "d3d4", "d3d5", "g3g4", "g3g5", "h3h4", "h3h5", "i3i4", "i3i5",
        "j3j4", "j3j5",
    ];
    let wazirs = ["e4d4", "e4e3", "e4e5", "f4f3", "f4f5", "f4g4"];
    let rooks = [
        "a1a2", "a1b1", "a1c1", "a1d1", "a1e1", "a1f1", "a1g1", "a1h1", "a1i1", "j1j2", "j1i1", "j1h1", "j1g1", "j1f1",
        "j1e1", "j1d1", "j1c1", "j1b1",
    ];
    // Rhino b2: wazir steps and the (2,3) leap d5 (e4 holds a friendly Wazir).
    let rhino = ["b2a2", "b2b1", "b2d5"];
    let zebra = ["c2b4", "c2d4", "c2e3", "c2e1"];
    let knight = ["h2f1", "h2f3", "h2g4", "h2i4"];
    // Camel i2: the ferz step h1 and (1,3) leaps.
    let camel = ["i2h1", "i2f1", "i2f3", "i2h5", "i2j5"];
    let bishops = ["d2c1", "d2e1", "d2e3", "g2f1", "g2h1", "g2f3"];
    let queen = ["e2d1", "e2e1", "e2f1", "e2e3", "e2f3", "e2g4", "e2h5", "e2i6", "e2j7"];
    let king = ["f2e1", "f2f1", "f2g1", "f2e3", "f2f3"];
    // Swaps of adjacent friendly pieces (not P-P, not W-W), from the lower square.
    let swaps = [
        "a1b2", "j1i2", "b2c2", "b2a3", "b2b3", "b2c3", "c2d2", "c2b3", "c2c3", "c2d3", "d2e2", "d2c3", "d2d3", "e2f2",
        "e2d3", "f2g2", "f2g3", "g2h2", "g2g3", "g2h3", "h2i2", "h2g3", "h2h3", "h2i3", "i2h3", "i2i3", "i2j3", "d3e4",
        "g3f4",
    ];
    assert_eq!(swaps.len(), 29);
    let expected =
        set([&pawns[..], &wazirs, &rooks, &rhino, &zebra, &knight, &camel, &bishops, &queen, &king, &swaps].concat());
    assert_eq!(expected.len(), 105);
    assert_legal(&p, expected);
    assert_eq!(p.perft(1), 105);
    assert_eq!(p.outcome(), None);
    // Black's array is White's mirrored: the same count.
    let b = pos(&START.replace(" w ", " b "));
    assert_eq!(b.legal_moves().len(), 105);
    assert_eq!(b.perft(1), 105);
}

/// §4.1: no castling. A king on its first rank between two rooks on an empty
/// rank only steps.
#[test]
fn no_castling() {
    let p = setup("Kf1 Ra1 Rj1 Cj3 / kf10 ra10 rj10 cj8", "w - - 0 1");
    assert_moves_of(&p, "f1", set(["f1e1", "f1e2", "f1f2", "f1g1", "f1g2"]));
    assert!(p.legal_moves().iter().all(|m| m.kind != MoveKind::Castle));
    assert!(AnyPosition::start(V).legal_moves().iter().all(|m| m.kind != MoveKind::Castle));
}

// ----- §4.2 movement -------------------------------------------------------------

/// §4.2: pawns step one square; two only from rank 3 (White) / 8 (Black) to
/// rank 5 / 6, with both squares empty. A pawn on rank 2 / 9 has no double step.
#[test]
fn pawn_double_step_only_from_third_rank_to_fifth() {
    let pieces = "Ka1 Cj1 Pa5 Pc3 Pe2 Pg3 Ph6 / ka10 cj10 pc8 pe9 pg5 ph8";
    let w = setup(pieces, "w - - 0 1");
    let expected =
        set(["a1a2", "a1b1", "a1b2", "j1g2", "j1i2", "j1i4", "a5a6", "c3c4", "c3c5", "e2e3", "g3g4", "h6h7"]);
    assert_legal(&w, expected);
    let b = setup(pieces, "b - - 0 1");
    assert_legal(
        &b,
        set(["a10a9", "a10b9", "a10b10", "j10g9", "j10i7", "j10i9", "c8c6", "c8c7", "e9e8", "g5g4", "h8h7"]),
    );
}

/// §0/§4.2: en passant after a double step; the square is written after every
/// double step, and the right lasts one move only.
#[test]
fn en_passant_after_double_step() {
    let p = setup("Ka1 Cj1 Pc3 / ka10 cj10 pd5", "w - - 0 1");
    assert_after(&p, "c3c4", "Ka1 Cj1 Pc4 / ka10 cj10 pd5", "b - - 0 1");
    let q = plays_to(&p, "c3c5", "Ka1 Cj1 Pc5 / ka10 cj10 pd5", "b - c4 0 1");
    assert_legal(&q, set(["a10a9", "a10b10", "a10b9", "d5c4", "d5d4", "j10g9", "j10i7", "j10i9"]));
    assert_eq!(uci::parse(&q, "d5c4").unwrap().kind, MoveKind::EnPassant);
    assert_after(&q, "d5c4", "Ka1 Cj1 / ka10 cj10 pc4", "w - - 0 2");
    // One move later the right is gone.
    let r = play(&play(&q, "a10a9"), "j1i2");
    assert_moves_of(&r, "d5", set(["d5d4"]));
    // Black's double step writes the passed square too.
    let b = setup("Ka1 Cj1 / ka10 cj10 pc8", "b - - 0 1");
    assert_after(&b, "c8c6", "Ka1 Cj1 / ka10 cj10 pc6", "w - c7 0 2");
}

/// §4.2: a pawn reaching its last rank promotes to Q, R, B, N, Z, C, H or W
/// (by a step or a capture), for both colours.
#[test]
fn pawn_promotion_choices() {
    let w = setup("Ka1 Cj1 Pe9 / kj7 ca5 rd10", "w - - 0 1");
    let expected = set(promos("e9e10").into_iter().chain(promos("e9d10")));
    assert_moves_of(&w, "e9", expected);
    assert!(uci::parse(&w, "e9e10").is_err(), "a promotion needs a choice");
    assert_after(&w, "e9d10z", "Ka1 Cj1 Zd10 / kj7 ca5", "b - - 0 1");
    assert_after(&w, "e9e10c", "Ka1 Cj1 Ce10 / kj7 ca5 rd10", "b - - 0 1");
    let b = setup("Ke5 Ca5 Nd1 / kj10 cj9 pc2", "b - - 0 1");
    let expected = set(promos("c2c1").into_iter().chain(promos("c2d1")));
    assert_moves_of(&b, "c2", expected);
    assert_after(&b, "c2d1h", "Ke5 Ca5 / kj10 cj9 hd1", "w - - 0 2");
}

/// §4.2/§4.5: a wazir arriving on its last rank from another rank promotes to
/// any of the eight choices, staying a wazir written `w`; one already on that
/// rank moves along it (or back) without promoting. A wazir's promotion is not
/// a pawn move, capture or takeover, so the fifty-move clock runs on (§4.6).
#[test]
fn wazir_promotes_only_when_arriving_on_last_rank() {
    let w = setup("Ka1 Cj1 We9 Wb10 / kj7 ca5", "w - - 5 30");
    let expected = set(promos("e9e10").into_iter().chain(["e9d9", "e9e8", "e9f9"].map(String::from)));
    assert_moves_of(&w, "e9", expected);
    assert_moves_of(&w, "b10", set(["b10a10", "b10b9", "b10c10"]));
    assert!(uci::parse(&w, "e9e10").is_err(), "staying a wazir is written e9e10w");
    assert_after(&w, "e9e10w", "Ka1 Cj1 We10 Wb10 / kj7 ca5", "b - - 6 30");
    assert_after(&w, "e9e10q", "Ka1 Cj1 Qe10 Wb10 / kj7 ca5", "b - - 6 30");
    let b = setup("Ke5 Ca5 / kj10 cj9 wc2 wh1", "b - - 0 1");
    let expected = set(promos("c2c1").into_iter().chain(["c2b2", "c2c3", "c2d2"].map(String::from)));
    assert_moves_of(&b, "c2", expected);
    assert_moves_of(&b, "h1", set(["h1g1", "h1h2", "h1i1"]));
    // Arriving by a jump takeover (next to the Camel d8, over the bishop e9) promotes too.
    let j = setup("Ka1 We8 Cd8 / kj7 ca5 be9", "w - - 5 30");
    let expected = set(promos("e8e10").into_iter().chain(["d8e8", "e8e7", "e8e9", "e8f8"].map(String::from)));
    assert_moves_of(&j, "e8", expected);
    assert_after(&j, "e8e10w", "Ka1 Cd8 Be9 We10 / kj7 ca5", "b - - 0 30");
}

/// §4.2: the Camel is ferz + (1,3) leaper; it leaps over pieces and captures
/// by replacement on both kinds of move.
#[test]
fn camel_moves_as_ferz_and_1_3_leaper() {
    // Own pawn g5 stands on the path of e5-h6; black pawn f6 and knight d8 can be taken.
    let p = setup("Ka1 Ce5 Pg5 / kj10 hj9 pf6 nd8", "w - - 0 1");
    assert_legal(
        &p,
        set([
            "a1a2", "a1b1", "a1b2", // king
            "e5d4", "e5f4", "e5d6", "e5f6", // ferz steps (f6 a capture)
            "e5d8", "e5f8", "e5d2", "e5f2", "e5b4", "e5b6", "e5h4", "e5h6", // (1,3) leaps (d8 a capture)
            "g5g6", "g5f6", // pawn
        ]),
    );
    assert_after(&p, "e5d8", "Ka1 Cd8 Pg5 / kj10 hj9 pf6", "b - - 0 1");
}

/// §4.2: the Rhino is wazir + (2,3) leaper; it leaps over pieces and captures
/// by replacement on both kinds of move.
#[test]
fn rhino_moves_as_wazir_and_2_3_leaper() {
    // Own pawn g7 stands on the path of e5-h7; black bishop e6 and knight c8 can be taken.
    let p = setup("Ka1 He5 Pg7 / kj10 cj8 be6 nc8", "w - - 0 1");
    assert_legal(
        &p,
        set([
            "a1b1", "a1b2", // king (a2 is attacked by the bishop e6)
            "e5e4", "e5e6", "e5d5", "e5f5", // wazir steps (e6 a capture)
            "e5c8", "e5g8", "e5c2", "e5g2", "e5b3", "e5b7", "e5h3", "e5h7", // (2,3) leaps (c8 a capture)
            "g7g8", // pawn
        ]),
    );
    assert_after(&p, "e5c8", "Ka1 Hc8 Pg7 / kj10 cj8 be6", "b - - 0 1");
}

/// §4.4 last sentence: the Camel's ferz step and the Rhino's wazir step never
/// jump, even next to a friendly Camel or Rhino. Also §4.3: a Camel leap whose
/// jumped squares hold a friendly and an enemy piece converts the enemy one.
#[test]
fn camel_and_rhino_steps_never_jump() {
    // Camel e4 next to black pawn f5 (g6 empty); Rhino d4 next to black pawn c4 (b4 empty).
    let p = setup("Ka1 Ce4 Hd4 / kj10 ca10 pf5 pc4", "w - - 0 1");
    let camel = set([
        "e4d3", "e4f3", "e4d5", "e4f5", "e4d1", "e4d7", "e4f1", "e4f7", "e4h3", "e4h5", "e4b3", "e4b3t", "e4b5",
        "e4b5t", "d4e4",
    ]);
    assert_moves_of(&p, "e4", camel);
    let rhino = set(["d4c4", "d4d3", "d4d5", "d4e4", "d4a2", "d4a6", "d4b1", "d4b7", "d4f1", "d4f7", "d4g2", "d4g6"]);
    assert_moves_of(&p, "d4", rhino);
    // e4-b5 jumps d4 (own Rhino) and c4 (black pawn): the pawn is converted.
    assert_after(&p, "e4b5t", "Ka1 Cb5 Hd4 Pc4 / kj10 ca10 pf5", "b - - 0 1");
}

// ----- §4.3 takeovers -----------------------------------------------------------

/// §4.2/§4.3: the Knight's takeover jumps its orthogonal neighbour (d4-e6 and
/// d4-c6 jump d5), optionally (plain and `t` forms both legal), and may also
/// capture on the destination.
#[test]
fn knight_takeover_jumps_the_orthogonal_neighbour() {
    let pieces = "Ka1 Nd4 Cc3 / kj10 cj9 pd5 pe5 nc6";
    let p = setup(pieces, "w - - 0 1");
    assert_moves_of(
        &p,
        "d4",
        set(["c3d4", "d4b3", "d4b5", "d4c2", "d4c6", "d4c6t", "d4e2", "d4e6", "d4e6t", "d4f3", "d4f5"]),
    );
    // Two pieces in one move: c6 captured, d5 converted.
    assert_after(&p, "d4c6t", "Ka1 Nc6 Cc3 Pd5 / kj10 cj9 pe5", "b - - 0 1");
    assert_after(&p, "d4c6", "Ka1 Nc6 Cc3 / kj10 cj9 pd5 pe5", "b - - 0 1");
    assert_after(&p, "d4e6t", "Ka1 Ne6 Cc3 Pd5 / kj10 cj9 pe5 nc6", "b - - 0 1");
    assert_eq!(san_of(&p, "d4c6t"), "Nxc6(=d5)");
    assert_eq!(san_of(&p, "d4c6"), "Nxc6");
    assert_eq!(san_of(&p, "d4e6t"), "Nxe6(=d5)");
}

/// §4.2/§4.3: the Zebra makes the same leaps as the Knight but jumps its
/// diagonal neighbour (d4-e6 and d4-f5 jump e5).
#[test]
fn zebra_takeover_jumps_the_diagonal_neighbour() {
    let p = setup("Ka1 Zd4 Cc3 / kj10 cj9 pd5 pe5 nc6", "w - - 0 1");
    assert_moves_of(
        &p,
        "d4",
        set(["c3d4", "d4b3", "d4b5", "d4c2", "d4c6", "d4e2", "d4e6", "d4e6t", "d4f3", "d4f5", "d4f5t"]),
    );
    assert_after(&p, "d4f5t", "Ka1 Zf5 Cc3 Pe5 / kj10 cj9 pd5 nc6", "b - - 0 1");
    assert_eq!(san_of(&p, "d4f5t"), "Zxf5(=e5)");
}

/// §4.3: Knight and Zebra take over only when adjacent (any of 8 neighbours)
/// to a friendly Camel or Rhino; an enemy Camel next to them does not count.
#[test]
fn knight_and_zebra_takeovers_need_an_adjacent_friendly_camel_or_rhino() {
    let plain = ["d4b3", "d4b5", "d4c2", "d4c6", "d4e2", "d4e6", "d4f3", "d4f5"];
    // Camel far away.
    for piece in ["N", "Z"] {
        let p = setup(&format!("Ka1 {piece}d4 Ch1 / kj10 cj9 pd5 pe5 nc6"), "w - - 0 1");
        assert_moves_of(&p, "d4", set(plain));
        // An enemy Camel adjacent does not help.
        let p = setup(&format!("Ka1 {piece}d4 Ch1 / kj10 cj9 cc3 pd5 pe5 nc6"), "w - - 0 1");
        assert_moves_of(&p, "d4", set(plain));
    }
    // A friendly Rhino orthogonally adjacent counts like a Camel.
    let p = setup("Ka1 Nd4 Hd3 / kj10 cj9 pd5 pe5 nc6", "w - - 0 1");
    let expected = set(plain.into_iter().chain(["d3d4", "d4c6t", "d4e6t"]));
    assert_moves_of(&p, "d4", expected);
    let p = setup("Ka1 Zd4 Hd3 / kj10 cj9 pd5 pe5 nc6", "w - - 0 1");
    let expected = set(plain.into_iter().chain(["d3d4", "d4e6t", "d4f5t"]));
    assert_moves_of(&p, "d4", expected);
}

/// §4.3: a Camel takeover needs no adjacency; the leap e2-f5 jumps e3 and e4
/// and converts all enemy pieces there (all-or-nothing: no move converts only
/// one), and captures on the destination: three pieces in one move. Unlike
/// jump takeovers, leap takeovers have no "not defended" condition (f5 and d5
/// are defended by the bishop e4).
#[test]
fn camel_takeover_converts_both_jumped_pieces_and_captures_the_destination() {
    let p = setup("Ka1 Ce2 / kj10 ca10 re3 be4 nf5", "w - - 0 1");
    let expected =
        set(["e2b1", "e2b3", "e2d1", "e2d3", "e2d5", "e2d5t", "e2f1", "e2f3", "e2f5", "e2f5t", "e2h1", "e2h3"]);
    assert_moves_of(&p, "e2", expected);
    assert_after(&p, "e2f5t", "Ka1 Re3 Be4 Cf5 / kj10 ca10", "b - - 0 1");
    assert_after(&p, "e2f5", "Ka1 Cf5 / kj10 ca10 re3 be4", "b - - 0 1");
    assert_after(&p, "e2d5t", "Ka1 Re3 Be4 Cd5 / kj10 ca10 nf5", "b - - 0 1");
    assert_eq!(san_of(&p, "e2f5t"), "Cxf5(=e3)(=e4)");
    // The converted squares are part of the SAN move: in any order, but all of them.
    let takeover = uci::parse(&p, "e2f5t").expect("legal");
    assert_eq!(san::parse(&p, "Cxf5(=e4)(=e3)").ok(), Some(takeover));
    assert_eq!(san::parse(&p, "Cxf5(=e3)(=e4)+").ok(), Some(takeover));
    for partial in ["Cxf5(=e3)", "Cxf5(=e4)", "Cxf5(=e3)(=e4)(=d4)", "Cxf5(=d4)"] {
        assert!(san::parse(&p, partial).is_err(), "{partial} names no legal move");
    }
    assert_eq!(san::parse(&p, "Cxf5").ok(), uci::parse(&p, "e2f5").ok());
}

/// §4.3: the Rhino's (2,3) leap jumps the two diagonal squares of its path
/// (b2-d5 and b2-e4 both jump c3 and d4), converting both and capturing on d5.
#[test]
fn rhino_takeover_converts_both_jumped_pieces_and_captures_the_destination() {
    let p = setup("Kj1 Hb2 / kj10 ca10 pc3 bd4 nd5", "w - - 0 1");
    assert_moves_of(&p, "b2", set(["b2a2", "b2b1", "b2b3", "b2c2", "b2d5", "b2d5t", "b2e4", "b2e4t"]));
    assert_after(&p, "b2d5t", "Kj1 Pc3 Bd4 Hd5 / kj10 ca10", "b - - 0 1");
    assert_after(&p, "b2e4t", "Kj1 Pc3 Bd4 He4 / kj10 ca10 nd5", "b - - 0 1");
    // The converted bishop d4 now checks the king j10.
    assert_eq!(san_of(&p, "b2d5t"), "Hxd5(=c3)(=d4)+");
}

/// §4.3: a king is never taken over: on a jumped square it stays, and a leap
/// whose only jumped enemy is the king has no takeover form.
#[test]
fn takeover_never_converts_a_king() {
    // b2-e4 / b2-d5 jump c3 (black pawn) and d4 (black king): only the pawn converts.
    let p = setup("Kj1 Hb2 / kd4 pc3 cj10", "w - - 0 1");
    assert_moves_of(&p, "b2", set(["b2a2", "b2b1", "b2b3", "b2c2", "b2d5", "b2d5t", "b2e4", "b2e4t"]));
    assert_after(&p, "b2e4t", "Kj1 Pc3 He4 / kd4 cj10", "b - - 0 1");
    // Only the king on the path: no takeover.
    let p = setup("Kj1 Hb2 / kc3 cj10", "w - - 0 1");
    assert_moves_of(&p, "b2", set(["b2a2", "b2b1", "b2b3", "b2c2", "b2d5", "b2e4"]));
}

/// §4.5: a converted pawn keeps its kind and moves in its new owner's
/// direction: a black pawn on e3 converted by White double-steps from
/// White's start rank 3.
#[test]
fn converted_pawn_moves_in_its_new_owners_direction() {
    let p = setup("Ka1 Ce1 / kj10 cj9 pe3", "w - - 0 1");
    let q = plays_to(&p, "e1f4t", "Ka1 Cf4 Pe3 / kj10 cj9", "b - - 0 1");
    let r = play(&q, "j10i10");
    // (It may also swap with the Camel now next to it.)
    assert_moves_of(&r, "e3", set(["e3e4", "e3e5", "e3f4"]));
    // And the other way: a white pawn converted by Black moves down.
    let p = setup("Ka1 Cj1 Pe8 / kj10 ce10", "b - - 0 1");
    let q = plays_to(&p, "e10d7t", "Ka1 Cj1 / kj10 cd7 pe8", "w - - 0 2");
    let r = play(&q, "a1a2");
    assert_moves_of(&r, "e8", set(["d7e8", "e8e6", "e8e7"]));
}

/// §4.5: a piece converted by takeover keeps its kind and is not promoted: a
/// black wazir on c10 converted by White stays a wazir on White's last rank,
/// and then moves along the rank without promoting.
#[test]
fn converted_wazir_on_last_rank_is_not_promoted() {
    let p = setup("Ka1 Cb10 / kj10 ca5 wc10", "w - - 0 1");
    let q = plays_to(&p, "b10e9t", "Ka1 Ce9 Wc10 / kj10 ca5", "b - - 0 1");
    let r = play(&q, "j10j9");
    assert_moves_of(&r, "c10", set(["c10b10", "c10c9", "c10d10"]));
    // A black pawn on its first rank (rank 10, reachable by a swap) converted by
    // White stays a pawn on White's last rank; it cannot step, and a swap along
    // the rank does not promote it.
    let p = setup("Ka1 Cb10 Rd10 / kj8 ca5 pc10", "w - - 0 1");
    let q = plays_to(&p, "b10e9t", "Ka1 Ce9 Pc10 Rd10 / kj8 ca5", "b - - 0 1");
    let r = play(&q, "j8j7");
    assert_moves_of(&r, "c10", set(["c10d10"]));
    assert_after(&r, "c10d10", "Ka1 Ce9 Rc10 Pd10 / kj7 ca5", "b - - 0 2");
}

/// §4.3: a Queen next to a friendly Camel passes over empty squares to the
/// first piece on a line; if it is an enemy non-king piece it jumps it and
/// lands on the very next square (empty, on the board, not defended).
#[test]
fn slider_jump_takeover_from_a_distance() {
    let p = setup("Kj1 Qc2 Cc1 / kj10 ca10 nc6 pg6", "w - - 0 1");
    let expected = set([
        "c2c3", "c2c4", "c2c5", "c2c6", "c2c7", // up the file; c7 jumps c6
        "c2d3", "c2e4", "c2f5", "c2g6", "c2h7", // up the diagonal; h7 jumps g6
        "c2d2", "c2e2", "c2f2", "c2g2", "c2h2", "c2i2", "c2j2", "c2b2", "c2a2", "c2b3", "c2a4", "c2d1", "c2b1",
        "c1c2", // swap with the Camel
    ]);
    assert_moves_of(&p, "c2", expected);
    assert_eq!(uci::parse(&p, "c2h7").unwrap().kind, MoveKind::Jump);
    assert_after(&p, "c2h7", "Kj1 Cc1 Pg6 Qh7 / kj10 ca10 nc6", "b - - 0 1");
    assert_after(&p, "c2c7", "Kj1 Cc1 Nc6 Qc7 / kj10 ca10 pg6", "b - - 0 1");
    assert_eq!(san_of(&p, "c2h7"), "Qxh7(=g6)");
}

/// §4.3: the landing square of a jump takeover must be empty and not defended
/// (attacked by the other side before the move) — also not when the only
/// defender is the jumped piece itself. Rook e5 next to Camel d4:
/// up: e7 jumped to e8 (allowed); right: landing h5 occupied; down: landing
/// e2 defended by the rook a2; left: landing b5 defended only by the jumped rook c5.
#[test]
fn jump_takeover_landing_square_must_be_empty_and_undefended() {
    let p = setup("Kj1 Re5 Cd4 / kj10 ca10 ne7 ng5 ph5 be3 ra2 rc5", "w - - 0 1");
    assert_moves_of(&p, "e5", set(["d4e5", "e5c5", "e5d5", "e5e3", "e5e4", "e5e6", "e5e7", "e5e8", "e5f5", "e5g5"]));
    assert_after(&p, "e5e8", "Kj1 Ne7 Re8 Cd4 / kj10 ca10 ng5 ph5 be3 ra2 rc5", "b - - 0 1");
}

/// §4.3: a jump takes over only an enemy piece that is the first piece on the
/// line, and the landing square must be on the board. Bishop d4 next to Rhino d3:
/// NE: own pawn f6 first (no jump over g7); NW: a7 on the edge (no landing
/// square); SE: e3 jumped to f2 (allowed); SW: empty.
#[test]
fn jump_takeover_needs_an_enemy_first_piece_and_a_square_on_the_board() {
    let p = setup("Kj1 Bd4 Hd3 Pf6 / kj10 cj9 ng7 pa7 ne3", "w - - 0 1");
    assert_moves_of(&p, "d4", set(["d3d4", "d4a1", "d4a7", "d4b2", "d4b6", "d4c3", "d4c5", "d4e3", "d4e5", "d4f2"]));
    assert_after(&p, "d4f2", "Kj1 Bf2 Hd3 Ne3 Pf6 / kj10 cj9 ng7 pa7", "b - - 0 1");
}

/// §0/§4.3: a king attacks its neighbours, so it defends a landing square next
/// to it: with the black king on e7 the Wazir cannot jump d5 to d6; with the
/// king on f8 it can.
#[test]
fn jump_landing_next_to_the_enemy_king_is_defended() {
    let p = setup("Ka1 Cd3 Wd4 / ke7 nd5 cj10", "w - - 0 1");
    assert_moves_of(&p, "d4", set(["d3d4", "d4c4", "d4d5", "d4e4"]));
    let p = setup("Ka1 Cd3 Wd4 / kf8 nd5 cj10", "w - - 0 1");
    assert_moves_of(&p, "d4", set(["d3d4", "d4c4", "d4d5", "d4d6", "d4e4"]));
}

/// §0/§4.3: x-rays do not count, also through the moving King. The rook e1
/// checks the King e4; the pawn e5 and the square e6 behind it are not
/// defended before the move (the King blocks the file), so the King may jump
/// out of check along the checking line (the converted pawn then blocks it).
/// Capturing on e5 instead stays on the open file and is illegal.
#[test]
fn king_jump_out_of_check_along_the_checking_line() {
    let p = setup("Ke4 Cd3 / re1 pe5 kj10 cj9", "w - - 0 1");
    assert!(p.is_check());
    assert_legal(&p, set(["d3e2", "d3e4", "e4d5", "e4e6", "e4f3", "e4f5"]));
    assert_after(&p, "e4e6", "Cd3 Pe5 Ke6 / re1 kj10 cj9", "b - - 0 1");
}

/// §4.4: the partner's square is judged before the move, without x-rays: a
/// King checked along the a-file may swap with the piece behind it, which
/// then blocks the check.
#[test]
fn king_swap_behind_itself_on_the_checking_line() {
    let p = setup("Na1 Ka2 Cj1 / ra10 kj10 cj8", "w - - 0 1");
    assert!(p.is_check());
    assert_legal(&p, set(["a1a2", "a2b1", "a2b2", "a2b3"]));
    assert_after(&p, "a1a2", "Ka1 Na2 Cj1 / ra10 kj10 cj8", "b - - 1 1");
}

/// §0/§4.3: "defended" uses pseudo-attacks: a pinned knight still defends the
/// landing square c4 of the jump a4-c4 over b4.
#[test]
fn jump_landing_defended_by_a_pinned_piece_is_forbidden() {
    let p = setup("Ka1 Ra4 Ca3 Rd2 / bb4 nd6 kd8 cj10", "w - - 0 1");
    let rook = ["a3a4", "a4a5", "a4a6", "a4a7", "a4a8", "a4a9", "a4a10", "a4b4"];
    assert_moves_of(&p, "a4", set(rook));
    // With the (still pinned) knight on d7 instead, c4 is undefended and the jump is legal.
    let p = setup("Ka1 Ra4 Ca3 Rd2 / bb4 nd7 kd8 cj10", "w - - 0 1");
    assert_moves_of(&p, "a4", set(rook.into_iter().chain(["a4c4"])));
}

/// §4.3: Wazir and Pawn jump takeovers need an adjacent friendly Camel or
/// Rhino (an enemy one does not count); the pawn jumps only along its forward
/// capture diagonals, never straight ahead.
#[test]
fn wazir_and_pawn_jump_takeovers_need_an_adjacent_friendly_camel_or_rhino() {
    // The black pawn b4 is not adjacent to the Wazir: a Wazir does not slide, so no d4-a4.
    let black = "kj10 cj9 nd5 pf5 ng5 pb4";
    for helper in ["C", "H"] {
        let p = setup(&format!("Ka1 Wd4 Pf4 {helper}e4 / {black}"), "w - - 0 1");
        assert_moves_of(&p, "d4", set(["d4c4", "d4d3", "d4d5", "d4d6", "d4e4"]));
        assert_moves_of(&p, "f4", set(["e4f4", "f4g5", "f4h6"]));
    }
    assert_eq!(
        after(&setup(&format!("Ka1 Wd4 Pf4 Ce4 / {black}"), "w - - 0 1"), "f4h6"),
        fen_of("Ka1 Wd4 Ce4 Ng5 Ph6 / kj10 cj9 nd5 pf5 pb4", "b - - 0 1")
    );
    // Camel not adjacent.
    let p = setup(&format!("Ka1 Wd4 Pf4 Ce2 / {black}"), "w - - 0 1");
    assert_moves_of(&p, "d4", set(["d4c4", "d4d3", "d4d5", "d4e4"]));
    assert_moves_of(&p, "f4", set(["f4g5"]));
    // Only an enemy Camel adjacent.
    let p = setup(&format!("Ka1 Wd4 Pf4 Ch1 / {black} ce4"), "w - - 0 1");
    assert_moves_of(&p, "d4", set(["d4c4", "d4d3", "d4d5", "d4e4"]));
    assert_moves_of(&p, "f4", set(["f4g5"]));
}

/// §4.3: a black pawn jumps along its forward (downward) capture diagonals only.
#[test]
fn black_pawn_jump_takeover_goes_down_the_board() {
    let p = setup("Ka1 Cj1 Nd4 Nf4 Pd6 / kj10 pe5 cf6", "b - - 0 1");
    assert_moves_of(&p, "e5", set(["e5c3", "e5d4", "e5e4", "e5f4", "e5f6", "e5g3"]));
    assert_after(&p, "e5c3", "Ka1 Cj1 Nf4 Pd6 / kj10 pc3 nd4 cf6", "w - - 0 2");
}

/// §4.3: a King jump takeover needs an adjacent friendly Camel or Rhino.
#[test]
fn king_jump_takeover_needs_an_adjacent_friendly_camel_or_rhino() {
    let p = setup("Ke4 Cd3 / kj10 cj9 pe5", "w - - 0 1");
    assert_moves_of(&p, "e4", set(["d3e4", "e4d5", "e4e3", "e4e5", "e4e6", "e4f3", "e4f5"]));
    assert_eq!(uci::parse(&p, "e4e6").unwrap().kind, MoveKind::Jump);
    assert_after(&p, "e4e6", "Cd3 Pe5 Ke6 / kj10 cj9", "b - - 0 1");
    let p = setup("Ke4 Ch1 / kj10 cj9 pe5", "w - - 0 1");
    assert_moves_of(&p, "e4", set(["e4d3", "e4d5", "e4e3", "e4e5", "e4f3", "e4f5"]));
}

/// §4.3: the King's extra condition: the jumped piece must not be defended.
/// The rook a5 defends e5 (but not the landing square e6).
#[test]
fn king_jump_takeover_needs_an_undefended_jumped_piece() {
    let p = setup("Ke4 Cd3 / kj10 cj9 pe5 ra5", "w - - 0 1");
    assert_moves_of(&p, "e4", set(["d3e4", "e4e3", "e4f3", "e4f5"]));
}

/// §4.3: a landing square defended only by the jumped piece is defended: the
/// black pawn d3 attacks c2, so the King cannot jump it from e4 (after the
/// jump the converted pawn would be White's, so only this rule forbids it).
#[test]
fn jump_landing_defended_only_by_the_jumped_piece_is_forbidden() {
    let p = setup("Ke4 Cf3 / kj10 cj9 pd3", "w - - 0 1");
    assert_moves_of(&p, "e4", set(["e4d3", "e4d4", "e4d5", "e4e3", "e4e5", "e4f4", "e4f5", "f3e4"]));
}

/// §4.3/§4.5: a pawn jump takeover that lands on the last rank promotes.
#[test]
fn pawn_jump_takeover_onto_last_rank_promotes() {
    let p = setup("Ka1 Ph8 Ci7 / ka10 ca8 ng9", "w - - 0 1");
    let expected = set(promos("h8f10").into_iter().chain(["h8g9", "h8h9", "i7h8"].map(String::from)));
    assert_moves_of(&p, "h8", expected);
    assert_after(&p, "h8f10c", "Ka1 Ci7 Ng9 Cf10 / ka10 ca8", "b - - 0 1");
}

/// §0: legality is judged after the whole move: converting the checking piece
/// answers a check, and a takeover that does not is illegal.
#[test]
fn takeover_converting_the_checker_answers_check() {
    let p = setup("Ka1 Ca7 / ra5 kj10 cj9", "w - - 0 1");
    assert!(p.is_check());
    assert_legal(&p, set(["a1b1", "a1b2", "a7b4t"]));
    assert_after(&p, "a7b4t", "Ka1 Cb4 Ra5 / kj10 cj9", "b - - 0 1");
}

/// §4.3/§4.6: every takeover resets the fifty-move clock (a plain leap does not).
#[test]
fn takeovers_reset_the_halfmove_clock() {
    let p = setup("Ka1 Ce1 / kj10 cj9 pe3", "w - - 9 20");
    assert_after(&p, "e1f4t", "Ka1 Cf4 Pe3 / kj10 cj9", "b - - 0 20");
    assert_after(&p, "e1f4", "Ka1 Cf4 / kj10 cj9 pe3", "b - - 10 20");
    let p = setup("Ka1 Nd4 Cc3 / kj10 cj9 pd5", "w - - 9 20");
    assert_after(&p, "d4e6t", "Ka1 Ne6 Cc3 Pd5 / kj10 cj9", "b - - 0 20");
    assert_after(&p, "d4e6", "Ka1 Ne6 Cc3 / kj10 cj9 pd5", "b - - 10 20");
    let p = setup("Kj1 Qc2 Cc1 / kj10 ca10 nc6", "w - - 9 20");
    assert_after(&p, "c2c7", "Kj1 Cc1 Nc6 Qc7 / kj10 ca10", "b - - 0 20");
}

// ----- §4.4 swaps -----------------------------------------------------------------

/// §4.4: two adjacent friendly pieces exchange squares: one move per pair,
/// formatted from the lower square (a1, b1, … order: j1 before i2), parsed
/// from either; SAN names both pieces from the lower square.
#[test]
fn swap_is_one_move_per_adjacent_pair() {
    let p = setup("Ka1 Nb1 Cj1 Ni2 / kj10 ca10", "w - - 0 1");
    let expected =
        set(["a1a2", "a1b1", "a1b2", "b1a3", "b1c3", "b1d2", "i2g1", "i2g3", "i2h4", "i2j4", "j1g2", "j1i2", "j1i4"]);
    assert_legal(&p, expected);
    assert_moves(&p, swaps(&p), set(["a1b1", "j1i2"]));
    assert_eq!(uci::parse(&p, "b1a1").unwrap(), uci::parse(&p, "a1b1").unwrap());
    assert_eq!(uci::parse(&p, "i2j1").unwrap(), uci::parse(&p, "j1i2").unwrap());
    assert_eq!(san_of(&p, "a1b1"), "Ka1<>Nb1");
    assert_eq!(san_of(&p, "j1i2"), "Cj1<>Ni2");
    assert_eq!(san::parse(&p, "Ka1<>Nb1").unwrap(), uci::parse(&p, "a1b1").unwrap());
    assert_eq!(san::parse(&p, "Nb1<>Ka1").unwrap(), uci::parse(&p, "a1b1").unwrap());
    assert_after(&p, "a1b1", "Na1 Kb1 Cj1 Ni2 / kj10 ca10", "b - - 1 1");
    assert_after(&p, "i2j1", "Ka1 Nb1 Nj1 Ci2 / kj10 ca10", "b - - 1 1");
}

/// §4.4: Wazir with Wazir may not swap.
#[test]
fn wazir_wazir_swap_is_forbidden() {
    let p = setup("Ka1 We4 Wf4 Cj1 / kj10 ca10", "w - - 0 1");
    let expected =
        set(["a1a2", "a1b1", "a1b2", "e4d4", "e4e3", "e4e5", "f4f3", "f4f5", "f4g4", "j1g2", "j1i2", "j1i4"]);
    assert_legal(&p, expected);
}

/// §4.4: Pawn with Pawn may not swap (neither side by side nor diagonally nor
/// one behind the other).
#[test]
fn pawn_pawn_swap_is_forbidden() {
    let p = setup("Ka1 Pd4 Pe4 Pe5 Cj1 / kj10 ca10", "w - - 0 1");
    assert_legal(&p, set(["a1a2", "a1b1", "a1b2", "d4d5", "e5e6", "j1g2", "j1i2", "j1i4"]));
}

/// §4.4: a King swaps only if the partner's square is not attacked; other
/// pieces may swap onto attacked squares.
#[test]
fn king_swap_needs_an_unattacked_partner_square() {
    // The rook b10 attacks b1 and b2.
    let p = setup("Ka1 Nb1 Cc1 / rb10 kj10 cj9", "w - - 0 1");
    assert_legal(&p, set(["a1a2", "b1a3", "b1c1", "b1c3", "b1d2", "c1b2", "c1b4", "c1d2", "c1d4", "c1f2"]));
}

/// §0/§4.4: in check, a swap is legal only if it leaves the king safe: the
/// king may swap away, a swap of two other pieces never helps.
#[test]
fn swap_while_in_check_must_resolve_it() {
    let p = setup("Ka1 Nb1 Hc1 / ra10 kj10 cj9", "w - - 0 1");
    assert!(p.is_check());
    assert_legal(&p, set(["a1b1", "a1b2", "b1a3", "c1a4"]));
    assert_eq!(uci::parse(&p, "a1b1").unwrap().kind, MoveKind::Swap);
}

/// §4.4/§4.5: a pawn or wazir swapped onto its last rank from another rank
/// promotes (eight choices); a wazir already on that rank swapping along it
/// does not; a pawn-wazir swap along rank 9 does not.
#[test]
fn swap_onto_last_rank_promotes() {
    let p = setup("Ka1 Cj1 Pe9 Re10 Wd10 Wf9 / kj7 ca5", "w - - 0 1");
    let expected = set(promos("e9e10")
        .into_iter()
        .chain(promos("e9d10"))
        .chain(promos("f9e10"))
        .chain(["d10e10", "e9f9"].map(String::from)));
    assert_moves(&p, swaps(&p), expected);
    assert_after(&p, "e9e10q", "Ka1 Cj1 Re9 Qe10 Wd10 Wf9 / kj7 ca5", "b - - 0 1");
    assert_after(&p, "e9d10n", "Ka1 Cj1 We9 Nd10 Re10 Wf9 / kj7 ca5", "b - - 0 1");
    assert_after(&p, "f9e10w", "Ka1 Cj1 Pe9 We10 Wd10 Rf9 / kj7 ca5", "b - - 1 1");
    assert_after(&p, "d10e10", "Ka1 Cj1 Pe9 Rd10 We10 Wf9 / kj7 ca5", "b - - 1 1");
    assert_eq!(san_of(&p, "e9e10q"), "Pe9<>Re10=Q");
}

/// §4.4: a swap never sets an en passant square (and clears an old one); a
/// swap that moves a pawn resets the fifty-move clock, another swap counts up.
#[test]
fn swap_never_sets_en_passant_and_pawn_swaps_reset_the_clock() {
    let pieces = "Ka1 Nb1 Pe3 Bf3 Cj1 / kj10 cj9";
    let p = setup(pieces, "w - - 7 10");
    assert_moves(&p, swaps(&p), set(["a1b1", "e3f3"]));
    assert_after(&p, "e3f3", "Ka1 Nb1 Be3 Pf3 Cj1 / kj10 cj9", "b - - 0 10");
    assert_after(&p, "a1b1", "Na1 Kb1 Pe3 Bf3 Cj1 / kj10 cj9", "b - - 8 10");
    // After Black's double step the en passant square is set; a swap clears it.
    let b = setup("Ka1 Nb1 Pe3 Bf3 Cj1 / kj10 cj9 pc8", "b - - 7 10");
    let q = plays_to(&b, "c8c6", "Ka1 Nb1 Pe3 Bf3 Cj1 / kj10 cj9 pc6", "w - c7 0 11");
    assert_after(&q, "e3f3", "Ka1 Nb1 Be3 Pf3 Cj1 / kj10 cj9 pc6", "b - - 0 11");
    assert_after(&q, "a1b1", "Na1 Kb1 Pe3 Bf3 Cj1 / kj10 cj9 pc6", "b - - 1 11");
}

/// §4.4: nothing forbids swapping a pawn onto its own first rank; from there
/// it steps one square (its double step is from rank 3 only).
#[test]
fn swap_may_put_a_pawn_on_its_first_rank() {
    let p = setup("Ra1 Pb2 Kj1 Cj3 / kj10 ca10", "w - - 0 1");
    let q = plays_to(&p, "a1b2", "Pa1 Rb2 Kj1 Cj3 / kj10 ca10", "b - - 0 1");
    let r = play(&q, "j10i10");
    assert_moves_of(&r, "a1", set(["a1a2", "a1b2"]));
}

// ----- §4.6 game end ----------------------------------------------------------------

/// §4.6/§0: a side owning no Camel and no Rhino has lost; the position has no
/// moves, whoever is to move.
#[test]
fn side_without_camel_or_rhino_has_lost() {
    for side in ["w", "b"] {
        let p = setup("Ka1 Cj1 Qd1 / kj10 qd10", &format!("{side} - - 0 1"));
        assert_eq!(p.outcome(), no_camel_or_rhino(Color::White));
        assert!(p.legal_moves().is_empty());
        assert_eq!(p.perft(1), 0);
        assert_eq!(p.perft(2), 0);
        let p = setup("Ka1 Qd1 / kj10 qd10 hj9", &format!("{side} - - 0 1"));
        assert_eq!(p.outcome(), no_camel_or_rhino(Color::Black));
        assert!(p.legal_moves().is_empty());
    }
    // Checked before checkmate: a mated side without Camel or Rhino has lost by §4.6.
    let p = setup("Ke1 Cj1 Ra10 Rb9 / kj10 pa3", "b - - 0 1");
    assert!(p.is_check());
    assert_eq!(p.outcome(), no_camel_or_rhino(Color::White));
}

/// §4.6: losing the last Camel/Rhino to a takeover (conversion) or to a
/// capture loses at once; the position after the move has no moves.
#[test]
fn losing_the_last_camel_or_rhino_loses_at_once() {
    let p = setup("Ka1 Ce2 / kj10 qd10 ce3", "w - - 0 1");
    let q = plays_to(&p, "e2f5t", "Ka1 Ce3 Cf5 / kj10 qd10", "b - - 0 1");
    assert_eq!(q.outcome(), no_camel_or_rhino(Color::White));
    assert!(q.legal_moves().is_empty());
    assert_eq!(q.perft(1), 0);
    let p = setup("Ka1 Ce2 / kj10 qd10 hf5", "w - - 0 1");
    let q = play(&p, "e2f5");
    assert_eq!(q.outcome(), no_camel_or_rhino(Color::White));
    assert!(q.legal_moves().is_empty());
}

/// §4.6: a Camel gained by promotion counts as owned: after Black converts
/// White's original Camel, the promoted one keeps White in the game.
#[test]
fn camel_gained_by_promotion_counts_as_owned() {
    let p = setup("Ka1 Cc3 Pe9 / kj10 ha5", "w - - 0 1");
    let q = play(&p, "e9e10c");
    assert_eq!(q.outcome(), None);
    let r = plays_to(&q, "a5c2t", "Ka1 Ce10 / kj10 hc2 cc3", "w - - 0 2");
    assert_eq!(r.outcome(), None);
    assert!(!r.legal_moves().is_empty());
    // Without the promotion the same takeover ends the game.
    let r = play(&play(&p, "a1a2"), "a5c2t");
    assert_eq!(r.outcome(), no_camel_or_rhino(Color::Black));
    assert!(r.legal_moves().is_empty());
}

/// §4.6: a Camel gained by takeover counts as owned: White converts Black's
/// Camel, Black converts White's original one, White still owns the gained one.
#[test]
fn camel_gained_by_takeover_counts_as_owned() {
    let p = setup("Ka1 Ce2 / kj10 ce3 hh7", "w - - 0 1");
    let q = plays_to(&p, "e2f5t", "Ka1 Ce3 Cf5 / kj10 hh7", "b - - 0 1");
    assert_eq!(q.outcome(), None);
    let r = plays_to(&q, "h7f4t", "Ka1 Ce3 / kj10 hf4 cf5", "w - - 0 2");
    assert_eq!(r.outcome(), None);
    assert!(!r.legal_moves().is_empty());
}

/// §4.6: checkmate loses.
#[test]
fn checkmate_loses() {
    let p = setup("Ke1 Cj1 Ra10 Rb9 / kj10 ca2", "b - - 0 1");
    assert!(p.is_check());
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.outcome(), Some(Outcome::Win { winner: Color::White, reason: WinReason::Checkmate }));
}

// ----- §0 "attacked" --------------------------------------------------------------

/// §0: takeover jumps never attack or give check. White's Wazir d4 (next to
/// Camel d3) could jump the knight d5: neither the square behind it (d6) nor
/// a king standing there is attacked.
#[test]
fn takeover_threats_do_not_attack_or_give_check() {
    // The king e7 may step to d6, reachable by White only through a jump; e6 is
    // attacked by the Camel's leap d3-e6.
    let p = setup("Ka1 Cd3 Wd4 / ke7 nd5 cj10", "b - - 0 1");
    assert!(!p.is_check());
    assert_moves_of(&p, "e7", set(["e7d6", "e7d7", "e7d8", "e7e8", "e7f6", "e7f7", "e7f8"]));
    // The king on d6, right behind the knight the Wazir could jump, is not in check.
    // (It may not swap with the knight: d5 is attacked by the Wazir's step.)
    let p = setup("Ka1 Cd3 Wd4 / kd6 nd5 cj10", "b - - 0 1");
    assert!(!p.is_check());
    assert_moves_of(&p, "d6", set(["d6c5", "d6c7", "d6d7", "d6e5", "d6e7"]));
}

/// §0/§4.4: a piece threatened only by a takeover (here the knight d6 on the
/// path of the Camel's leaps b6-e5 and b6-e7) is not attacked, so its King may
/// swap with it.
#[test]
fn piece_threatened_only_by_a_takeover_is_not_attacked() {
    let w = setup("Ka1 Cb6 / kd7 nd6 cj10", "w - - 0 1");
    let camel = moves_of(&w, "b6");
    assert!(camel.contains(&"b6e5t".to_string()) && camel.contains(&"b6e7t".to_string()), "{camel:?}");
    let p = setup("Ka1 Cb6 / kd7 nd6 cj10", "b - - 0 1");
    assert_moves_of(&p, "d7", set(["d6d7", "d7c6", "d7c8", "d7d8", "d7e6", "d7e8"]));
}

// ----- notation round trips -------------------------------------------------------

fn round_trip(p: &AnyPosition) {
    let legal = p.legal_moves();
    let mut sans = Vec::new();
    let mut coords = Vec::new();
    for &m in legal.iter() {
        let s = san::format(p, m);
        assert_eq!(san::parse(p, &s), Ok(m), "SAN {s} in {}", fen::format(p));
        let c = uci::format(V, m);
        assert_eq!(uci::parse(p, &c), Ok(m), "coordinate {c} in {}", fen::format(p));
        if m.kind == MoveKind::Swap {
            assert!(m.from.0 < m.to.0, "swap {c} not written from the lower square");
            let (a, b) = (fen::square_name(m.from, 10), fen::square_name(m.to, 10));
            let promo = m.promotion.map(|k| k.letter().to_ascii_lowercase().to_string()).unwrap_or_default();
            assert_eq!(uci::parse(p, &format!("{b}{a}{promo}")), Ok(m), "reversed swap {c}");
        }
        sans.push(s);
        coords.push(c);
    }
    for v in [&mut sans, &mut coords] {
        let n = v.len();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), n, "notation not unique in {}", fen::format(p));
    }
}

const CROWDED: &str = "Kf1 Qe4 Ce3 Hd3 Nc4 Zg4 Bb2 Rj1 Pe6 Ph9 Wg9 Pa3 Pb3 Wc9 / \
                       ke10 qd10 ra10 ri10 cb8 hi8 nf6 pd6 pe5 bh6 wf7 pa7 pb6 pi6 zb9";

/// SAN and coordinate notation round-trip for every legal move of crowded
/// positions (with takeovers, jumps, swaps, promotions and en passant).
#[test]
fn san_and_coordinate_round_trip() {
    let start = AnyPosition::start(V);
    round_trip(&start);
    round_trip(&pos(&START.replace(" w ", " b ")));
    let w = setup(CROWDED, "w - d7 0 1");
    let kinds: Vec<MoveKind> = w.legal_moves().iter().map(|m| m.kind).collect();
    for k in [MoveKind::Takeover, MoveKind::Jump, MoveKind::Swap, MoveKind::EnPassant] {
        assert!(kinds.contains(&k), "{k:?} missing from the crowded position");
    }
    assert!(w.legal_moves().iter().any(|m| m.promotion.is_some()));
    round_trip(&w);
    round_trip(&setup(CROWDED, "b - - 0 1"));
    // And the positions one move later.
    for p in [w, setup(CROWDED, "b - - 0 1")] {
        for &m in p.legal_moves().iter().take(40) {
            round_trip(&p.play_unchecked(m));
        }
    }
}
