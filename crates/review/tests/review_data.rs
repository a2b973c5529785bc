//! Reviews of games of variants defined as data: the same review as the
//! compiled variants, searched by the data-variant engine, with pictures
//! of the variant's board and the annotated PGN read back.

use menagerie_notation::pgn::{self, AnyPgnGame, DataPgnGame, PgnGame, ReadOptions};
use menagerie_review::{Budget, Eval, ReviewOptions, Side, SvgMode, review};
use menagerie_rules::{Definitions, Position, VariantDef};
use std::sync::{Arc, OnceLock};

type Res = Result<(), Box<dyn std::error::Error>>;

fn def(name: &str) -> Arc<VariantDef> {
    static DEFS: OnceLock<Definitions> = OnceLock::new();
    DEFS.get_or_init(Definitions::builtin).get(name).cloned().unwrap_or_else(|| panic!("{name} is built in"))
}

fn quick() -> ReviewOptions {
    ReviewOptions { budget: Budget::Depth(2), workers: 2, hash_mb: 4, ..ReviewOptions::default() }
}

/// The game of `def` from `fen` (the start if empty) after `moves` in coordinates.
fn game(def: &Arc<VariantDef>, fen: &str, moves: &[&str]) -> Result<DataPgnGame, Box<dyn std::error::Error>> {
    let start = if fen.is_empty() { Position::start(def) } else { Position::from_fen(def, fen)? };
    let mut g = PgnGame::from_position(start);
    for text in moves {
        let m = g.final_position()?.parse_move(text)?;
        g.push(m)?;
    }
    Ok(g)
}

#[test]
fn a_capablanca_game_is_reviewed_and_annotated() -> Res {
    let d = def("capablanca");
    let g = game(&d, "", &["e2e4", "e7e5", "i1h3", "b8c6", "c1d3", "j7j6"])?;
    let options = ReviewOptions { svg: SvgMode::All, ..quick() };
    let mut events = 0;
    let r = review(&g, &options, |_| events += 1)?;
    assert_eq!(r.variant, "capablanca");
    assert_eq!(r.positions.len(), 7);
    assert_eq!(r.moves.len(), 6);
    assert_eq!(events, 1 + 7 + 6);
    assert_eq!(r.positions[0].fen, d.start_fen);
    assert_eq!(
        r.moves.iter().map(|m| m.played_uci.as_str()).collect::<Vec<_>>(),
        ["e2e4", "e7e5", "i1h3", "b8c6", "c1d3", "j7j6"]
    );
    assert_eq!(r.moves.iter().map(|m| m.played_san.clone()).collect::<Vec<_>>(), g.san_moves()?);
    assert_eq!(r.moves[2].move_number, 2);
    assert_eq!(r.moves[3].colour, Side::Black);
    for m in &r.moves {
        assert!(!m.best_uci.is_empty() && !m.best_san.is_empty(), "{m:?}");
        let svg = m.svg.as_deref().unwrap_or_default();
        assert_eq!(svg.matches("class=\"square ").count(), 80, "move {}", m.index);
    }
    // The annotated PGN reads back as the same capablanca game.
    let text = r.annotated_pgn(&g)?;
    assert!(text.contains("[Variant \"capablanca\"]") && text.contains("[%eval"), "{text}");
    let lookup = move |_: Option<&str>| Some(Arc::clone(&d));
    let back = pgn::read_str_any(&text, ReadOptions::default(), lookup)?;
    let Some(AnyPgnGame::Data(back)) = back.first() else { panic!("{back:?}") };
    assert_eq!(back.san_moves()?, g.san_moves()?);
    // A review of another game does not annotate this one.
    let other = game(&def("capablanca"), "", &["e2e4"])?;
    assert!(r.annotate(&other).is_err());
    Ok(())
}

#[test]
fn a_data_variant_mate_ends_the_review() -> Res {
    let d = def("capablanca");
    let g = game(&d, "k9/2K7/10/10/10/10/10/1Q8 w - - 0 1", &["b1b8"])?;
    let r = review(&g, &quick(), |_| {})?;
    let last = r.positions.last().ok_or("positions")?;
    assert_eq!(last.score, Eval::Won(Side::White));
    let end = last.outcome.as_ref().ok_or("an outcome")?;
    assert_eq!((end.result.as_str(), end.description.as_str()), ("1-0", "checkmate, White wins"));
    // Qb8# or Qa1#.
    assert!(matches!(r.positions[0].score, Eval::Mate(n) if n > 0), "{:?}", r.positions[0]);
    assert!(r.annotated_pgn(&g)?.contains("Checkmate, White wins."));
    // Makruk: the game's own counting and repetition rules end it too.
    let makruk = def("makruk");
    let shuffle = ["b1d2", "b8d7", "d2b1", "d7b8", "b1d2", "b8d7", "d2b1", "d7b8"];
    let g = game(&makruk, "", &shuffle)?;
    let r = review(&g, &quick(), |_| {})?;
    let end = r.positions.last().and_then(|p| p.outcome.clone()).ok_or("an outcome")?;
    assert_eq!(end.result, "1/2-1/2", "{end:?}");
    assert!(end.description.starts_with("repetition"), "{end:?}");
    Ok(())
}
