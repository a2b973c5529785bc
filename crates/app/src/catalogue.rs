//! The catalogue: every variant a front end serves, compiled or defined as
//! data, described in one form (ListVariants, GetServerInfo and the CLI's
//! `variants`).

use crate::Variants;
use menagerie_rules::VariantDef;
use menagerie_variants::VariantId;

/// A piece of a variant.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PieceInfo {
    /// White's FEN letter.
    pub letter: char,
    /// Its name.
    pub name: String,
    /// Its movement in Betza notation.
    pub betza: String,
    /// Its nominal value in centipawns; `None` for a variant defined as
    /// data (such variants give their pieces no value).
    pub value: Option<i32>,
}

/// A variant as the catalogue describes it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct VariantInfo {
    /// Its name.
    pub name: String,
    /// Board files.
    pub files: u32,
    /// Board ranks.
    pub ranks: u32,
    /// Its pieces.
    pub pieces: Vec<PieceInfo>,
    /// Its start position.
    pub start_fen: String,
    /// One line about it.
    pub summary: String,
    /// White's promotion letters.
    pub promotions: Vec<char>,
    /// The piece its gating (or Pioneer gating) brings in, if any.
    pub reserve_piece: Option<char>,
    /// Whether it is defined as data (no compiled game plays it).
    pub defined_as_data: bool,
}

impl From<VariantId> for VariantInfo {
    fn from(v: VariantId) -> VariantInfo {
        let rules = v.rules();
        let (files, ranks) = v.size();
        VariantInfo {
            name: v.name().into(),
            files: files as u32,
            ranks: ranks as u32,
            pieces: rules
                .all_kinds()
                .iter()
                .map(|k| PieceInfo {
                    letter: k.letter(),
                    name: k.name().into(),
                    betza: k.movement().betza.into(),
                    value: Some(k.value()),
                })
                .collect(),
            start_fen: v.start_fen().into(),
            summary: v.summary().into(),
            promotions: rules.promotions.iter().map(|k| k.letter()).collect(),
            reserve_piece: rules.gating.map(|g| g.piece.letter()),
            defined_as_data: false,
        }
    }
}

impl From<&VariantDef> for VariantInfo {
    fn from(def: &VariantDef) -> VariantInfo {
        VariantInfo {
            name: def.name.clone(),
            files: def.files.into(),
            ranks: def.ranks.into(),
            pieces: def
                .pieces()
                .map(|p| PieceInfo { letter: p.letter, name: p.name, betza: p.betza, value: None })
                .collect(),
            start_fen: def.start_fen.clone(),
            summary: format!(
                "{}: defined as data (Fairy-Stockfish variants.ini), {}x{} board; moves in coordinate form or SAN; \
             every call serves it",
                def.name, def.files, def.ranks
            ),
            promotions: def.promotion_letters(true),
            reserve_piece: def.pioneer_piece().and_then(|t| def.pieces().nth(t.into())).map(|p| p.letter),
            defined_as_data: true,
        }
    }
}

impl Variants {
    /// Every variant, the compiled ones in listing order, then those
    /// defined as data in name order.
    pub fn catalogue(&self) -> Vec<VariantInfo> {
        let data = self.names_served().filter_map(|n| self.definition(n)).map(|d| {
            let mut info = VariantInfo::from(&*d);
            if let Some(why) = self.not_compiled(&d.name) {
                info.summary = format!(
                    "{}: a served game on the data engine (not compiled: {why}), {}x{} board; moves in coordinate \
                     form or SAN",
                    d.name, d.files, d.ranks
                );
            }
            info
        });
        self.iter().map(VariantInfo::from).chain(data).collect()
    }

    /// The name of every variant, in [`Variants::catalogue`]'s order.
    pub fn all_names(&self) -> Vec<String> {
        self.iter().map(|v| v.name().to_string()).chain(self.names_served().map(str::to_string)).collect()
    }
}
