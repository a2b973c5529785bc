//! The UCI protocol.

use crate::session::{Session, send};
use menagerie_app::Variants;
use menagerie_app::perft::Perft;
use menagerie_game::{Move, Position};
use menagerie_notation::uci;
use menagerie_search::wdl::{self, WdlModel};
use menagerie_search::{Info, Limits, Score};
use menagerie_search::{MAX_ELO, MIN_ELO, Strength};
use menagerie_variants::{PerftControl, VariantId};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

/// Formats an info line; `pos` is the root of the search, `chess960`
/// the castling form of compiled games ([`Position::wire_text`]), `wdl`
/// the root's win/draw/loss model when `UCI_ShowWDL` is on.
pub fn info_line(pos: &Position, i: &Info, chess960: bool, wdl: Option<RootWdl>) -> String {
    format_info(i, &pos.line_text(&i.pv, chess960), wdl)
}

/// What turns a search's scores into win/draw/loss chances at its root:
/// the game's model and the root's material fraction.
#[derive(Clone, Copy, Debug)]
pub struct RootWdl {
    model: WdlModel,
    material: f64,
}

impl RootWdl {
    /// The model of the game named `variant` at the position `fen` (the
    /// game starting at `start_fen`).
    pub fn new(variant: &str, fen: &str, start_fen: &str) -> RootWdl {
        RootWdl { model: WdlModel::for_variant(variant), material: wdl::material_fraction(fen, start_fen) }
    }
}

/// An info line of any search, its variation already written as `pv`.
fn format_info<M>(i: &Info<M>, pv: &[String], wdl: Option<RootWdl>) -> String {
    let mut score = match i.score {
        Score::Cp(c) => format!("cp {c}"),
        Score::Mate(m) => format!("mate {m}"),
    };
    if let Some(r) = wdl {
        let w = r.model.wdl(i.score, r.material);
        score.push_str(&format!(" wdl {} {} {}", w.win, w.draw, w.loss));
    }
    format!(
        "info depth {} seldepth {} multipv {} score {score} nodes {} nps {} hashfull {} time {} pv {}",
        i.depth,
        i.seldepth,
        i.multipv,
        i.nodes,
        i.nps,
        i.hashfull,
        i.time_ms,
        pv.join(" ")
    )
}

fn bestmove_line(pos: &Position, best: Option<Move>, ponder: Option<Move>, chess960: bool) -> String {
    let Some(b) = best else { return "bestmove (none)".to_string() };
    let line: Vec<Move> = std::iter::once(b).chain(ponder).collect();
    match &pos.line_text(&line, chess960)[..] {
        [b, p] => format!("bestmove {b} ponder {p}"),
        [b, ..] => format!("bestmove {b}"),
        [] => "bestmove (none)".to_string(),
    }
}

/// The `UCI_Variant` option: the compiled variants, then those defined as
/// data (built in or loaded), by name.
pub fn variants_combo(variants: &Variants) -> String {
    let mut s = format!("option name UCI_Variant type combo default {}", VariantId::Chess.name());
    for name in variants.all_names() {
        s.push_str(&format!(" var {name}"));
    }
    s
}

/// Handles one UCI command; returns false on `quit`.
pub fn handle(s: &mut Session, line: &str) -> bool {
    let mut words = line.split_whitespace();
    let Some(cmd) = words.next() else { return true };
    let rest: Vec<&str> = words.collect();
    match cmd {
        "uci" => {
            send(&format!("id name Menagerie {}", env!("CARGO_PKG_VERSION")));
            send("id author the Menagerie developers");
            send("option name Hash type spin default 64 min 1 max 65536");
            send("option name Threads type spin default 1 min 1 max 512");
            send("option name MultiPV type spin default 1 min 1 max 256");
            send("option name Clear Hash type button");
            send("option name Ponder type check default false");
            send("option name UCI_LimitStrength type check default false");
            send(&format!("option name UCI_Elo type spin default {DEFAULT_ELO} min {MIN_ELO} max {MAX_ELO}"));
            send("option name UCI_Chess960 type check default false");
            send("option name UCI_ShowWDL type check default false");
            send(&format!(
                "option name Move Overhead type spin default {DEFAULT_MOVE_OVERHEAD} min 0 max {MAX_MOVE_OVERHEAD}"
            ));
            send("option name VariantPath type string default <empty>");
            send(&format!("option name StrictVariants type check default {}", s.strict_variants));
            send("option name EvalFile type string default <empty>");
            send("option name UseNNUE type check default true");
            send(&variants_combo(&s.variants));
            send("uciok");
        }
        "isready" => send("readyok"),
        "debug" => {
            if let Ok(mut d) = s.debug.lock() {
                *d = rest.first() == Some(&"on");
            }
        }
        "setoption" => setoption(s, &rest),
        "ucinewgame" => {
            s.stop_and_wait();
            s.engine.new_game();
            s.game_seed = s.game_seed.wrapping_add(1);
            s.restart();
        }
        "position" => {
            s.stop_and_wait();
            position(s, &rest);
        }
        "go" => go(s, &rest),
        "stop" => {
            s.ponder_limits = None;
            s.stop_and_wait();
        }
        "ponderhit" => ponderhit(s),
        "quit" => {
            s.stop_and_wait();
            return false;
        }
        "d" => {
            let p = s.position();
            send(&format!("info string fen {}", p.fen()));
            let legal: Vec<String> = p.legal_moves().into_iter().map(|m| p.wire_text(m, s.chess960)).collect();
            send(&format!("info string legal {}", legal.join(" ")));
        }
        _ => send(&format!("info string unknown command '{line}'")),
    }
    true
}

