//! Reads `variant;fen-or-startpos;moves` lines on standard input and prints,
//! for each, `fen;legal moves` after playing the moves (for comparing with
//! another engine), or `divide <variant>;<fen>;<depth>` to print a divide.
//! An optional argument names an extra variants.ini file to load.

use std::io::{BufRead, Write};

use menagerie_rules::{Definitions, Position};

fn main() {
    let mut defs = Definitions::builtin();
    if let Some(path) = std::env::args().nth(1) {
        let loaded = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| defs.load(&text, &path).map_err(|e| e.to_string()));
        if let Err(e) = loaded {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let (divide, line) = match line.strip_prefix("divide ") {
            Some(rest) => (true, rest.to_string()),
            None => (false, line),
        };
        let parts: Vec<&str> = line.split(';').collect();
        if parts.len() != 3 {
            let _ = writeln!(out, "error: expected variant;fen;moves");
            continue;
        }
        let Some(def) = defs.get(parts[0]) else {
            let _ = writeln!(out, "error: unknown variant {}", parts[0]);
            continue;
        };
        let pos = if parts[1] == "startpos" { Ok(Position::start(def)) } else { Position::from_fen(def, parts[1]) };
        let mut pos = match pos {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(out, "error: {e}");
                continue;
            }
        };
        if divide {
            let depth: u32 = parts[2].trim().parse().unwrap_or(1);
            let mut total = 0;
            for (m, n) in pos.divide(depth) {
                total += n;
                let _ = writeln!(out, "{m} {n}");
            }
            let _ = writeln!(out, "total {total}");
            continue;
        }
        let mut ok = true;
        for m in parts[2].split_whitespace() {
            match pos.parse_move(m) {
                Ok(mv) => pos = pos.play(mv),
                Err(e) => {
                    let _ = writeln!(out, "error: {e}");
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            let mut moves: Vec<String> = pos.legal_moves().into_iter().map(|m| pos.move_text(m)).collect();
            moves.sort();
            let _ = writeln!(out, "{};{}", pos.fen(), moves.join(" "));
        }
        let _ = out.flush();
    }
}
