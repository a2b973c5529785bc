//! A definition compiled into the constants of a [`crate::Variant`] type:
//! shared by `build.rs`, which writes `games.rs` with it, and the tests that
//! show what it refuses.

use menagerie_pieces::PieceKind;
use menagerie_rules::{CountingRule, GameValue, PieceInfo, Position, RuleFacts, VariantDef};
use std::fmt::Write as _;
use std::sync::Arc;

/// The order in which the compiled core lists promotions (the Queen first).
const PROMOTION_ORDER: &[PieceKind] = &[
    PieceKind::Queen,
    PieceKind::Rook,
    PieceKind::Bishop,
    PieceKind::Knight,
    PieceKind::Zebra,
    PieceKind::Camel,
    PieceKind::Rhino,
    PieceKind::Wazir,
    PieceKind::Alseid,
    PieceKind::Alpaca,
];

/// The compiled kind that moves as the definition's piece `letter` with
/// movement `betza` does.
fn kind_of(letter: char, betza: &str) -> Result<PieceKind, String> {
    PieceKind::ALL
        .into_iter()
        .find(|k| k.letter() == letter && k.movement().betza == betza)
        .ok_or_else(|| format!("no compiled piece is '{letter}' moving as {betza}"))
}

fn kinds_of(letters: &[char], def: &VariantDef) -> Result<Vec<PieceKind>, String> {
    letters
        .iter()
        .map(|&l| {
            let p = def.pieces().find(|p| p.letter == l).ok_or_else(|| format!("no piece '{l}'"))?;
            kind_of(l, &p.betza)
        })
        .collect()
}

#[cfg_attr(not(test), allow(dead_code))] // used by build.rs and the tests
fn kind_list(kinds: &[PieceKind]) -> String {
    let names: Vec<String> = kinds.iter().map(|k| format!("PieceKind::{k:?}")).collect();
    format!("&[{}]", names.join(", "))
}

/// A definition's rules in the compiled core's terms: the values of a
/// [`crate::Variant`]'s constants.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct CompiledRules {
    /// The pieces, as compiled kinds, in the definition's order.
    pub kinds: Vec<PieceKind>,
    /// Promotion choices, in the compiled core's order.
    pub promotions: Vec<PieceKind>,
    /// Castling.
    pub castling: bool,
    /// Chess960 castling.
    pub chess960: bool,
    /// Pioneer gating: the reserve piece, how many per side, same file.
    pub gating: Option<(PieceKind, u8, bool)>,
    /// Alseid kidnapping: whether only one-square moves kidnap.
    pub kidnap: Option<bool>,
    /// Camel and Rhino Chess's takeovers.
    pub takeovers: bool,
    /// Camel and Rhino Chess's swaps.
    pub swaps: bool,
    /// A side with neither Camel nor Rhino loses.
    pub camel_rhino_loss: bool,
    /// Wazirs promote.
    pub wazir_promotes: bool,
    /// The pawns' double-step rank.
    pub double_step_rank: u8,
}

