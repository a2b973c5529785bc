//! Pawn types: pieces other than the pawn that make initial moves (Betza
//! `i`), capture en passant (`e`, `enPassantTypes`), promote as pawns
//! (`pawnTypes`, `promotionPawnTypes`) or restart the n-move count
//! (`nMoveRuleTypes`), and the pawn's triple steps. Expected moves and FENs
//! are Fairy-Stockfish's (pyffish 0.0.90); `fsf_positions.rs` covers random
//! games of the same variants.

use menagerie_rules::{Definitions, Position};

const PAWN_TYPES_INI: &str = include_str!("../../../tests/variants/pawn-types.ini");

fn defs() -> Definitions {
    let mut d = Definitions::builtin();
    d.load(PAWN_TYPES_INI, "pawn-types.ini").expect("the pawn-type sections load");
    d
}

fn pos(name: &str, fen: &str) -> Position {
    let d = defs();
    Position::from_fen(d.get(name).expect("a variant"), fen).expect("a valid FEN")
}

fn moves(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p.legal_moves().into_iter().map(|m| p.move_text(m)).collect();
    v.sort();
    v
}

fn play(p: &Position, text: &str) -> Position {
    p.play(p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}")))
}

#[test]
fn a_berolina_pawns_double_step_marks_the_square_passed_and_its_own_and_is_taken_en_passant() {
    let p = play(&pos("berolina", "4k3/8/8/8/2p5/8/1P6/4K3 w - - 0 1"), "b2d4");
    assert_eq!(p.fen(), "4k3/8/8/8/2pP4/8/8/4K3 b - c3d4 0 1");
    assert_eq!(moves(&p), ["c4b3", "c4c3", "c4d3", "e8d7", "e8d8", "e8e7", "e8f7", "e8f8"]);
    // Straight ahead onto c3 takes the pawn that passed it, on d4.
    let p = play(&p, "c4c3");
    assert_eq!(p.fen(), "4k3/8/8/8/8/2p5/8/4K3 w - - 0 2");
    // The double step cannot jump: with c3 occupied only a3 is open.
    let p = pos("berolina", "4k3/8/8/8/8/2n5/1P6/4K3 w - - 0 1");
    assert_eq!(moves(&p), ["b2a3", "e1d2", "e1f1", "e1f2"]);
}

#[test]
fn a_triple_step_may_be_taken_en_passant_on_either_square_it_passed() {
    let p = play(&pos("triplestep", "4k5/10/10/10/10/1p8/1p8/10/P9/4K5 w - - 0 1"), "a2a5");
    assert_eq!(p.fen(), "4k5/10/10/10/10/Pp8/1p8/10/10/4K5 b - a3a4 0 1");
    assert!(moves(&p).contains(&"b5a4".to_string()));
    let p = play(&p, "b4a3");
    assert_eq!(p.fen(), "4k5/10/10/10/10/1p8/10/p9/10/4K5 w - - 0 2");
}

#[test]
fn a_pawn_may_take_en_passant_a_sergeant_that_stepped_two_squares() {
    let p = play(&pos("sergeants", "4k3/8/8/8/3p4/8/4S3/4K3 w - - 0 1"), "e2e4");
    assert_eq!(p.fen(), "4k3/8/8/8/3pS3/8/8/4K3 b - e3e4 0 1");
    assert!(moves(&p).contains(&"d4e3".to_string()));
    assert_eq!(play(&p, "d4e3").fen(), "4k3/8/8/8/8/4p3/8/4K3 w - - 0 2");
}

#[test]
fn reversible_pawn_moves_do_not_restart_the_fifty_move_count() {
    let p = pos("pawnsideways", "4k3/8/8/8/4P3/8/8/4K3 w - - 5 10");
    assert_eq!(play(&p, "e4d4").fen(), "4k3/8/8/8/3P4/8/8/4K3 b - - 6 10");
    assert_eq!(play(&p, "e4e5").fen(), "4k3/8/8/4P3/8/8/8/4K3 b - - 0 10");
}

#[test]
fn wolf_chess_sergeants_promote_as_pawns_and_only_pawns_become_elephants() {
    let p = pos("wolf", "7k/3SP3/8/8/8/8/8/8/8/K7 w - - 0 1");
    let promotions: Vec<String> =
        moves(&p).into_iter().filter(|m| m.starts_with("e9") || m.starts_with("d9")).collect();
    let mut expected = Vec::new();
    for to in ["c10", "d10", "e10"] {
        for piece in ["b", "f", "q", "r", "w"] {
            expected.push(format!("d9{to}{piece}"));
        }
    }
    for piece in ["+", "b", "f", "q", "r", "w"] {
        expected.push(format!("e9e10{piece}"));
    }
    assert_eq!(promotions, expected);
    assert_eq!(
        play(&p, "e9e10+").fen().split(' ').next(),
        Some("4+P2k/3S4/8/8/8/8/8/8/8/K7"),
        "written as Fairy-Stockfish does"
    );
}

#[test]
fn mobility_regions_and_promotion_regions_shape_the_pawns_moves() {
    // Pawnback: the pawn may step back, but not onto its first rank.
    assert_eq!(
        moves(&pos("pawnback", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")),
        ["e1d1", "e1d2", "e1f1", "e1f2", "e2e3", "e2e4"]
    );
    // Legan: pawns go diagonally towards the opponent's corner.
    assert_eq!(moves(&pos("legan", "k7/8/8/8/8/1P6/8/7K w - - 0 1")), ["b3a4", "h1g1", "h1g2", "h1h2"]);
}

#[test]
fn pawn_type_keys_name_pieces_of_the_variant() {
    let mut d = Definitions::builtin();
    let err = d.load("[x:chess]\npawnTypes = z\n", "x.ini").unwrap_err().to_string();
    assert!(err.contains("pawnTypes") && err.contains("'z'"), "{err}");
}
