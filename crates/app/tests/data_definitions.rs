//! Menagerie's compiled games and their data definitions
//! (`crates/rules/menagerie.ini`) agree move for move: along seeded random
//! games, the same legal moves in the same notation and the same FEN (but
//! the en passant field, which the compiled games write after every double
//! step and the data core only when a capture is possible).

use menagerie_notation::{fen, san, uci};
use menagerie_rules::{Definitions, MENAGERIE_INI, Position};
use menagerie_testkit::Rng;
use menagerie_variants::{AnyPosition, VariantId};

/// The FEN without its en passant field.
fn without_ep(fen: &str) -> String {
    fen.split_whitespace().enumerate().filter(|&(i, _)| i != 3).map(|(_, f)| f).collect::<Vec<_>>().join(" ")
}

#[test]
fn compiled_games_and_their_data_definitions_agree_along_random_games() {
    let mut defs = Definitions::builtin();
    defs.load(MENAGERIE_INI, "menagerie.ini").expect("menagerie.ini loads");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut plies = 0;
    for name in
        ["chess", "alpaca", "alpaca2", "alpaca-samefile", "alseid", "alseid-weak", "camel-rhino-plain", "camel-rhino"]
    {
        let variant = VariantId::from_name_including_tests(name).expect("compiled");
        let def = defs.get(name).expect("defined as data");
        for game in 0..25 {
            let mut compiled = AnyPosition::start(variant);
            let mut data = Position::start(def);
            for ply in 0..120 {
                let at = format!("{name} game {game} ply {ply}: {}", fen::format(&compiled));
                assert_eq!(without_ep(&fen::format(&compiled)), without_ep(&data.fen()), "{at}");
                let mut a: Vec<String> = compiled.legal_moves().iter().map(|&m| uci::format(variant, m)).collect();
                let mut b: Vec<String> = data.legal_moves().into_iter().map(|m| data.move_text(m)).collect();
                a.sort();
                b.sort();
                assert_eq!(a, b, "{at}");
                if name.starts_with("camel-rhino") {
                    // Both write takeovers, swaps and promotions alike in SAN too.
                    let legal = compiled.legal_moves();
                    let mut a: Vec<String> = legal.iter().map(|&m| san::format_with(&compiled, m, &legal)).collect();
                    let mut b: Vec<String> = data.legal_moves().into_iter().map(|m| data.san(m)).collect();
                    a.sort();
                    b.sort();
                    assert_eq!(a, b, "{at}");
                }
                if a.is_empty() {
                    break;
                }
                let text = &a[rng.below(a.len())];
                let m = compiled.legal_moves().iter().copied().find(|&m| uci::format(variant, m) == *text);
                compiled = compiled.play_unchecked(m.expect("listed"));
                data = data.play(data.parse_move(text).expect("listed"));
                plies += 1;
            }
        }
    }
    assert!(plies > 10_000, "{plies} plies compared");
}