/// `def`'s rules as the compiled core's constants, or why the compiled
/// mechanisms cannot play them exactly.
pub(crate) fn rules(def: &Arc<VariantDef>) -> Result<CompiledRules, String> {
    let f: RuleFacts = def.facts();
    if let Some(rule) = f.other_rules.first() {
        return Err(format!("{rule} (not compiled)"));
    }
    if def.files != def.ranks || !matches!(def.files, 8 | 10) {
        return Err(format!("a {}x{} board (compiled: 8x8 and 10x10)", def.files, def.ranks));
    }
    let mut kinds = Vec::new();
    for p in def.pieces() {
        let k = kind_of(p.letter, &p.betza)?;
        if p.royal != (k == PieceKind::King) {
            return Err(format!("'{}' is royal only if it is the King", p.letter));
        }
        kinds.push(k);
    }
    for needed in [PieceKind::King, PieceKind::Pawn] {
        if !kinds.contains(&needed) {
            return Err(format!("no {needed:?}"));
        }
    }
    let mut promotions = kinds_of(&def.promotion_letters(true), def)?;
    promotions.sort_by_key(|k| PROMOTION_ORDER.iter().position(|o| o == k));
    if !f.same_promotions || !f.mandatory_promotion || f.promotion_rank != Some(def.ranks - 1) {
        return Err("pawns must promote on the last rank, to the same types for both sides".into());
    }
    let Some(double_step_rank) = f.double_step_rank else {
        return Err("pawns double-step from one whole rank".into());
    };
    if !f.en_passant_anywhere {
        return Err("an en passant region".into());
    }
    if f.castling {
        let orthodox = def
            .castling_squares()
            .is_some_and(|c| c.rank == 0 && c.king_to == [6, 2] && c.rook_from == [7, 0] && f.castling_king_file == 4);
        let chess960 = def.chess960 && f.castling_rank == 0;
        if def.files != 8 || !(orthodox || chess960) {
            return Err("castling other than orthodox or Chess960 on 8x8".into());
        }
    }
    if f.pieces_in_hand {
        return Err("pieces in hand".into());
    }
    if def.chess960 && f.pioneer.is_some() {
        return Err("Pioneer gating with Chess960 castling".into());
    }
    let gating = match f.pioneer {
        None => None,
        Some((letter, count, same_file)) => Some((kinds_of(&[letter], def)?[0], count, same_file)),
    };
    let kidnap = match f.kidnap {
        None => None,
        Some((letter, one_step)) => {
            if kinds_of(&[letter], def)?[0] != PieceKind::Alseid {
                return Err("only the Alseid kidnaps".into());
            }
            Some(one_step)
        }
    };
    // Camel and Rhino Chess's mechanisms are compiled as that game has them.
    let takeovers = match &f.takeovers {
        None => false,
        Some(t) => {
            let camel_rhino = t.leap == ['C', 'H']
                && t.diagonal_first == ['H', 'Z']
                && t.enabled_leap == ['N', 'Z']
                && sorted(&t.enabled_jump) == sorted(&['P', 'B', 'R', 'Q', 'W', 'K'])
                && t.enablers == ['C', 'H'];
            if !camel_rhino {
                return Err(format!("takeovers other than Camel and Rhino Chess's: {t:?}"));
            }
            true
        }
    };
    let swaps = match &f.swap_except {
        None => false,
        Some(except) if sorted_pairs(except) == vec![('P', 'P'), ('W', 'W')] => true,
        Some(except) => return Err(format!("swaps with exceptions {except:?} (compiled: Wazir-Wazir, Pawn-Pawn)")),
    };
    let wazir_promotes = match f.promoting.as_slice() {
        [] => false,
        ['W'] => true,
        other => return Err(format!("promoting pieces {other:?} (compiled: the Wazir)")),
    };
    let g = &def.game_end;
    let orthodox_end = (g.checkmate_value, g.stalemate_value, g.n_move_rule, g.n_fold_rule, g.n_fold_value)
        == (GameValue::Loss, GameValue::Draw, 50, 3, GameValue::Draw)
        && g.counting_rule == CountingRule::None;
    if !orthodox_end {
        return Err("game ends other than checkmate, stalemate, fifty moves and threefold repetition".into());
    }
    let camel_rhino_loss = match (&f.extinction_letters, g.extinction_value) {
        (_, GameValue::None) => false,
        (Some(l), GameValue::Loss)
            if sorted(l) == ['C', 'H'] && f.extinction_together && g.extinction_piece_count == 0 =>
        {
            true
        }
        _ => return Err("extinction other than the loss of every Camel and Rhino".into()),
    };
    if takeovers != swaps || takeovers != camel_rhino_loss || takeovers != wazir_promotes {
        return Err("takeovers, swaps, the Camel/Rhino loss and Wazir promotion come together".into());
    }
    Ok(CompiledRules {
        kinds,
        promotions,
        castling: f.castling,
        chess960: def.chess960,
        gating,
        kidnap,
        takeovers,
        swaps,
        camel_rhino_loss,
        wazir_promotes,
        double_step_rank,
    })
}

