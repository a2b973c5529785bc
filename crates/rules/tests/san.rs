//! Standard algebraic notation of data-defined variants; the expected texts
//! are Fairy-Stockfish's (pyffish `get_san`) for the same moves.

use std::sync::Arc;

use menagerie_rules::{Definitions, MoveError, Position, VariantDef};

fn variant(name: &str) -> Arc<VariantDef> {
    Arc::clone(Definitions::builtin().get(name).expect("built-in variant"))
}

fn pos(name: &str, fen: &str) -> Position {
    Position::from_fen(&variant(name), fen).expect("valid FEN")
}

/// The SAN of the move written `uci` in coordinate form.
fn san(p: &Position, uci: &str) -> String {
    p.san(p.parse_move(uci).expect("legal move"))
}

#[test]
fn disambiguation_by_file_then_rank_then_both() {
    let p = pos("capablanca", "4k5/10/10/10/10/2N7/10/2N1K1N3 w - - 0 1");
    for (uci, want) in [("c1a2", "N1a2"), ("c1e2", "Nc1e2"), ("g1e2", "Nge2"), ("c3e2", "N3e2"), ("g1f3", "Nf3")] {
        assert_eq!(san(&p, uci), want);
    }
    let p = pos("capablanca", "4k5/10/10/10/10/R9/10/R3K4R w - - 0 1");
    for (uci, want) in [("j1j3", "Rjj3"), ("a3j3", "Raj3"), ("a1a2", "R1a2"), ("j1j8", "Rj8+"), ("a3e3", "Re3+")] {
        assert_eq!(san(&p, uci), want);
    }
}

#[test]
fn promotions_captures_and_ten_ranks() {
    let p = pos("capablanca", "r3k4r/1P8/10/10/10/10/10/R3K4R w KQkq - 0 1");
    assert_eq!(san(&p, "b7a8c"), "bxa8=C+");
    assert_eq!(san(&p, "b7b8a"), "b8=A");
    assert_eq!(san(&p, "e1i1"), "O-O");
    assert_eq!(san(&p, "e1c1"), "O-O-O");
    let p = pos("makruk", "4k3/8/3P4/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(san(&p, "d6d7m"), "d7=M+");
    let p = pos("shako", "10/10/10/10/10/10/10/10/10/R3K3R1 w - - 0 1");
    assert_eq!(san(&p, "a1a10"), "Ra10");
}

#[test]
fn gating_names_the_piece_and_after_castling_the_square() {
    let p = pos("seirawan", "r3k2r/8/8/8/8/8/8/R3K2R[HEhe] w KQABCDEFGHkq - 0 1");
    for (uci, want) in
        [("e1g1", "O-O"), ("e1g1h", "O-O/He1"), ("e1g1e", "O-O/Ee1+"), ("h1e1h", "O-O/Hh1"), ("a1e1e", "O-O-O/Ea1")]
    {
        assert_eq!(san(&p, uci), want);
    }
    let p = pos("seirawan", "rnbqkb1r/ppp1pppp/5n2/3p4/8/6PP/PPPPPP1R/RNBQKBNE[Heh] b QBCDFGkqbcdf - 1 3");
    assert_eq!(san(&p, "b8d7e"), "Nd7/E", "only the gating knight can gate");
    assert_eq!(san(&p, "b8d7"), "Nbd7");
}

#[test]
fn checkmate_is_marked() {
    let p = pos("capablanca", "k9/10/1K8/10/10/10/10/9R w - - 0 1");
    assert_eq!(san(&p, "j1j8"), "Rj8#");
}

#[test]
fn san_reads_back_leniently() {
    let p = pos("capablanca", "4k5/10/10/10/10/2N7/10/2N1K1N3 w - - 0 1");
    for text in ["Nc1e2", "Nc1-e2", "Nge2+", "Nge2", "Ng1e2", "N3e2!?"] {
        let m = p.parse_san(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(san(&p, &p.move_text(m)).starts_with('N'));
    }
    assert_eq!(p.move_text(p.parse_san("Nge2").expect("legal")), "g1e2");
    assert!(matches!(p.parse_san("Ne2"), Err(MoveError::Ambiguous(_))));
    assert!(matches!(p.parse_san("Nc1e3"), Err(MoveError::Illegal(_))));
    assert!(matches!(p.parse_san(""), Err(MoveError::Illegal(_))));
    let p = Position::start(&variant("capablanca"));
    for m in p.legal_moves() {
        assert_eq!(p.parse_san(&p.san(m)), Ok(m), "{}", p.san(m));
    }
}

#[test]
fn gating_castling_without_its_square_is_ambiguous_when_both_squares_can_gate() {
    let p = pos("seirawan", "r3k2r/8/8/8/8/8/8/R3K2R[HEhe] w KQABCDEFGHkq - 0 1");
    for text in ["O-O/H", "O-O-O/E", "0-0/H+"] {
        assert_eq!(p.parse_san(text), Err(MoveError::Ambiguous(text.to_string())), "{text}");
        assert_eq!(p.parse_any(text), Err(MoveError::Ambiguous(text.to_string())), "{text}");
    }
    // With the square named the move is known.
    assert_eq!(p.move_text(p.parse_san("O-O/Hh1").expect("legal")), "h1e1h");
    assert_eq!(p.move_text(p.parse_san("O-O-O/Ee1").expect("legal")), "e1c1e");
    // Without pieces in hand there is nothing to gate.
    let p = pos("seirawan", "r3k2r/8/8/8/8/8/8/R3K2R[he] w KQkq - 0 1");
    assert!(matches!(p.parse_san("O-O/H"), Err(MoveError::Illegal(_))));
}