/// `Move Overhead` until set, in milliseconds (Stockfish's default).
pub const DEFAULT_MOVE_OVERHEAD: u64 = 10;
/// The largest `Move Overhead`, in milliseconds.
const MAX_MOVE_OVERHEAD: u64 = 5000;

/// Takes `overhead` off both clocks of `go` (never below 1 ms), so the
/// time the GUI and the pipes take is not lost on the clock.
fn apply_move_overhead(limits: &mut Limits, overhead: Duration) {
    for clock in [&mut limits.wtime, &mut limits.btime].into_iter().flatten() {
        *clock = clock.saturating_sub(overhead).max(Duration::from_millis(1));
    }
}

/// The Elo of `UCI_Elo` until set.
pub const DEFAULT_ELO: u32 = 1500;

/// A UCI check value.
fn check(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn setoption(s: &mut Session, rest: &[&str]) {
    let text = rest.join(" ");
    let (name, value) = match text.strip_prefix("name ") {
        Some(t) => match t.split_once(" value ") {
            Some((n, v)) => (n.trim().to_string(), v.trim().to_string()),
            None => (t.trim().to_string(), String::new()),
        },
        None => {
            send("info string setoption needs 'name'");
            return;
        }
    };
    s.stop_and_wait();
    let number = || value.parse::<usize>().ok();
    match name.to_ascii_lowercase().as_str() {
        "hash" => match number() {
            Some(mb) if (1..=65536).contains(&mb) => {
                if let Err(e) = s.set_hash(mb) {
                    send(&format!("info string {e}"));
                }
            }
            _ => send(&format!("info string Hash must be 1..65536, got '{value}'")),
        },
        "threads" => match number() {
            Some(t) if (1..=512).contains(&t) => s.engine.set_threads(t),
            _ => send(&format!("info string Threads must be 1..512, got '{value}'")),
        },
        "multipv" => match number() {
            Some(n) if (1..=256).contains(&n) => s.engine.set_multipv(n),
            _ => send(&format!("info string MultiPV must be 1..256, got '{value}'")),
        },
        "clear hash" => s.engine.new_game(),
        "ponder" => match check(&value) {
            Some(_) => {} // `go ponder` works whatever the setting
            None => send(&format!("info string Ponder must be true or false, got '{value}'")),
        },
        "uci_limitstrength" => match check(&value) {
            Some(on) => s.limit_strength = on,
            None => send(&format!("info string UCI_LimitStrength must be true or false, got '{value}'")),
        },
        "uci_elo" => match value.parse::<u32>() {
            Ok(elo) if (MIN_ELO..=MAX_ELO).contains(&elo) => s.elo = elo,
            _ => send(&format!("info string UCI_Elo must be {MIN_ELO}..{MAX_ELO}, got '{value}'")),
        },
        "move overhead" => match value.parse::<u64>() {
            Ok(ms) if ms <= MAX_MOVE_OVERHEAD => s.move_overhead = Duration::from_millis(ms),
            _ => send(&format!("info string Move Overhead must be 0..{MAX_MOVE_OVERHEAD}, got '{value}'")),
        },
        "uci_showwdl" => match check(&value) {
            Some(on) => s.show_wdl = on,
            None => send(&format!("info string UCI_ShowWDL must be true or false, got '{value}'")),
        },
        "uci_chess960" => match check(&value) {
            Some(on) => {
                s.chess960 = on;
                if s.position().compiled().is_none() {
                    // Variants defined as data say themselves whether they are Chess960-like.
                    return;
                }
                let v = if s.variant == VariantId::Chess960 && !on { VariantId::Chess } else { s.variant };
                s.set_variant(v);
            }
            None => send(&format!("info string UCI_Chess960 must be true or false, got '{value}'")),
        },
        "uci_variant" => {
            if let Err(e) = s.select(&value) {
                send(&format!("info string {e}"));
            }
        }
        "variantpath" => variant_path(s, &value),
        "strictvariants" => match check(&value) {
            Some(on) => s.strict_variants = on,
            None => send(&format!("info string StrictVariants must be true or false, got '{value}'")),
        },
        "evalfile" => eval_file(s, &value),
        "usennue" => match check(&value) {
            Some(on) => s.engine.set_use_nnue(on),
            None => send(&format!("info string UseNNUE must be true or false, got '{value}'")),
        },
        _ => send(&format!("info string unknown option '{name}'")),
    }
}

/// `EvalFile`: loads a network file (docs/nnue.md) for the compiled game
/// its header names, replacing the embedded network of that game for the
/// rest of the process. A file that cannot be used is reported in an
/// `info string` and changes nothing.
fn eval_file(s: &mut Session, value: &str) {
    if value.is_empty() || value == "<empty>" {
        return;
    }
    match menagerie_search::nnue::registry::install_file(std::path::Path::new(value)) {
        Ok(id) => {
            // The table's entries hold the old evaluations.
            s.engine.new_game();
            let note = if id == s.variant || s.position().compiled().is_none() {
                String::new()
            } else {
                format!(" (the current game is {})", s.variant)
            };
            send(&format!("info string loaded network for {id} from {value}{note}"));
        }
        Err(e) => send(&format!("info string error: EvalFile: {e}")),
    }
}

/// `VariantPath`: loads `variants.ini` files (Fairy-Stockfish's format;
/// several separated as in `PATH`, as Fairy-Stockfish reads the option).
/// Fairy-Stockfish only updates its `UCI_Variant` combo, seen at the next
/// `uci`; Menagerie also prints the updated option line at once. A section
/// that cannot be played is skipped and reported (file, line, section,
/// reason) in an `info string warning:`, the others load; with
/// `StrictVariants` (or `--strict`) it makes the file add nothing and is
/// reported as an `info string error:`; the files before it stay loaded.
fn variant_path(s: &mut Session, value: &str) {
    if value.is_empty() || value == "<empty>" {
        return;
    }
    let mut loaded = false;
    for path in std::env::split_paths(value).filter(|p| !p.as_os_str().is_empty()) {
        match s.variants.load_file(&path, s.strict_variants) {
            Ok(file) => {
                loaded = true;
                for skipped in &file.skipped {
                    send(&format!("info string warning: VariantPath: {skipped}"));
                }
                let skipped =
                    if file.skipped.is_empty() { String::new() } else { format!(" ({} skipped)", file.skipped.len()) };
                let names = if file.added.is_empty() { String::new() } else { format!(": {}", file.added.join(", ")) };
                send(&format!(
                    "info string loaded {} variant(s) from {}{skipped}{names}",
                    file.added.len(),
                    path.display()
                ));
            }
            Err(e) => send(&format!("info string error: VariantPath: {e}")),
        }
    }
    if loaded {
        send(&variants_combo(&s.variants));
    }
}

fn position(s: &mut Session, rest: &[&str]) {
    let moves_at = rest.iter().position(|&w| w == "moves");
    let (spec, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let result = match spec.first() {
        Some(&"startpos") => s.set_game(None, moves),
        Some(&"fen") => {
            let f = spec[1..].join(" ");
            s.set_game(Some(&f), moves)
        }
        _ => Err("position needs 'startpos' or 'fen'".to_string()),
    };
    if let Err(e) = result {
        send(&format!("info string error: {e}"));
    }
}

/// The keywords of `go` (they end a `searchmoves` list).
const GO_KEYWORDS: [&str; 13] = [
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

fn go(s: &mut Session, rest: &[&str]) {
    let mut limits = Limits::default();
    let mut ponder = false;
    let mut i = 0;
    let num = |i: usize| rest.get(i + 1).and_then(|v| v.parse::<u64>().ok());
    let ms = |i: usize| num(i).map(Duration::from_millis);
    while i < rest.len() {
        match rest[i] {
            "perft" => {
                let depth = num(i).unwrap_or(1).min(12) as u32;
                s.stop_and_wait();
                perft(s, depth);
                return;
            }
            "depth" => limits.depth = num(i).map(|d| d.clamp(1, 100) as u32),
            "nodes" => limits.nodes = num(i),
            "movetime" => limits.movetime = ms(i),
            "wtime" => limits.wtime = ms(i),
            "btime" => limits.btime = ms(i),
            "winc" => limits.winc = ms(i),
            "binc" => limits.binc = ms(i),
            "movestogo" => limits.movestogo = num(i).map(|n| n as u32),
            "infinite" | "ponder" => {
                if rest[i] == "infinite" {
                    limits.infinite = true;
                } else {
                    ponder = true;
                }
                i += 1;
                continue;
            }
            "mate" => limits.depth = num(i).map(|m| m.saturating_mul(2).clamp(1, 100) as u32),
            "searchmoves" => {
                // Move tokens up to the next keyword of `go`.
                let pos = s.position().clone();
                i += 1;
                while i < rest.len() && !GO_KEYWORDS.contains(&rest[i]) {
                    let parsed = parse_searchmove(&pos, rest[i]).map(|m| limits.searchmoves.push(m));
                    if let Err(e) = parsed {
                        send(&format!("info string searchmoves: ignoring '{}': {e}", rest[i]));
                    }
                    i += 1;
                }
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    // Pondering searches without limits until `ponderhit` (then the real
    // limits apply) or `stop`; like `go infinite`, it never ends by itself.
    apply_move_overhead(&mut limits, s.move_overhead);
    if s.limit_strength {
        limits.strength = Some(Strength { elo: s.elo, seed: s.game_seed });
    }
    s.ponder_limits = None;
    if ponder {
        s.ponder_limits = Some(limits.clone());
        limits = Limits { infinite: true, searchmoves: limits.searchmoves.clone(), ..Limits::default() };
    }
    start_search(s, limits);
}

fn start_search(s: &mut Session, limits: Limits) {
    let root = s.position().clone();
    let chess960 = s.chess960;
    let hold = limits.infinite;
    let quiet = s.quiet_abort.clone();
    let wdl = s.show_wdl.then(|| RootWdl::new(&root.variant_name(), &root.fen(), &root.start_fen()));
    let info_root = root.clone();
    s.go(
        limits,
        hold,
        move |info| send(&info_line(&info_root, &info, chess960, wdl)),
        move |r| {
            if !quiet.load(std::sync::atomic::Ordering::Relaxed) {
                send(&bestmove_line(&root, r.best, r.ponder, chess960));
            }
        },
    );
}

/// A move of `go searchmoves`: coordinate notation as UCI writes it (for
/// compiled games strictly the wire form, as before: SAN is not read).
fn parse_searchmove(pos: &Position, text: &str) -> Result<Move, String> {
    match pos.compiled() {
        Some(p) => uci::parse(p, text).map(Move::from).map_err(|e| e.to_string()),
        None => pos.parse_move(text).map_err(|e| e.to_string()),
    }
}

/// The opponent played the expected move: the pondering search is replaced
/// by one with the clock limits of `go ponder` (the table keeps what
/// pondering found).
fn ponderhit(s: &mut Session) {
    let Some(limits) = s.ponder_limits.take() else { return };
    s.abort_quietly();
    start_search(s, limits);
}

fn perft(s: &Session, depth: u32) {
    let t = std::time::Instant::now();
    let mut total = 0;
    let perft = Perft::new(s.position().clone().into());
    let (stop, progress) = (AtomicBool::new(false), AtomicU64::new(0));
    let ctl = PerftControl { stop: &stop, progress: &progress, table: None };
    // On this thread up to depth 3, else on one worker; a panic in the
    // rules code must not take the engine down with it.
    let counts = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        perft.divide(depth.max(1), 1, &ctl, |_, _| Ok::<(), Infallible>(()), || None)
    }));
    let Ok(Ok(counts)) = counts else {
        send("info string error: perft failed (internal error)");
        return;
    };
    let rows = counts.into_iter().enumerate().map(|(i, n)| (perft.move_texts(i).0, n));
    for (m, n) in rows {
        send(&format!("{m}: {n}"));
        total += n;
    }
    send("");
    send(&format!("Nodes searched: {total}"));
    let secs = t.elapsed().as_secs_f64();
    send(&format!("info string perft time {:.3}s nps {}", secs, menagerie_app::nps(total, secs.max(1e-9))));
}

#[cfg(test)]
mod move_overhead_tests {
    use super::*;

    #[test]
    fn move_overhead_comes_off_both_clocks_only() {
        let ms = Duration::from_millis;
        let mut l = Limits { wtime: Some(ms(1000)), btime: Some(ms(5)), movetime: Some(ms(300)), ..Limits::default() };
        apply_move_overhead(&mut l, ms(30));
        assert_eq!((l.wtime, l.btime, l.movetime), (Some(ms(970)), Some(ms(1)), Some(ms(300))));
    }
}