/// `games.rs`'s constants for one definition.
#[cfg_attr(not(test), allow(dead_code))] // used by build.rs and the tests
pub(crate) fn compile(constant: &str, def: &Arc<VariantDef>) -> Result<String, String> {
    let r = rules(def)?;
    let gating = match r.gating {
        None => "None".to_string(),
        Some((piece, count, same_file)) => {
            format!("Some(Gating {{ piece: PieceKind::{piece:?}, count: {count}, same_file: {same_file} }})")
        }
    };
    let kidnap = match r.kidnap {
        None => "Kidnap::None",
        Some(true) => "Kidnap::OneStep",
        Some(false) => "Kidnap::Always",
    };
    let mut code = String::new();
    let _ = writeln!(code, "/// `[{}]`, compiled.", def.name);
    let _ = writeln!(code, "pub(crate) const {constant}: CompiledGame = CompiledGame {{");
    let _ = writeln!(code, "    name: {:?},", def.name);
    let _ = writeln!(code, "    files: {},", def.files);
    let _ = writeln!(code, "    start_fen: {:?},", def.start_fen);
    let _ = writeln!(code, "    start: {},", start_pieces(def)?);
    let _ = writeln!(code, "    rules: Rules {{");
    let _ = writeln!(code, "        kinds: kinds({}),", kind_list(&r.kinds));
    let _ = writeln!(code, "        promotions: {},", kind_list(&r.promotions));
    let _ = writeln!(code, "        castling: {},", r.castling);
    let _ = writeln!(code, "        chess960: {},", r.chess960);
    let _ = writeln!(code, "        gating: {gating},");
    let _ = writeln!(code, "        kidnap: {kidnap},");
    let _ = writeln!(code, "        takeovers: {},", r.takeovers);
    let _ = writeln!(code, "        swaps: {},", r.swaps);
    let _ = writeln!(code, "        camel_rhino_loss: {},", r.camel_rhino_loss);
    let _ = writeln!(code, "        wazir_promotes: {},", r.wazir_promotes);
    let _ = writeln!(code, "        double_step_rank: {},", r.double_step_rank);
    // Swaps take pawns back to their first rank.
    let _ = writeln!(code, "        pawns_anywhere: {},", r.swaps);
    let _ = writeln!(code, "    }},");
    let _ = writeln!(code, "}};\n");
    Ok(code)
}

fn sorted(letters: &[char]) -> Vec<char> {
    let mut v = letters.to_vec();
    v.sort_unstable();
    v
}

fn sorted_pairs(pairs: &[(char, char)]) -> Vec<(char, char)> {
    let mut v: Vec<(char, char)> = pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    v.sort_unstable();
    v
}

#[cfg_attr(not(test), allow(dead_code))] // used by build.rs and the tests
/// The start position's pieces as `(square index, white, kind)`, as the
/// definition's own start position holds them.
fn start_pieces(def: &Arc<VariantDef>) -> Result<String, String> {
    let start = Position::start(def);
    let pieces: Vec<PieceInfo> = def.pieces().collect();
    let mut items = Vec::new();
    for sq in 0..start.squares() as u8 {
        if let Some(p) = start.piece_on(sq) {
            let info = &pieces[usize::from(p.kind)];
            let kind = kind_of(info.letter, &info.betza)?;
            items.push(format!("({sq}, {}, PieceKind::{kind:?})", p.white));
        }
    }
    Ok(format!("&[{}]", items.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::compile;
    use menagerie_rules::{Definitions, MENAGERIE_INI};

    /// Why the definition `section` (loaded beside Menagerie's games) cannot
    /// be compiled, or `None` if it can.
    fn refusal(section: &str) -> Option<String> {
        let mut defs = Definitions::builtin();
        defs.load(MENAGERIE_INI, "menagerie.ini").expect("menagerie.ini loads");
        let names = defs.load(section, "test.ini").expect("the section loads");
        compile("TEST", defs.get(&names[0]).expect("loaded")).err()
    }

    #[test]
    fn menagerie_games_compile() {
        for game in
            ["chess", "chess960", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino"]
        {
            assert_eq!(refusal(&format!("[test-{game}:{game}]")), None, "{game}");
        }
        // Compiled pieces in other games: Alpacas on the board from the start.
        let onboard = "[onboard:chess]\ncustomPiece1 = a:WmD\nstartFen = rnbqkbnr/pppppppp/2a5/8/8/5A2/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(refusal(onboard), None);
    }

    #[test]
    fn what_the_compiled_core_cannot_play_is_refused() {
        let cases = [
            ("[x:alpaca]\ncustomPiece1 = a:WmA", "no compiled piece is 'A' moving as WmA"),
            (
                "[x:chess]\ncustomPiece1 = h:BN\nstartFen = rnbqkhnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKHNR w KQkq - 0 1",
                "'H' moving as BN",
            ),
            ("[x:capablanca]", "a 10x8 board"),
            ("[x:chess]\ndoubleStep = false", "double-step"),
            ("[x:chess]\nnMoveRule = 40", "fifty moves"),
            ("[x:chess]\npromotionRegionWhite = *7 *8", "promote on the last rank"),
            ("[x:camel-rhino]\nswapExcept = ww", "swaps with exceptions"),
            ("[x:camel-rhino]\nleapTakeovers = c:orthogonal", "takeovers other than"),
            ("[x:camel-rhino]\npromotingPieces = -", "come together"),
            ("[x:seirawan]", "moving as"),
            ("[x:alpaca960]", "Pioneer gating with Chess960"),
        ];
        for (section, why) in cases {
            let refused = refusal(section).unwrap_or_else(|| panic!("{section} compiles"));
            assert!(refused.contains(why), "{section}: {refused}");
        }
    }
}
