//! Searches a position of a built-in data-defined variant and prints the
//! piece values, info lines and best move.
//!
//! `cargo run --release -p menagerie-search --example data_search -- capablanca [movetime_ms] [fen]`

use menagerie_rules::{Definitions, Position};
use menagerie_search::{DataEval, Engine, EngineOptions, Limits};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("capablanca", String::as_str);
    let ms: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1000);
    let defs = Definitions::builtin();
    let Some(def) = defs.get(name) else {
        eprintln!("unknown variant {name}");
        return;
    };
    let pos = match args.get(3) {
        Some(fen) => match Position::from_fen(def, fen) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                return;
            }
        },
        None => Position::start(def),
    };
    let eval = DataEval::new(def);
    for (i, p) in def.pieces().enumerate() {
        println!("{} {:<12} {:<10} {}", p.letter, p.name, p.betza, eval.value(i as u8));
    }
    let mut engine = Engine::new(EngineOptions { hash_mb: 64, threads: 1, multipv: 1 });
    if let Err(e) = engine.set_position(pos.clone(), &[]) {
        eprintln!("{e}");
        return;
    }
    let root = engine.position().clone();
    let r = engine.search(Limits::movetime(Duration::from_millis(ms)), move |i| {
        let pv = root.line_text(&i.pv, false);
        println!(
            "info depth {} seldepth {} score {:?} nodes {} nps {} time {} pv {}",
            i.depth,
            i.seldepth,
            i.score,
            i.nodes,
            i.nps,
            i.time_ms,
            pv.join(" ")
        );
    });
    println!(
        "bestmove {} depth {} nodes {} time {} ms nps {}",
        r.best.map_or("(none)".into(), |m| engine.position().move_text(m)),
        r.depth,
        r.nodes,
        r.time_ms,
        r.nodes * 1000 / r.time_ms.max(1)
    );
}
