//! Checking a FEN of any variant: the server's ValidateFen.

use crate::{DataPosition, UnknownVariant, VariantRef, Variants};
use menagerie_notation::fen;
use menagerie_rules::FenError as DataFenError;

/// A FEN checked against a variant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FenCheck {
    /// A position of the variant: the FEN as Menagerie writes it.
    Valid(String),
    /// Not one: why, and the field at fault (`board`, `side_to_move`,
    /// `castling`, `en_passant`, `halfmove_clock`, `fullmove_number`,
    /// `reserve`), empty when the error is not about one field.
    Invalid {
        /// Why, for people.
        reason: String,
        /// The field at fault, in snake case; empty if none.
        field: String,
    },
}

/// The field a FEN error of a variant defined as data is about.
fn field_of(e: &DataFenError, fen: &str) -> &'static str {
    match e {
        DataFenError::Board(_) | DataFenError::Piece(_) | DataFenError::Hand(_) => "board",
        DataFenError::Reserve(_) => "reserve",
        DataFenError::Side(_) => "side_to_move",
        DataFenError::Castling(_) => "castling",
        DataFenError::EnPassant(_) => "en_passant",
        DataFenError::Counter(_) => {
            let halfmove = fen.split_whitespace().nth(4);
            if halfmove.is_some_and(|h| h.parse::<u32>().is_err()) { "halfmove_clock" } else { "fullmove_number" }
        }
    }
}

impl Variants {
    /// Whether `text` is a FEN of the variant called `variant`.
    pub fn check_fen(&self, variant: &str, text: &str) -> Result<FenCheck, UnknownVariant> {
        Ok(match self.find(variant)? {
            VariantRef::Compiled(v) => match fen::parse(v, text) {
                Ok(p) => FenCheck::Valid(fen::format(&p)),
                Err(e) => FenCheck::Invalid {
                    reason: e.to_string(),
                    field: e.field().map(|f| f.to_string().replace(' ', "_")).unwrap_or_default(),
                },
            },
            VariantRef::Data(_) if text.trim().is_empty() => {
                FenCheck::Invalid { reason: "the FEN is empty".into(), field: String::new() }
            }
            VariantRef::Data(def) => match DataPosition::from_fen(&def, text.trim()) {
                Ok(p) => FenCheck::Valid(p.fen()),
                Err(e) => FenCheck::Invalid { reason: e.to_string(), field: field_of(&e, text).into() },
            },
        })
    }
}
