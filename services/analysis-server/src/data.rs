//! Variants defined as data (`menagerie-rules`: the built-in `variants.ini`
//! and the files of `--variants`): how their positions, moves and endings
//! are described in the API's messages.
//!
//! Their moves are read in Fairy-Stockfish's coordinate form (`e2e4`,
//! `e7e8q`, `g1f3h`) or SAN (`Nf3`, `e8=Q`, `Nf3/H`), and written in both.

use menagerie_api::pb;
use menagerie_app::{DataPosition, VariantDef};
use menagerie_rules::{FenError, Move};

/// One legal move of `pos` described as LegalMoves describes it.
pub fn legal_move(pos: &DataPosition, m: Move) -> (pb::LegalMove, DataPosition) {
    let (v, after) = menagerie_app::play::describe_data_move(pos, m);
    let described = pb::LegalMove { uci: v.uci, san: v.san, fen: v.fen, gives_check: v.check, is_capture: v.capture };
    (described, after)
}

/// A variant defined as data in ListVariants: its pieces (value 0: such
/// variants have no piece values), White's promotion letters and its
/// Pioneer gating reserve piece, if any.
pub fn variant_info(def: &VariantDef) -> pb::VariantInfo {
    pb::VariantInfo {
        name: def.name.clone(),
        files: def.files.into(),
        ranks: def.ranks.into(),
        pieces: def
            .pieces()
            .map(|p| pb::PieceInfo { letter: p.letter.to_string(), name: p.name, betza: p.betza, value: 0 })
            .collect(),
        start_fen: def.start_fen.clone(),
        summary: format!(
            "{}: defined as data (Fairy-Stockfish variants.ini), {}x{} board; moves in coordinate form or SAN; \
             every call serves it",
            def.name, def.files, def.ranks
        ),
        promotions: def.promotion_letters(true).iter().map(char::to_string).collect(),
        reserve_piece: def
            .pioneer_piece()
            .and_then(|t| def.pieces().nth(t.into()))
            .map_or_else(String::new, |p| p.letter.to_string()),
        defined_as_data: true,
    }
}

/// ValidateFen's answer for a variant defined as data.
pub fn validate_fen(def: &std::sync::Arc<VariantDef>, fen: &str) -> pb::ValidateFenResponse {
    if fen.trim().is_empty() {
        return pb::ValidateFenResponse {
            valid: false,
            reason: "the FEN is empty".into(),
            field: String::new(),
            fen: String::new(),
        };
    }
    match DataPosition::from_fen(def, fen.trim()) {
        Ok(p) => pb::ValidateFenResponse { valid: true, fen: p.fen(), ..Default::default() },
        Err(e) => pb::ValidateFenResponse {
            valid: false,
            reason: crate::error::clip(&e.to_string()),
            field: fen_field(&e, fen).into(),
            fen: String::new(),
        },
    }
}

/// The FEN field a FEN error of a variant defined as data is about
/// (ValidateFenResponse's names).
pub fn fen_field(e: &FenError, fen: &str) -> &'static str {
    match e {
        FenError::Board(_) | FenError::Piece(_) | FenError::Hand(_) => "board",
        FenError::Reserve(_) => "reserve",
        FenError::Side(_) => "side_to_move",
        FenError::Castling(_) => "castling",
        FenError::EnPassant(_) => "en_passant",
        FenError::Counter(_) => {
            let halfmove = fen.split_whitespace().nth(4);
            if halfmove.is_some_and(|h| h.parse::<u32>().is_err()) { "halfmove_clock" } else { "fullmove_number" }
        }
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    /// Malformed and odd FENs in every built-in data variant: each is
    /// answered (valid or not), and a valid one's moves are described,
    /// without a panic.
    #[test]
    fn hostile_fens_never_panic() {
        let variants = menagerie_app::Variants::builtin();
        let names: Vec<String> = variants.data_names().map(str::to_string).collect();
        let fens = [
            "",
            " ",
            "/",
            "//////////",
            "[",
            "]",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "8/8/8/8/8/8/8/8[ w - - 0 1",
            "k7/8/8/8/8/8/8/K7 w - - 0 1",
            "k7/8/8/8/8/8/8/K7 w KQkq - 0 1",
            "k7/8/8/8/8/8/8/K7 w ABCDEFGHabcdefgh - 0 1",
            "k7/8/8/8/8/8/8/K7 w - z9 0 1",
            "k7/8/8/8/8/8/8/K7 w - a3 0 1",
            "k7/8/8/8/8/8/8/K7 w - e3 0 1",
            "k7/8/8/8/8/8/8/K7 w - - 99999999999999999999 1",
            "k7/8/8/8/8/8/8/K7 w - - -1 -1",
            "99/8/8/8/8/8/8/8 w - - 0 1",
            "0/8/8/8/8/8/8/8 w - - 0 1",
            "k11/8/8/8/8/8/8/K7 w - - 0 1",
            "kkkkkkkk/kkkkkkkk/kkkkkkkk/kkkkkkkk/KKKKKKKK/KKKKKKKK/KKKKKKKK/KKKKKKKK w - - 0 1",
            "pppppppp/8/8/8/8/8/8/PPPPPPPP w - - 0 1",
            "PPPPPPPP/8/8/8/8/8/8/pppppppp b - - 0 1",
            "k7/8/8/8/8/8/8/K7[HEhe] w KQBCDFGkqbcdfg - 0 1",
            "k7/8/8/8/8/8/8/K7[QQQQQQQQQQQQQQQQQQQQQQQQQQQQ] w - - 0 1",
            "k9/10/10/10/10/10/10/K9 w - - 0 1",
            "k11/12/12/12/12/12/12/12/12/K11 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra fields here",
            "k7/8/8/8/8/8/8/K7 w",
            "k7/8/8/8/8/8/8/K7",
            "k~7/8/8/8/8/8/8/K7 w - - 0 1",
            "+k7/8/8/8/8/8/8/K7 w - - 0 1",
            "k7/8/8/8/8/8/8/K7 W - - 0 1",
            "é/8 w - - 0 1",
            "k7/8/8/8/8/8/8/K7 w - - 0 1 ;",
            "K7/8/8/8/8/8/8/K7 w - - 0 1",
            "k6r/8/8/8/8/8/8/K6R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
            "4k3/P7/8/8/8/8/p7/4K3 w - - 0 1",
        ];
        for name in &names {
            let Ok(def) = variants.data(name) else { continue };
            for fen in fens.iter().map(|f| f.to_string()).chain([def.start_fen.clone()]) {
                let r = std::panic::catch_unwind(|| {
                    let _ = validate_fen(&def, &fen);
                    if let Ok(p) = DataPosition::from_fen(&def, &fen) {
                        let legal = p.legal_moves();
                        let _ = menagerie_app::play::data_status(&menagerie_app::DataGame::new(p.clone()));
                        let _ = p.fen();
                        for &m in &legal {
                            let (_, after) = legal_move(&p, m);
                            let _ = after.perft(1);
                        }
                    }
                });
                assert!(r.is_ok(), "{name}: {fen}");
            }
        }
    }
}
