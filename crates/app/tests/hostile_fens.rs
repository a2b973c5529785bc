//! Hostile FENs in the variants defined as data: checked
//! ([`Variants::check_fen`]) and, when valid, their moves described,
//! without a panic.

use menagerie_app::{DataPosition, Variants};

/// Malformed and odd FENs in every built-in data variant: each is
/// answered (valid or not), and a valid one's moves are described,
/// without a panic.
#[test]
fn hostile_fens_never_panic() {
    let variants = Variants::builtin();
    let names: Vec<String> = variants.catalogue().into_iter().filter(|v| v.defined_as_data).map(|v| v.name).collect();
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
                let _ = variants.check_fen(name, &fen);
                if let Ok(p) = DataPosition::from_fen(&def, &fen) {
                    let game = menagerie_game::Game::new(p.clone().into());
                    let _ = menagerie_app::play::status(&game);
                    let _ = p.fen();
                    for m in game.current().legal_moves() {
                        let (_, after) = menagerie_app::play::describe(game.current(), m);
                        let _ = after.legal_moves().len();
                    }
                }
            });
            assert!(r.is_ok(), "{name}: {fen}");
        }
    }
}
