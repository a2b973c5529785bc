//! `perft <variant> <fen|startpos> <depth> [divide]`: counts leaf nodes and
//! reports the speed.

use std::time::Instant;

use menagerie_rules::{Definitions, Position};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: perft <variant> <fen|startpos> <depth> [divide]");
        std::process::exit(2);
    }
    let defs = Definitions::builtin();
    let Some(def) = defs.get(&args[1]) else {
        eprintln!("unknown variant {}", args[1]);
        std::process::exit(2);
    };
    let pos = if args[2] == "startpos" {
        Position::start(def)
    } else {
        match Position::from_fen(def, &args[2]) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    };
    let Ok(depth) = args[3].parse::<u32>() else {
        eprintln!("bad depth {}", args[3]);
        std::process::exit(2);
    };
    let t = Instant::now();
    let nodes = if args.get(4).map(String::as_str) == Some("divide") {
        let mut total = 0;
        for (m, n) in pos.divide(depth) {
            println!("{m}: {n}");
            total += n;
        }
        total
    } else {
        pos.perft(depth)
    };
    let s = t.elapsed().as_secs_f64();
    println!("nodes {nodes} time {s:.3}s {:.2} Mnps", nodes as f64 / s / 1e6);
}
